#!/usr/bin/env bash
# Runs a fixed list of phasesim command lines (every command, the README's examples among them,
# with default and non-default options, every sampling path of the fast engine, and a few
# refusals) and keeps what each printed: its table (stdout), its stderr, its exit status and its
# JSON document, one folder per line.
# Run it before and after a change that must not change results, then compare the folders:
#
#   scripts/golden-outputs.sh /tmp/before    # on the old build
#   scripts/golden-outputs.sh /tmp/after     # on the new one
#   diff -r /tmp/before /tmp/after           # timings are blanked; nothing else may differ
#
#   scripts/golden-outputs.sh DIR [PHASESIM]   (PHASESIM: the binary, build/phasesim by default)
set -uo pipefail
cd "$(dirname "$0")/.." || exit
out=${1:?usage: scripts/golden-outputs.sh DIR [PHASESIM]}
bin=$(realpath "${2:-build/phasesim}")
mkdir -p "$out"
out=$(realpath "$out")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The lines, each run in a scratch folder holding links to presets/ and experiments/.
read -r -d '' LINES <<'EOF'
channel
channel --beta 3.5 --entries 1000 --u 0.6,0.8
coverage
coverage --window 12 --stride 4 --gates random:3:0.5
coverage --window 8 --stride 4 --gates channels:onehot:4=0.25|uniform=0.75
coverage --arch v4-csa
coverage --arch v4-hca
coverage --arch nsa-compression
coverage --arch v41-csa
niah --prompts 64
niah --window 12 --stride 4 --heads 3 --gates random:5 --beta 5.5 --context 8192 --groups 12 --prompts 20 --combine vote:2 --knockout 1 --seed 7 --threads 2
niah --window 8 --stride 8 --gates last --beta 4.0 --groups 6 --prompts 16 --context 4096
niah --window 8 --stride 4 --engine analytic --beta 3.0 --gates uniform --context 4096
niah --window 8 --stride 4 --beta 3.0 --content-noise 0.5 --context 4096 --prompts 16
niah --window 4 --stride 4 --engine full --dim 16 --query-noise 0.5 --rms-norm --context 2048 --prompts 8 --seed 3
niah --window 4 --stride 4 --engine full-double --dim 8 --context 1024 --prompts 8
niah --arch nsa-compression --beta 5.0 --context 8192 --prompts 16
niah --arch v4-csa --engine analytic --context 16384
niah --arch v41-csa --engine analytic --context 16384 --beta 8
niah --gates channels:onehot:4=0.25|uniform=0.75 --split-rho 0.5 --dim 16 --engine full --context 2048 --prompts 8
niah --arch experiments/mitigations/arch/w8s8-diverse.toml --beta 4.15 --context 8192 --prompts 32
niah --window 8 --stride 4 --gates uniform --beta 3.0 --content-noise 0.5 --split-rho 0.5 --context 4096 --prompts 16
niah --dim 16 --query-noise 0.7 --window 8 --stride 4 --heads 2 --gates onehot:1;weights:0,0,1,0,0,0,0,3 --split-rho 0.3 --context 2048 --prompts 16
niah --dim 16 --window 8 --stride 4 --gates weights:1,2,3,4,0,0,0,0 --rms-norm --content-noise 0.5 --split-rho 0.3 --context 2048 --prompts 16
niah --dim 16 --window 8 --stride 4 --gates uniform --content-noise 0.5 --split-rho 0.3 --context 2048 --prompts 16
niah --dim 16 --window 8 --stride 4 --gates uniform --rms-norm --content-noise 0.5 --context 2048 --prompts 16
niah --dim 16 --window 8 --stride 4 --heads 2 --gates channels:weights:1,0,0,0,0,1,0,0|onehot:6;channels:uniform|last --split-rho 0.3 --context 2048 --prompts 16
niah --dim 16 --window 8 --stride 4 --gates channels:onehot:4=0.25|uniform=0.75 --content-noise 0.5 --context 2048 --prompts 16
niah --arch nsa-compression --dim 32 --rms-norm --context 8192 --groups 16 --prompts 8
compare experiments/mitigations/arch/w8s8-trained.toml experiments/mitigations/arch/w8s8-diverse.toml experiments/mitigations/arch/w8s8-offsets.toml --beta 4.15 --context 8192 --prompts 32
compare v4-csa v4-hca --engine analytic --context 16384
optimize
optimize --model linear --beta 8 --entries 4096
optimize --model channels --beta 6 --window 8 --stride 4
optimize --weights 1,2,1,1 --restarts 3
phase-diagram --beta 4:8:2 --entries 1024,32768
phase-diagram --model linear --beta 5,7 --entries 4096
dynamics --steps 400
dynamics --inits 3 --steps 300 --update replicator
dynamics --content-noise 0.5 --steps 200 --content-seed 1,2
dynamics --beta 4.5 --init random:3:0.1 --steps 600 --reweight-at 300 --weights 0,0,1,0
diversity
diversity --stride 8 --heads 8,16 --samples 200 --seed 3
diversity --heads 4 --train-heads 4 --train-runs 2 --train-steps 40
theorem concentration
theorem concentration --beta 10
theorem lockin --steps 300
theorem diversity
theorem diversity --heads 64,128 --tolerance 0.01
train --heads 2 --steps 60 -L 512 --prompts 16 --log-every 20
train --heads 2 -L 256 --per-channel --query-heads 2 --query-projection --split-rho 0.5 --steps 20 --prompts 8 --dim 8 --batches independent
train --heads 2 -L 256 --steps 20 --prompts 8 --dim 8 --rms-norm --no-content --offset 1 --init-lambda 2
diagnose experiments/diagnose/expected/v4_table.csv --window 8 --stride 4 --replicates 999
diagnose experiments/diagnose/expected/w8s8_table.json --replicates 999 --heads 8
precision-check
gpu-check
niah --prompts abc
niah --arch v4-csa --window 8
niah --prompts 0
optimize --beta x
theorem
EOF

