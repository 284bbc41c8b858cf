#!/usr/bin/env bash
# Run through experiments/run.sh, which sets PHASESIM, PYTHON, PLOTS and OUT.
set -euo pipefail
# Even residues (phase 0) are best: bias slot 2, the newest slot of phase 0 when W=4, S=2.
"$PYTHON" ../calibrate.py --window 4 --stride 2 --slot 2 --groups 8 --best 0.950 --worst 0.8975 \
  --out "$OUT/fit.json"
read -r beta gate < <("$PYTHON" -c "import json; f = json.load(open('$OUT/fit.json')); print(repr(f['beta']), f['gate'])")
"$PHASESIM" niah --engine fast --window 4 --stride 2 --gates "$gate" --beta "$beta" \
  --context 131072 --groups 8 --prompts 2560 --seed 41 --json "$OUT/v41_fast.json"
"$PYTHON" "$PLOTS/niah_bars.py" "$OUT/v41_fast.json" --label "V4.1-like, 2560 prompts per group" \
  --out "$OUT/figures/v41_bars"
# V4.1 pools non-overlapping windows of 2 channelwise (W = S = 2, MODEL.md section 9): the
# same alternation from one gate's bias on slot 0 (phase 0) and from a per-channel gate with a
# share of the channels one-hot on slot 0, the rest uniform.
for family in logit channels; do
  "$PYTHON" ../calibrate.py --window 2 --stride 2 --slot 0 --groups 8 --best 0.950 --worst 0.8975 \
    --family "$family" --out "$OUT/fit_w2s2_$family.json"
done
# What a bias would need on V4.1's compressor (v41-csa-biased.toml: the per-channel fit above,
# read by 64 query heads; it was presets/v41-csa.toml, which now has no bias, as V4.1's code) at
# the beta its file states, by Monte Carlo at the paper's 2560 prompts per group.
"$PHASESIM" niah --arch v41-csa-biased.toml --beta 7.7235 --engine fast --context 131072 \
  --groups 8 --prompts 2560 --seed 41 --json "$OUT/v41_biased_fast.json"
"$PYTHON" "$PLOTS/niah_bars.py" "$OUT/v41_biased_fast.json" \
  --label "v41-csa-biased.toml (W = S = 2, per-channel bias), 2560 prompts per group" \
  --out "$OUT/figures/v41_biased_bars"
