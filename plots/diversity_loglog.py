#!/usr/bin/env python3
"""T3 on log-log axes from a `phasesim diversity` result: the diversification gap
E[L_random] - L_balanced against the number of heads N, with the C/N law and the
fitted slope; and the expected number of blind phases on a second axis.

Example: plots/diversity_loglog.py div.json --out fig/t3
"""
import needs  # noqa: F401  (first: a Python with NumPy and matplotlib)
import numpy as np

from plotting import load_json, parser, plt, save


def main():
    args = parser(__doc__.splitlines()[0]).parse_args()
    doc = load_json(args.input, "diversity")
    rows = doc["rows"]
    n = np.array([r["heads"] for r in rows], dtype=float)
    gap = np.array([r["gap"] for r in rows])
    c = doc["constant_c"]

    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.8))
    left.loglog(n, gap, "o-", label="exact gap")
    left.loglog(n, c / n, "k--", label=f"C/N, C = {c:.4f}")
    left.set_xlabel("heads N")
    left.set_ylabel("E[L_random] - L_balanced")
    left.legend(fontsize=8)
    tail = np.log(gap[-1] / gap[-2]) / np.log(n[-1] / n[-2]) if len(n) > 1 else float("nan")
    left.set_title(f"gain of balancing: slope {doc['slope']:.2f} over all N, "
                   f"{tail:.3f} over the last two", fontsize=10)
    right.semilogx(n, [r["expected_blind"] for r in rows], "o-", color="C3")
    right.set_xlabel("heads N")
    right.set_ylabel("expected blind phases")
    right.set_title("what the worst phase suffers", fontsize=10)
    if args.title:
        fig.suptitle(args.title)
    save(fig, args.out)


if __name__ == "__main__":
    main()
