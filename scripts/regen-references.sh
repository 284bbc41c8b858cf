#!/usr/bin/env bash
# Writes the references generated from the commands' option tables (Stim's dev/regen_docs.sh is
# the pattern): docs/CLI.md, the README's command table (between its "generated" markers) and
# the Python stubs (python/phasesim/__init__.pyi, from the built module). Run it after adding or
# changing an option; ctest references fails until it has been run.
#   scripts/regen-references.sh [BUILD_DIR] [OUT_DIR]   (OUT_DIR: write there, not into the tree)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=${2:-.}
reference=$build/phasesim-reference
[[ -x $reference ]] || { echo "regen-references: no $reference (bash scripts/build.sh)" >&2; exit 2; }

mkdir -p "$out/docs" "$out/python/phasesim"
"$reference" markdown >"$out/docs/CLI.md"

# The README's table, between its markers.
table=$("$reference" table)
python3 - "$out/README.md" "$table" <<'PY'
import pathlib, re, sys
source = pathlib.Path("README.md").read_text()
start, end = "<!-- generated: phasesim-reference table -->", "<!-- end of generated table -->"
before, rest = source.split(start)
_, after = rest.split(end)
pathlib.Path(sys.argv[1]).write_text(before + start + "\n" + sys.argv[2] + "\n" + end + after)
PY

if [[ -d $build/python/phasesim ]] && /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
  # Through a temporary file: a module that fails to import leaves the stubs as they were.
  stubs=$(mktemp)
  trap 'rm -f "$stubs"' EXIT
  PYTHONPATH=$build/python /usr/bin/python3 python/gen_stubs.py >"$stubs" ||
    { echo "regen-references: gen_stubs.py failed on $build/python (build it: bash scripts/build.sh); stubs not written" >&2; exit 2; }
  [[ -s $stubs ]] || { echo "regen-references: gen_stubs.py wrote nothing; stubs not written" >&2; exit 2; }
  cp "$stubs" "$out/python/phasesim/__init__.pyi"
else
  echo "regen-references: the stubs need the Python module and NumPy; not written" >&2
fi
