#!/usr/bin/env python3
"""The NumPy script a researcher would write for phasesim's full-vector model (MODEL.md
section 4): the peer that benchmarks/compare-numpy.py runs beside `phasesim niah --engine full`.

One trial, as the full engine computes it: keys k_t ~ N(0, I_d / d) for all L positions
(default_rng().standard_normal), a needle at p, the query q = k_p + eps with
eps ~ N(0, sigma_q^2 I_d / d), the projections a = keys @ q, entry j's logit
sum_s g_s a[jS + S - W + s] as a sliding dot product with the gate (np.correlate; the first
entries renormalize the gate over the slots that exist), the argmax, and a hit when that entry
holds p. Needles are placed as phasesim places them (trial = group x prompts + prompt, p = kG + r
with k uniform on the interior range). No RMS normalization: the logits' argmax without it is
what the projections give.

Prints one JSON object: the parameters, trials, seconds (wall) and cpu_seconds of the trial
loop, trials_per_second and accuracy.
"""
import argparse
import json
import math
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), os.pardir, "scripts"))
from python_needs import require  # noqa: E402

require(["numpy"], "python3-numpy")
import numpy as np  # noqa: E402


def parse_gate(spec, window):
    if spec == "uniform":
        return np.full(window, 1.0 / window)
    if spec.startswith("weights:"):
        weights = np.array([float(x) for x in spec[len("weights:"):].split(",")])
        if len(weights) != window or weights.min() < 0 or weights.sum() <= 0:
            sys.exit(f"numpy_peer: invalid --gate {spec} (need {window} non-negative weights)")
        return weights / weights.sum()
    sys.exit(f"numpy_peer: invalid --gate {spec} (uniform or weights:a,b,...)")


def needle_range(window, stride, context, groups):
    """First block k and block count of phasesim's needle plan (sim/niah/needle.cpp)."""
    first = -(-window // groups)
    highest = (context // stride) * stride - window
    last = (highest - (groups - 1)) // groups
    if last < first:
        sys.exit(f"numpy_peer: invalid --context {context} (too short for the needle range)")
    return first, last - first + 1


def entry_logits(a, gate, window, stride, entries):
    """Logit of entry j: sum_s g_s a[jS + S - W + s]; slots before position 0 do not exist."""
    offset = stride - window
    shifted = a[offset:] if offset >= 0 else np.concatenate([np.zeros(-offset), a])
    logits = np.correlate(shifted, gate, "valid")[: entries * stride : stride]
    for j in range(entries):  # boundary entries: renormalize over the existing slots
        first_slot = window - stride - j * stride
        if first_slot <= 0:
            break
        kept = gate[first_slot:].sum()
        logits[j] = logits[j] / kept if kept > 0 else 0.0
    return logits


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--window", type=int, default=8)
    parser.add_argument("--stride", type=int, default=4)
    parser.add_argument("--gate", default="uniform")
    parser.add_argument("--dim", type=int, default=64)
    parser.add_argument("--query-noise", type=float, default=1.47)
    parser.add_argument("--context", type=int, default=131072)
    parser.add_argument("--groups", type=int, default=8)
    parser.add_argument("--prompts", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    W, S, d, L = args.window, args.stride, args.dim, args.context
    if W < 1 or S < 1 or d < 1 or args.groups < 1 or args.prompts < 1:
        sys.exit("numpy_peer: invalid arguments (window, stride, dim, groups, prompts >= 1)")
    gate = parse_gate(args.gate, W)
    entries = L // S
    first, count = needle_range(W, S, L, args.groups)
    rng = np.random.default_rng(args.seed)
    trials = args.groups * args.prompts
    hits = 0
    start = time.perf_counter()
    cpu_start = time.process_time()
    for trial in range(trials):
        group = trial // args.prompts
        p = (first + int(rng.integers(count))) * args.groups + group
        keys = rng.standard_normal((L, d)) / math.sqrt(d)
        q = keys[p] + args.query_noise / math.sqrt(d) * rng.standard_normal(d)
        j = int(np.argmax(entry_logits(keys @ q, gate, W, S, entries)))
        hits += j * S + S - W <= p < j * S + S
    seconds = time.perf_counter() - start
    cpu_seconds = time.process_time() - cpu_start
    print(json.dumps({"window": W, "stride": S, "gate": args.gate, "dim": d,
                      "query_noise": args.query_noise, "context": L, "trials": trials,
                      "seed": args.seed, "seconds": seconds, "cpu_seconds": cpu_seconds,
                      "trials_per_second": trials / seconds, "accuracy": hits / trials}))


if __name__ == "__main__":
    main()
