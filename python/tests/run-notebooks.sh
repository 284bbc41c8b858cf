#!/bin/sh
# ctest python_notebooks: executes every notebook of NOTEBOOKS top to bottom with the module
# of BUILD/python (jupyter nbconvert --execute fails on an error cell), into a temporary
# folder: the committed notebooks keep their outputs. Exit 77 (skipped) without Jupyter.
build=$1
notebooks=$2
python=${PHASESIM_PYTHON:-/usr/bin/python3}
[ -x "$python" ] || python=python3
if ! ls "$build"/python/phasesim/_phasesim*.so >/dev/null 2>&1; then
  echo "skipped: the Python module was not built (install pybind11-dev and reconfigure)"
  exit 77
fi
if ! "$python" -m nbconvert --version >/dev/null 2>&1 ||
   ! "$python" -c "import ipykernel, matplotlib, pandas" 2>/dev/null; then
  echo "skipped: Jupyter is missing (Debian jupyter-nbconvert, python3-ipykernel," \
       "python3-matplotlib, python3-pandas)"
  exit 77
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
status=0
for notebook in "$notebooks"/*.ipynb; do
  start=$(date +%s)
  if PYTHONPATH="$build/python" MPLBACKEND=Agg "$python" -m nbconvert --execute --to notebook \
      --ExecutePreprocessor.timeout=120 --output-dir "$out" "$notebook" >"$out/log" 2>&1; then
    echo "ok: $(basename "$notebook") in $(($(date +%s) - start)) s"
  else
    cat "$out/log"
    echo "FAILED: $notebook"
    status=1
  fi
done
exit $status
