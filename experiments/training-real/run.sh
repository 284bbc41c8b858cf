#!/usr/bin/env bash
# Run through experiments/run.sh, which sets PHASESIM, PYTHON, PLOTS, OUT and VARIANT.
# The training lab on the real compressor (issue 23): per-channel gates, single-gate heads at
# the same parameter count, and the gathering control (independent batches per head), all
# small layers trained by `phasesim train`, two at a time (one thread each). VARIANT=quick
# (experiments/run.sh training-real:quick, what the test suite runs) trains a few of them.
set -euo pipefail
# Every layer as in experiments/training-lab: d = 16 and no query noise (beta = 4),
# N_c = 192 entries (L = 192 S), Adam at lr 0.05 for 600 steps of batch 16.
layer="--dim 16 --query-noise 0 --steps 600 --lr 0.05 --batch 16 --threads 1 --log-every 600"
# (a), (b): the paper's table, 8 groups x 256 prompts; per-channel shares every 20 steps.
table="--groups 8 --prompts 256 --record-every 20"
# (c): training-lab's stride grid, 24 groups (a multiple of every S) x 64 prompts.
grid="--groups 24 --prompts 64 --record-every 100"
# (c') the decoupled heads' table is not read (their argmax phases are): 8 groups x 8 prompts.
alone="--groups 8 --prompts 8 --record-every 100"
if [[ $VARIANT == quick ]]; then
  real_seeds=1; gather_strides=(4); gather_seeds=$(seq 1 2)
else
  real_seeds=$(seq 1 12); gather_strides=(4 8); gather_seeds=$(seq 1 12)
fi
mkdir -p "$OUT/models" "$OUT/gates"
{
  for seed in $real_seeds; do
    # (a) one cache with a gate per channel: S = 4 (W = 8, V4's geometry), S = 2 (W = 2).
    # (b) d = 16 single-gate heads: d (W + d) gate parameters, the per-channel head's W d + d d.
    for geometry in "4 8" "2 2"; do
      read -r S W <<<"$geometry"
      common="-S $S -W $W --context $((192 * S)) --seed $seed $table"
      echo "$common --heads 1 --per-channel --json $OUT/models/channel_s${S}_seed$seed.json" \
        "--save-gates $OUT/gates/channel_s${S}_seed$seed.json"
      echo "$common --heads 16 --json $OUT/models/single_s${S}_seed$seed.json"
    done
  done
  # (c) training-lab's stride models (W = 2S, H = S heads), shared and independent batches.
  for S in "${gather_strides[@]}"; do
    for batches in shared independent; do
      for seed in $gather_seeds; do
        echo "-S $S -W $((2 * S)) --context $((192 * S)) --heads $S --batches $batches" \
          "--seed $seed $grid --json $OUT/models/gather_s${S}_${batches}_seed$seed.json"
      done
    done
    # (c') the second control: model k's S heads each trained alone (a one-head layer, so no
    # shared tokens, query or loss), from independent seeds S (k - 1) + 1 + h.
    for seed in $gather_seeds; do
      for ((h = 0; h < S; ++h)); do
        echo "-S $S -W $((2 * S)) --context $((192 * S)) --heads 1" \
          "--seed $((S * (seed - 1) + 1 + h)) $alone" \
          "--json $OUT/models/alone_s${S}_seed${seed}_head$h.json"
      done
    done
  done
} | xargs -P 2 -L 1 bash -c '"$PHASESIM" train $0 "$@" '"$layer"' >/dev/null'

# published_figures.json: a copy of shared/reference/published_figures.json (V4, V4.1 tables).
"$PYTHON" summarize.py "$OUT/models" "$OUT" published_figures.json
# One per-channel compressor in detail (S = 4, seed 1): its document and gate file.
cp "$OUT/models/channel_s4_seed1.json" "$OUT/showcase.json"
cp "$OUT/gates/channel_s4_seed1.json" "$OUT/showcase_gates.json"
"$PYTHON" "$PLOTS/training_channels.py" "$OUT/showcase.json" --gates "$OUT/showcase_gates.json" \
  --out "$OUT/figures/channels"
"$PYTHON" "$PLOTS/training_real.py" "$OUT/summary.json" --out "$OUT/figures/real"
# The per-model documents stay, compressed and outside the comparison (summary.json and
# models.csv hold what is compared).
gzip -f "$OUT"/models/*.json "$OUT"/gates/*.json
