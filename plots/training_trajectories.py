#!/usr/bin/env python3
"""Gate trajectories of a `phasesim train` result: every slot's weight in every head against
the training step (slots of one phase share a colour), and the loss curve. Concentration
shows as one slot taking the weight; lock-in as that slot being the initial argmax (thick).

Example: plots/training_trajectories.py train.json --out fig/trajectories
"""
import needs  # noqa: F401  (first: a Python with NumPy and matplotlib)
import math

import numpy as np

from plotting import load_json, parser, plt, save


def main():
    args = parser(__doc__.splitlines()[0]).parse_args()
    doc = load_json(args.input, "train")
    steps = np.array(doc["trajectory_steps"])
    heads = doc["per_head"]
    window, stride = doc["window"], doc["stride"]
    cols = min(4, len(heads))
    rows = math.ceil(len(heads) / cols) + 1
    fig, axes = plt.subplots(rows, cols, figsize=(3.0 * cols, 2.3 * rows), squeeze=False)
    for k, head in enumerate(heads):
        ax = axes[k // cols][k % cols]
        gates = np.array(head["gate_trajectory"])
        initial = head["initial_argmax"]["slot"]
        for s in range(window):
            phase = (s + stride - window) % stride
            ax.plot(steps, gates[:, s], color=f"C{phase % 10}", lw=2.2 if s == initial else 0.9,
                    ls="-" if s < window - stride else "--")
        final = head["final_argmax"]
        ax.set_title(f"head {head['head']}: slot {initial} -> {final['slot']} "
                     f"(phase {head['initial_argmax']['phase']} -> {final['phase']})", fontsize=8)
        ax.set_ylim(0, 1.02)
        ax.tick_params(labelsize=7)
    for k in range(len(heads), (rows - 1) * cols):
        axes[k // cols][k % cols].axis("off")
    loss = fig.add_subplot(rows, 1, rows)
    for ax in axes[-1]:
        ax.axis("off")
    curve = doc["loss_curve"]
    loss.plot([p["step"] for p in curve], [p["loss"] for p in curve], color="k")
    loss.set_xlabel("step")
    loss.set_ylabel("training loss")
    handles = [plt.Line2D([], [], color=f"C{p % 10}", label=f"phase {p}") for p in range(stride)]
    loss.legend(handles=handles, fontsize=7, ncol=min(stride, 6), loc="upper right",
                title="slot colour", title_fontsize=7)
    fig.suptitle(args.title or f"gates of a trained W{window}/S{stride} layer, {len(heads)} heads "
                 f"(thick: initial argmax; blind phases {doc['blind_phases'] or 'none'})",
                 fontsize=10)
    fig.tight_layout()
    save(fig, args.out)


if __name__ == "__main__":
    main()
