#!/usr/bin/env python3
"""presets/v41-flash.toml's fit (README.md, "(c) on the preset"): the two betas that give
V4.1-Flash's table (even 95.0, odd 89.75, the published ranges' midpoints) on the preset's own
stack, from the exact law of its caches for a needle of 2 tokens far from the query.

Each cache reads through MODEL.md section 10's two stages: the top 512 of its N entries by the
indexer (uniform gate, the head's beta: the preset gives no index beta), then the argmax over
what was kept, the 128-token window's raw tokens and the sink (logit 0). The indexer's and the
attention's logits of an entry are independent (index_rho 0), so the k - j distractors kept
beside j needle entries are k - j iid N(0, 1) in stage 2, and a needle entry is kept when
fewer than k entries (its needle partner included) score above it: a binomial count of the
distractors above it. Needle entries: ratio 2 (W = S = 2, uniform) aligned, one entry at u = 1
(no noise); straddling, two at u = 1/2 with noise correlation -1/3; ratio 1, two at
u = 1/sqrt(2), correlation -1 (each holds one token). Caches have their own keys, so the stack
fails a phase when the 3 ratio-2 caches and the ratio-1 cache all fail: F = F_2^3 F_1.

Usage: preset_fit.py OUT [BETA BETA_1]: writes OUT/preset_fit.json (the fit, or the stack's
phases at the two betas given)."""
import functools
import json
import math
import os
import sys

import numpy as np
from scipy import optimize, special, stats

CONTEXT = 131072
TOP_K = 512
WINDOW = 128
EVEN, ODD = (0.947, 0.953), (0.892, 0.903)
TARGET = (sum(EVEN) / 2, sum(ODD) / 2)
GRID = np.linspace(-9, 9, 1801)  # a standard normal's values, step 0.01
WEIGHTS = stats.norm.pdf(GRID) * (GRID[1] - GRID[0])
LOGITS = np.linspace(-12, 16, 56001)


@functools.lru_cache(maxsize=None)
def kept_table(count_above, distractors):
    return stats.binom.cdf(count_above, distractors, special.ndtr(-LOGITS))


def kept(count_above, logits, distractors):
    """P(at most count_above of `distractors` iid N(0, 1) exceed each logit): the binomial's
    distribution function tabulated once per count on a grid of logits 0.0005 apart (where it
    moves, the k-th largest of 65,534 normals has a standard deviation of 0.04)."""
    return np.interp(logits, LOGITS, kept_table(count_above, distractors))


def beats(logits, competitors):
    """P(a logit beats `competitors` iid N(0, 1) and the sink's 0)."""
    return np.where(logits > 0, np.exp(competitors * special.log_ndtr(logits)), 0.0)


def aligned(beta):
    """Ratio 2, a needle starting on an even token: one entry at u = 1."""
    entries = CONTEXT // 2
    return float(kept(TOP_K - 1, np.array(beta), entries - 1) * beats(np.array(beta), TOP_K - 1 + WINDOW))


def pair(beta, u, corr, entries):
    """Two needle entries at u with noise correlation corr (the same law in both stages,
    independent draws): P(read)."""
    sd = math.sqrt(1 - u * u)
    x, y = np.meshgrid(GRID, GRID, indexing="ij")
    w = np.outer(WEIGHTS, WEIGHTS)
    a = beta * u + sd * x
    b = beta * u + sd * (corr * x + math.sqrt(1 - corr * corr) * y)
    high, low = np.maximum(a, b), np.minimum(a, b)
    distractors = entries - 2
    both = kept(TOP_K - 2, low, distractors)  # the lower one kept: both are
    one = kept(TOP_K - 1, high, distractors) - both
    p_both, p_one = float((w * both).sum()), float((w * one).sum())
    # Stage 2: the attention's own pair (independent of the indexer's, index_rho 0).
    read_both = float((w * beats(high, TOP_K - 2 + WINDOW)).sum())
    single = beta * u + sd * GRID
    read_one = float((WEIGHTS * beats(single, TOP_K - 1 + WINDOW)).sum())
    return p_both * read_both + p_one * read_one


def straddling(beta):
    return pair(beta, 0.5, -1 / 3, CONTEXT // 2)


def flat(beta):
    """Ratio 1: each token its own entry, u = 1/sqrt(2) each, correlation -1."""
    return pair(beta, math.sqrt(0.5), -1.0, CONTEXT)


def stack(beta, beta_1):
    e, o, f = aligned(beta), straddling(beta), flat(beta_1)
    return {"beta": beta, "beta_1": beta_1, "ratio_2_even": e, "ratio_2_odd": o, "ratio_1": f,
            "even": 1 - (1 - e) ** 3 * (1 - f), "odd": 1 - (1 - o) ** 3 * (1 - f)}


def fit(even, odd):
    """beta from the ratio-2 caches' contrast, (1 - e) / (1 - o) = (F_even / F_odd)^(1/3), then
    beta_1 from the level."""
    f_even, f_odd = 1 - even, 1 - odd

    def contrast(beta):
        return 3 * math.log((1 - aligned(beta)) / (1 - straddling(beta))) - math.log(f_even / f_odd)

    beta = optimize.brentq(contrast, 2.0, 3.6, xtol=1e-6)
    need = 1 - f_even / (1 - aligned(beta)) ** 3
    beta_1 = optimize.brentq(lambda b: flat(b) - need, 2.0, 8.0, xtol=1e-6)
    return stack(beta, beta_1)


def main():
    out = sys.argv[1]
    if len(sys.argv) > 3:
        doc = {"stack": stack(float(sys.argv[2]), float(sys.argv[3]))}
    else:
        doc = {"mid": fit(*TARGET), "ends": [fit(EVEN[0], ODD[1]), fit(EVEN[1], ODD[0])]}
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "preset_fit.json"), "w") as f:
        json.dump(doc, f, indent=1)
    print(json.dumps(doc, indent=1))


if __name__ == "__main__":
    main()
