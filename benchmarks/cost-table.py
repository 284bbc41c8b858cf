#!/usr/bin/env python3
"""The README's "How cost grows" tables from one run of build/phasesim_command_benchmarks.

    build/phasesim_command_benchmarks --benchmark_out=commands.json --benchmark_out_format=json
    python3 benchmarks/cost-table.py commands.json

Prints Markdown tables: the theory commands over the window (CPU time on one thread, and each
command's up-front estimate over that time), each engine's time at a base case with the factor
that four times L, W, d or the heads (or 64 query heads a cache) multiplies it by, frontier at
three contexts, and diagnose at three tables.
The header line names the CPU, the SIMD target and the load the run saw."""
import json
import sys

WINDOWS = [(8, 4), (16, 8), (32, 16), (64, 32), (128, 128)]
# Four slots a phase (W = 4S): the success rule's phases, beyond the tables' two slots.
FOUR_SLOTS = [(16, 4), (32, 8), (64, 16)]


def seconds(run):
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[run["time_unit"]]
    return run["cpu_time"] * scale


def args(run):
    """{"W": 8, "S": 4, ...} from a name such as BM_Optimize/W:8/S:4/N:32768."""
    parts = run["name"].split("/")[1:]
    return {k: int(v) for k, v in (p.split(":") for p in parts if ":" in p)}


def text(s):
    if s < 1e-3:
        return f"{s * 1e6:.0f} us"
    if s < 1:
        return f"{s * 1e3:.1f} ms" if s < 0.1 else f"{s * 1e3:.0f} ms"
    return f"{s:.2f} s"


def theory_table(runs, windows=WINDOWS, only=None):
    rows = [("`optimize --beta 6 --entries 32768`", "BM_Optimize", {"N": 32768}),
            ("`phase-diagram --beta 2:12:2 --entries 1024,32768 --restarts 1`", "BM_PhaseDiagram", {}),
            ("`dynamics` (2000 steps)", "BM_Dynamics", {"tau10": 0}),
            ("`dynamics --content-noise 0.5`", "BM_Dynamics", {"tau10": 5}),
            ("`theorem concentration --beta 5`", "BM_TheoremConcentration", {}),
            ("`theorem lockin --beta 6`", "BM_TheoremLockin", {}),
            ("`diversity --train-heads 4 --train-runs 2 --train-steps 200`", "BM_DiversityTraining",
             {"heads": 4})]
    rows = [r for r in rows if only is None or r[0] in only]
    lines = ["| command | " + " | ".join(f"W {w} / S {s}" if w != s else f"W = S = {w}"
                                         for w, s in windows) + " | estimate / time |",
             "|---|" + "---|" * (len(windows) + 1)]
    for label, name, fixed in rows:
        cells, ratios = [], []
        for w, s in windows:
            match = [r for r in runs if r["name"].startswith(name + "/") and args(r).get("W") == w
                     and args(r).get("S") == s and all(args(r).get(k) == v for k, v in fixed.items())]
            if not match:
                cells.append("")
                continue
            t = seconds(match[0])
            cells.append(text(t))
            ratios.append(match[0]["estimate_s"] / t)
        spread = f"{min(ratios):.2f} to {max(ratios):.2f}" if ratios else ""
        lines.append(f"| {label} | " + " | ".join(cells) + f" | {spread} |")
    return "\n".join(lines)


