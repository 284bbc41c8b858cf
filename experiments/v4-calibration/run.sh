#!/usr/bin/env bash
# Run through experiments/run.sh, which sets PHASESIM, PYTHON, PLOTS and OUT.
set -euo pipefail
"$PYTHON" ../calibrate.py --window 8 --stride 4 --groups 8 --best 0.699 --worst 0.297 --out "$OUT/fit.json"
read -r beta gate < <("$PYTHON" -c "import json; f = json.load(open('$OUT/fit.json')); print(repr(f['beta']), f['gate'])")
for engine in analytic fast; do
  "$PHASESIM" niah --engine "$engine" --window 8 --stride 4 --gates "$gate" --beta "$beta" \
    --context 131072 --groups 8 --prompts 256 --seed 4 --json "$OUT/v4_$engine.json" >/dev/null
done
"$PHASESIM" niah --engine fast --window 8 --stride 4 --gates "$gate" --beta "$beta" --prompts 256 --seed 4
# The title states the exact values (the fit), not the sampled worst group (25.0).
"$PYTHON" "$PLOTS/niah_bars.py" "$OUT/v4_analytic.json" "$OUT/v4_fast.json" \
  --label "exact" --label "Monte Carlo, 256 prompts per group (95% interval)" \
  --title "V4-like model, one head, beta 9.51: exact best 69.9, worst 29.7 (dashed: means)" \
  --out "$OUT/figures/v4_bars"
"$PYTHON" "$PLOTS/phase_clock.py" "$OUT/v4_analytic.json" --label "V4-like (exact)" --out "$OUT/figures/v4_clock"
# The same table from a per-channel gate (MODEL.md section 9): a share of the channels one-hot
# on the newest slot, the rest uniform. Both fits reproduce it: the table cannot tell them apart.
"$PYTHON" ../calibrate.py --window 8 --stride 4 --groups 8 --best 0.699 --worst 0.297 \
  --family channels --out "$OUT/fit_channels.json"
read -r beta gate < <("$PYTHON" -c "import json; f = json.load(open('$OUT/fit_channels.json')); print(repr(f['beta']), f['gate'])")
"$PHASESIM" niah --engine analytic --window 8 --stride 4 --gates "$gate" --beta "$beta" \
  --context 131072 --groups 8 --json "$OUT/v4_channels_analytic.json"
