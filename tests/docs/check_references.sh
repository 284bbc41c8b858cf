#!/usr/bin/env bash
# ctest references: the references generated from the option tables (scripts/regen-references.sh:
# docs/CLI.md, the README's command table, the Python stubs) are the checked-in ones. On a
# difference it prints it and how to regenerate them.
#   check_references.sh SOURCE_DIR BUILD_DIR
set -uo pipefail
source_dir=$1 build=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cd "$source_dir" || exit 1
scripts/regen-references.sh "$build" "$out" || exit 1
status=0
for file in docs/CLI.md README.md python/phasesim/__init__.pyi; do
  if [[ ! -f $out/$file ]]; then
    echo "references: $file not generated here (see above); not compared"
  elif ! diff -u "$file" "$out/$file"; then
    echo "references: $file differs from what the option tables give: run scripts/regen-references.sh"
    status=1
  fi
done
((status == 0)) && echo "references: docs/CLI.md, the README's command table and the stubs are the tables'"
exit $status
