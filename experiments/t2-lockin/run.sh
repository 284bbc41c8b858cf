#!/usr/bin/env bash
# Run through experiments/run.sh, which sets PHASESIM, PYTHON, PLOTS and OUT.
set -euo pipefail
# 1. Sixteen small random inits at beta 6: does every run keep its initial argmax?
"$PHASESIM" dynamics --beta 6 --inits 16 --json "$OUT/lockin_beta6.json" | tail -1
# 2. One trajectory, re-weighted at step 1000 towards a phase its winner does not cover.
init=random:3:0.1
phase=$("$PHASESIM" coverage --gate "$init" --json - | "$PYTHON" -c \
  "import json, sys; p = json.load(sys.stdin)['phases']; print(max(p, key=lambda r: r['best_weight'])['phase'])")
weights=$("$PYTHON" -c "print(','.join('1' if q == ($phase + 1) % 4 else '0' for q in range(4)))")
"$PHASESIM" dynamics --beta 4.5 --init "$init" --steps 2000 --reweight-at 1000 --weights "$weights" \
  --record-every 20 --json "$OUT/reweighted.json" | tail -1
# 3. Content noise with three content seeds: the winner does not depend on the input.
"$PHASESIM" dynamics --inits 4 --content-noise 0.25 --content-seed 1,2,3 --steps 200 \
  --json "$OUT/content_noise.json" | tail -1
# 4. The verdict.
"$PHASESIM" theorem lockin --json "$OUT/theorem_lockin.json" | tail -1
"$PYTHON" "$PLOTS/dynamics_trajectories.py" "$OUT/reweighted.json" --out "$OUT/figures/lockin_reweighted"
