#!/usr/bin/env bash
# Runs one experiment (or all) and checks its result data against the checked-in
# expected output.
#
#   experiments/run.sh NAME            run NAME into experiments/NAME/out and compare
#   experiments/run.sh NAME --update   run, then make the new data the expected output
#   experiments/run.sh all             every experiment in turn
#   experiments/run.sh NAME:VARIANT    a smaller variant that NAME's run.sh offers (it sees
#                                      VARIANT), checked against NAME/expected-VARIANT
#
# PHASESIM_EXPERIMENTS_OUT=DIR puts the output in DIR/NAME instead (the test suite does,
# to keep the source tree clean).
# Needs build/phasesim (bash scripts/build.sh). Figures need a python3 with matplotlib.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
name=${1:?usage: experiments/run.sh NAME|all [--update]}
mode=${2:-check}

if [[ $name == all ]]; then
  for dir in "$here"/*/; do
    [[ -f $dir/run.sh && $(basename "$dir") != gpu ]] && "$0" "$(basename "$dir")" "$mode"
  done
  exit 0
fi

variant=
if [[ $name == *:* ]]; then variant=${name#*:}; name=${name%%:*}; fi
export VARIANT=$variant
suffix=${variant:+-$variant}
dir=$here/$name
[[ -f $dir/run.sh ]] || { echo "experiments/run.sh: no experiment '$name' (see experiments/README.md)" >&2; exit 2; }
source "$here/lib.sh"
export OUT=${PHASESIM_EXPERIMENTS_OUT:+$PHASESIM_EXPERIMENTS_OUT/$name$suffix}
OUT=${OUT:-$dir/out$suffix}
expected=$dir/expected$suffix
rm -rf "$OUT"
mkdir -p "$OUT"
echo "== experiment $name (output in $OUT)"
(cd "$dir" && bash ./run.sh)

if [[ $mode == --update ]]; then
  rm -rf "$expected"
  mkdir -p "$expected"
  (cd "$OUT" && find . -name '*.json' -o -name '*.csv' | while read -r f; do
    mkdir -p "$expected/$(dirname "$f")" && cp "$f" "$expected/$f"; done)
  echo "== $name$suffix: expected output updated"
else
  "$PYTHON" "$here/compare.py" "$expected" "$OUT"
fi
