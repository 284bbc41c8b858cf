#!/usr/bin/env python3
"""The per-group NIAH table of a trained layer (`phasesim train`) beside the analytic
prediction from its trained gates: bars with 95% Wilson intervals for the layer itself,
lines for the analytic engine with the heads independent and with the heads of one phase
as one reader (they pool the same tokens and see the same query).

Example: plots/training_phases.py train.json --out fig/phases
"""
import needs  # noqa: F401  (first: a Python with NumPy and matplotlib)
import numpy as np

from plotting import load_json, parser, percent_with_errors, plt, save


def main():
    args = parser(__doc__.splitlines()[0]).parse_args()
    doc = load_json(args.input, "train")
    groups = doc["groups"]
    x = np.array([g["group"] for g in groups])
    acc, errors = percent_with_errors(groups)
    fig, ax = plt.subplots(figsize=(max(6, 0.6 * len(groups)), 3.6))
    ax.bar(x, acc, 0.7, yerr=errors, capsize=2, color="C0",
           label=f"trained layer, argmax retrieval ({doc['prompts']} prompts per group)")
    for key, style, label in (("analytic", "o--", "analytic, heads independent"),
                              ("analytic_shared", "s:", "analytic, one reader per phase")):
        ax.plot(x, [g["accuracy"] * 100 for g in doc[key]["groups"]], style, color="k",
                ms=4, lw=1, label=label)
    ax.set_xticks(x)
    ax.set_xlabel(f"group (needle position mod {len(groups)})")
    ax.set_ylabel("retrieval accuracy (%)")
    ax.set_ylim(0, 130)  # room above the bars for the legend
    ax.set_yticks(range(0, 101, 20))
    ax.legend(fontsize=7, loc="upper center", ncol=2)
    period = doc["estimated_period"]["period"]
    ax.set_title(args.title or f"W{doc['window']}/S{doc['stride']}, {doc['heads']} heads: phases "
                 f"0 to {doc['stride'] - 1} held by {', '.join(map(str, doc['heads_per_phase']))} "
                 f"heads, estimated period {period}",
                 fontsize=10)
    save(fig, args.out)


if __name__ == "__main__":
    main()
