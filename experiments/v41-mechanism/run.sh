#!/usr/bin/env bash
# Run through experiments/run.sh, which sets PHASESIM, PYTHON, PLOTS and OUT.
# V4.1-Flash's even/odd table (95.0 / 89.75) against each candidate cause, and V4-Flash-Base's
# table (69.9 / 29.7) refitted on the V4-Flash stack. README.md says what each part shows.
# VARIANT=quick (v41-mechanism:quick, what the test suite runs): (a) and (e) alone, the
# exact parts that take seconds; (b) and (c) integrate closed forms for minutes.
set -euo pipefail
context=131072

# (a) The symmetry: a 1-token needle with no position bias reads even and odd tokens alike,
# whatever the content noise, the caches' sharing, the unpooled layers or the selection.
# Exact on the V4.1 stack (analytic); content noise by Monte Carlo (fast), one W = S = 2 cache.
# (The stack's documents list its query heads, 1 MB: only the groups and summary are kept.)
keep_table() {
  "$PYTHON" -c 'import json, sys; d = json.load(open(sys.argv[1]))
json.dump({k: d[k] for k in ("groups", "summary")}, open(sys.argv[1], "w"), indent=1)' "$1"
}
for beta in 2 3 4; do
  "$PHASESIM" niah --arch v41-flash-stack.toml --beta "$beta" --context "$context" --groups 8 \
    --engine analytic --json "$OUT/a_stack_beta$beta.json" >/dev/null
  keep_table "$OUT/a_stack_beta$beta.json"
done
# (Content noise draws every entry's gate: 8K tokens keep it to seconds.)
for tau in 0.5 2; do
  "$PHASESIM" niah --window 2 --stride 2 --gates uniform --beta 4 --content-noise "$tau" \
    --context 8192 --groups 8 --prompts 2500 --seed 38 --json "$OUT/a_noise_tau$tau.json" \
    >/dev/null
done

# (e) V4-Flash-Base's fit on the V4-Flash stack against the one-layer fit.
"$PYTHON" stack_fit.py "$OUT"

if [[ ${VARIANT:-} != quick ]]; then
  # (b) RoPE at the block's start: the odd token's signal factor, rho against beta (analytic).
  "$PYTHON" mechanism.py "$OUT" rope
  # (c) Needles of 2 and 3 tokens aligned or straddling (closed form), and the table from a
  # ratio-2 cache with 2-token needles and a flat cache.
  "$PYTHON" mechanism.py "$OUT" needles
  # The same on presets/v41-flash.toml's own stack (selection, window, sink): its two betas.
  "$PYTHON" preset_fit.py "$OUT" >/dev/null
  # (d) Content noise with 2-token needles (full engine: the read of several tokens with
  # content noise has no exact fast path), at d = 16 (beta about 4, as in (c)), 8K tokens.
  for tau in 0 0.5 1; do
    "$PHASESIM" niah --window 2 --stride 2 --gates uniform --dim 16 --content-noise "$tau" \
      --needle-tokens 2 --context 8192 --groups 2 --prompts 2000 --engine full --seed 39 \
      --json "$OUT/d_noise_tau$tau.json" >/dev/null
  done
fi
"$PYTHON" summarize.py "$OUT"
