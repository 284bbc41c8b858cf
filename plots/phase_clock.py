#!/usr/bin/env python3
"""A polar "phase clock": per-group accuracy of a `phasesim niah` result around a circle,
so a profile of period P over G groups shows G/P lobes (the V4-like W8/S4 table over 8
groups: two, at groups 3 and 7) and a flat control as a circle.

Example: plots/phase_clock.py v4.json --out fig/clock
"""
import needs  # noqa: F401  (first: a Python with NumPy and matplotlib)
import numpy as np

from plotting import load_json, parser, plt, save


def main():
    p = parser(__doc__.splitlines()[0])
    p.add_argument("more", nargs="*", help="further niah results to overlay")
    p.add_argument("--label", action="append", default=[], help="legend label per input, in order")
    args = p.parse_args()

    docs = [load_json(path, "niah") for path in [args.input] + args.more]
    labels = args.label + [f"W{d['window']}/S{d['stride']}" for d in docs[len(args.label):]]
    fig = plt.figure(figsize=(4.6, 4.6))
    ax = fig.add_subplot(projection="polar")
    for doc, label in zip(docs, labels):
        acc = np.array([g["accuracy"] for g in doc["groups"]]) * 100
        angles = 2 * np.pi * np.arange(len(acc)) / len(acc)
        ax.plot(np.append(angles, angles[0]), np.append(acc, acc[0]), marker="o", label=label)
        ax.fill(angles, acc, alpha=0.15)
    groups = len(docs[0]["groups"])
    ax.set_xticks(2 * np.pi * np.arange(groups) / groups, [str(g) for g in range(groups)])
    ax.set_ylim(0, 100)
    ax.set_theta_zero_location("N")
    ax.set_theta_direction(-1)
    ax.legend(fontsize=8, loc="lower right", bbox_to_anchor=(1.15, -0.1))
    ax.set_title(args.title or f"accuracy (%) by needle position mod {groups}")
    save(fig, args.out)


if __name__ == "__main__":
    main()
