#!/usr/bin/env python3
"""Tables (summary.json, summary.csv) and figures (figures/*.png) of the read-path experiment
from the documents run.sh wrote into OUT; part (c)'s closed form from closed_form.py."""
import csv
import json
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import closed_form  # noqa: E402

CONTEXTS = (2048, 8192, 32768, 131072, 1048576)


def load(out, name):
    with open(os.path.join(out, name + ".json")) as f:
        return json.load(f)


def exists(out, name):  # the quick variant runs part of the grid
    return os.path.exists(os.path.join(out, name + ".json"))


def part_a(out):
    rows = []
    for model in ("one_stage", "two_stage"):
        for name in ("128k", "1m"):
            d = load(out, f"a_{model}_{name}")
            s = d["summary"]
            rows.append(dict(part="a", model=model, context=d["context"], best=s["best"],
                             worst=s["worst"], mean=s["mean"]))
    return rows


def part_b(out):
    rows = []
    for k in (64, 512, 2048):
        for context in CONTEXTS:
            if not exists(out, f"b_k{k}_L{context}"):
                continue
            d = load(out, f"b_k{k}_L{context}")
            s = d["summary"]
            selected = [g["selected"] for g in d["groups"]]
            rows.append(dict(part="b", k=k, context=context, best=s["best"], worst=s["worst"],
                             mean=s["mean"], selected_best=max(selected),
                             selected_worst=min(selected)))
    return rows


# Part (c): W = S geometries have the closed form, except an aligned needle that fills whole
# entries (its Fourier integral does not decay; fast alone).
def exact_c(geometry, n, phase):
    stride, beta, entries = {"w2": (2, 4.0, 4096), "w128": (128, 30.0, 1024)}[geometry]
    counts = closed_form.counts(phase, n, stride)
    if len(counts) > 1 and all(c == stride for c in counts):
        return None
    return closed_form.read_probability(beta, n, phase, stride, entries)


def part_c(out):
    rows = []
    for geometry in ("w2", "w8s4", "w128"):
        for n in range(1, 9):
            if not exists(out, f"c_{geometry}_n{n}"):
                continue
            groups = load(out, f"c_{geometry}_n{n}")["groups"]
            if geometry == "w128":  # the aligned phases alike, then each straddling split
                phases = [0] + list(range(129 - n, 128))
            else:
                phases = range(len(groups))
            for phase in phases:
                g = groups[phase]
                exact = exact_c(geometry, n, phase) if geometry != "w8s4" else None
                z = None
                if exact is not None:
                    sigma = math.sqrt(max(exact * (1 - exact), 1e-12) / g["trials"])
                    z = (g["accuracy"] - exact) / sigma
                rows.append(dict(part="c", geometry=geometry, n=n, phase=phase,
                                 accuracy=g["accuracy"], std_error=g["std_error"], exact=exact,
                                 z=z))
    return rows


def part_d(out):
    rows = []
    for block in (16, 32, 64, 128, 256):
        for n in (1, 4, 16):
            if not exists(out, f"d_B{block}_n{n}"):
                continue
            groups = load(out, f"d_B{block}_n{n}")["groups"]  # one per start phase, alike in size
            mean = lambda key: sum(g[key] for g in groups) / len(groups)  # noqa: E731
            rows.append(dict(part="d", block=block, k=4096 // block, n=n, selected=mean("selected"),
                             accuracy=mean("accuracy")))
    return rows


def figures(rows, out):
    path = os.path.join(out, "figures")
    os.makedirs(path, exist_ok=True)
    fig, ax = plt.subplots(1, 2, figsize=(9, 3.4), sharex=True)
    for k in (64, 512, 2048):
        b = [r for r in rows if r["part"] == "b" and r["k"] == k]
        for panel, key in zip(ax, ("best", "worst")):
            panel.semilogx([r["context"] for r in b], [r[key] for r in b], marker="o",
                           label=f"k = {k}")
            panel.set_title(f"{key} group")
            panel.set_xlabel("context (tokens)")
    ax[0].set_ylabel("accuracy")
    ax[1].legend(fontsize=8)
    fig.suptitle("(b) the two-stage V4 fit against k and the context", fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(path, "b_k_context.png"), dpi=110)
    plt.close(fig)

    fig, ax = plt.subplots(1, 3, figsize=(11, 3.4))
    for panel, geometry, title in zip(ax, ("w2", "w8s4", "w128"),
                                      ("W = S = 2", "W = 8, S = 4", "W = S = 128")):
        c = [r for r in rows if r["part"] == "c" and r["geometry"] == geometry]
        ns = sorted({r["n"] for r in c})
        aligned = [next(r["accuracy"] for r in c if r["n"] == n and r["phase"] == 0) for n in ns]
        worst = [min(r["accuracy"] for r in c if r["n"] == n) for n in ns]
        best = [max(r["accuracy"] for r in c if r["n"] == n) for n in ns]
        panel.plot(ns, aligned, marker="o", label="start at phase 0")
        panel.plot(ns, best, marker="^", linestyle=":", label="best start")
        panel.plot(ns, worst, marker="v", linestyle="--", label="worst start")
        exact = [r for r in c if r["exact"] is not None]
        panel.scatter([r["n"] for r in exact], [r["exact"] for r in exact], s=12, color="k",
                      zorder=3, label="closed form")
        panel.set_title(title)
        panel.set_xlabel("needle tokens n")
    ax[0].set_ylabel("accuracy")
    ax[2].legend(fontsize=7)
    fig.suptitle("(c) the alignment effect alone (uniform gates, no selection)", fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(path, "c_alignment.png"), dpi=110)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(5, 3.4))
    for n in (1, 4, 16):
        d = [r for r in rows if r["part"] == "d" and r["n"] == n]
        ax.semilogx([r["block"] for r in d], [r["selected"] for r in d], marker="o", base=2,
                    label=f"n = {n}")
    ax.set_xlabel("block size B (k B = 4096 tokens)")
    ax.set_ylabel("stage 1: the needle's block selected")
    ax.legend(fontsize=8)
    ax.set_title("(d) MoBA's routing, uniform gate", fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(path, "d_moba.png"), dpi=110)
    plt.close(fig)


def main():
    out = sys.argv[1]
    rows = part_a(out) + part_b(out) + part_c(out) + part_d(out)
    with open(os.path.join(out, "a_fit.json")) as f:
        fit = json.load(f)
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump({"fit": fit, "rows": rows}, f, indent=1)
        f.write("\n")
    keys = sorted({k for r in rows for k in r})
    with open(os.path.join(out, "summary.csv"), "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=keys)
        writer.writeheader()
        writer.writerows(rows)
    figures(rows, out)


if __name__ == "__main__":
    main()
