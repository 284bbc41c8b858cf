#!/usr/bin/env bash
# Run through experiments/run.sh, which sets PHASESIM, PYTHON, PLOTS and OUT.
set -euo pipefail
"$PHASESIM" phase-diagram --window 8 --stride 4 --beta 4,5,6,8,10,12 \
  --entries 1024,32768,1000000 --json "$OUT/phase_diagram.json"
# The verdicts: inside the threshold regime (exit 0) and outside it (exit 5).
"$PHASESIM" theorem concentration --beta 5 --entries 32768 --json "$OUT/concentration_beta5.json"
status=0
"$PHASESIM" theorem concentration --beta 10 --entries 32768 --json "$OUT/concentration_beta10.json" || status=$?
[[ $status == 5 ]] || { echo "expected exit 5 outside the regime, got $status" >&2; exit 1; }
"$PYTHON" "$PLOTS/phase_diagram.py" "$OUT/phase_diagram.json" --out "$OUT/figures/phase_diagram"
