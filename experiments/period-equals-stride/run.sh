#!/usr/bin/env bash
# Run through experiments/run.sh, which sets PHASESIM, PYTHON, PLOTS and OUT.
set -euo pipefail
"$PHASESIM" sweep sweep.toml --out "$OUT/sweep"
"$PHASESIM" niah --window 1 --stride 1 --gates last --beta 4.5 --context 131072 --groups 24 \
  --prompts 256 --seed 2024 --json "$OUT/full_attention.json" >/dev/null
"$PYTHON" period.py "$OUT/sweep/results.csv" "$OUT/full_attention.json" "$OUT/periods.json"
"$PYTHON" "$PLOTS/sweep_heatmap.py" "$OUT/sweep/results.csv" --x group --y stride --value accuracy \
  --title "accuracy by group (needle position mod 24) and stride" --out "$OUT/figures/period_heatmap"
