#!/usr/bin/env bash
# phasesim under mpirun against one process with one thread (README "On a cluster"): the same
# binary with 1, 2 and 3 ranks writes the same JSON, sweep and table, byte for byte; a sweep
# whose rank was killed resumes to the same files; a failure prints one line, naming the rank.
#
#   PHASESIM=build/phasesim MPIEXEC=mpirun tests/cli/mpi_check.sh CASE
#
# CASE: niah, sweep, phase-diagram, theorems, killed-rank, failure. Exits 77 (ctest: skipped),
# saying why, when phasesim was built without MPI or no mpirun was found.
set -euo pipefail
case_name=${1:?usage: tests/cli/mpi_check.sh CASE}
phasesim=${PHASESIM:?PHASESIM must name the phasesim binary}
if [[ ${PHASESIM_HAVE_MPI:-ON} != ON ]]; then
  echo "skipped: phasesim was built without MPI (PHASESIM_MPI, cmake/Mpi.cmake)"
  exit 77
fi
mpiexec=${MPIEXEC:-$(command -v mpirun || true)}
if [[ -z $mpiexec ]] || ! command -v "$mpiexec" >/dev/null; then
  echo "skipped: no mpirun found (Debian package openmpi-bin)"
  exit 77
fi
# CI runs as root, which Open MPI refuses unless told so: here, not globally.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
launcher=("$mpiexec")
if "$mpiexec" --version 2>/dev/null | grep -Eq "Open MPI|OpenRTE"; then
  launcher+=(--oversubscribe)  # 3 ranks on a 2-core machine
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/phasesim-mpi-$case_name-XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"

fail() {
  echo "FAIL ($case_name): $*" >&2
  exit 1
}
# `phasesim ARGS` on N ranks.
ranks() {
  local n=$1
  shift
  "${launcher[@]}" -np "$n" "$phasesim" "$@"
}
# Files, or folders file by file, byte for byte.
same() {
  diff -r "$1" "$2" >diff.txt || {
    head -20 diff.txt >&2
    fail "$2 differs from $1"
  }
}
# The table without its timing ("..., 0.12 s"), the one line that may differ between runs.
untimed() { sed -E 's/, [0-9.]+ s$//' "$1"; }

# A command's JSON and table from one process with one thread, then from 1, 2 and 3 ranks
# (with 2, 1 and 2 threads each): every file the same, and one table (rank 0 alone prints).
compare_ranks() {
  local name=$1
  shift
  OMP_NUM_THREADS=1 "$phasesim" "$@" --json "$name-one.json" >"$name-one.txt"
  local n
  for n in 1 2 3; do
    OMP_NUM_THREADS=$((n == 2 ? 1 : 2)) ranks "$n" "$@" --json "$name-$n.json" >"$name-$n.txt"
    same "$name-one.json" "$name-$n.json"
    same <(untimed "$name-one.txt") <(untimed "$name-$n.txt")
  done
  echo "ok: $name, 1/2/3 ranks"
}

# A full-engine sweep of strides 1, 2, 4 x the prompt counts $4, in d = $2 and context $3.
write_sweep() {
  cat >"$1" <<EOF
command = "niah"
seed = 11
[options]
engine = "full"
dim = $2
query_noise = 1
context = $3
groups = 4
stride = [1, 2, 4]
prompts = $4
EOF
}

case $case_name in
niah)
  compare_ranks full niah --engine full --dim 16 --query-noise 1 --context 4096 --groups 4 \
    --prompts 30 --heads 2 --gates 'random:3:2' --knockout 1 --seed 5
  compare_ranks fast niah --engine fast --window 8 --stride 4 --heads 3 --gates 'random:7:3' \
    --beta 5 --groups 8 --prompts 200 --seed 2
  ;;
sweep)
  write_sweep grid.toml 8 2048 "[6, 7]"
  "$phasesim" sweep grid.toml --out one --threads 1 >/dev/null 2>&1
  for n in 1 2 3; do
    ranks "$n" sweep grid.toml --out "ranks$n" --threads 1 >"out$n.txt" 2>/dev/null
    same one "ranks$n"
    [[ $(grep -c '^sweep of' "out$n.txt") == 1 ]] || fail "$n ranks: not one summary on stdout"
  done
  echo "ok: sweep, 1/2/3 ranks: $(ls one/cells | wc -l) cells, sweep.json and results.csv"
  ;;
