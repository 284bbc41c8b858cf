#!/usr/bin/env bash
# The gpu engine's device check, for a machine with a CUDA device (meant to take about 3
# minutes on 16 cores): builds phasesim (Release, CUDA required), runs the GPU tests, gpu-check on three
# experiments and then the whole test suite, printing what is needed to judge them.
#
#   experiments/gpu/check.sh [BUILD_DIR]        (default build-gpu)
#
# Dependencies: scripts/install-deps.sh where apt reaches a mirror; without one, the .deb
# files that experiments/gpu/fetch-debs.sh downloads elsewhere, found in
# experiments/gpu/debs and unpacked into a private prefix. With OUT set to a folder, the
# gpu-check JSON documents are copied there. Exit status: 0 when everything passes, 1 when
# a check fails, 2 when nothing could be built.
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build-gpu}
jobs=$(nproc 2>/dev/null || echo 4)
started=$SECONDS
failures=()
section() { printf '\n==== %s\n' "$*"; }
give_up() {
  echo "check: FAIL, $*"
  exit 2
}

section "machine"
date -u
uname -srm
if command -v nvidia-smi >/dev/null; then
  nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap,clocks.max.sm --format=csv
else
  echo "nvidia-smi: not found"
fi
echo "cpus: $jobs"
nvcc=$(command -v nvcc || ls /usr/local/cuda/bin/nvcc 2>/dev/null || true)
[[ -n $nvcc ]] || give_up "no nvcc on PATH or in /usr/local/cuda/bin: the gpu engine cannot be built here"
"$nvcc" --version | tail -n 2
cmake --version | head -n 1
"${CXX:-c++}" --version | head -n 1
if git rev-parse --git-dir >/dev/null 2>&1; then
  echo "commit: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . || echo ', with local changes')"
fi

section "dependencies"
prefix_args=()
if compgen -G "experiments/gpu/debs/*.deb" >/dev/null; then
  prefix=${TMPDIR:-/tmp}/phasesim-deps
  rm -rf "$prefix" && mkdir -p "$prefix"
  for deb in experiments/gpu/debs/*.deb; do
    dpkg-deb -x "$deb" "$prefix" || give_up "cannot unpack $deb (dpkg-deb)"
  done
  echo "unpacked $(ls experiments/gpu/debs/*.deb | wc -l) packages of experiments/gpu/debs into $prefix"
  prefix_args=(-DCMAKE_PREFIX_PATH="$prefix/usr")
  export LD_LIBRARY_PATH="$prefix/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
elif [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
  scripts/install-deps.sh || echo "install-deps.sh failed (no package mirror?): going on with what is installed"
else
  echo "no experiments/gpu/debs and not root: going on with what is installed"
fi

section "configure (Release, PHASESIM_CUDA=ON)"
mkdir -p "$build"
if ! cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DPHASESIM_CUDA=ON \
  -DCMAKE_CUDA_COMPILER="$nvcc" -DPHASESIM_BUILD_BENCHMARKS=OFF "${prefix_args[@]}" \
  >"$build/check-configure.log" 2>&1; then
  tail -n 20 "$build/check-configure.log"
  give_up "configure failed. A missing dependency on a machine without internet: run
  experiments/gpu/fetch-debs.sh where apt works and bring experiments/gpu/debs here"
fi
grep -E "^-- (phasesim|The (CXX|CUDA) compiler)" "$build/check-configure.log"

section "build: phasesim and the GPU tests"
t=$SECONDS
cmake --build "$build" -j "$jobs" --target phasesim phasesim_gpu_tests >"$build/check-build.log" 2>&1 ||
  { tail -n 40 "$build/check-build.log"; give_up "the build failed"; }
echo "built in $((SECONDS - t)) s"
if command -v cuobjdump >/dev/null; then cuobjdump --list-elf --list-ptx "$build/phasesim"; fi

section "GPU tests (tests/engines/gpu_test.cpp)"
timeout 240 "$build/tests/phasesim_gpu_tests"
status=$?
case $status in
  0) ;;
  77) failures+=("GPU tests skipped: no CUDA device") ;;
  *) failures+=("GPU tests failed (exit status $status)") ;;
esac

gpu_check() {
  local name=$1
  shift
  section "phasesim gpu-check $*"
  timeout 180 "$build/phasesim" gpu-check "$@" --json "$build/gpu-check-$name.json"
  local status=$?
  echo "exit status $status"
  ((status == 0)) || failures+=("gpu-check $* (exit status $status)")
  if [[ -n ${OUT:-} && -d ${OUT:-} && -f $build/gpu-check-$name.json ]]; then
    cp "$build/gpu-check-$name.json" "$OUT/"
  fi
}
gpu_check default
gpu_check rms --gate uniform --rms-norm --content-noise 0.5 --dim 128
gpu_check long --heads 1 --context 32768 --prompts 32

section "build: everything else, then the whole test suite"
t=$SECONDS
if cmake --build "$build" -j "$jobs" >>"$build/check-build.log" 2>&1; then
  echo "built in $((SECONDS - t)) s"
  timeout 300 ctest --test-dir "$build" -j "$jobs" --output-on-failure 2>&1 | tail -n 40
  status=${PIPESTATUS[0]}
  ((status == 0)) || failures+=("ctest (exit status $status)")
else
  tail -n 40 "$build/check-build.log"
  failures+=("the build of the test suite failed")
fi

section "summary"
echo "elapsed: $((SECONDS - started)) s"
if ((${#failures[@]} > 0)); then
  echo "check: FAIL"
  printf '  - %s\n' "${failures[@]}"
  exit 1
fi
echo "check: PASS (GPU tests, parity in three gpu-checks, whole test suite)"
