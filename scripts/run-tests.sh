#!/usr/bin/env bash
# The README's second command (and CI's, .ci/run). Stages, each reported at the end:
#   1. install what is missing, the test-only tools too (scripts/install-deps.sh --tests)
#   2. build build/ (scripts/build.sh: the demo's build, the same flags, warnings as errors)
#   3. every test: ctest in build/ (extra arguments go to this ctest)
#   4. CPU emulation: the bit-exact tests (ctest label `bitexact`) again as an older CPU runs
#      them: glibc's baseline math (no AVX2, no FMA variants of exp, log, ...) and SIMD
#      dispatch limited to SSE4 (PHASESIM_SIMD_TARGET), so that a result that depends on the
#      CPU fails here on any machine
#   5. the sanitizer pass: scripts/run-sanitizers.sh (clang, ASan + UBSan, fuzzers, valgrind)
# Stages 4 and 5 repeat tests on other builds; each remembers that it passed on a tree and
# build and is not repeated on the same ones (scripts/pass-stamp.sh; PHASESIM_RERUN=1
# repeats them), so a second run with nothing changed costs the build check and ctest.
# A failing stage does not stop the later ones (but a failed build skips 3 and 4); the exit
# status is non-zero when any failed. PHASESIM_SANITIZERS=0 skips stage 5 and
# PHASESIM_EMULATION=0 stage 4 (e.g. while iterating on one test).
set -uo pipefail
cd "$(dirname "$0")/.." || exit

scripts/install-deps.sh --tests || exit $?
jobs=$(nproc 2>/dev/null || echo 2)

results=()
failed=0
# A stage that was not repeated (scripts/pass-stamp.sh) says so here, for the summary.
PHASESIM_STAGE_NOTE=$(mktemp)
export PHASESIM_STAGE_NOTE
trap 'rm -f "$PHASESIM_STAGE_NOTE"' EXIT
# stage NAME COMMAND...: runs one stage and records its outcome and time.
stage() {
  local name=$1 start=$SECONDS status
  shift
  echo "== phasesim tests: $name"
  : >"$PHASESIM_STAGE_NOTE"
  "$@"
  status=$?
  local took="$((SECONDS - start)) s"
  [[ ! -s $PHASESIM_STAGE_NOTE ]] || took+=", $(cat "$PHASESIM_STAGE_NOTE")"
  if ((status == 0)); then
    results+=("passed  $name ($took)")
  else
    results+=("FAILED  $name ($took, exit status $status)")
    failed=1
  fi
  return "$status"
}
skipped() { results+=("skipped $1"); }

emulate_older_cpu() {
  local stamp=build/emulation.passed programs
  programs=(build/phasesim build/tests/phasesim_tests build/python/phasesim/_phasesim*.so)
  if scripts/pass-stamp.sh check "$stamp" "${programs[@]}"; then return 0; fi
  GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2,-FMA PHASESIM_SIMD_TARGET=sse4 \
    ctest --test-dir build --output-on-failure --parallel "$jobs" --label-regex '^bitexact$' ||
    return
  scripts/pass-stamp.sh record "$stamp" "${programs[@]}" || true
}

if stage "build (build/)" scripts/build.sh; then
  stage "ctest (build/)" ctest --test-dir build --output-on-failure --parallel "$jobs" "$@"
  if [[ ${PHASESIM_EMULATION:-1} != 0 ]]; then
    stage "bit-exact tests as an older CPU (no AVX2/FMA libm, SIMD <= SSE4)" emulate_older_cpu
  else
    skipped "bit-exact tests as an older CPU (PHASESIM_EMULATION=0)"
  fi
else
  skipped "ctest and the CPU emulation (the build failed)"
fi
if [[ ${PHASESIM_SANITIZERS:-1} != 0 ]]; then
  stage "sanitizer pass (build-asan/)" scripts/run-sanitizers.sh
else
  skipped "sanitizer pass (PHASESIM_SANITIZERS=0)"
fi

echo "== phasesim tests: summary"
printf '  %s\n' "${results[@]}"
exit "$failed"
