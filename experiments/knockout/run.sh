#!/usr/bin/env bash
# Run through experiments/run.sh, which sets PHASESIM, PYTHON, PLOTS and OUT.
set -euo pipefail
# The W8/S8 model of experiments/w8s8-heads (same gates, its fitted beta rounded).
model=(--window 8 --stride 8 --heads 8 --gates random:1:10 --beta 4.15 --context 131072 --groups 8)
files=()
for head in 0 1 2 3 4 5 6 7; do
  "$PHASESIM" niah "${model[@]}" --engine analytic --knockout "$head" --json "$OUT/knockout_$head.json" >/dev/null
  files+=("$OUT/knockout_$head.json")
done
"$PYTHON" summarize.py "$OUT/summary.json" "${files[@]}"
# One knockout by Monte Carlo too: the change comes with its paired standard error.
"$PHASESIM" niah "${model[@]}" --prompts 1024 --seed 5 --knockout 4 --json "$OUT/knockout_4_fast.json" | tail -12
"$PYTHON" "$PLOTS/gate_heatmap.py" "$OUT/knockout_0.json" --out "$OUT/figures/gates"
