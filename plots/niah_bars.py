#!/usr/bin/env python3
"""Per-group retrieval accuracy of a `phasesim niah` result as bars with 95% intervals
(the published NIAH table as a figure). Several results are drawn side by side; a sweep's
results.csv gives one series per cell.

Example: plots/niah_bars.py v4.json full.json --label "W8/S4" --label "full attention" --out fig/bars
"""
import needs  # noqa: F401  (first: a Python with NumPy and matplotlib)
import numpy as np

from plotting import (load_json, niah_docs_from_csv, parser, percent_with_errors, plt, save,
                      unique_labels)


def model_name(doc):
    """The architecture's name, or W/S of the one-layer shorthand."""
    if "architecture" in doc:
        return doc["architecture"]["name"]
    return f"W{doc['window']}/S{doc['stride']}"


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

    width = 0.8 / len(docs)
    fig, ax = plt.subplots(figsize=(max(6, 0.7 * len(docs[0]["groups"]) * len(docs)), 3.6))
    for k, (doc, label) in enumerate(zip(docs, labels)):
        groups = doc["groups"]
        x = np.array([g["group"] for g in groups]) + (k - (len(docs) - 1) / 2) * width
        acc, errors = percent_with_errors(groups)
        ax.bar(x, acc, width, label=label, yerr=errors, capsize=2)
        ax.axhline(doc["summary"]["mean"] * 100, color=f"C{k}", lw=0.8, ls="--")
    ax.set_xticks([g["group"] for g in docs[0]["groups"]])
    ax.set_xlabel(f"group (needle position mod {docs[0]['groups'].__len__()})")
    ax.set_ylabel("retrieval accuracy (%)")
    ax.set_ylim(0, 100)
    ax.legend(fontsize=8, loc="upper left")
    summary = docs[0]["summary"]
    ax.set_title(args.title or f"per-group accuracy: best {summary['best']*100:.1f}, "
                 f"worst {summary['worst']*100:.1f}, gap {summary['gap']*100:.1f} (dashed: mean)")
    save(fig, args.out)


if __name__ == "__main__":
    main()
