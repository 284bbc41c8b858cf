#!/usr/bin/env bash
# Fails (and lists the files) when a C++ or CUDA source is not clang-format clean.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || { echo "check-format: clang-format not installed, skipped"; exit 0; }
bad=$(git ls-files '*.cpp' '*.hpp' '*.cu' '*.cuh' | xargs clang-format --dry-run 2>&1 | grep -o '^[^:]*\.\(cpp\|hpp\|cu\|cuh\)' | sort -u || true)
if [[ -n "$bad" ]]; then
  echo "check-format: not clang-format clean (run clang-format -i on them):"
  echo "$bad"
  exit 1
fi
echo "check-format: clean"
