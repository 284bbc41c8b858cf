#!/usr/bin/env bash
# Run through experiments/run.sh, which sets PHASESIM, PYTHON, PLOTS and OUT.
# (a) one per-channel compressor against single-gate heads at equal KV cost, (c) split
# projections from rho 0 to 1 on V4's geometry (W 8, S 4), by the analytic engine, one Monte
# Carlo check of (a) at finite d by fast and full, and (b) a cache shared by 8 query heads by
# the full engine. README.md says what each shows.
set -euo pipefail
geometry=(--window 8 --stride 4 --context 131072 --groups 8 --engine analytic)
spread="channels:onehot:4|onehot:5|onehot:6|onehot:7"
# (a) At equal KV cost, d channels in one compressor or d/4 in each of 4 heads: beta scales
# as sqrt(d), so the heads' beta is half the compressor's.
for beta in 6 9 12 16 20 24; do
  half=$("$PYTHON" -c "print($beta / 2)")
  "$PHASESIM" niah "${geometry[@]}" --beta "$beta" --gates last --json "$OUT/a_last_$beta.json" >/dev/null
  "$PHASESIM" niah "${geometry[@]}" --beta "$beta" --gates "$spread" --json "$OUT/a_channels_$beta.json" >/dev/null
  "$PHASESIM" niah "${geometry[@]}" --beta "$beta" --gates "weights:0,0,0,0,1,1,1,1" \
    --json "$OUT/a_uniform_$beta.json" >/dev/null
  "$PHASESIM" niah "${geometry[@]}" --beta "$half" --gates "onehot:4;onehot:5;onehot:6;onehot:7" \
    --json "$OUT/a_heads_$beta.json" >/dev/null
done
# (c) The one-gate V4 fit (experiments/v4-calibration, beta 9.5135), the spread compressor and
# the uniform gate over the window, each with split projections rho = 0 .. 1.
for rho in 0 0.25 0.5 0.75 1; do
  "$PHASESIM" niah "${geometry[@]}" --beta 9.5135 --gates "logits:0,0,0,0,0,0,0,0.3465" \
    --split-rho "$rho" --json "$OUT/c_v4_$rho.json" >/dev/null
  "$PHASESIM" niah "${geometry[@]}" --beta 9.5135 --gates "$spread" --split-rho "$rho" \
    --json "$OUT/c_channels_$rho.json" >/dev/null
  "$PHASESIM" niah "${geometry[@]}" --beta 9.5135 --gates uniform --split-rho "$rho" \
    --json "$OUT/c_uniform_$rho.json" >/dev/null
done
# (a) at finite d: the compressor at d = 256 against 4 heads of d = 64, query noise 1 (the
# fast engine, exact; full checks the compressor on fewer trials).
mc=(--window 8 --stride 4 --context 32768 --groups 8 --query-noise 1 --seed 7)
"$PHASESIM" niah "${mc[@]}" --dim 256 --gates "$spread" --prompts 2000 --json "$OUT/mc_channels_fast.json" >/dev/null
"$PHASESIM" niah "${mc[@]}" --dim 64 --gates "onehot:4;onehot:5;onehot:6;onehot:7" --prompts 2000 \
  --json "$OUT/mc_heads_fast.json" >/dev/null
"$PHASESIM" niah "${mc[@]}" --dim 256 --gates "$spread" --prompts 100 --engine full \
  --json "$OUT/mc_channels_full.json" >/dev/null
# (b) A cache read by 8 query heads against one query head and against 8 heads with their own
# caches (full engine: query noise 1 makes the query heads differ; d = 64, L = 8192).
for arch in one-query shared-8 heads-8; do
  "$PHASESIM" niah --arch "arch/$arch.toml" --dim 64 --query-noise 1 --engine full --context 8192 \
    --groups 8 --prompts 100 --seed 9 --json "$OUT/b_$arch.json" >/dev/null
done
"$PYTHON" summarize.py "$OUT"
