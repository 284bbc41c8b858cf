#!/usr/bin/env python3
"""Fits the two free parameters of a one-head model to a published best/worst pair.

Model: the standardized channel (`phasesim niah --engine analytic`) with one head and
signal strength BETA, whose gate leans towards one slot with a strength X:
  --family logit     one gate with logit X (KAPPA, the per-slot bias the compressor learns)
                     on the slot and 0 on the others;
  --family channels  a per-channel gate (MODEL.md section 9): a share X of the channels
                     one-hot on the slot, the rest uniform over the window.
For a given X the worst group rises with BETA, so BETA is solved for the worst target by
bisection; along that curve the best group rises with X, solved for the best target by an
outer bisection. Writes the fit as JSON.

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


def channels(slot, share):
    return f"channels:onehot:{slot}={share!r}|uniform={1 - share!r}"


def gate_of(args, x):
    return logits(args.window, args.slot, x) if args.family == "logit" else channels(args.slot, x)


def profile(args, beta, x):
    if phasesim is not None:
        return phasesim.niah(engine="analytic", window=args.window, stride=args.stride,
                             gates=gate_of(args, x), beta=beta, split_rho=args.split_rho,
                             context=args.context, groups=args.groups)["summary"]
    command = [PHASESIM, "niah", "--engine", "analytic", "--window", str(args.window),
               "--stride", str(args.stride), "--gates", gate_of(args, x),
               "--beta", repr(beta), "--split-rho", repr(args.split_rho),
               "--context", str(args.context), "--groups", str(args.groups), "--json", "-"]
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
    p.add_argument("--family", choices=("logit", "channels"), default="logit",
                   help="how the gate leans to the slot (see above)")
    p.add_argument("--split-rho", type=float, default=1.0,
                   help="rho of split projections (MODEL.md section 9; 1: one projection)")
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

    # A share stays inside (0, 1): each channel group needs some of the channels.
    low, high = (0.0, 8.0) if args.family == "logit" else (1e-6, 1 - 1e-6)
    x = bisect(best_at, low, high, args.best, iterations=40)
    if x is None:
        sys.exit(f"calibrate.py: no (beta, {args.family} strength) reaches these targets")
    beta = beta_for_worst(x)
    summary = profile(args, beta, x)
    strength = "kappa" if args.family == "logit" else "share"
    fit = {"window": args.window, "stride": args.stride, "slot": args.slot,
           "split_rho": args.split_rho, "context": args.context,
           "groups": args.groups, "target_best": args.best, "target_worst": args.worst,
           "beta": beta, strength: x, "gate": gate_of(args, x),
           "fitted_best": summary["best"], "fitted_worst": summary["worst"], "fitted_mean": summary["mean"]}
    with open(args.out, "w") as f:
        json.dump(fit, f, indent=2)
    what = "bias of slot {} in nats" if args.family == "logit" else "share of channels on slot {}"
    print(f"fit: beta = {beta:.4f}, {strength} = {x:.4f} ({what.format(args.slot)}); "
          f"best {summary['best']:.4f} (target {args.best}), worst {summary['worst']:.4f} "
          f"(target {args.worst}), mean {summary['mean']:.4f}")


if __name__ == "__main__":
    main()
