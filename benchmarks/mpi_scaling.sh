#!/usr/bin/env bash
# Parallel efficiency of 2 MPI ranks x 1 thread against 1 rank x 2 threads, on one full-engine
# niah run and one sweep of full-engine cells (README "On a cluster"). The three set-ups run in
# turn, REPEAT times, so that a busy machine slows them alike; each time is the median, of the
# whole command (mpirun's start included), in wall-clock and in CPU seconds.
#
#   benchmarks/mpi_scaling.sh [REPEAT]     (after scripts/build.sh, with mpirun on PATH)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
phasesim=${PHASESIM:-$root/build/phasesim}
repeat=${1:-3}
mpirun=${MPIEXEC:-mpirun}
command -v /usr/bin/time >/dev/null || {
  echo "mpi_scaling: no /usr/bin/time (Debian package time)" >&2
  exit 2
}
command -v "$mpirun" >/dev/null || {
  echo "mpi_scaling: no $mpirun (Debian package openmpi-bin)" >&2
  exit 2
}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1  # when run as root
work=$(mktemp -d "${TMPDIR:-/tmp}/phasesim-scaling-XXXXXX")
trap 'rm -rf "$work"' EXIT

niah=(niah --engine full --dim 64 --query-noise 1 --context 16384 --prompts 32 --seed 3)
cat >"$work/grid.toml" <<EOF
command = "niah"
seed = 5
[options]
engine = "full"
dim = 32
query_noise = 1
context = 8192
prompts = 8
stride = [1, 2, 4, 8]
window = [8, 16]
EOF
sweep=(sweep "$work/grid.toml" --out "$work/out")

# "wall cpu" seconds of one run: "1x1", "1x2" (1 rank, 2 threads) or "2x1" (2 ranks, 1 thread
# each); cpu is user + system time of every process of the run. --threads is the run's
# threads for niah and the cells at once for a sweep.
time_run() {
  local setup=$1
  shift
  rm -rf "$work/out"
  local -a run
  case $setup in
  1x1) run=("$phasesim" "$@" --threads 1) ;;
  1x2) run=("$phasesim" "$@" --threads 2) ;;
  2x1) run=("$mpirun" -np 2 "$phasesim" "$@" --threads 1) ;;
  esac
  /usr/bin/time -f '%e %U %S' -o "$work/time" "${run[@]}" >/dev/null 2>&1
  awk '{print $1, $2 + $3}' "$work/time"
}

# The median of the lines' field $1 (1: wall, 2: cpu).
median() { awk -v f="$1" 'NF {print $f}' | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

measure() {
  local name=$1
  shift
  local t11="" t12="" t21=""
  for _ in $(seq "$repeat"); do
    t11+="$(time_run 1x1 "$@")"$'\n'
    t12+="$(time_run 1x2 "$@")"$'\n'
    t21+="$(time_run 2x1 "$@")"$'\n'
  done
  local f
  for f in 1 2; do
    awk -v n="$name" -v kind="$([[ $f == 1 ]] && echo wall || echo cpu)" \
      -v a="$(median $f <<<"$t11")" -v b="$(median $f <<<"$t12")" \
      -v c="$(median $f <<<"$t21")" -v cpu="$((f - 1))" 'BEGIN {
        if (cpu) { e12 = a / b; e21 = a / c } else { e12 = a / (2 * b); e21 = a / (2 * c) }
        printf "%-6s %-5s %8.2f %8.2f %8.2f %9.2f %9.2f %10.2f\n", n, kind, a, b, c, e12, e21, b / c
      }'
  done
}

echo "phasesim on $(nproc) cores (load average $(cut -d' ' -f1-3 /proc/loadavg)), median of $repeat runs"
echo "efficiency: wall T(1x1) / (2 T); cpu T(1x1) / T (the work the split adds, MPI's waiting included)"
printf "%-6s %-5s %8s %8s %8s %9s %9s %10s\n" run time "1x1 s" "1x2 s" "2x1 s" "eff 1x2" "eff 2x1" "1x2 / 2x1"
measure niah "${niah[@]}"
measure sweep "${sweep[@]}"
echo "niah: ${niah[*]}"
echo "sweep: 8 cells of niah --engine full --dim 32 --context 8192 --prompts 8 (window x stride)"
