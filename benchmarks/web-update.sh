#!/usr/bin/env bash
# The teaching page's responsiveness targets (issues 27 and 41): the browser test (tests/web)
# with 15 timed analytic updates (8 groups, 8 heads, W = 32) whose median must stay under 50 ms,
# and every panel's update (geometry, table, T1's optimal gate, T2's dynamics, T3) at W = 32 with
# 8 heads and at W = S = 128, the median of 5 updates each under 50 ms (PHASESIM_WEB_PANELS),
# printed with the load; and the frontier panel's update at 32k, 1M and 128k tokens, each under
# 500 ms (the page's 12 designs and the presets).
# Run it on an otherwise idle machine: ctest's web_page runs beside other tests and fails
# only past 250 ms. Needs build/phasesim (scripts/build.sh), build-web/ (scripts/build-web.sh)
# and chromium, node and npm; prints every check and the measured times.
#   bash benchmarks/web-update.sh
set -euo pipefail
cd "$(dirname "$0")/.."
PHASESIM_WEB_UPDATE_LIMIT_MS=50 PHASESIM_WEB_UPDATES=15 PHASESIM_WEB_PANELS=1 \
  exec tests/web/run.sh "$PWD" "$PWD/build/phasesim" "$PWD/build/web-benchmark"
