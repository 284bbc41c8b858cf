#!/usr/bin/env bash
# The test suite again under AddressSanitizer and UndefinedBehaviorSanitizer, and the
# fuzzers: builds build-asan with clang (-O1, stopping at the first report) and runs the
# unit and CLI tests there plus every fuzz target for a fixed number of inputs. The
# experiments, plot scripts and style checks run only in the normal build
# (scripts/run-tests.sh): they check Python and formatting, or run the commands the CLI
# tests run at sizes that take minutes under the sanitizers. So do the MPI tests (mpi_*):
# their ranks run the code the one-process tests cover here, and Open MPI's runtime keeps
# allocations to the end that LeakSanitizer would report as leaks.
set -euo pipefail
cd "$(dirname "$0")/.."

jobs=$(nproc 2>/dev/null || echo 2)
CC=clang CXX=clang++ cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_FLAGS_DEBUG= -DCMAKE_C_FLAGS_DEBUG= -DPHASESIM_SANITIZE=ON \
  -DPHASESIM_CUDA=OFF -DPHASESIM_BUILD_BENCHMARKS=OFF "$@" >/dev/null
cmake --build build-asan --parallel "$jobs"
# Every report ends the run with a stack; leaks are reported too.
export ASAN_OPTIONS=detect_leaks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir build-asan --output-on-failure --parallel "$jobs" \
  --exclude-regex '^(experiment_|plot_|mpi_|clang_format$|architecture$|architecture_check_fails$)'
