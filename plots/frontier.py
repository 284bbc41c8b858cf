#!/usr/bin/env python3
"""The frontier of `phasesim frontier`: worst phase (filled) and mean (hollow) against KV cost
(entries per token, log scale), one panel per result (a context each), the frontier's designs
joined in order of cost and each labelled, the presets marked (stars: on the frontier; crosses:
beaten by a design).

Example: plots/frontier.py f128k.json f1m.json --out fig/frontier
"""
import needs  # noqa: F401  (first: a Python with NumPy and matplotlib)

import math

from plotting import load_json, parser, plt, save


def context_text(tokens):
    """131072 -> "128k", 1048576 -> "1M"."""
    if tokens % (1 << 20) == 0:
        return f"{tokens >> 20}M"
    return f"{tokens >> 10}k" if tokens % 1024 == 0 else str(tokens)


def draw(ax, doc):
    rows = doc["rows"]
    designs = [r for r in rows if r["kind"] == "design"]
    presets = [r for r in rows if r["kind"] == "preset"]
    kv = [r["kv_entries_per_token"] for r in designs]
    ax.plot(kv, [100 * r["worst"] for r in designs], "-o", color="C0", ms=5, lw=1,
            label="frontier: worst phase", zorder=3)
    ax.scatter(kv, [100 * r["mean"] for r in designs], facecolors="none", edgecolors="C0",
               s=30, label="frontier: mean", zorder=2)
    stacked = {}  # designs at one cost: their labels one under the other
    for r in designs:
        below = stacked.setdefault(r["kv_entries_per_token"], 0)
        stacked[r["kv_entries_per_token"]] += 1
        ax.annotate(f"{r['name']} ({r['read_entries_per_query']:g} read)",
                    (r["kv_entries_per_token"], 100 * r["worst"]), xytext=(4, -10 - 9 * below),
                    textcoords="offset points", fontsize=6.5, color="C0")
    level, last = 0, None  # presets close in cost and accuracy: their labels one under the other
    for r in sorted(presets, key=lambda r: r["kv_entries_per_token"]):
        marker, colour = ("*", "C3") if r["on_frontier"] else ("X", "C1")
        x, y = r["kv_entries_per_token"], 100 * r["worst"]
        ax.scatter([x], [y], marker=marker, s=70, color=colour, zorder=4)
        near = last and math.log2(x / last[0]) < 1.5 and abs(y - last[1]) < 8
        level = level + 1 if near else 0
        last = (x, y)
        ax.annotate(r["name"], (x, y), xytext=(5, 4 - 10 * level), textcoords="offset points",
                    fontsize=7.5, color=colour)
    ax.scatter([], [], marker="*", color="C3", label="preset on the frontier")
    ax.scatter([], [], marker="X", color="C1", label="preset beaten by a design")
    ax.set_xscale("log", base=2)
    costs = [r["kv_entries_per_token"] for r in rows]
    ax.set_xlim(min(costs) / 1.5, max(costs) * 4)
    ax.set_xlabel("KV cost (entries per token)")
    ax.set_ylim(-5, 105)
    ax.grid(alpha=0.3)
    ax.set_title(f"context {context_text(doc['context'])}, beta {doc['beta']:g}, "
                 f"{doc['needle_tokens']}-token needle", fontsize=9)


def main():
    p = parser(__doc__.splitlines()[0])
    p.add_argument("more", nargs="*", help="further frontier results, one panel each")
    args = p.parse_args()
    docs = [load_json(path, "frontier") for path in [args.input] + args.more]
    fig, axes = plt.subplots(1, len(docs), figsize=(6.5 * len(docs), 5), squeeze=False,
                             sharey=True)
    for ax, doc in zip(axes[0], docs):
        draw(ax, doc)
    axes[0][0].set_ylabel("accuracy (%)")
    axes[0][0].legend(fontsize=7.5, loc="lower right")
    fig.suptitle(args.title or "the frontier: worst phase and mean against KV cost", fontsize=11)
    save(fig, args.out)


if __name__ == "__main__":
    main()
