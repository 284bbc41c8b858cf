#!/usr/bin/env python3
"""Gate weights of every head as a heatmap (heads x slots), with each slot's phase on
the top axis and the number of heads whose heaviest slot has each phase in the title;
the slots of a blind phase (no head's heaviest slot) are hatched and named.

Example: plots/gate_heatmap.py niah.json --out fig/gates   (a niah or coverage result)
"""
import needs  # noqa: F401  (first: a Python with NumPy and matplotlib)
import numpy as np
from matplotlib.patches import Rectangle

from plotting import fail, load_json, parser, plt, save


def main():
    args = parser(__doc__.splitlines()[0]).parse_args()
    doc = load_json(args.input)
    weights = np.array(doc.get("gate_weights", []), dtype=float)
    if weights.ndim == 1:
        weights = weights[None, :]
    if weights.size == 0:
        fail(f"{args.input} holds no gate_weights (write it with phasesim niah or coverage --json)")
    window, stride = doc.get("window"), doc.get("stride")
    if window is None or stride is None:
        fail(f"{args.input} is an architecture whose heads differ in geometry (see phasesim "
             "coverage --arch for every head's phases)")
    phases = [(s + stride - window) % stride for s in range(window)]
    per_phase = np.bincount([phases[int(np.argmax(w))] for w in weights], minlength=stride)

    fig, ax = plt.subplots(figsize=(1.5 + 0.55 * window, 1.2 + 0.45 * len(weights)))
    image = ax.imshow(weights, cmap="magma", vmin=0, vmax=1, aspect="auto")
    ax.set_xticks(range(window))
    ax.set_xlabel("slot")
    ax.set_yticks(range(len(weights)))
    ax.set_ylabel("head")
    top = ax.secondary_xaxis("top")
    top.set_xticks(range(window), [str(p) for p in phases])
    top.set_xlabel("phase of the slot")
    fig.colorbar(image, ax=ax, label="gate weight")
    blind = [p for p in range(stride) if per_phase[p] == 0]
    for s in (s for s in range(window) if phases[s] in blind):
        ax.add_patch(Rectangle((s - 0.5, -0.5), 1, len(weights), fill=False, hatch="//",
                               edgecolor="tab:cyan", lw=1.5))
        top.get_xticklabels()[s].set_color("tab:cyan")
    counts = ", ".join(f"{p}:{n}" for p, n in enumerate(per_phase))
    where = f"; hatched: blind phase {', '.join(map(str, blind))} (no head)" if blind else "; no blind phase"
    ax.set_title(args.title or f"W={window} S={stride}: heads per phase (by heaviest slot) {counts}{where}",
                 fontsize=9)
    save(fig, args.out)


if __name__ == "__main__":
    main()
