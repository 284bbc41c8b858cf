#!/usr/bin/env bash
# Run through experiments/run.sh, which sets PHASESIM, PYTHON, PLOTS and OUT.
set -euo pipefail
fit() {  # fit NAME ARGS...: calibrate.py to V4-Flash-Base's best and worst groups
  local name=$1
  shift
  "$PYTHON" ../calibrate.py --window 8 --stride 4 --groups 8 --best 0.699 --worst 0.297 "$@" \
    --out "$OUT/$name.json"
}
field() { "$PYTHON" -c "import json; print(json.load(open('$OUT/$1.json'))['$2'])"; }

# The one-gate fit (MODEL.md sections 2-7: one gate for every channel, one projection).
fit fit
beta=$(field fit beta)
gate=$(field fit gate)
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

# Per-channel gates (MODEL.md section 9): a share of the channels one-hot on the newest slot,
# the rest uniform, at rho 1 (one projection), 0.5 and 0 (two independent halves, the
# setting presets/v4-csa.toml states). Each fits the table.
fit fit_channels --family channels
fit fit_channels_rho0.5 --family channels --split-rho 0.5
fit fit_channels_rho0 --family channels --split-rho 0
"$PHASESIM" niah --engine analytic --window 8 --stride 4 --gates "$(field fit_channels gate)" \
  --beta "$(field fit_channels beta)" --context 131072 --groups 8 --json "$OUT/v4_channels_analytic.json"

# The preset itself (presets/v4-csa.toml: the per-channel gate above with V4-Flash's read path,
# top 512 by an indexer of the same gate, the 128-token window and a sink; its 64 query heads
# attend alike without query noise) at the beta its [fit] states (experiments/read-path (a)'s
# two-stage fit): exactly, and by Monte Carlo at the paper's 256 prompts per group.
"$PHASESIM" niah --arch v4-csa --beta 9.5964 --engine analytic --groups 8 \
  --json "$OUT/v4_preset_analytic.json" >/dev/null
"$PHASESIM" niah --arch v4-csa --beta 9.5964 --engine fast --groups 8 --prompts 256 --seed 4 \
  --json "$OUT/v4_preset_fast.json"
"$PYTHON" "$PLOTS/niah_bars.py" "$OUT/v4_preset_analytic.json" "$OUT/v4_preset_fast.json" \
  --label "exact" --label "Monte Carlo, 256 prompts per group (95% interval)" \
  --title "presets/v4-csa (per-channel gate, rho 0, top 512, window 128, sink), beta 9.60 (dashed: means)" \
  --out "$OUT/figures/v4_preset_bars"
