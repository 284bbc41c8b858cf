#!/usr/bin/env python3
"""The expected worst phase of each fix over draws of its trained gates (T3: which phases
the heads lock onto is a multinomial draw, so one draw is an anecdote).

Draw d of an architecture file shifts every random:SEED gate to random:SEED+8d (the 8
heads of draw d get seeds no other draw uses); files without random gates are one draw.
Each fix's draws run in one `phasesim compare --engine analytic` (exact), and the
document written lists per fix its KV cost and, over the draws, the mean of the mean,
the mean of the worst group, the lowest worst group and how often the worst group fell
below 0.05 (a phase no head covers is at chance, about 8/N_c). The layout follows
`compare` (architectures[i]: label, kv_cost, summary) so that plots read either.

usage: draws.py CASE DRAWS OUT.json ARCH.toml... -- PHASESIM-OPTIONS..."""
import json
import os
import re
import subprocess
import sys
import tempfile

PHASESIM = os.environ.get("PHASESIM", "build/phasesim")
FLOOR = 0.05


def draw_files(path, draws, folder):
    text = open(path).read()
    if "random:" not in text:
        return [path]
    files = []
    for d in range(draws):
        shifted = re.sub(r"random:(\d+)", lambda m: f"random:{int(m.group(1)) + 8 * d}", text)
        name = os.path.join(folder, f"{os.path.basename(path)[:-5]}-draw{d}.toml")
        with open(name, "w") as f:
            f.write(shifted)
        files.append(name)
    return files


def summarize(path, doc):
    runs = doc["architectures"]
    worst = [r["summary"]["worst"] for r in runs]
    return {
        "label": runs[0]["label"],
        "file": os.path.basename(path),
        "kv_cost": runs[0]["kv_cost"],
        "draws": len(runs),
        "summary": {"mean": sum(r["summary"]["mean"] for r in runs) / len(runs),
                    "worst": sum(worst) / len(worst)},
        "lowest_worst": min(worst),
        "worst_below_floor": sum(w < FLOOR for w in worst) / len(worst),
    }


def main(case, draws, out, files, options):
    result = {"command": "mitigation-draws", "case": case, "draws": int(draws),
              "floor": FLOOR, "options": options, "architectures": []}
    with tempfile.TemporaryDirectory() as folder:
        for path in files:
            runs = draw_files(path, int(draws), folder)
            command = [PHASESIM, "compare", *runs, "--engine", "analytic", *options, "--json", "-"]
            doc = json.loads(subprocess.run(command, check=True, capture_output=True,
                                            text=True).stdout)
            result["architectures"].append(summarize(path, doc))
    with open(out, "w") as f:
        json.dump(result, f, indent=2)


if __name__ == "__main__":
    split = sys.argv.index("--")
    main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:split], sys.argv[split + 1:])
