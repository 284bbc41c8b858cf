#!/usr/bin/env bash
# Configures build/ and builds TARGET... (everything when none is named); incremental, so a
# rerun is cheap. Both README commands build here with these same flags (Release, warnings as
# errors), so the test command reuses what the demo built. ccache and precompiled headers are
# set up by CMake (cmake/BuildSpeed.cmake).
#   scripts/build.sh [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."

jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DPHASESIM_WERROR=ON >/dev/null
targets=()
for target in "$@"; do
  targets+=(--target "$target")
done
cmake --build build --parallel "$jobs" "${targets[@]}"
