#!/usr/bin/env python3
"""Summarizes experiments/training-real's models (the `phasesim train` documents in
MODELS_DIR): models.csv, one row per model, and summary.json with
  per_channel       (a) per stride: each model's per-channel coverage (share of the channels per
                    phase, sorted largest first), its entropy at the start and the end against
                    independent channels, the period, best/worst/mean of the table;
  equal_parameters  (b) per stride: one per-channel head against d single-gate heads, the same
                    number of gate parameters (d (W + d) = d x (W + d));
  gathering         (c) per stride and --batches: blind phases against T3's law (training-lab's
                    stride summary);
  published         (d) the distance of every (a) model to V4's and V4.1's published tables
                    (PUBLISHED, shared/reference/published_figures.json), the closest of each.
Prints the tables.

usage: summarize.py MODELS_DIR OUT_DIR PUBLISHED"""
import csv
import glob
import json
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "training-lab"))
from summarize import mean_se, period_counts, row as lab_row, stride_summary  # noqa: E402  (training-lab's)

COLUMNS = ["model", "part", "stride", "window", "dim", "heads", "per_channel", "batches", "seed",
           "parameters", "period", "best", "worst", "mean", "gap", "final_loss", "blind_phases",
           "initial_blind_phases", "phases_covered", "entropy_initial", "entropy_final",
           "kept_phase_channels", "shares_sorted", "distance_v4", "distance_v41"]
# The distance to a published table: the RMS over its best and worst group of the difference
# in accuracy (percentage points). V4 publishes its best and worst group (69.9, 29.7); V4.1
# (stride 2) its even and odd residues' ranges, whose best and worst are 95.3 and 89.2.
DISTANCE = ("RMS over the best and the worst group of the accuracy difference, in percentage "
            "points: sqrt(((best - B)^2 + (worst - W)^2) / 2)")


def published_tables(path):
    with open(path) as f:
        results = json.load(f)["niah_results_percent"]
    v4, v41 = results["DeepSeek-V4-Flash-Base"], results["DeepSeek-V4.1-Flash"]
    residues = v41["even_residues"] + v41["odd_residues"]
    return {"v4": {"name": "DeepSeek-V4-Flash-Base", "stride": 4, "best": v4["best"],
                   "worst": v4["worst"]},
            "v41": {"name": "DeepSeek-V4.1-Flash", "stride": v41["stride"],
                    "best": max(residues), "worst": min(residues)}}


def distance(doc, table):
    best, worst = 100 * doc["summary"]["best"], 100 * doc["summary"]["worst"]
    return math.sqrt(((best - table["best"]) ** 2 + (worst - table["worst"]) ** 2) / 2)


def parameters(doc):
    """Gate parameters and lambdas, from the layout of docs/TRAINING.md: a per-channel head
    has a W x d bias and a d x d content matrix, a single-gate head W + d; one lambda each."""
    W, d, H = doc["window"], doc["dim"], doc["heads"]
    per_head = W * d + d * d if doc.get("per_channel") else W + d
    return H * (per_head + 1)


def entropy(shares):
    return -sum(p * math.log(p) for p in shares if p > 0)


def independent_law(count, stride):
    """The expected entropy and sorted shares (largest first) of the phase shares of `count`
    channels (or heads) that pick their phase independently and uniformly: T3's independence,
    stated for coverage. Exact, over every composition of `count` into `stride` parts."""
    def compositions(n, parts):
        if parts == 1:
            yield (n,)
            return
        for k in range(n + 1):
            for rest in compositions(n - k, parts - 1):
                yield (k,) + rest
    expected_entropy, expected_shares = 0.0, [0.0] * stride
    for c in compositions(count, stride):
        ways = math.factorial(count)
        for k in c:
            ways //= math.factorial(k)
        p = ways / stride ** count
        expected_entropy += p * entropy([k / count for k in c])
        for i, k in enumerate(sorted(c, reverse=True)):
            expected_shares[i] += p * k / count
    return expected_entropy, expected_shares


