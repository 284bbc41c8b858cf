#!/usr/bin/env bash
# The README's first command: install what is missing, build the program, run the main job.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh phasesim _phasesim  # the program and the Python module; the test command builds the rest
# /usr/bin/python3 imports phasesim with no environment variable through a .pth file in the
# system's dist-packages naming build/python (as root only; otherwise PYTHONPATH=build/python).
if [[ $(id -u) -eq 0 && -d build/python/phasesim && -d /usr/lib/python3/dist-packages ]]; then
  echo "$PWD/build/python" >/usr/lib/python3/dist-packages/phasesim.pth
fi
exec build/phasesim demo "$@"
