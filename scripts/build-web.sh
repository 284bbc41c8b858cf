#!/usr/bin/env bash
# Builds the teaching page into build-web/: the library and the CLI's commands compiled to
# WebAssembly by emscripten (Debian's `emscripten`), next to the page of web/. Open
# build-web/index.html in a browser; it needs no server and works offline.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v emcmake >/dev/null; then
  echo "phasesim: the web build needs emscripten: apt-get install emscripten (about 800 MB)" >&2
  exit 1
fi
# Debian's emscripten finds its JavaScript packages there when `node` is not Debian's own.
export NODE_PATH=${NODE_PATH:-/usr/share/nodejs}
jobs=$(nproc 2>/dev/null || echo 2)
emcmake cmake -S . -B build-web -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build build-web --parallel "$jobs"
echo "phasesim: open build-web/index.html"
