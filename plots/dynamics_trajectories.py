#!/usr/bin/env python3
"""T2 trajectories of a `phasesim dynamics` result: every slot's gate weight and the
objective against the step; a re-weighting step, if any, is marked. Lock-in shows as
the initial argmax taking all the weight and keeping it.

Example: plots/dynamics_trajectories.py dyn.json --out fig/lockin
"""
import needs  # noqa: F401  (first: a Python with NumPy and matplotlib)
import numpy as np

from plotting import load_json, parser, plt, save


def main():
    args = parser(__doc__.splitlines()[0]).parse_args()
    doc = load_json(args.input, "dynamics")
    steps = np.array([p["step"] for p in doc["trajectory"]])
    gates = np.array([p["gate"] for p in doc["trajectory"]])
    window, stride = doc["window"], doc["stride"]

    fig, (top, bottom) = plt.subplots(2, 1, figsize=(6.4, 5.2), sharex=True,
                                      gridspec_kw={"height_ratios": [2, 1]})
    for s in range(window):
        phase = (s + stride - window) % stride
        emphasis = dict(lw=2.2) if s == doc["init_argmax"] else dict(lw=1, alpha=0.8)
        top.plot(steps, gates[:, s], label=f"slot {s} (phase {phase})", **emphasis)
    bottom.plot(steps, [p["objective"] for p in doc["trajectory"]], color="k")
    if doc.get("reweight_at", -1) >= 0:
        for ax in (top, bottom):
            ax.axvline(doc["reweight_at"], color="r", ls="--", lw=0.8)
    top.set_ylabel("gate weight")
    top.set_ylim(0, 1.02)
    top.legend(fontsize=7, ncol=2)
    bottom.set_ylabel("objective J")
    bottom.set_xlabel("step")
    top.set_title(args.title or f"T2 lock-in: initial argmax slot {doc['init_argmax']}, final "
                  f"{doc['final_argmax']} (max weight {doc['final_max_weight']:.3f})", fontsize=10)
    save(fig, args.out)


if __name__ == "__main__":
    main()
