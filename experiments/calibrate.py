#!/usr/bin/env python3
"""Fits the two free parameters of a one-head model to a published best/worst pair.

Model: the standardized channel (`phasesim niah --engine analytic`) with one head whose
gate has logit KAPPA on one slot (the per-slot bias the compressor learns) and 0 on the
others, and signal strength BETA. For a given KAPPA the worst group rises with BETA, so
BETA is solved for the worst target by bisection; along that curve the best group rises
with KAPPA, solved for the best target by an outer bisection. Writes the fit as JSON.

The fit evaluates the model about 2000 times: in this process through the phasesim Python
module beside the program (PHASESIM's folder/python, built with pybind11), else by running
the program each time (minutes instead of seconds). Both give the same document, bit for bit.
"""
import argparse
import json
import os
import subprocess
import sys

PHASESIM = os.environ.get("PHASESIM", "build/phasesim")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(PHASESIM)), "python"))
try:
    import phasesim
except ImportError:  # built without pybind11: the program, once per evaluation
    phasesim = None


def logits(window, slot, kappa):
    return "logits:" + ",".join(repr(kappa) if s == slot else "0" for s in range(window))


def profile(args, beta, kappa):
    if phasesim is not None:
        return phasesim.niah(engine="analytic", window=args.window, stride=args.stride,
                             gates=logits(args.window, args.slot, kappa), beta=beta,
                             context=args.context, groups=args.groups)["summary"]
    command = [PHASESIM, "niah", "--engine", "analytic", "--window", str(args.window),
               "--stride", str(args.stride), "--gates", logits(args.window, args.slot, kappa),
               "--beta", repr(beta), "--context", str(args.context), "--groups", str(args.groups),
               "--json", "-"]
    return json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)["summary"]


def bisect(f, lo, hi, target, iterations=48):
    """x in [lo, hi] with f(x) = target for increasing f."""
    if not f(lo) <= target <= f(hi):
        return None
    for _ in range(iterations):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if f(mid) < target else (lo, mid)
    return (lo + hi) / 2


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--window", type=int, default=8)
    p.add_argument("--stride", type=int, default=4)
    p.add_argument("--slot", type=int, help="slot that gets the bias (default: the last, W-1)")
    p.add_argument("--context", type=int, default=131072)
    p.add_argument("--groups", type=int, default=8)
    p.add_argument("--best", type=float, required=True, help="target best-group accuracy (0..1)")
    p.add_argument("--worst", type=float, required=True, help="target worst-group accuracy (0..1)")
    p.add_argument("--out", required=True, help="JSON file for the fitted parameters")
    args = p.parse_args()
    args.slot = args.window - 1 if args.slot is None else args.slot
    if not 0 < args.worst < args.best < 1:
        sys.exit("calibrate.py: need 0 < --worst < --best < 1")

    def beta_for_worst(kappa):
        return bisect(lambda b: profile(args, b, kappa)["worst"], 0.0, 40.0, args.worst)

    def best_at(kappa):
        beta = beta_for_worst(kappa)
        return profile(args, beta, kappa)["best"] if beta is not None else 1.0

    kappa = bisect(best_at, 0.0, 8.0, args.best, iterations=40)
    if kappa is None:
        sys.exit("calibrate.py: no (beta, kappa) reaches these targets in this model")
    beta = beta_for_worst(kappa)
    summary = profile(args, beta, kappa)
    fit = {"window": args.window, "stride": args.stride, "slot": args.slot, "context": args.context,
           "groups": args.groups, "target_best": args.best, "target_worst": args.worst,
           "beta": beta, "kappa": kappa, "gate": logits(args.window, args.slot, kappa),
           "fitted_best": summary["best"], "fitted_worst": summary["worst"], "fitted_mean": summary["mean"]}
    with open(args.out, "w") as f:
        json.dump(fit, f, indent=2)
    print(f"fit: beta = {beta:.4f}, kappa = {kappa:.4f} (bias of slot {args.slot} in nats); "
          f"best {summary['best']:.4f} (target {args.best}), worst {summary['worst']:.4f} "
          f"(target {args.worst}), mean {summary['mean']:.4f}")


if __name__ == "__main__":
    main()
