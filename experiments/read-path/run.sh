#!/usr/bin/env bash
# Run through experiments/run.sh, which sets PHASESIM, PYTHON, PLOTS and OUT.
# The read path (MODEL.md section 10): (a) V4-Flash-Base's table refitted under two stages,
# (b) accuracy by phase against k and the context, (c) needles of 1 to 8 tokens (the alignment
# effect alone) against the closed form, (d) MoBA's routing claim. README.md says what each
# shows.
# VARIANT=quick (read-path:quick, what the test suite runs): k = 512 alone in (b), n up to 4 in
# (c), blocks of 16, 64 and 256 in (d).
set -euo pipefail
csa="channels:onehot:7=0.033013|uniform=0.966987"  # presets/v4-csa.toml's channels
ks=(64 512 2048) tokens=(1 2 3 4 5 6 7 8) blocks=(16 32 64 128 256)
if [[ ${VARIANT:-} == quick ]]; then ks=(512) tokens=(1 2 3 4) blocks=(16 64 256); fi

# (a) The fit (analytic), and the one- and two-stage fits' predictions at 128K and 1M.
"$PYTHON" fit.py "$OUT"

# (b) The two-stage fit's model (beta and index beta from (a)) at k = 64, 512, 2048 and contexts
# from 2K (512 entries: k = 512 drops nothing) to 1M.
read -r beta index_beta < <("$PYTHON" -c "import json,sys; f=json.load(open(sys.argv[1]))['fit']; \
print(repr(f['beta']), repr(f['index_beta']))" "$OUT/a_fit.json")
for k in "${ks[@]}"; do
  for context in 2048 8192 32768 131072 1048576; do
    "$PHASESIM" niah --gates "$csa" --split-rho 0 --beta "$beta" --index-beta "$index_beta" \
      --top-k "$k" --sliding-window 128 --sink 0 --context "$context" --groups 8 --engine analytic \
      --json "$OUT/b_k${k}_L${context}.json" >/dev/null
  done
done

# (c) Uniform gates, no selection: a needle of n tokens by its start's phase (fast, exact), for
# W = S = 2, W = 8 S = 4 and W = S = 128; closed_form.py gives the W = S cases exactly.
for n in "${tokens[@]}"; do
  "$PHASESIM" niah --window 2 --stride 2 --gates uniform --beta 4 --context 8192 --groups 2 \
    --prompts 20000 --needle-tokens "$n" --seed 11 --json "$OUT/c_w2_n$n.json" >/dev/null
  "$PHASESIM" niah --window 8 --stride 4 --gates uniform --beta 6 --context 16384 --groups 4 \
    --prompts 10000 --needle-tokens "$n" --seed 12 --json "$OUT/c_w8s4_n$n.json" >/dev/null
  "$PHASESIM" niah --window 128 --stride 128 --gates uniform --beta 30 --context 131072 \
    --groups 128 --prompts 400 --needle-tokens "$n" --seed 13 --json "$OUT/c_w128_n$n.json" \
    >/dev/null
done

# (d) MoBA: blocks of B tokens scored by their mean key (W = S = B, a uniform gate, which the
# indexer shares), the top k with k B = 4096 tokens, L = 65536: stage 1 (selected) of a needle
# of 1, 4 and 16 tokens over its B start phases (one group each), analytic for one token, fast
# for several (16,384 trials).
for block in "${blocks[@]}"; do
  k=$((4096 / block))
  for n in 1 4 16; do
    engine=fast
    [[ $n == 1 ]] && engine=analytic
    "$PHASESIM" niah --window "$block" --stride "$block" --gates uniform --beta 3 --top-k "$k" \
      --context 65536 --groups "$block" --prompts $((16384 / block)) --needle-tokens "$n" \
      --engine "$engine" --seed 14 --json "$OUT/d_B${block}_n$n.json" >/dev/null
  done
done

"$PYTHON" summarize.py "$OUT"