def engine_table(runs):
    lines = ["| `niah --engine` | base case | time | x4 L | x4 W | x4 d | x4 heads | estimate / time |",
             "|---|---|---|---|---|---|---|---|"]
    for engine, name in (("fast", "BM_NiahFast"), ("full", "BM_NiahFull"),
                         ("full-double", "BM_NiahFullDouble")):
        cases = [r for r in runs if r["name"].startswith(name + "/")]
        if not cases:
            continue
        base = cases[0]
        b = args(base)

        def factor(key):
            for r in cases[1:]:
                a = args(r)
                if a[key] == 4 * b[key] and all(a[k] == b[k] for k in b if k != key):
                    return f"{seconds(r) / seconds(base):.2f}"
            return "n/a"
        ratios = [r["estimate_s"] / seconds(r) for r in cases]
        d = f"d {b['d']}" if b["d"] else "standardized"
        lines.append(f"| {engine} | L {b['L']}, W {b['W']} / S {b['W'] // 2}, {d}, {b['heads']} head, 128 trials "
                     f"| {text(seconds(base))} | {factor('L')} | {factor('W')} | {factor('d')} | "
                     f"{factor('heads')} | {min(ratios):.2f} to {max(ratios):.2f} |")
    analytic = {(args(r)["caches"], args(r)["query"]): r for r in runs
                if r["name"].startswith("BM_NiahAnalytic/")}
    if (1, 1) in analytic:
        base = seconds(analytic[(1, 1)])
        ratios = [r["estimate_s"] / seconds(r) for r in analytic.values()]
        four = seconds(analytic[(4, 1)]) / base if (4, 1) in analytic else float("nan")
        query = seconds(analytic[(1, 64)]) / base if (1, 64) in analytic else float("nan")
        lines.append(f"| analytic | W = S = 128, L 131072, 1 cache, 128 trials | {text(base)} | | | | "
                     f"{four:.2f} (x64 query heads: {query:.2f}) | {min(ratios):.2f} to {max(ratios):.2f} |")
    return "\n".join(lines)


def frontier_table(runs):
    """frontier over the README's 36 designs at each context, and at 128k with the presets."""
    cases = [r for r in runs if r["name"].startswith("BM_Frontier/")]
    if not cases:
        return ""
    lines = ["| `frontier` (36 designs) | " + " | ".join(
                 f"L {args(r)['L']}" + (", presets" if args(r)["presets"] else "") for r in cases)
             + " | estimate / time |",
             "|---|" + "---|" * (len(cases) + 1)]
    ratios = [r["estimate_s"] / seconds(r) for r in cases]
    lines.append("| time | " + " | ".join(text(seconds(r)) for r in cases)
                 + f" | {min(ratios):.2f} to {max(ratios):.2f} |")
    return "\n".join(lines)


def diagnose_table(runs):
    """diagnose --threads 1 of three tables the analytic engine made (benchmarks/command_cases.cpp)."""
    labels = {(8, 0, 1): "the period tests and both one-head fits: 8 groups, W 8 / S 4, L 131072",
              (4, 16, 1): "a one-token fit under `--top-k 16 --sliding-window 64`: W = S = 4, L 8192",
              (2, 0, 2): "the fit of `--needle-tokens 2` by the argmax: W = S = 2, L 2048"}
    lines = ["| `diagnose` | time | estimate / time |", "|---|---|---|"]
    for r in runs:
        if not r["name"].startswith("BM_Diagnose/"):
            continue
        a = args(r)
        label = labels.get((a["W"], a["k"], a["n"]), r["name"])
        lines.append(f"| {label} | {text(seconds(r))} | {r['estimate_s'] / seconds(r):.2f} |")
    return "\n".join(lines) if len(lines) > 2 else ""


def main(path):
    with open(path) as f:
        report = json.load(f)
    runs = [r for r in report["benchmarks"] if r.get("run_type", "iteration") == "iteration"]
    context = report["context"]
    load = context.get("load_avg", [])
    print(f"One run of `build/phasesim_command_benchmarks`, one thread, CPU time: "
          f"{context.get('num_cpus')} CPUs at {context.get('mhz_per_cpu')} MHz, SIMD target "
          f"{context.get('simd_target', '?')}, load average {', '.join(f'{x:.1f}' for x in load)}.\n")
    print(theory_table(runs))
    print()
    print(theory_table(runs, FOUR_SLOTS, ["`optimize --beta 6 --entries 32768`", "`dynamics` (2000 steps)"]))
    print()
    print(engine_table(runs))
    print()
    print(frontier_table(runs))
    print()
    print(diagnose_table(runs))
    ratios = [r["estimate_s"] / seconds(r) for r in runs]
    print(f"\nEvery case of the grid ({len(runs)}): estimate / time from {min(ratios):.2f} to "
          f"{max(ratios):.2f}.")


if __name__ == "__main__":
    main(sys.argv[1])
