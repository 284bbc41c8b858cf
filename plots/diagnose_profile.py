#!/usr/bin/env python3
"""A `phasesim diagnose` result as a figure: the observed per-group accuracies as bars with
their 95% likelihood-ratio intervals, the fitted profile of the idealized model (one
marker per group, the accuracy its phase gets in each fit), and the flat null (the pooled
mean, dashed). The title is the period test's verdict.

Example: plots/diagnose_profile.py v4_diagnosis.json --out fig/v4_diagnosis
"""
import needs  # noqa: F401  (first: a Python with NumPy and matplotlib)
import textwrap

import numpy as np

from plotting import load_json, parser, percent_with_errors, plt, save

MARKERS = ["o", "D", "s", "^"]


def main():
    p = parser(__doc__.splitlines()[0])
    args = p.parse_args()
    doc = load_json(args.input, "diagnose")

    groups = doc["groups"]
    x = np.array([g["group"] for g in groups])
    acc, errors = percent_with_errors(groups)
    fig, ax = plt.subplots(figsize=(max(6, 0.45 * len(groups)), 3.8))
    ax.bar(x, acc, 0.7, color="C0", alpha=0.75, yerr=errors, capsize=2,
           label="observed, 95% interval")

    count = doc["phases"]["count"]
    fits = doc["fits"]
    for k, fit in enumerate(fits):
        fitted = [fit["phases"][g % count]["accuracy"] * 100 for g in x]
        offset = 0.18 * (k - (len(fits) - 1) / 2)  # side by side where fits agree
        ax.plot(x + offset, fitted, MARKERS[k % len(MARKERS)], color=f"C{k + 1}", ms=6,
                mfc="none", label=f"fit: {fit['assumption']} (beta {fit['beta']:.2f})")

    pooled = sum(g["successes"] for g in groups) / sum(g["trials"] for g in groups) * 100
    ax.axhline(pooled, color="black", lw=0.9, ls="--", label=f"flat null ({pooled:.1f})")
    ax.set_xticks(x)
    ax.set_xlabel(f"group (needle position mod {len(groups)})")
    ax.set_ylabel("retrieval accuracy (%)")
    ax.set_ylim(0, 105)
    ax.legend(fontsize=7, loc="upper left", ncol=2)
    ax.set_title(args.title or textwrap.fill(doc["period"]["verdict"], 90), fontsize=8)
    save(fig, args.out)


if __name__ == "__main__":
    main()
