#!/usr/bin/env bash
# Configures and builds phasesim into build/ (incremental: rerunning is cheap).
set -euo pipefail
cd "$(dirname "$0")/.."

jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build build --parallel "$jobs"
