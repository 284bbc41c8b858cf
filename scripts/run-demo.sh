#!/usr/bin/env bash
# The README's first command: install what is missing, build, run the main job.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
# Issue 21: /usr/bin/python3 imports phasesim with no environment variable through a .pth
# file in the system's dist-packages naming build/python (as root only; otherwise use
# PYTHONPATH=build/python).
if [[ $(id -u) -eq 0 && -d build/python/phasesim && -d /usr/lib/python3/dist-packages ]]; then
  echo "$PWD/build/python" >/usr/lib/python3/dist-packages/phasesim.pth
fi
exec build/phasesim demo "$@"
