#!/usr/bin/env python3
"""The channels of a trained per-channel compressor (`phasesim train --per-channel`), head by
head: its gate weights averaged over the channels against the step (slots of one phase
together), every channel's argmax phase against the step (channels sorted by where they end),
the share of its channels per phase against the step (the per-channel coverage), and, with
--gates (the run's --save-gates file), every channel's final gate softmax(b_c).

Example: plots/training_channels.py train.json --gates gates.json --out fig/channels
"""
import needs  # noqa: F401  (first: a Python with NumPy and matplotlib)
import numpy as np

from plotting import fail, load_json, parser, plt, save


def channel_gates(item, channels):
    """Every channel's softmax gate, from a gate file's channel groups (logits:b_0,...)."""
    rows = []
    for group in item["channels"]:
        logits = np.array([float(b) for b in group["gate"].split(":", 1)[1].split(",")])
        weights = np.exp(logits - logits.max())
        rows += [weights / weights.sum()] * round(group["share"] * channels)
    return np.array(rows)


def argmax_phases(ax, fig, slot_trajectory, phases, steps, S):
    """Every channel's argmax phase at every recorded step: channels sorted by their final
    phase, then by the last step at which they moved to it (the latest movers at the bottom)."""
    grid = np.array([[phases[s] for s in row] for row in slot_trajectory]).T  # channel x step
    settled = [max([0] + [k for k in range(1, grid.shape[1]) if grid[c, k] != grid[c, k - 1]])
               for c in range(grid.shape[0])]
    order = sorted(range(grid.shape[0]), key=lambda c: (grid[c, -1], settled[c], c))
    cmap = plt.get_cmap("tab10", S) if S <= 10 else plt.get_cmap("viridis", S)
    image = ax.imshow(grid[order], aspect="auto", cmap=cmap, vmin=-0.5, vmax=S - 0.5,
                      extent=[steps[0], steps[-1], grid.shape[0] - 0.5, -0.5],
                      interpolation="nearest")
    ax.set_xlabel("step")
    ax.set_ylabel("channel (by final phase)")
    ax.set_title("argmax phase of every channel", fontsize=8)
    fig.colorbar(image, ax=ax, ticks=range(S), label="phase")


def main():
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--gates", help="the run's --save-gates file: adds every channel's final gate")
    args = p.parse_args()
    doc = load_json(args.input, "train")
    if not doc.get("per_channel"):
        fail(f"{args.input} is not a per-channel run (train --per-channel)")
    gates = load_json(args.gates, "train")["gates"] if args.gates else None
    W, S, steps = doc["window"], doc["stride"], doc["trajectory_steps"]
    phases = [(s + S - W) % S for s in range(W)]
    order = sorted(range(W), key=lambda s: (phases[s], s))  # slots of one phase together
    heads = doc["per_head"]
    panels = 4 if gates else 3
    fig, axes = plt.subplots(len(heads), panels, figsize=(4.0 * panels, 2.8 * len(heads)),
                             squeeze=False)
    extent = [steps[0], steps[-1], -0.5, 0]
    for h, head in enumerate(heads):
        ax = axes[h][0]
        weights = np.array(head["gate_trajectory"]).T[order]
        image = ax.imshow(weights, aspect="auto", cmap="magma", vmin=0,
                          extent=[steps[0], steps[-1], W - 0.5, -0.5], interpolation="nearest")
        ax.set_yticks(range(W), [f"{s} (phase {phases[s]})" for s in order], fontsize=6)
        ax.set_xlabel("step")
        ax.set_title(f"head {h}: mean gate over the channels", fontsize=8)
        fig.colorbar(image, ax=ax)
        ax = axes[h][1]
        argmax_phases(ax, fig, head["channels"]["slot_trajectory"], phases, steps, S)
        ax = axes[h][2]
        shares = np.array(head["channels"]["phase_share_trajectory"]).T
        extent = [steps[0], steps[-1], S - 0.5, -0.5]
        image = ax.imshow(shares, aspect="auto", cmap="viridis", vmin=0, vmax=1, extent=extent,
                          interpolation="nearest")
        ax.set_yticks(range(S))
        ax.set_ylabel("phase")
        ax.set_xlabel("step")
        final = head["channels"]["final"]
        ax.set_title(f"share of channels per phase (entropy {head['channels']['initial']['entropy']:.2f}"
                     f" -> {final['entropy']:.2f} nats)", fontsize=8)
        fig.colorbar(image, ax=ax)
        if gates:
            ax = axes[h][3]
            rows = channel_gates(gates[h], len(final["slot"]))
            rows = rows[np.argsort([phases[int(np.argmax(r))] for r in rows], kind="stable")]
            image = ax.imshow(rows[:, order], aspect="auto", cmap="magma", vmin=0, vmax=1,
                              interpolation="nearest")
            ax.set_xticks(range(W), [str(phases[s]) for s in order])
            ax.set_xlabel("phase of the slot")
            ax.set_ylabel("channel (by final phase)")
            ax.set_title("final gate of every channel", fontsize=8)
            fig.colorbar(image, ax=ax)
    fig.suptitle(args.title or f"per-channel compressor W={W} S={S}, d={doc['dim']}, seed "
                 f"{doc['seed']}", fontsize=10)
    fig.tight_layout()
    save(fig, args.out)


if __name__ == "__main__":
    main()
