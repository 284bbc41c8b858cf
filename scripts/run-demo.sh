#!/usr/bin/env bash
# The README's first command: install what is missing, build the program, run the main job.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh phasesim  # the program only; the test command builds the rest in build/ too
exec build/phasesim demo "$@"
