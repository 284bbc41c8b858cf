#!/usr/bin/env python3
"""Per-group retrieval accuracy of a `phasesim niah` result as bars with 95% intervals
(the published NIAH table as a figure). Up to four results are drawn side by side, more (a
sweep's results.csv gives one per cell) as a panel each, at most 24.

Example: plots/niah_bars.py v4.json full.json --label "W8/S4" --label "full attention" --out fig/bars
"""
import needs  # noqa: F401  (first: a Python with NumPy and matplotlib)
import numpy as np

from plotting import (fail, load_json, niah_docs_from_csv, parser, percent_with_errors, plt, save,
                      unique_labels)

SIDE_BY_SIDE = 4  # more results than this (a sweep's cells) get a panel each
MAX_PANELS = 24   # 6 rows of 4: beyond that a figure is a wall, not a chart


def model_name(doc):
    """The architecture's name, or W/S of the one-layer shorthand."""
    if "architecture" in doc:
        return doc["architecture"]["name"]
    return f"W{doc['window']}/S{doc['stride']}"


def bars(ax, doc, x, width, label, colour):
    """One result's bars with 95% intervals and its mean as a dashed line."""
    acc, errors = percent_with_errors(doc["groups"])
    ax.bar(x, acc, width, label=label, yerr=errors, capsize=2, color=colour)
    ax.axhline(doc["summary"]["mean"] * 100, color=colour, lw=0.8, ls="--")
    ax.set_ylim(0, 100)


def side_by_side(docs, labels, title):
    """A few results as grouped bars, the legend below the axes (inside, it hid the bars
    of the first groups, which can reach 100%)."""
    groups = [g["group"] for g in docs[0]["groups"]]
    width = 0.8 / len(docs)
    fig, ax = plt.subplots(figsize=(min(14, max(6, 0.7 * len(groups) * len(docs))), 3.6))
    for k, (doc, label) in enumerate(zip(docs, labels)):
        x = np.array([g["group"] for g in doc["groups"]]) + (k - (len(docs) - 1) / 2) * width
        bars(ax, doc, x, width, label, f"C{k}")
    ax.set_xticks(groups)
    ax.set_xlabel(f"group (needle position mod {len(groups)})")
    ax.set_ylabel("retrieval accuracy (%)")
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=len(docs),
              frameon=False)
    ax.set_title(title)
    return fig


def panels(docs, labels, title):
    """Many results (a sweep's cells): one small panel each, titled with its label."""
    cols = 4
    rows = -(-len(docs) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols, 2.2 * rows + 0.6), sharey=True,
                             squeeze=False)
    for ax, doc, label in zip(axes.flat, docs, labels):
        groups = [g["group"] for g in doc["groups"]]
        bars(ax, doc, np.array(groups), 0.8, label, "C0")
        ax.set_title(label, fontsize=7)
        ax.set_xticks(groups[::max(1, len(groups) // 8)])
        ax.tick_params(labelsize=7)
    for ax in axes.flat[len(docs):]:
        ax.set_visible(False)
    for ax in axes[:, 0]:
        ax.set_ylabel("accuracy (%)", fontsize=8)
    for ax in axes[-1, :]:
        ax.set_xlabel("group", fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def main():
    p = parser(__doc__.splitlines()[0])
    p.add_argument("more", nargs="*", help="further niah results to compare")
    p.add_argument("--label", action="append", default=[], help="legend label per input, in order")
    args = p.parse_args()

    paths = [args.input] + args.more
    docs = [doc for path in paths
            for doc in (niah_docs_from_csv(path) if path.endswith(".csv") else [load_json(path, "niah")])]
    labels = args.label + [f"{model_name(d)} {d['engine']}" for d in docs[len(args.label):]]
    labels = unique_labels(labels[:len(docs)], docs)

    if len(docs) > MAX_PANELS:
        fail(f"{len(docs)} results are too many to draw as bars (at most {MAX_PANELS}); "
             "plots/sweep_heatmap.py draws a sweep's groups against one option")
    if len(docs) > SIDE_BY_SIDE:
        fig = panels(docs, labels, args.title or "per-group accuracy (%) of each result "
                     "(dashed: its mean)")
    else:
        summary = docs[0]["summary"]
        fig = side_by_side(docs, labels, args.title or (
            f"per-group accuracy: best {summary['best']*100:.1f}, worst "
            f"{summary['worst']*100:.1f}, gap {summary['gap']*100:.1f} (dashed: mean)"))
    save(fig, args.out)


if __name__ == "__main__":
    main()
