#!/usr/bin/env bash
# Installs the Debian 12 packages phasesim needs; does nothing when they are all present.
set -euo pipefail

packages=(
  cmake g++ make pkg-config
  libeigen3-dev libboost-math-dev libboost-dev libcli11-dev doctest-dev
  libbenchmark-dev librandom123-dev nlohmann-json3-dev libtomlplusplus-dev
  libhwy-dev
  python3 python3-matplotlib python3-numpy
  # the Python module (issue 21): pybind11 to build it, pandas for to_frame (demo-time);
  # pytest and Jupyter only for its tests and notebooks (test-only)
  pybind11-dev python3-pandas python3-pytest jupyter-nbconvert python3-ipykernel
  libopenmpi-dev openmpi-bin  # optional (PHASESIM_MPI): runs over the ranks of an MPI job
  # the sanitizer build and the fuzzers (scripts/run-sanitizers.sh): clang, its runtimes, its OpenMP
  clang libclang-rt-14-dev libomp-14-dev
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  exit 0
fi

echo "phasesim: installing ${missing[*]}"
if [[ $(id -u) -ne 0 ]]; then
  echo "phasesim: installing packages needs root (run as root or with sudo)" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
