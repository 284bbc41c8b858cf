#!/usr/bin/env bash
# ctest web_page: the teaching page in headless chromium (page_test.mjs), against the CLI.
# Skipped (exit 77), saying why, without chromium, node and npm, or without the web build
# (ctest web_build, scripts/build-web.sh, which needs emscripten).
# run.sh SOURCE_DIR PHASESIM_BINARY WORK_DIR
set -euo pipefail
source_dir=$1 phasesim=$2 work=$3

for tool in chromium node npm; do
  if ! command -v "$tool" >/dev/null; then
    echo "web_page skipped: no $tool (apt-get install chromium nodejs npm)"
    exit 77
  fi
done
if [[ ! -f $source_dir/build-web/phasesim-wasm.js ]]; then
  echo "web_page skipped: no web build (apt-get install emscripten; scripts/build-web.sh)"
  exit 77
fi
# playwright-core from the lock file, in the build tree; it downloads no browser.
mkdir -p "$work"
cp "$source_dir"/tests/web/{package.json,package-lock.json,page_test.mjs} "$work"/
(cd "$work" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --silent)
exec node "$work/page_test.mjs" "$source_dir/build-web" "$phasesim" "$work/screenshots"
