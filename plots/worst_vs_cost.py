#!/usr/bin/env python3
"""Worst-group accuracy against KV cost (entries per token, log scale), one point per
architecture, from `phasesim compare` results (or documents laid out like them, such as
experiments/mitigations' draws): one series per input file, each point labelled; with
--mean, each point's mean too (hollow), joined to its worst group by a line (the gap).

Example: plots/worst_vs_cost.py w8s8.json w8s4.json --label W8/S8 --label W8/S4 --out fig/cost
"""
import needs  # noqa: F401  (first: a Python with NumPy and matplotlib)
from collections import defaultdict

import numpy as np

from plotting import load_json, parser, plt, save

LABEL_GAP = 4.5  # percentage points between labels stacked at one cost


def label_positions(points):
    """Label heights that keep labels at one cost LABEL_GAP apart, top down."""
    by_cost = defaultdict(list)
    for i, (cost, worst, _, _) in enumerate(points):
        by_cost[round(cost, 6)].append((worst, i))
    heights = [0.0] * len(points)
    for column in by_cost.values():
        below = None
        for worst, i in sorted(column, reverse=True):
            heights[i] = worst if below is None else min(worst, below - LABEL_GAP)
            below = heights[i]
    return heights


def main():
    p = parser(__doc__.splitlines()[0])
    p.add_argument("more", nargs="*", help="further results, one series each")
    p.add_argument("--label", action="append", default=[], help="legend label per input, in order")
    p.add_argument("--mean", action="store_true", help="also draw each point's mean (hollow)")
    args = p.parse_args()

    paths = [args.input] + args.more
    docs = [load_json(path) for path in paths]
    labels = args.label + paths[len(args.label):]
    markers = "osD^v<>"
    fig, ax = plt.subplots(figsize=(8, 5.2))
    points = []  # (cost, worst %, text, colour) of every architecture
    for k, (doc, label) in enumerate(zip(docs, labels)):
        runs = doc["architectures"]
        cost = np.array([r["kv_cost"]["entries_per_token"] for r in runs])
        worst = np.array([r["summary"]["worst"] for r in runs]) * 100
        marker = markers[k % len(markers)]
        ax.scatter(cost, worst, marker=marker, color=f"C{k}", s=36, zorder=3,
                   label=f"{label}: worst group")
        if args.mean:
            mean = np.array([r["summary"]["mean"] for r in runs]) * 100
            ax.scatter(cost, mean, marker=marker, facecolors="none", edgecolors=f"C{k}", s=30,
                       zorder=2, label=f"{label}: mean")
            ax.vlines(cost, worst, mean, color=f"C{k}", lw=0.6, alpha=0.5, zorder=1)
        points += [(c, w, r["label"], f"C{k}") for c, w, r in zip(cost, worst, runs)]
    for (cost, worst, text, colour), y in zip(points, label_positions(points)):
        ax.annotate(text, (cost, worst), xytext=(cost * 1.06, y), fontsize=7, color=colour,
                    va="center", arrowprops=dict(arrowstyle="-", lw=0.4, color=colour)
                    if abs(y - worst) > 1 else None)
    costs = sorted({round(c, 3) for c, _, _, _ in points})
    ax.set_xscale("log", base=2)
    ax.set_xticks([c for c in costs if c in (0.5, 1, 2, 4, 8, 16)] or costs)
    ax.get_xaxis().set_major_formatter(plt.FuncFormatter(lambda x, _: f"{x:g}"))
    ax.set_xlim(min(costs) / 1.3, max(costs) * 1.6)
    ax.set_xlabel("KV cost (entries per token, summed over heads and layers)")
    ax.set_ylabel("accuracy (%)")
    ax.set_ylim(-8, 103)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper right")
    ax.set_title(args.title or "worst group against KV cost")
    save(fig, args.out)


if __name__ == "__main__":
    main()