n=0
while IFS= read -r line; do
  [[ -n $line ]] || continue
  n=$((n + 1))
  dir=$(printf '%s/%02d' "$out" "$n")
  mkdir -p "$dir"
  rm -rf "$work"/* && ln -s "$PWD/presets" "$PWD/experiments" "$work/"
  printf '%s\n' "$line" >"$dir/command"
  read -r -a words <<<"$line"
  (cd "$work" && "$bin" "${words[@]}" --json out.json >"$dir/stdout" 2>"$dir/stderr")
  echo $? >"$dir/status"
  (cd "$work" && "$bin" "${words[@]}" >"$dir/table" 2>/dev/null)
  [[ -f $work/out.json ]] && mv "$work/out.json" "$dir/json"
  for f in "$work"/*.json "$work"/*.toml; do [[ -f $f ]] && mv "$f" "$dir/"; done
  # Wall-clock figures differ from run to run: blank them.
  sed -i -E -e 's/[0-9]+(\.[0-9]+)? (s|ms)\b/T \2/g; s/("(seconds|elapsed[a-z_]*|wall[a-z_]*|[a-z_]*_per_second|trials_per_s[a-z_]*)": )[-0-9.e+]+/\1T/g; s/[0-9.]+ (trials|key-vectors|steps)\/s/T \1\/s/g' \
    -e '/^ *[a-z -]+( \([0-9]+ threads?\))? +[0-9.]+ +[0-9.]+e[+-][0-9]+ +[0-9.]+e[+-][0-9]+$/ s/ [0-9][-0-9.e+]*/ N/g' \
    "$dir"/* 2>/dev/null
done <<<"$LINES"

# A sweep: its folder's files.
rm -rf "$work"/* && mkdir -p "$out/sweep"
cat >"$work/grid.toml" <<'EOF'
command = "niah"
seed = 7
[options]
window = 8
stride = [2, 4]
beta = [3.0, 5.0]
prompts = 16
context = 4096
EOF
(cd "$work" && "$bin" sweep grid.toml --out runs >"$out/sweep/stdout" 2>/dev/null)
cp -r "$work/runs/." "$out/sweep/"
echo "golden outputs of $n command lines and a sweep in $out"
