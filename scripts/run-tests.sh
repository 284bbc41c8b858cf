#!/usr/bin/env bash
# The README's second command: install what is missing, build with -Werror, run every test;
# then the same tests under the sanitizers and the fuzzers (scripts/run-sanitizers.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh -DPHASESIM_WERROR=ON
jobs=$(nproc 2>/dev/null || echo 2)
ctest --test-dir build --output-on-failure --parallel "$jobs" "$@"
# PHASESIM_SANITIZERS=0 skips the second pass (e.g. while iterating on one test).
if [[ ${PHASESIM_SANITIZERS:-1} != 0 ]]; then
  scripts/run-sanitizers.sh
fi
