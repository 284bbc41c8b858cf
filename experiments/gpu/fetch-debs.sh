#!/usr/bin/env bash
# Downloads the Debian 12 packages of phasesim's build dependencies into
# experiments/gpu/debs/ (ignored by git), for a device machine that cannot reach a package
# mirror: check.sh unpacks them into a private prefix there. Run it where apt works, then
# send the folder along (the device tool: carry ["experiments/gpu/debs"]). About 12 MB.
# Header-only packages, plus the shared libraries of toml++ and Highway; benchmarks are not
# built there.
set -euo pipefail
cd "$(dirname "$0")"
packages=(
  libeigen3-dev libboost1.74-dev libcli11-dev nlohmann-json3-dev
  libtomlplusplus-dev libtomlplusplus3 librandom123-dev doctest-dev
  libhwy-dev libhwy1
)
mkdir -p debs
cd debs
apt-get download "${packages[@]}"
ls -l
