#!/usr/bin/env bash
# Run through experiments/run.sh, which sets PHASESIM, PYTHON, PLOTS and OUT.
set -euo pipefail
"$PYTHON" match_beta.py 0.611 "$OUT/beta.json"
beta=$("$PYTHON" -c "import json; print(repr(json.load(open('$OUT/beta.json'))['beta']))")
common=(--heads 8 --beta "$beta" --context 131072 --groups 8 --prompts 256 --seed 88)
# Eight heads with concentrated random gates: each locks onto a random phase (T2).
"$PHASESIM" niah --window 8 --stride 8 --gates random:1:10 "${common[@]}" --engine analytic \
  --json "$OUT/w8s8_analytic.json" >/dev/null
"$PHASESIM" niah --window 8 --stride 8 --gates random:1:10 "${common[@]}" --json "$OUT/w8s8_fast.json" >/dev/null
"$PHASESIM" niah --window 1 --stride 1 --gates last "${common[@]}" --json "$OUT/full_fast.json" >/dev/null
"$PYTHON" heads_per_phase.py "$OUT/w8s8_fast.json" "$OUT/full_fast.json" "$OUT/comparison.json"
"$PYTHON" "$PLOTS/niah_bars.py" "$OUT/w8s8_fast.json" "$OUT/full_fast.json" \
  --label "W8/S8, 8 heads" --label "full attention, 8 heads" --out "$OUT/figures/w8s8_vs_full"
"$PYTHON" "$PLOTS/gate_heatmap.py" "$OUT/w8s8_fast.json" --out "$OUT/figures/w8s8_gates"
