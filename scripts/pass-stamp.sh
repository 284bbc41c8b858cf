#!/usr/bin/env bash
# Remembers that a repeat pass of the test command (the CPU emulation, the sanitizer pass)
# passed on exactly these inputs, so that running the test command again with nothing
# changed does not repeat it: a second run then costs the build check and ctest only (the
# README's Testing section). The stamp lists a hash of every file git tracks or would track
# (the working tree as it is, edits included), of the programs the pass runs, and the
# versions of the compilers, glibc and valgrind; any change repeats the pass and is named,
# and so do deleting the stamp and PHASESIM_RERUN=1. Outside a git checkout nothing is
# remembered.
#   pass-stamp.sh check STAMP PROGRAM...   exit 0 (saying when) if STAMP lists today's inputs
#   pass-stamp.sh record STAMP PROGRAM...  writes today's inputs to STAMP
set -euo pipefail
cd "$(dirname "$0")/.."
action=$1 stamp=$2
shift 2

# The inputs, one a line. A missing program is listed as missing (sha256sum's message), so
# no command here may stop the list early.
inputs() {
  git ls-files --cached --others --exclude-standard -z | xargs -0 sha256sum 2>&1 || true
  sha256sum "$@" 2>&1 || true
  { c++ --version | head -1; } 2>&1 || true
  { clang++ --version | head -1; } 2>&1 || true
  { ldd --version | head -1; } 2>&1 || true
  valgrind --version 2>&1 || true
}

git rev-parse --is-inside-work-tree >/dev/null 2>&1 || exit 1
case $action in
  check)
    [[ ${PHASESIM_RERUN:-0} == 0 && -f $stamp ]] || exit 1
    changed=$(diff <(inputs "$@") "$stamp" | grep -c '^[<>]' || true)
    if ((changed > 0)); then
      echo "repeated: its inputs changed since it passed ($changed lines of $stamp differ)"
      exit 1
    fi
    note="not repeated: passed on this same tree and build at $(date -r "$stamp" '+%F %T')"
    echo "$note (PHASESIM_RERUN=1 or deleting $stamp repeats it)"
    # run-tests.sh shows the note in its summary.
    [[ -z ${PHASESIM_STAGE_NOTE:-} ]] || echo "$note" >"$PHASESIM_STAGE_NOTE"
    ;;
  record) inputs "$@" >"$stamp" ;;
  *)
    echo "pass-stamp.sh: unknown action '$action' (check or record)" >&2
    exit 2
    ;;
esac
