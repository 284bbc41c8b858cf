#!/usr/bin/env bash
# Run through experiments/run.sh, which sets PHASESIM, PYTHON, PLOTS and OUT.
set -euo pipefail
# The gap over N = 4 .. 1024 heads (S = 4), exactly over the multinomial assignment.
"$PHASESIM" diversity --stride 4 --heads 4,8,16,32,64,128,256,512,1024 --json "$OUT/gap.json"
# N = S = 8: some phase is blind with probability 0.9976, 2.75 blind phases expected.
"$PHASESIM" diversity --stride 8 --heads 8 --json "$OUT/blind_s8.json" | tail -3
# Joint training of 4 and 8 heads on the output loss: heads stay on their initial phases.
"$PHASESIM" diversity --stride 4 --heads 4,8 --train-heads 4,8 --train-runs 4 \
  --json "$OUT/joint_training.json" | tail -6
"$PHASESIM" theorem diversity --json "$OUT/theorem_diversity.json" | tail -1
"$PYTHON" "$PLOTS/diversity_loglog.py" "$OUT/gap.json" --out "$OUT/figures/t3_loglog"