def model_row(name, doc, tables):
    part = name.split("_")[0]
    r = {"model": name, "part": part, "stride": doc["stride"], "window": doc["window"],
         "dim": doc["dim"], "heads": doc["heads"], "per_channel": bool(doc.get("per_channel")),
         "batches": doc.get("batches", "shared"), "seed": doc["seed"],
         "parameters": parameters(doc), "period": doc["estimated_period"]["period"],
         "best": doc["summary"]["best"], "worst": doc["summary"]["worst"],
         "mean": doc["summary"]["mean"], "gap": doc["summary"]["gap"],
         "final_loss": doc["loss_curve"][-1]["loss"], "blind_phases": doc["blind_phase_count"],
         "initial_blind_phases": len(doc["initial_blind_phases"])}
    if r["per_channel"]:
        channels = doc["per_head"][0]["channels"]
        shares = channels["final"]["phase_share"]
        r.update(phases_covered=sum(p > 0 for p in shares),
                 entropy_initial=channels["initial"]["entropy"],
                 entropy_final=channels["final"]["entropy"],
                 kept_phase_channels=channels["kept_phase"])
    else:
        # Single-gate heads: the share of the heads per phase, read like the channels'.
        shares = [n / doc["heads"] for n in doc["heads_per_phase"]]
        r.update(phases_covered=sum(p > 0 for p in shares), entropy_final=entropy(shares))
    if part in ("channel", "single"):  # the paper's protocol: 8 groups x 256 prompts
        r.update(distance_v4=distance(doc, tables["v4"]), distance_v41=distance(doc, tables["v41"]))
    r["shares_sorted"] = " ".join(f"{p:.4g}" for p in sorted(shares, reverse=True))
    return r


def stat(rows, key):
    mean, se = mean_se([r[key] for r in rows])
    return {"mean": mean, "se": se}


def table_summary(rows):
    return {"models": len(rows), "heads": rows[0]["heads"], "parameters": rows[0]["parameters"],
            "period_counts": period_counts(rows),
            "period_equals_stride": sum(r["period"] == r["stride"] for r in rows),
            "best": stat(rows, "best"), "worst": stat(rows, "worst"), "mean": stat(rows, "mean"),
            "entropy_final": stat(rows, "entropy_final"),
            "phases_covered": stat(rows, "phases_covered")}


def per_channel_summary(rows):
    S, d = rows[0]["stride"], rows[0]["dim"]
    sorted_shares = [[float(p) for p in r["shares_sorted"].split()] for r in rows]
    return {"stride": S, "window": rows[0]["window"], "channels": d, **table_summary(rows),
            "entropy_initial": stat(rows, "entropy_initial"),
            "entropy_independent": independent_law(d, S)[0],
            "shares_independent": independent_law(d, S)[1], "entropy_uniform": math.log(S),
            "kept_phase_channels": stat(rows, "kept_phase_channels"),
            "shares_sorted": [stat([{"s": s[i]} for s in sorted_shares], "s") for i in range(S)]}


def paired_summary(shared, independent):
    """The two arms start from the same gates (seed k) and differ only in their batches: the
    blind phases of shared minus independent, seed by seed."""
    by_seed = {r["seed"]: r["blind_phases"] for r in independent}
    differences = [r["blind_phases"] - by_seed[r["seed"]] for r in shared if r["seed"] in by_seed]
    mean, se = mean_se(differences)
    return {"stride": shared[0]["stride"], "models": len(differences),
            "shared_minus_independent": mean, "se": se,
            "shared_more": sum(d > 0 for d in differences),
            "independent_more": sum(d < 0 for d in differences)}


