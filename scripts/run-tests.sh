#!/usr/bin/env bash
# The README's second command: install what is missing, build with -Werror, run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh -DPHASESIM_WERROR=ON
jobs=$(nproc 2>/dev/null || echo 2)
ctest --test-dir build --output-on-failure --parallel "$jobs" "$@"
