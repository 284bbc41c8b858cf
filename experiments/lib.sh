# Sourced by experiments/run.sh: the tools every experiment's run.sh uses.
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export PHASESIM=${PHASESIM:-$repo/build/phasesim}
export PLOTS=$repo/plots
[[ -x $PHASESIM ]] || { echo "experiments: $PHASESIM not found (run: bash scripts/build.sh)" >&2; exit 2; }

# A python3 that has matplotlib: Debian's first, since a python3 earlier on PATH may not.
# The test suite passes the one CMake found as PYTHON.
for candidate in ${PYTHON:-} /usr/bin/python3 python3; do
  PYTHON=
  if command -v "$candidate" >/dev/null && "$candidate" -c "import matplotlib, numpy" 2>/dev/null; then
    PYTHON=$(command -v "$candidate")
    break
  fi
done
[[ -n $PYTHON ]] || { echo "experiments: no python3 with matplotlib (run: bash scripts/install-deps.sh)" >&2; exit 2; }
export PYTHON