def alone_summary(stride, docs):
    """Decoupled heads: model k's S heads each trained alone (a one-head layer: its own tokens,
    query and loss), their final argmax phases pooled as one model's."""
    models = {}
    for name, doc in docs.items():
        models.setdefault(name.rsplit("_head", 1)[0], []).append(doc["per_head"][0])
    blind = [stride - len({h["final_argmax"]["phase"] for h in heads}) for heads in models.values()]
    initial = [stride - len({h["initial_argmax"]["phase"] for h in heads})
               for heads in models.values()]
    mean, se = mean_se(blind)
    heads = [h for hs in models.values() for h in hs]
    return {"stride": stride, "heads": stride, "models": len(models), "blind_mean": mean,
            "blind_se": se, "initial_blind_mean": mean_se(initial)[0],
            "blind_expected": stride * (1 - 1 / stride) ** stride,
            "kept_phase": sum(h["kept_phase"] for h in heads), "heads_total": len(heads),
            "max_weight_mean": sum(h["final_max_weight"] for h in heads) / len(heads)}


def published_summary(rows, tables):
    """Per published table: the closest model, and per part and stride the closest and the
    mean distance over the seeds."""
    closest = {}
    for key, table in tables.items():
        column = f"distance_{key}"
        ranked = sorted(rows, key=lambda r: r[column])
        cells = {}
        for r in ranked:
            cells.setdefault((r["part"], r["stride"]), []).append(r)
        keys = ("model", "part", "stride", "heads", "best", "worst", "mean", column)
        closest[key] = {**table, "closest": {k: ranked[0][k] for k in keys},
                        "cells": [{**{k: same[0][k] for k in keys},
                                   "distance_mean": stat(same, column)}
                                  for (_, _), same in sorted(cells.items())]}
    return {"distance": DISTANCE, **closest}


def main(models_dir, out_dir, published):
    tables = published_tables(published)
    docs = {}
    for path in sorted(glob.glob(os.path.join(models_dir, "*.json"))):
        with open(path) as f:
            docs[os.path.basename(path)[:-5]] = json.load(f)
    rows = {name: model_row(name, doc, tables) for name, doc in docs.items()}
    groups = {}
    for name, r in rows.items():
        groups.setdefault((r["part"], r["stride"], r["batches"]), []).append(name)
    part = {key: [rows[n] for n in names] for key, names in groups.items()}
    strides = sorted({s for (p, s, _) in part if p == "channel"}, reverse=True)
    summary = {
        "per_channel": [per_channel_summary(part["channel", s, "shared"]) for s in strides],
        "equal_parameters": [
            {"stride": s, "per_channel": table_summary(part["channel", s, "shared"]),
             "single_gate": {**table_summary(part["single", s, "shared"]),
                             "blind_phases": stat(part["single", s, "shared"], "blind_phases")}}
            for s in strides if ("single", s, "shared") in part],
        "gathering": [{"batches": b, **stride_summary(
            [lab_row(n, docs[n]) for n in groups[p, s, b]], [docs[n] for n in groups[p, s, b]])}
                      for (p, s, b) in sorted(part, key=lambda k: (k[1], k[2] != "shared"))
                      if p == "gather"],
        "paired": [paired_summary(part["gather", s, "shared"], part["gather", s, "independent"])
                   for (p, s, b) in sorted(part) if p == "gather" and b == "independent"],
        "alone": [alone_summary(s, {n: docs[n] for n in groups[p, s, b]})
                  for (p, s, b) in sorted(part) if p == "alone"],
        "published": published_summary(
            [r for r in rows.values() if r["part"] in ("channel", "single")], tables),
    }
    with open(os.path.join(out_dir, "models.csv"), "w", newline="") as f:
        writer = csv.DictWriter(f, COLUMNS)
        writer.writeheader()
        for name in sorted(rows, key=lambda n: (rows[n]["part"], rows[n]["stride"], n)):
            writer.writerow(rows[name])
    with open(os.path.join(out_dir, "summary.json"), "w") as f:
        json.dump(summary, f, indent=2)
        f.write("\n")
    print_tables(summary)


def pm(s, scale=1.0, digits=3):
    return f"{scale * s['mean']:.{digits}f} +- {scale * s['se']:.{digits}f}"


