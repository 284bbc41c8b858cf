#!/bin/sh
# ctest python_module: the pytest suite of python/tests against the module in BUILD/python
# and the CLI BUILD/phasesim. Exit 77 (skipped) with a message when either is missing.
build=$1
python=${PHASESIM_PYTHON:-/usr/bin/python3}
[ -x "$python" ] || python=python3
if ! ls "$build"/python/phasesim/_phasesim*.so >/dev/null 2>&1; then
  echo "skipped: the Python module was not built (install pybind11-dev and reconfigure)"
  exit 77
fi
if ! "$python" -c "import pytest, numpy" 2>/dev/null; then
  echo "skipped: $python has no pytest or numpy (Debian python3-pytest, python3-numpy)"
  exit 77
fi
PYTHONPATH="$build/python" PHASESIM_CLI="$build/phasesim" PHASESIM_REFERENCE="$build/phasesim-reference" \
  exec "$python" -m pytest -q -p no:cacheprovider "$(dirname "$0")"
