#!/usr/bin/env python3
"""V4.1-Flash's even/odd table against each candidate cause (README.md says what each part
shows). Writes mechanism.json into OUT.

The measure: a cache (a unit of independent keys; the layers and query heads that read it
attend alike under --beta) fails phase phi with probability F(phi), and a stack fails when
every cache fails: F_stack(phi) = prod_caches F(phi). With x = log(1/F_even) and
y = log(F_odd / F_even), both add over caches, so the stack's gap efficiency
rho = y / x is a weighted mean of its caches' (weights x): no stack, shared caches or flat
(unpooled, window-only) layers can raise it above its best cache's. The table needs
rho in [log(0.097/0.053) / log(1/0.053), log(0.108/0.047) / log(1/0.047)] = [0.206, 0.272]
(even 94.7 to 95.3, odd 89.2 to 90.3); its midpoints give 0.2395."""
import json
import math
import os
import subprocess
import sys

import numpy as np
from scipy import optimize

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "read-path"))
import closed_form  # noqa: E402  (the alignment effect's exact law, W = S, uniform gate)

PHASESIM = os.environ["PHASESIM"]
OUT = sys.argv[1]
CONTEXT = 131072
ENTRIES = CONTEXT // 2  # ratio 2
EVEN, ODD = (0.947, 0.953), (0.892, 0.903)
TARGET = (sum(EVEN) / 2, sum(ODD) / 2)
BETAS = [b / 2 for b in range(4, 41)]  # 2 to 20


def rho(f_even, f_odd):
    return math.log(f_odd / f_even) / math.log(1 / f_even)


def rho_range():
    return {"low": rho(1 - EVEN[0], 1 - ODD[1]), "high": rho(1 - EVEN[1], 1 - ODD[0]),
            "mid": rho(1 - TARGET[0], 1 - TARGET[1])}


def rope_factors(stride, base=160000.0, dims=64, factor=16, original=65536, fast=32, slow=1):
    """Signal kept by the pooled key of a token at offset s from its block's start: 448 of 512
    dimensions unrotated, 64 rotated by s theta_i (V4's frequencies with YaRN's ramp, the
    DeepSeek defaults beta_fast 32, beta_slow 1; original length 65536 = 1M / 16), so the
    needle's dot product keeps 448/512 + 64/512 mean_i cos(s theta_i)."""
    i = np.arange(dims // 2)
    theta = base ** (-2 * i / dims)

    def cutoff(rotations):
        return dims * math.log(original / (rotations * 2 * math.pi)) / (2 * math.log(base))

    low, high = max(math.floor(cutoff(fast)), 0), min(math.ceil(cutoff(slow)), dims - 1)
    keep = 1 - np.clip((i - low) / max(high - low, 1e-3), 0, 1)  # 1: unscaled (high frequency)
    scaled = theta / factor * (1 - keep) + theta * keep
    means = [float(np.cos(s * scaled).mean()) for s in range(stride)]
    return {"mean_cos": means, "signal": [448 / 512 + 64 / 512 * c for c in means]}


def niah(args):
    path = os.path.join(OUT, "scratch.json")
    subprocess.run([PHASESIM, "niah", *args, "--json", path], check=True,
                   stdout=subprocess.DEVNULL)
    with open(path) as f:
        return json.load(f)


def one_entry(u, beta):
    """A(u; beta, N) of section 4 on W = S = 2 (analytic engine): phase 1 of the gate (1, b)
    holds the needle at u = b / sqrt(1 + b^2)."""
    b = u / math.sqrt(1 - u * u)
    doc = niah(["--window", "2", "--stride", "2", "--gates", f"weights:1,{b!r}", "--beta",
                repr(beta), "--context", str(CONTEXT), "--groups", "2", "--engine", "analytic"])
    return doc["groups"][1]["accuracy"]


def rope_part():
    """A 1-token needle at slot s of a uniform W = S = 2 block keeps u = f(s) / sqrt(2) (f(0) = 1):
    the rotated part of its key is noise, so its entry is section 4's at u f(s). The odd phase's
    f(1) is what separates the phases."""
    factors = rope_factors(2)
    f = factors["signal"][1]
    u = 1 / math.sqrt(2)
    scan = []
    for beta in BETAS:
        p_even, p_odd = one_entry(u, beta), one_entry(u * f, beta)
        if p_even < 1 - 1e-12:
            scan.append({"beta": beta, "even": p_even, "odd": p_odd,
                         "rho": rho(1 - p_even, 1 - p_odd)})
    asymptote = 1 - f * f * (1 - u * u) / (1 - f * f * u * u)
    # One cache carrying the whole table (the best case when rho grows with beta): the beta
    # that gives the even phase's 0.95, the odd phase it gives, and the f the table would need.
    beta = optimize.brentq(lambda b: one_entry(u, b) - TARGET[0], 2, 20, xtol=1e-10)
    needed = optimize.brentq(lambda g: one_entry(u * g, beta) - TARGET[1], 0.5, 1, xtol=1e-10)
    return {"factors": factors, "scan": scan, "rho_max_scan": max(r["rho"] for r in scan),
            "rho_asymptote": asymptote,
            "one_cache": {"beta": beta, "even": one_entry(u, beta), "odd": one_entry(u * f, beta),
                          "signal_needed": needed}}


def needle(beta, n, start):
    return closed_form.read_probability(beta, n, start, 2, ENTRIES)


def needles_part():
    """Needles of n tokens on W = S = 2, a uniform gate, section 4's argmax (closed form):
    even starts against odd starts; for n = 2 the parameters that give the table."""
    curves = {}
    for n in (2, 3):  # n = 4 aligned fills two entries: no closed form (fast only)
        rows = []
        for beta in (3.0, 3.5, 4.0, 4.5, 5.0, 6.0, 8.0):
            even, odd = needle(beta, n, 0), needle(beta, n, 1)
            rows.append({"beta": beta, "even": even, "odd": odd})
        curves[str(n)] = rows
    alone = optimize.brentq(lambda b: needle(b, 2, 0) - TARGET[0], 4, 6, xtol=1e-6)
    ends = {"low": (EVEN[0], ODD[1]), "mid": TARGET, "high": (EVEN[1], ODD[0])}
    solutions = {}
    for key, (even, odd) in ends.items():
        # The ratio-2 cache makes the odd phase fail (1 - odd) / (1 - even) times as often as
        # the even one; a flat cache (ratio 1: one entry a token, the same P for both starts)
        # brings the even phase's failure down to 1 - even.
        want = math.log((1 - odd) / (1 - even))
        beta = optimize.brentq(lambda b: math.log((1 - needle(b, 2, 1)) / (1 - needle(b, 2, 0)))
                               - want, 3.5, alone, xtol=1e-6)
        aligned, straddling = needle(beta, 2, 0), needle(beta, 2, 1)
        flat = (1 - even) / (1 - aligned)
        solutions[key] = {"beta": beta, "aligned": aligned, "straddling": straddling,
                          "flat_cache_reads": 1 - flat, "stack_even": 1 - flat * (1 - aligned),
                          "stack_odd": 1 - flat * (1 - straddling)}
    return {"curves": curves,
            "alone": {"beta": alone, "even": needle(alone, 2, 0), "odd": needle(alone, 2, 1)},
            "with_flat_cache": solutions}


def main():
    part = sys.argv[2]
    result = rope_part() if part == "rope" else needles_part()
    if part == "rope":
        result["target"] = {"even": EVEN, "odd": ODD, "rho": rho_range()}
        os.remove(os.path.join(OUT, "scratch.json"))
    with open(os.path.join(OUT, f"{part}.json"), "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
