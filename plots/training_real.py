#!/usr/bin/env python3
"""experiments/training-real's summary: the per-channel coverage of the trained compressors
(share of the channels per phase, sorted largest first, mean and standard error over the
seeds) against channels that pick their phase independently; and the blind phases of H = S
single-gate heads with shared and with independent batches, and of heads trained alone,
against T3's law.

Example: plots/training_real.py out/summary.json --out fig/real
"""
import needs  # noqa: F401  (first: a Python with NumPy and matplotlib)
import numpy as np

from plotting import fail, load_json, parser, plt, save


def coverage_panel(ax, s):
    j = np.arange(s["stride"])
    mean = [x["mean"] for x in s["shares_sorted"]]
    se = [x["se"] for x in s["shares_sorted"]]
    ax.bar(j, mean, 0.7, yerr=se, capsize=2, color="C0", label=f"{s['models']} trained")
    ax.plot(j, s["shares_independent"], "ko--", ms=4, lw=1, label="independent channels")
    ax.set_xticks(j, [str(k + 1) for k in j])
    ax.set_xlabel("phase, by its share (largest first)")
    ax.set_ylim(0, 1)
    ax.set_title(f"W={s['window']} S={s['stride']}, d={s['channels']}: entropy "
                 f"{s['entropy_final']['mean']:.2f} (indep. {s['entropy_independent']:.2f})",
                 fontsize=8)


def gathering_panel(ax, summary):
    """Blind phases per stride: shared batches, independent batches, and (where run) the heads
    trained alone, beside T3's expectation for independent heads."""
    gathering, alone = summary["gathering"], summary.get("alone", [])
    strides = sorted({g["stride"] for g in gathering})
    arms = [(f"{b} batches", [g for g in gathering if g["batches"] == b])
            for b in ("shared", "independent")]
    if alone:
        arms.append(("heads trained alone", alone))
    width = 0.8 / len(arms)
    for k, (label, cells) in enumerate(arms):
        by_stride = {c["stride"]: c for c in cells}
        x = [i + (k - (len(arms) - 1) / 2) * width for i, S in enumerate(strides) if S in by_stride]
        shown = [by_stride[S] for S in strides if S in by_stride]
        ax.bar(x, [c["blind_mean"] for c in shown], width, yerr=[c["blind_se"] for c in shown],
               capsize=2, color=f"C{k}", label=label)
    law = [next(g for g in gathering if g["stride"] == S)["blind_expected"] for S in strides]
    ax.plot(range(len(strides)), law, "k_", ms=30, mew=2, label="T3 (independent heads)")
    ax.set_xticks(range(len(strides)), [f"S={S}, H={S}" for S in strides])
    top = max([c["blind_mean"] + c["blind_se"] for _, cells in arms for c in cells] + law)
    ax.set_ylim(0, 1.6 * top)  # room above the bars for the legend
    ax.set_ylabel("blind phases (mean +- s.e.)")
    ax.set_title("why heads gather: the controls", fontsize=8)
    ax.legend(fontsize=7, loc="upper left")


def main():
    args = parser(__doc__.splitlines()[0]).parse_args()
    summary = load_json(args.input)
    if "per_channel" not in summary or "gathering" not in summary:
        fail(f"{args.input} is not a training-real summary (no 'per_channel' and 'gathering')")
    panels = len(summary["per_channel"]) + 1
    fig, axes = plt.subplots(1, panels, figsize=(3.4 * panels, 3.2), squeeze=False)
    for ax, s in zip(axes[0], summary["per_channel"]):
        coverage_panel(ax, s)
    axes[0][0].set_ylabel("share of the channels")
    axes[0][0].legend(fontsize=7)
    gathering_panel(axes[0][-1], summary)
    fig.suptitle(args.title or "trained per-channel coverage; blind phases against T3",
                 fontsize=10)
    fig.tight_layout()
    save(fig, args.out)


if __name__ == "__main__":
    main()
