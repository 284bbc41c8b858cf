#!/usr/bin/env python3
"""The T1 phase diagram of a `phasesim phase-diagram` result: the optimal gate's max
weight and number of slots k against beta, one line per entry count N, with the
equal-split law k* and the critical beta*(N) of the linear model marked.

Example: plots/phase_diagram.py pd.json --out fig/phase_diagram
"""
import needs  # noqa: F401  (first: a Python with NumPy and matplotlib)
from collections import defaultdict

from plotting import load_json, parser, plt, save


def main():
    args = parser(__doc__.splitlines()[0]).parse_args()
    doc = load_json(args.input, "phase-diagram")
    by_n = defaultdict(list)
    for row in doc["rows"]:
        by_n[row["entries"]].append(row)
    stars = {b["entries"]: b["beta_star"] for b in doc.get("beta_star", [])}

    fig, (top, bottom) = plt.subplots(2, 1, figsize=(6.4, 5.6), sharex=True)
    for k, (n, rows) in enumerate(sorted(by_n.items())):
        rows.sort(key=lambda r: r["beta"])
        betas = [r["beta"] for r in rows]
        colour = f"C{k}"
        top.plot(betas, [r["max_weight"] for r in rows], "o-", color=colour, label=f"N = {n:,}")
        bottom.plot(betas, [r["k_effective"] for r in rows], "o-", color=colour, label=f"optimum, N = {n:,}")
        bottom.plot(betas, [r["k_star_predicted"] for r in rows], "x--", color=colour, alpha=0.7,
                    label=f"k* law, N = {n:,}")
        if n in stars:
            for ax in (top, bottom):
                ax.axvline(stars[n], color=colour, lw=0.8, ls=":")
    top.set_ylabel("optimal max weight")
    top.set_ylim(0, 1.05)
    top.legend(fontsize=8)
    bottom.set_ylabel("slots above 1% (k)")
    bottom.set_xlabel("beta")
    bottom.legend(fontsize=7, ncol=2)
    top.set_title(args.title or f"T1 phase diagram, W={doc['window']} S={doc['stride']} "
                  f"({doc['model']} model; dotted: beta*(N) of the linear model)", fontsize=10)
    save(fig, args.out)


if __name__ == "__main__":
    main()
