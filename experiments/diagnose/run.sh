#!/usr/bin/env bash
# Run through experiments/run.sh, which sets PHASESIM, PYTHON, PLOTS and OUT.
# Tables drawn by `phasesim niah` from the calibrated models of the other experiments, then
# diagnosed as a practitioner would: from the counts (and, in the JSON, the architecture).
set -euo pipefail
fit() { "$PYTHON" -c "import json, sys; f = json.load(open(sys.argv[1])); print(repr(f['beta']), f['gate'])" "$1"; }
# From inside $OUT, so that the documents name their table by its file name alone.
diagnose() { (cd "$OUT" && "$PHASESIM" diagnose "$@"); }

# V4-like: W = 8, S = 4, one head fitted to the published 69.9 / 29.7 (../v4-calibration).
read -r beta gate < <(fit ../v4-calibration/expected/fit.json)
"$PHASESIM" niah --window 8 --stride 4 --gates "$gate" --beta "$beta" --groups 8 --prompts 256 \
  --seed 4 --json "$OUT/v4_table.json" >/dev/null
diagnose v4_table.json --json v4_diagnosis.json
# The same counts as a bare CSV, without the architecture: what a user's spreadsheet holds.
"$PYTHON" -c "
import json, sys
groups = json.load(open(sys.argv[1]))['groups']
print('group,successes,trials')
for g in groups: print(f\"{g['group']},{g['successes']},{g['trials']}\")" "$OUT/v4_table.json" >"$OUT/v4_table.csv"
diagnose v4_table.csv --json v4_csv_diagnosis.json >/dev/null

# V4.1-like: stride 2 (../v41-stride2), at 256 prompts per group instead of the paper's 2560.
read -r beta gate < <(fit ../v41-stride2/expected/fit.json)
"$PHASESIM" niah --window 4 --stride 2 --gates "$gate" --beta "$beta" --groups 8 --prompts 256 \
  --seed 41 --json "$OUT/v41_table.json" >/dev/null
diagnose v41_table.json --json v41_diagnosis.json >/dev/null

# W8/S8 with 8 heads (../w8s8-heads): one phase no head covers; and full attention, flat.
beta=$("$PYTHON" -c "import json; print(repr(json.load(open('../w8s8-heads/expected/beta.json'))['beta']))")
common=(--heads 8 --beta "$beta" --context 131072 --groups 8 --prompts 256 --seed 88)
"$PHASESIM" niah --window 8 --stride 8 --gates random:1:10 "${common[@]}" \
  --json "$OUT/w8s8_table.json" >/dev/null
diagnose w8s8_table.json --json w8s8_diagnosis.json >/dev/null
"$PHASESIM" niah --window 1 --stride 1 --gates last "${common[@]}" --json "$OUT/full_table.json" >/dev/null
diagnose full_table.json --json full_diagnosis.json

for name in v4 v4_csv v41 w8s8 full; do
  "$PYTHON" "$PLOTS/diagnose_profile.py" "$OUT/${name}_diagnosis.json" --out "$OUT/figures/${name}_diagnosis"
done
