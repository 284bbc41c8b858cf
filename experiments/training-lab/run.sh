#!/usr/bin/env bash
# Run through experiments/run.sh, which sets PHASESIM, PYTHON, PLOTS, OUT and VARIANT.
# The paper's experiment in miniature: many small layers trained by `phasesim train`, two at
# a time (one thread each). VARIANT=quick (experiments/run.sh training-lab:quick, what the
# test suite runs) trains a few of them.
set -euo pipefail
# Every layer: d = 16 and no query noise (beta = 4), N_c = 192 entries (L = 192 S), Adam at
# lr 0.05 for 600 steps; evaluated on 24 groups (a multiple of every stride) x 64 prompts.
layer="--dim 16 --query-noise 0 --steps 600 --lr 0.05 --threads 1"
grid="$layer --groups 24 --prompts 64 --record-every 100 --log-every 600"
if [[ $VARIANT == quick ]]; then
  strides=(4 8); seeds=$(seq 1 2); scales=(0.1 1); batches=(4 16); lockin_seeds=1
else
  strides=(4 6 8 12); seeds=$(seq 1 12); scales=(0.03 0.1 0.3 1); batches=(4 16 64)
  lockin_seeds=$(seq 1 2)
fi
mkdir -p "$OUT/models"
{
  # Strides: W = 2S and H = S heads (T3's N = S), batch 16, init scale 0.1.
  for S in "${strides[@]}"; do
    for seed in $seeds; do
      echo "-S $S -W $((2 * S)) --context $((192 * S)) --heads $S --batch 16 --seed $seed" \
        "--json $OUT/models/s${S}_seed$seed.json"
    done
  done
  # Lock-in against gradient noise: W = 8, S = 4, 8 heads; init scale x batch size.
  for scale in "${scales[@]}"; do
    for batch in "${batches[@]}"; do
      for seed in $lockin_seeds; do
        echo "-S 4 -W 8 --context 768 --heads 8 --init-scale $scale --batch $batch --seed $seed" \
          "--json $OUT/models/lockin_scale${scale}_batch${batch}_seed$seed.json"
      done
    done
  done
} | xargs -P 2 -L 1 bash -c '"$PHASESIM" train $0 "$@" '"$grid"' >/dev/null'

"$PYTHON" summarize.py "$OUT/models" "$OUT"
# One layer of the grid in detail (W = 8, S = 4, 4 heads, seed 3): its gate trajectories
# and its per-group table at the paper's 8 groups x 256 prompts.
"$PHASESIM" train -S 4 -W 8 --context 768 --heads 4 --batch 16 --seed 3 $layer --groups 8 --prompts 256 \
  --record-every 20 --log-every 100 --json "$OUT/showcase.json" \
  --save-gates "$OUT/showcase_gates.json" | tail -22
"$PYTHON" "$PLOTS/training_trajectories.py" "$OUT/showcase.json" --out "$OUT/figures/trajectories"
"$PYTHON" "$PLOTS/training_phases.py" "$OUT/showcase.json" --out "$OUT/figures/phases"
"$PYTHON" "$PLOTS/training_lab.py" "$OUT/summary.json" --out "$OUT/figures/lab"
# The per-model documents stay, compressed and outside the comparison (summary.json and
# models.csv hold what is compared).
gzip -f "$OUT"/models/*.json
