#!/usr/bin/env bash
# Run through experiments/run.sh, which sets PHASESIM, PYTHON, PLOTS and OUT.
set -euo pipefail
# The channel of experiments/w8s8-heads (its fitted beta, rounded): full attention with 8
# heads has the published mean of 61.1 there.
model=(--beta 4.15 --context 131072 --groups 8)
fixes=(trained diverse offsets coprime soft-t2 soft-t5 soft-t20 dense)
for case in w8s8 w8s4; do
  files=()
  for fix in "${fixes[@]}"; do files+=("arch/$case-$fix.toml"); done
  files+=(arch/full-attention.toml)
  # The checked-in architectures on the same needles: exactly, and at 256 prompts per group.
  "$PHASESIM" compare "${files[@]}" "${model[@]}" --engine analytic --json "$OUT/${case}_exact.json" >/dev/null
  "$PHASESIM" compare "${files[@]}" "${model[@]}" --prompts 256 --seed 14 --json "$OUT/${case}_fast.json" | head -12
  # Every fix whose gates are left to training, over 32 draws of those gates (exact).
  "$PYTHON" draws.py "$case" 32 "$OUT/${case}_draws.json" "${files[@]}" -- "${model[@]}"
done
"$PYTHON" summarize.py "$OUT" w8s8 w8s4
"$PYTHON" "$PLOTS/worst_vs_cost.py" "$OUT/w8s8_draws.json" "$OUT/w8s4_draws.json" --mean \
  --label "W8/S8 fixes" --label "W8/S4 fixes" --out "$OUT/figures/worst_vs_cost" \
  --title "worst group against KV cost, expected over 32 draws of the trained gates"
"$PYTHON" "$PLOTS/compare_bars.py" "$OUT/w8s8_fast.json" --out "$OUT/figures/w8s8_bars" \
  --select "trained,diverse,offsets,coprime 7+8,soft T=20,stride 4,full attention"
"$PYTHON" "$PLOTS/compare_bars.py" "$OUT/w8s4_fast.json" --out "$OUT/figures/w8s4_bars" \
  --select "trained,diverse,offsets,coprime 4+5,soft T=20,stride 2,full attention"
