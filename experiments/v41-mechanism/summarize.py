#!/usr/bin/env python3
"""Collects the parts' results into summary.json and summary.csv (one row per cause and
setting: even and odd accuracy, the gap efficiency rho) and draws the figures: RoPE's rho
against the table's band (b), and 2-token needles aligned and straddling with the table's
solution (c). Parts that did not run (the quick variant) are left out."""
import csv
import json
import math
import os
import sys

OUT = sys.argv[1]


def load(name):
    path = os.path.join(OUT, f"{name}.json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def rho(even, odd):
    if even >= 1 or odd >= 1:
        return None
    return math.log((1 - odd) / (1 - even)) / math.log(1 / (1 - even))


def phases(doc, groups):
    """Mean accuracy of the even and the odd groups of a niah document, and its trials."""
    acc = [g["accuracy"] for g in doc["groups"]]
    even = sum(acc[0:groups:2]) / len(acc[0:groups:2])
    odd = sum(acc[1:groups:2]) / len(acc[1:groups:2])
    trials = doc["groups"][0].get("trials")
    return even, odd, trials


def row(cause, setting, even, odd, trials=None):
    se = None
    if trials:  # the standard error of even - odd, over the groups pooled into each
        se = math.sqrt(even * (1 - even) / trials + odd * (1 - odd) / trials)
    return {"cause": cause, "setting": setting, "even": even, "odd": odd, "gap": even - odd,
            "gap_se": se, "rho": rho(even, odd)}


def symmetry_rows():
    rows = []
    for beta in (2, 3, 4):
        doc = load(f"a_stack_beta{beta}")
        even, odd, _ = phases(doc, 8)
        rows.append(row("V4.1 stack, 1-token needle (analytic)", f"beta {beta}", even, odd))
    for tau in ("0.5", "2"):
        doc = load(f"a_noise_tau{tau}")
        even, odd, trials = phases(doc, 8)
        rows.append(row("content noise, 1-token needle (fast)", f"beta 4, 8K, tau {tau}", even, odd,
                        4 * trials))
    return rows


def stack_rows():
    fit = load("stack_fit")
    rows = []
    for context, pred in fit["predictions"].items():
        for model, s in pred.items():
            rows.append(row(f"V4-Flash-Base fit: {model} (even: best, odd: worst)", context,
                            s["best"], s["worst"]))
    return rows


def optional_rows():
    rows = []
    rope = load("rope")
    if rope:
        c = rope["one_cache"]
        rows.append(row("RoPE at the block start, one cache", f"beta {c['beta']:.4f}", c["even"],
                        c["odd"]))
    needles = load("needles")
    if needles:
        a = needles["alone"]
        rows.append(row("2-token needle, one cache", f"beta {a['beta']:.4f}", a["even"], a["odd"]))
        for key, s in needles["with_flat_cache"].items():
            rows.append(row("2-token needle, ratio-2 cache + flat cache",
                            f"{key}: beta {s['beta']:.4f}, flat reads {s['flat_cache_reads']:.4f}",
                            s["stack_even"], s["stack_odd"]))
    for tau in ("0", "0.5", "1"):
        doc = load(f"d_noise_tau{tau}")
        if doc:
            even, odd, trials = phases(doc, 2)
            rows.append(row("2-token needle + content noise (full, d 16, 8K)", f"tau {tau}",
                            even, odd, trials))
    return rows


def figures():
    rope, needles = load("rope"), load("needles")
    if not (rope and needles):
        return
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    os.makedirs(os.path.join(OUT, "figures"), exist_ok=True)
    band = rope["target"]["rho"]
    fig, ax = plt.subplots(figsize=(6, 3.6))
    scan = rope["scan"]
    ax.plot([r["beta"] for r in scan], [r["rho"] for r in scan], label="RoPE at the block start")
    ax.axhspan(band["low"], band["high"], color="tab:red", alpha=0.2, label="the table needs")
    ax.set_xlabel("beta")
    ax.set_ylabel("rho = log(F_odd / F_even) / log(1 / F_even)")
    ax.set_title("RoPE at the block start: one W = S = 2 cache, 1-token needle")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(OUT, "figures", "b_rope_rho.png"), dpi=120)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(6, 3.6))
    curve = needles["curves"]["2"]
    betas = [r["beta"] for r in curve]
    ax.plot(betas, [r["even"] for r in curve], "o-", label="2 tokens, even start (aligned)")
    ax.plot(betas, [r["odd"] for r in curve], "o-", label="2 tokens, odd start (straddling)")
    ax.plot(betas, [r["even"] for r in needles["curves"]["3"]], "s--",
            label="3 tokens, either start")
    mid = needles["with_flat_cache"]["mid"]
    ax.axvline(mid["beta"], color="grey", lw=0.8)
    ax.set_xlabel("beta of the ratio-2 cache")
    ax.set_ylabel("accuracy")
    ax.set_title(f"With a flat cache reading {mid['flat_cache_reads']:.3f}: "
                 f"{mid['stack_even']:.3f} / {mid['stack_odd']:.4f}")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(OUT, "figures", "c_needles.png"), dpi=120)
    plt.close(fig)


def main():
    rows = symmetry_rows() + stack_rows() + optional_rows()
    with open(os.path.join(OUT, "summary.json"), "w") as f:
        json.dump({"rows": rows}, f, indent=1)
        f.write("\n")
    with open(os.path.join(OUT, "summary.csv"), "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    figures()


if __name__ == "__main__":
    main()
