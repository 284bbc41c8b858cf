#!/usr/bin/env python3
"""The mitigation table: for each case and fix, the KV cost, the exact mean and worst group
of the checked-in architecture (analytic engine), the same by Monte Carlo (fast engine,
256 prompts per group) with the paired difference of the worst group against `trained`,
and the expected worst group over draws of the trained gates (draws.py).

usage: summarize.py OUT CASE...   (reads OUT/CASE_{exact,fast,draws}.json, writes OUT/table.json)"""
import json
import os
import sys

TITLES = {"w8s8": "W8/S8, 8 heads", "w8s4": "W8/S4 (V4-like), 8 heads"}


def load(out, case, kind):
    with open(os.path.join(out, f"{case}_{kind}.json")) as f:
        return json.load(f)


def rows(out, case):
    exact = load(out, case, "exact")["architectures"]
    fast = load(out, case, "fast")["architectures"]
    draws = load(out, case, "draws")["architectures"]
    table = []
    for e, f, d in zip(exact, fast, draws):
        assert e["label"] == f["label"] == d["label"], (e["label"], f["label"], d["label"])
        s = f["summary"]
        table.append({
            "fix": e["label"],
            "entries_per_token": e["kv_cost"]["entries_per_token"],
            "relative_to_full_attention": e["kv_cost"]["relative_to_full_attention"],
            "exact_mean": e["summary"]["mean"],
            "exact_worst": e["summary"]["worst"],
            "mc_mean": s["mean"],
            "mc_mean_std_error": s["mean_std_error"],
            "mc_worst": s["worst"],
            "mc_worst_group": s["worst_group"],
            "mc_worst_minus_trained": f["difference"]["worst"],
            "mc_worst_minus_trained_std_error": f["difference"]["worst_std_error"],
            "draws": d["draws"],
            "expected_mean": d["summary"]["mean"],
            "expected_worst": d["summary"]["worst"],
            "worst_below_floor": d["worst_below_floor"],
        })
    return table


def markdown(case, table):
    lines = [f"**{TITLES.get(case, case)}**", "",
             "| fix | KV cost (entries/token) | of full | exact mean | exact worst | "
             "MC mean | MC worst | MC worst - trained | draws | E[mean] | E[worst] | "
             "P(worst < 0.05) |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in table:
        drawn = r["draws"] > 1
        expected = (f"{r['draws']} | {r['expected_mean']:.3f} | {r['expected_worst']:.3f} | "
                    f"{r['worst_below_floor']:.2f}" if drawn else "fixed | | | -")
        lines.append(
            f"| {r['fix']} | {r['entries_per_token']:.3f} | {r['relative_to_full_attention']:.3f} "
            f"| {r['exact_mean']:.3f} | {r['exact_worst']:.3f} "
            f"| {r['mc_mean']:.3f} ± {r['mc_mean_std_error']:.3f} | {r['mc_worst']:.3f} "
            f"| {r['mc_worst_minus_trained']:+.3f} ± {r['mc_worst_minus_trained_std_error']:.3f} "
            f"| {expected} |")
    return "\n".join(lines)


def main(out, cases):
    tables = {case: rows(out, case) for case in cases}
    with open(os.path.join(out, "table.json"), "w") as f:
        json.dump(tables, f, indent=2)
    print("\n\n".join(markdown(case, table) for case, table in tables.items()))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
