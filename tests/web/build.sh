#!/usr/bin/env bash
# ctest web_build: scripts/build-web.sh, skipped (exit 77) without emscripten.
set -euo pipefail
if ! command -v emcmake >/dev/null; then
  echo "web_build skipped: no emscripten (apt-get install emscripten)"
  exit 77
fi
exec "$1/scripts/build-web.sh"
