#!/usr/bin/env python3
"""The training lab's summary (experiments/training-lab/summarize.py): for each stride, the
distribution of blind phases over the trained models against T3's multinomial law for the
same H and S; and the lock-in rate (heads ending on their initial argmax's phase) against
the init scale, one line per batch size.

Example: plots/training_lab.py out/summary.json --out fig/lab
"""
import needs  # noqa: F401  (first: a Python with NumPy and matplotlib)
import numpy as np

from plotting import fail, load_json, parser, plt, save


def main():
    args = parser(__doc__.splitlines()[0]).parse_args()
    summary = load_json(args.input)
    if "strides" not in summary or "lockin" not in summary:
        fail(f"{args.input} is not a training-lab summary (no 'strides' and 'lockin')")
    strides = summary["strides"]
    panels = len(strides) + (1 if summary["lockin"] else 0)
    fig, axes = plt.subplots(1, panels, figsize=(3.0 * panels, 3.0), squeeze=False)
    for ax, s in zip(axes[0], strides):
        j = np.arange(s["stride"] + 1)
        ax.bar(j, s["blind_observed"], 0.7, color="C0", label=f"{s['models']} trained models")
        ax.plot(j, s["blind_law"], "ko--", ms=4, lw=1, label="T3 multinomial")
        ax.set_xlabel("blind phases")
        ax.set_title(f"S={s['stride']}, H={s['heads']}: {s['blind_mean']:.2f} +- "
                     f"{s['blind_se']:.2f} (T3 {s['blind_expected']:.2f})", fontsize=8)
        ax.set_xticks(j)
        ax.tick_params(labelsize=7)
    axes[0][0].set_ylabel("fraction of models")
    axes[0][0].legend(fontsize=7)
    if summary["lockin"]:
        ax = axes[0][-1]
        for k, batch in enumerate(sorted({c["batch"] for c in summary["lockin"]})):
            cells = sorted((c for c in summary["lockin"] if c["batch"] == batch),
                           key=lambda c: c["init_scale"])
            ax.plot([c["init_scale"] for c in cells], [c["lock_in_rate"] for c in cells], "o-",
                    color=f"C{k}", label=f"batch {batch}")
        ax.set_xscale("log")
        ax.set_ylim(0, 1.05)
        ax.set_xlabel("init scale of the biases")
        ax.set_ylabel("heads kept their initial phase")
        ax.set_title("lock-in (T2) against gradient noise", fontsize=8)
        ax.legend(fontsize=7)
    fig.suptitle(args.title or "trained layers: blind phases against T3, lock-in against T2",
                 fontsize=10)
    fig.tight_layout()
    save(fig, args.out)


if __name__ == "__main__":
    main()
