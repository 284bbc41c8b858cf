#!/usr/bin/env bash
# Remembers that a repeat pass of the test command (the CPU emulation, the sanitizer pass)
# passed on exactly these inputs, so that running the test command again with nothing
# changed does not repeat it: a second run then costs the build check and ctest only (the
# README's Testing section). The key hashes every file git tracks or would track (the
# working tree as it is, edits included), the programs the pass runs, and the versions of
# the compilers, glibc and valgrind; any change reruns the pass, and so does deleting the
# stamp or PHASESIM_RERUN=1. Outside a git checkout nothing is remembered.
#   pass-stamp.sh check STAMP PROGRAM...   exit 0 (saying when) if STAMP holds today's key
#   pass-stamp.sh record STAMP PROGRAM...  writes today's key to STAMP
set -euo pipefail
cd "$(dirname "$0")/.."
action=$1 stamp=$2
shift 2

key() {
  {
    git ls-files --cached --others --exclude-standard -z | xargs -0 sha256sum 2>&1
    sha256sum "$@" 2>&1
    c++ --version 2>&1 | head -1
    clang++ --version 2>&1 | head -1
    ldd --version 2>&1 | head -1
    valgrind --version 2>&1
  } | sha256sum | cut -d' ' -f1
}

git rev-parse --is-inside-work-tree >/dev/null 2>&1 || exit 1
case $action in
  check)
    [[ ${PHASESIM_RERUN:-0} == 0 && -f $stamp && $(cat "$stamp") == "$(key "$@")" ]] || exit 1
    note="not repeated: passed on this same tree and build at $(date -r "$stamp" '+%F %T')"
    echo "$note (PHASESIM_RERUN=1 or deleting $stamp repeats it)"
    # run-tests.sh shows the note in its summary.
    [[ -z ${PHASESIM_STAGE_NOTE:-} ]] || echo "$note" >"$PHASESIM_STAGE_NOTE"
    ;;
  record) key "$@" >"$stamp" ;;
  *)
    echo "pass-stamp.sh: unknown action '$action' (check or record)" >&2
    exit 2
    ;;
esac
