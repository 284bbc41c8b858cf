#!/usr/bin/env python3
"""Heatmap of one result column of a sweep over two of its options.

Example: plots/sweep_heatmap.py out/results.csv --x beta --y entries --value p_success --out fig/heat
Rows of the CSV that share (x, y) are averaged (for example the groups of a niah cell),
unless --where NAME=VALUE filters them first.
"""
import needs  # noqa: F401  (first: a Python with NumPy and matplotlib)
import numpy as np

from plotting import as_number, fail, load_csv, parser, plt, same_value, save


def label(value):
    """A tick label: 4.5 as 4.5, an integer (a seed too) with every digit."""
    return f"{value:g}" if isinstance(value, float) else str(value)


def main():
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--x", required=True, help="option on the horizontal axis")
    p.add_argument("--y", required=True, help="option on the vertical axis")
    p.add_argument("--value", required=True, help="result column to colour by")
    p.add_argument("--where", action="append", default=[], help="keep rows with NAME=VALUE (repeatable)")
    args = p.parse_args()

    rows = load_csv(args.input)
    columns = list(rows[0]) if rows else []
    for column in [args.x, args.y, args.value] + [c.partition("=")[0] for c in args.where]:
        if rows and column not in columns:
            fail(f"{args.input} has no column '{column}' (columns: {', '.join(columns)})")
    for condition in args.where:
        name, _, value = condition.partition("=")
        kept = [r for r in rows if same_value(r[name], value)]  # beta=6 matches 6.0
        if not kept and rows:
            seen = sorted({r[name] for r in rows})
            fail(f"{args.input}: no rows with {name}={value} ({name} takes {', '.join(seen)})")
        rows = kept
    if not rows:
        fail(f"{args.input}: no rows to plot")
    text = next((r[args.value] for r in rows
                 if r[args.value] != "" and isinstance(as_number(r[args.value]), str)), None)
    if text is not None:
        fail(f"--value {args.value} is not a numeric column (it holds '{text}'); "
             f"use a result such as accuracy")

    xs = sorted({as_number(r[args.x]) for r in rows}, key=lambda v: (isinstance(v, str), v))
    ys = sorted({as_number(r[args.y]) for r in rows}, key=lambda v: (isinstance(v, str), v))
    sums = np.zeros((len(ys), len(xs)))
    counts = np.zeros((len(ys), len(xs)))
    for r in rows:
        if r[args.value] == "":
            continue
        i, j = ys.index(as_number(r[args.y])), xs.index(as_number(r[args.x]))
        sums[i, j] += float(r[args.value])
        counts[i, j] += 1
    grid = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)

    fig, ax = plt.subplots(figsize=(1.2 + 0.9 * len(xs), 1.0 + 0.6 * len(ys)))
    image = ax.imshow(grid, origin="lower", aspect="auto", cmap="viridis")
    ax.set_xticks(range(len(xs)), [label(x) for x in xs])
    ax.set_yticks(range(len(ys)), [label(y) for y in ys])
    ax.set_xlabel(args.x)
    ax.set_ylabel(args.y)
    for i in range(len(ys)):
        for j in range(len(xs) if len(xs) <= 12 else 0):  # numbers only where they fit
            if counts[i, j]:
                ax.text(j, i, f"{grid[i, j]:.3g}", ha="center", va="center", color="w", fontsize=8)
    fig.colorbar(image, ax=ax, label=args.value)
    ax.set_title(args.title or f"{args.value} over {args.x} and {args.y}")
    save(fig, args.out)


if __name__ == "__main__":
    main()
