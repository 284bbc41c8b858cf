#!/usr/bin/env python3
"""Per-group accuracy of every architecture of a `phasesim compare` result: bars per group,
one series per architecture (its label), with 95% intervals for Monte Carlo results.

Example: plots/compare_bars.py compare.json --select trained,diverse,offsets --out fig/bars
"""
import needs  # noqa: F401  (first: a Python with NumPy and matplotlib)
import numpy as np

from plotting import fail, load_json, parser, percent_with_errors, plt, save


def main():
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--select", help="comma-separated labels of the architectures to draw, in order "
                                    "(default: all)")
    args = p.parse_args()

    doc = load_json(args.input, "compare")
    runs = doc["architectures"]
    if args.select:
        by_label = {r["label"]: r for r in runs}
        wanted = args.select.split(",")
        missing = [w for w in wanted if w not in by_label]
        if missing:
            fail(f"no architecture labelled {', '.join(missing)} in {args.input} "
                 f"(labels: {', '.join(by_label)})")
        runs = [by_label[w] for w in wanted]

    groups = len(runs[0]["groups"])
    width = 0.8 / len(runs)
    fig, ax = plt.subplots(figsize=(max(7, 1.6 + 0.16 * groups * len(runs)), 3.8))
    for k, run in enumerate(runs):
        g = run["groups"]
        x = np.arange(groups) + (k - (len(runs) - 1) / 2) * width
        acc, errors = percent_with_errors(g)
        cost = run["kv_cost"]["entries_per_token"]
        ax.bar(x, acc, width, yerr=errors, capsize=1.5, color=f"C{k % 10}",
               hatch="//" if k >= 10 else None, label=f"{run['label']} ({cost:.3g} entries/token)")
    ax.set_xticks(range(groups))
    ax.set_xlabel(f"group (needle position mod {groups})")
    ax.set_ylabel("retrieval accuracy (%)")
    ax.set_ylim(0, 100)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))
    kind = "Monte Carlo, 95% intervals" if runs[0]["summary"]["trials"] else "exact"
    ax.set_title(args.title or f"the same needles for every architecture ({doc['engine']}, {kind})")
    save(fig, args.out)


if __name__ == "__main__":
    main()
