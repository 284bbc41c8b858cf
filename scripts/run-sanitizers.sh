#!/usr/bin/env bash
# The test suite again under AddressSanitizer and UndefinedBehaviorSanitizer, and the
# fuzzers: builds build-asan with clang (-O1, stopping at the first report) and runs the
# unit and CLI tests there plus every fuzz target for a fixed number of inputs. The
# experiments, plot scripts and style checks run only in the normal build
# (scripts/run-tests.sh): they check Python and formatting, or run the commands the CLI
# tests run at sizes that take minutes under the sanitizers. So do the MPI tests (mpi_*):
# their ranks run the code the one-process tests cover here, and Open MPI's runtime keeps
# allocations to the end that LeakSanitizer would report as leaks. Last, a few commands of
# the normal build under valgrind; failing tests do not skip it.
set -euo pipefail
cd "$(dirname "$0")/.."

jobs=$(nproc 2>/dev/null || echo 2)
CC=clang CXX=clang++ cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_FLAGS_DEBUG= -DCMAKE_C_FLAGS_DEBUG= -DPHASESIM_SANITIZE=ON \
  -DPHASESIM_CUDA=OFF -DPHASESIM_BUILD_BENCHMARKS=OFF "$@" >/dev/null
cmake --build build-asan --parallel "$jobs"
# Not repeated when it passed on this same tree and these programs (scripts/pass-stamp.sh).
stamp=build-asan/sanitizers.passed
programs=(build-asan/phasesim build-asan/tests/phasesim_tests build-asan/fuzz/fuzz_* build/phasesim)
if scripts/pass-stamp.sh check "$stamp" "${programs[@]}"; then exit 0; fi
# Every report ends the run with a stack; leaks are reported too.
export ASAN_OPTIONS=detect_leaks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
status=0
# Left to the first pass: what runs no instrumented code (the page is WebAssembly; scripts,
# style, architecture) and what only repeats it slowly (the README's examples took 159 s
# under ASan, 13 s without; the demo 62 s, its steps being the commands other cases run;
# the cases labelled `statistics` repeat one computation thousands of times to measure a
# rate, tests/CMakeLists.txt).
ctest --test-dir build-asan --output-on-failure --parallel "$jobs" --label-exclude '^statistics$' \
  --exclude-regex '^(experiment_|plot_|mpi_|web_|readme_examples$|demo prints every step|python_needs$|clang_format$|architecture$|architecture_check_fails$)' ||
  status=$?

# A few commands of the normal build (build/, optimized, as users run it) under valgrind's
# memcheck: it finds reads of uninitialised memory, which ASan does not look for. Seconds each;
# skipped, saying why, without valgrind or build/phasesim (scripts/build.sh).
valgrind_commands=(
  "coverage --window 8 --stride 4 --gate uniform"
  "channel --beta 4 --entries 64 --u 0.5,0.25"
  "optimize --beta 4 --entries 64 --restarts 2"
  "niah --window 8 --stride 4 --gates uniform;last --context 512 --groups 4 --prompts 8 --threads 1"
  "niah --engine full --dim 16 --window 8 --stride 4 --heads 2 --context 256 --groups 4 --prompts 2 --threads 1"
  "train --steps 5 --heads 2 --dim 8 --context 256 --batch 4 --groups 4 --prompts 4 --threads 1"
  "diagnose experiments/diagnose/expected/v4_table.csv --replicates 99 --threads 1"
)
if command -v valgrind >/dev/null && [[ -x build/phasesim ]]; then
  shim=build-asan/valgrind_hwy_timer.so
  g++ -shared -fPIC -O1 tests/tools/valgrind_hwy_timer.cpp -o "$shim"
  for command in "${valgrind_commands[@]}"; do
    IFS=' ' read -r -a words <<<"$command"
    # One OpenMP thread: libgomp's pool otherwise shows as "possibly lost" at exit.
    if OMP_NUM_THREADS=1 LD_PRELOAD=$PWD/$shim valgrind --quiet --error-exitcode=99 \
      --leak-check=full --show-leak-kinds=definite --errors-for-leak-kinds=definite \
      build/phasesim "${words[@]}" >/dev/null; then
      echo "valgrind: phasesim $command: clean"
    else
      echo "valgrind: phasesim $command: FAILED (the report is above)"
      status=1
    fi
  done
else
  echo "valgrind pass skipped: it needs valgrind (scripts/install-deps.sh --tests) and build/phasesim"
fi
if ((status == 0)); then scripts/pass-stamp.sh record "$stamp" "${programs[@]}" || true; fi
exit "$status"
