#!/usr/bin/env bash
# Installs the Debian 12 packages phasesim needs; does nothing, silently, when they are all
# present. Two tiers:
#   scripts/install-deps.sh          what the CLI, the Python module and the demo need
#                                    (the README's first command, scripts/run-demo.sh)
#   scripts/install-deps.sh --tests  that and the tools only the test suite uses
#                                    (the README's second command, scripts/run-tests.sh)
set -euo pipefail

usage="usage: scripts/install-deps.sh [--tests]"
tests=0
for arg in "$@"; do
  case $arg in
    --tests) tests=1 ;;
    -h | --help) echo "$usage"; exit 0 ;;
    *) echo "install-deps.sh: unknown argument '$arg' ($usage)" >&2; exit 2 ;;
  esac
done

# The CLI, the Python module and the demo. doctest and Google Benchmark are found at configure
# time: the demo configures build/ exactly as the test command does, so that the test command
# reuses the demo's build instead of starting another.
packages=(
  cmake g++ make pkg-config
  libeigen3-dev libboost-math-dev libboost-dev libcli11-dev doctest-dev
  libbenchmark-dev librandom123-dev nlohmann-json3-dev libtomlplusplus-dev
  libhwy-dev
  python3 python3-matplotlib python3-numpy python3-pandas  # the demo's figures, the module
  pybind11-dev python3-pybind11                            # the Python module
)
if ((tests)); then
  packages+=(
    ccache                                  # repeated builds, the sanitizer build's too
    libopenmpi-dev openmpi-bin              # PHASESIM_MPI: the mpi_* tests run under mpirun
    # the sanitizer build and the fuzzers (scripts/run-sanitizers.sh): clang, its runtimes,
    # its OpenMP; valgrind runs a few commands of the normal build under memcheck
    clang libclang-rt-14-dev libomp-14-dev valgrind
    python3-pytest                          # the Python module's tests
    # experiments/read-path: the alignment effect's closed form needs the error function of a
    # complex argument (scipy's Faddeeva erfcx), and its fit a 2-D root finder
    python3-scipy
    jupyter-nbconvert python3-ipykernel     # the notebooks, executed headless
    emscripten nodejs chromium chromium-driver  # the browser build and its tests
  )
  # npm too, unless the machine has the command: NodeSource's nodejs bundles it and conflicts
  # with Debian's npm package.
  command -v npm >/dev/null || packages+=(npm)
fi

# One dpkg-query for all of them: a package it does not print as installed is missing.
installed=$(dpkg-query -W -f='${Package} ${Status}\n' "${packages[@]}" 2>/dev/null |
  awk '$NF == "installed" {print $1}') || true
missing=()
for p in "${packages[@]}"; do
  grep -qx -- "$p" <<<"$installed" || missing+=("$p")
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
# Another apt (unattended upgrades, a second shell) may hold the lock: wait for it.
apt_options=(-o DPkg::Lock::Timeout=600 -qq)
apt-get "${apt_options[@]}" update
apt-get "${apt_options[@]}" install -y --no-install-recommends "${missing[@]}" >/dev/null
