#!/usr/bin/env python3
"""Summarizes the training lab's models (the `phasesim train` documents in MODELS_DIR):
models.csv, one row per model, and summary.json, per stride (period, concentration,
lock-in, blind phases against T3's multinomial law) and per init scale x batch (lock-in).
Prints the summary tables.

usage: summarize.py MODELS_DIR OUT_DIR"""
import csv
import glob
import json
import math
import os
import sys
from collections import Counter

COLUMNS = ["model", "stride", "window", "heads", "seed", "init_scale", "batch", "period",
           "max_weight_min", "max_weight_mean", "phase_coverage_min", "kept_phase", "kept_slot", "blind_phases",
           "initial_blind_phases", "mean", "worst", "gap", "final_loss"]


def row(name, doc):
    weights = [h["final_max_weight"] for h in doc["per_head"]]
    coverage = [h["final_phase_coverage"] for h in doc["per_head"]]
    return {"model": name, "stride": doc["stride"], "window": doc["window"], "heads": doc["heads"],
            "seed": doc["seed"], "init_scale": doc["init_scale"], "batch": doc["batch"],
            "period": doc["estimated_period"]["period"], "max_weight_min": min(weights),
            "max_weight_mean": sum(weights) / len(weights), "phase_coverage_min": min(coverage),
            "kept_phase": doc["kept_phase"],
            "kept_slot": doc["kept_slot"], "blind_phases": doc["blind_phase_count"],
            "initial_blind_phases": len(doc["initial_blind_phases"]),
            "mean": doc["summary"]["mean"], "worst": doc["summary"]["worst"],
            "gap": doc["summary"]["gap"], "final_loss": doc["loss_curve"][-1]["loss"]}


def mean_se(values):
    n = len(values)
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / (n - 1) if n > 1 else 0.0
    return mean, math.sqrt(var / n)


def period_counts(rows):
    """How many models have each estimated period; no period (None) last."""
    counts = Counter(r["period"] for r in rows)
    return {str(p): n for p, n in sorted(counts.items(), key=lambda c: (c[0] is None, c[0] or 0))}


def stride_summary(rows, docs):
    S, H = rows[0]["stride"], rows[0]["heads"]
    blind = [r["blind_phases"] for r in rows]
    blind_mean, blind_se = mean_se(blind)
    counts = Counter(blind)
    heads = sum(r["heads"] for r in rows)
    return {"stride": S, "window": rows[0]["window"], "heads": H, "models": len(rows),
            "period_counts": period_counts(rows),
            "period_equals_stride": sum(r["period"] == S for r in rows),
            "max_weight_mean": sum(r["max_weight_mean"] for r in rows) / len(rows),
            "max_weight_min": min(r["max_weight_min"] for r in rows),
            "phase_coverage_min": min(r["phase_coverage_min"] for r in rows),
            "heads_above_0_9": sum(h["final_max_weight"] > 0.9 for d in docs for h in d["per_head"]),
            "heads_total": heads,
            "kept_phase": sum(r["kept_phase"] for r in rows),
            "kept_slot": sum(r["kept_slot"] for r in rows),
            "blind_mean": blind_mean, "blind_se": blind_se,
            "blind_expected": docs[0]["blind_expected"],
            "initial_blind_mean": mean_se([r["initial_blind_phases"] for r in rows])[0],
            "blind_observed": [counts.get(j, 0) / len(rows) for j in range(S + 1)],
            "blind_law": docs[0]["blind_law"],
            "mean_accuracy": sum(r["mean"] for r in rows) / len(rows),
            "worst_accuracy": sum(r["worst"] for r in rows) / len(rows)}


def lockin_summary(rows):
    heads = sum(r["heads"] for r in rows)
    kept = sum(r["kept_phase"] for r in rows)
    return {"init_scale": rows[0]["init_scale"], "batch": rows[0]["batch"], "models": len(rows),
            "heads": heads, "kept_phase": kept, "kept_slot": sum(r["kept_slot"] for r in rows),
            "lock_in_rate": kept / heads,
            "max_weight_mean": sum(r["max_weight_mean"] for r in rows) / len(rows)}


def main(models_dir, out_dir):
    docs = {}
    for path in sorted(glob.glob(os.path.join(models_dir, "*.json"))):
        with open(path) as f:
            docs[os.path.basename(path)[:-5]] = json.load(f)
    rows = {name: row(name, doc) for name, doc in docs.items()}
    strides, lockin = {}, {}
    for name, r in rows.items():
        if name.startswith("lockin_"):
            lockin.setdefault((r["init_scale"], r["batch"]), []).append(name)
        else:
            strides.setdefault(r["stride"], []).append(name)
    summary = {
        "strides": [stride_summary([rows[n] for n in names], [docs[n] for n in names])
                    for _, names in sorted(strides.items())],
        "lockin": [lockin_summary([rows[n] for n in names]) for _, names in sorted(lockin.items())],
    }
    with open(os.path.join(out_dir, "models.csv"), "w", newline="") as f:
        writer = csv.DictWriter(f, COLUMNS)
        writer.writeheader()
        for name in sorted(rows, key=lambda n: (rows[n]["stride"], n)):
            writer.writerow(rows[name])
    with open(os.path.join(out_dir, "summary.json"), "w") as f:
        json.dump(summary, f, indent=2)
        f.write("\n")
    print_tables(summary)


def print_tables(summary):
    print("  S  W   H  models  period = S  periods        max weight (mean, min)  "
          "phase coverage (min)  lock-in (phase)  blind phases      T3")
    for s in summary["strides"]:
        periods = " ".join(f"{p}:{n}" for p, n in s["period_counts"].items())
        print(f"{s['stride']:3d} {s['window']:2d} {s['heads']:3d} {s['models']:7d} "
              f"{s['period_equals_stride']:5d}/{s['models']:<5d} {periods:14s} "
              f"{s['max_weight_mean']:.3f}, {s['max_weight_min']:.3f}          "
              f"{s['phase_coverage_min']:.3f}                 "
              f"{s['kept_phase']:4d}/{s['heads_total']:<4d}      "
              f"{s['blind_mean']:.2f} +- {s['blind_se']:.2f}     {s['blind_expected']:.2f}")
    print("\ninit scale  batch  heads kept on their initial argmax's phase")
    for c in summary["lockin"]:
        print(f"{c['init_scale']:10g} {c['batch']:6d}  {c['kept_phase']:3d}/{c['heads']:<3d} "
              f"({c['lock_in_rate']:.2f}), max weight {c['max_weight_mean']:.3f}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(*sys.argv[1:])