def print_tables(summary):
    print("(a) per-channel compressors (one head, d channels): coverage over the phases")
    print("  S  W  models  phases covered  entropy start -> end (indep., uniform)  "
          "sorted shares                        period = S  worst            mean")
    for s in summary["per_channel"]:
        shares = " ".join(f"{x['mean']:.2f}" for x in s["shares_sorted"])
        print(f"{s['stride']:3d} {s['window']:2d} {s['models']:7d}  {pm(s['phases_covered'], digits=2):14s}  "
              f"{s['entropy_initial']['mean']:.3f} -> {pm(s['entropy_final'])} "
              f"({s['entropy_independent']:.3f}, {s['entropy_uniform']:.3f})  {shares:35s}  "
              f"{s['period_equals_stride']:3d}/{s['models']:<3d}    {pm(s['worst'])}  {pm(s['mean'])}")
    print("\n(b) equal parameter count: one per-channel head against d single-gate heads")
    print("  S  model                      parameters  worst            mean             "
          "best             period = S")
    for e in summary["equal_parameters"]:
        for kind, label in (("per_channel", "1 per-channel head"), ("single_gate", "single-gate heads")):
            t = e[kind]
            name = label if kind == "per_channel" else f"{t['heads']} {label}"
            print(f"{e['stride']:3d}  {name:25s} {t['parameters']:10d}  {pm(t['worst'])}  "
                  f"{pm(t['mean'])}  {pm(t['best'])}  {t['period_equals_stride']:3d}/{t['models']}")
    print("\n(c) gathering: blind phases of H = S single-gate heads (W = 2S), shared against "
          "independent batches")
    print("  S  batches      models  blind phases    initial  T3     lock-in (phase)  "
          "max weight  period = S")
    for g in summary["gathering"]:
        print(f"{g['stride']:3d}  {g['batches']:11s} {g['models']:7d}  {g['blind_mean']:.2f} +- "
              f"{g['blind_se']:.2f}    {g['initial_blind_mean']:.2f}     {g['blind_expected']:.2f}"
              f"   {g['kept_phase']:4d}/{g['heads_total']:<4d}       {g['max_weight_mean']:.3f}"
              f"       {g['period_equals_stride']}/{g['models']}")
    for d in summary["paired"]:
        print(f"  S = {d['stride']}, paired by seed (same initial gates): shared - independent = "
              f"{d['shared_minus_independent']:.2f} +- {d['se']:.2f} blind phases (shared more in "
              f"{d['shared_more']}, independent more in {d['independent_more']} of {d['models']})")
    if summary["alone"]:
        print("\n(c') decoupled heads: each of a model's S heads trained alone (one-head layers)")
        print("  S  models  blind phases    initial  T3     lock-in (phase)  max weight")
        for g in summary["alone"]:
            print(f"{g['stride']:3d} {g['models']:7d}  {g['blind_mean']:.2f} +- {g['blind_se']:.2f}"
                  f"    {g['initial_blind_mean']:.2f}     {g['blind_expected']:.2f}   "
                  f"{g['kept_phase']:4d}/{g['heads_total']:<4d}       {g['max_weight_mean']:.3f}")
    p = summary["published"]
    print(f"\n(d) distance to the published tables ({p['distance']})")
    for key in ("v4", "v41"):
        t = p[key]
        print(f"{t['name']} (S = {t['stride']}, best {t['best']}, worst {t['worst']}):")
        print("  models              S  closest              best   worst  distance (pp)  "
              "mean over seeds")
        for c in t["cells"]:
            kind = "1 per-channel head" if c["part"] == "channel" else f"{c['heads']} single-gate heads"
            print(f"  {kind:19s} {c['stride']:1d}  {c['model']:19s} {100 * c['best']:5.1f}  "
                  f"{100 * c['worst']:5.1f}  {c['distance_' + key]:12.1f}   "
                  f"{pm(c['distance_mean'], digits=1)}")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