phase-diagram)
  compare_ranks phase-diagram phase-diagram --window 4 --stride 2 --beta 4:8:2 --entries 1024
  ;;
theorems)
  compare_ranks optimize optimize --window 4 --stride 2 --beta 6 --entries 1024 --restarts 6
  compare_ranks dynamics dynamics --beta 5 --entries 4096 --inits 4 --steps 150
  compare_ranks diversity diversity --stride 4 --heads 2,4,8 --samples 3000
  ;;
killed-rank)
  # Cells of a few tenths of a second each (the SIMD full engine makes small ones instant), so
  # that the kill lands while most of them are still to run.
  write_sweep kill.toml 64 65536 "[16, 17, 18, 19, 20, 21]"
  "$phasesim" sweep kill.toml --out one --threads 1 >/dev/null 2>&1
  total=$(ls one/cells | wc -l)
  "${launcher[@]}" -np 3 "$phasesim" sweep kill.toml --out run --threads 1 >/dev/null 2>&1 &
  job=$!  # mpirun itself, whose children are the ranks
  for _ in $(seq 600); do
    (($(ls run/cells 2>/dev/null | grep -c '^[0-9a-f]*\.json$') >= 1)) && break
    sleep 0.1
  done
  # Rank 2, found by the rank number mpirun gave it.
  victim=""
  for pid in $(pgrep -P "$job" || true); do
    if tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx 'OMPI_COMM_WORLD_RANK=2'; then
      victim=$pid
    fi
  done
  [[ $victim ]] || fail "no rank 2 to kill (did the sweep end already?)"
  kill -KILL "$victim"
  if wait "$job"; then fail "the job went on after one of its ranks was killed"; fi
  [[ ! -e run/results.csv ]] || fail "a killed job wrote results.csv"
  done_before=$(ls run/cells | grep -c '\.json$' || true)
  ((done_before < total)) || fail "every cell was done before the kill: make the cells slower"
  ranks 3 sweep kill.toml --out run --resume --threads 1 >resume.txt 2>/dev/null
  grep -q "($((total - done_before)) run, $done_before resumed)" resume.txt ||
    fail "resume: $(head -1 resume.txt) (expected $done_before resumed)"
  same one run
  echo "ok: killed rank 2 with $done_before of $total cells done; the resumed sweep is identical"
  ;;
failure)
  # Bad input: refused once, in the words of one process, before any work.
  "$phasesim" niah --window 0 >/dev/null 2>one.err && fail "--window 0 was accepted"
  status=0
  ranks 3 niah --window 0 >three.out 2>three.err || status=$?
  ((status == 2)) || fail "bad input under 3 ranks: exit status $status, not 2"
  [[ ! -s three.out ]] || fail "bad input under 3 ranks printed on stdout"
  same one.err <(grep '^phasesim' three.err)
  # A cell that cannot be written (its file is a directory) fails on whichever rank takes it.
  write_sweep grid.toml 8 2048 "[6, 7]"
  "$phasesim" sweep grid.toml --out one --threads 1 >/dev/null 2>&1
  cell=$(ls one/cells | head -1)
  mkdir -p "broken/cells/$cell"
  status=0
  ranks 3 sweep grid.toml --out broken --resume --threads 1 >/dev/null 2>broken.err || status=$?
  ((status == 2)) || fail "a failing cell under 3 ranks: exit status $status, not 2"
  # --resume first warns, once, that the cell's file is no file; then one error names the rank.
  grep -c "^phasesim sweep: warning: cell .*: its file cells/$cell is not a file (it runs again)$" \
    broken.err | grep -qx 1 || fail "no single warning about cells/$cell: $(cat broken.err)"
  grep '^phasesim' broken.err | grep -v ': warning: ' >lines.txt || true
  [[ $(wc -l <lines.txt) == 1 ]] || fail "not one message: $(cat lines.txt)"
  grep -Eq "^phasesim sweep: rank [0-2] of 3: cannot write '.*/$cell' \(Is a directory\)$" lines.txt ||
    fail "message: $(cat lines.txt)"
  [[ ! -e broken/results.csv ]] || fail "a failed sweep wrote results.csv"
  echo "ok: $(cat lines.txt)"
  ;;
*)
  fail "unknown case (niah, sweep, phase-diagram, theorems, killed-rank, failure)"
  ;;
esac
