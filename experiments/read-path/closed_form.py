#!/usr/bin/env python3
"""The alignment effect's closed form (part (c); theory/THEORY.md, "The read path"): a needle of
n tokens on W = S with a uniform gate, read by section 4's argmax over all N entries.

The entries holding it, A = 1..m, hold c_A of its tokens (sum c_A = n). In the standardized
channel entry A scores X_A = beta c_A / sqrt(n S) + (U_A - c_A e) / sqrt(S) + s_A E_A, with
U_A the sum of its tokens' iid N(0, 1) projections, e their mean (so that the normalized sum is
beta: the residuals are U given sum U = 0), s_A^2 = 1 - c_A / S its haystack part and E_A iid.
Conditioning on sum U = 0 by Fourier inversion, with E[e^{i w U_A} 1{X_A <= y}] =
exp(-c_A w^2 / 2) Phi(y - mu_A - i w c_A / sqrt(S)):

    P(max_A X_A <= y) = sqrt(n / (2 pi)) int exp(-n w^2 / 2) prod_A Phi(y - mu_A - i w c_A / sqrt(S)) dw,

and P(read) = 1 - int f_M(y) P(max X <= y) dy, f_M the density of the maximum of the N - m
distractors. (n = 1: Phi(t / sqrt(1 - 1/S)), section 4's single entry.) Phi of a complex
argument is erfc's analytic continuation (scipy's Faddeeva-based erfc)."""
import math

import numpy as np
from scipy import integrate, special


SQRT2 = math.sqrt(2)
LOG_HALF = math.log(0.5)


def log_phi(zeta):
    """log Phi(zeta) for complex zeta, from the scaled erfcx (bounded where its real part is
    >= 0), so that factors of size exp(w^2 c^2 / (2 S)) never overflow; any branch of the log
    does, as only exp of the sum is used."""
    if zeta.real <= 0:
        return LOG_HALF - zeta * zeta / 2 + np.log(special.erfcx(-zeta / SQRT2))
    log_w = LOG_HALF - zeta * zeta / 2 + np.log(special.erfcx(zeta / SQRT2))  # log Phi(-zeta)
    if log_w.real < 0:
        return np.log1p(-np.exp(log_w))
    return log_w + np.log(-1 + 0j) + np.log1p(-np.exp(-log_w))  # 1 - w = -w (1 - 1/w)


def counts(start_phase, n, stride):
    """Tokens of a needle starting at phase start_phase in each entry it touches (W = S)."""
    out, first = [], start_phase
    while n > 0:
        take = min(stride - first, n)
        out.append(take)
        n -= take
        first = 0
    return out


def all_below(y, mus, cs, n, stride):
    """P(max_A X_A <= y), by the Fourier integral over w (real part: the imaginary cancels)."""
    root = math.sqrt(stride)

    def integrand(w):
        log = -n * w * w / 2 + sum(log_phi(complex(y - mu, -w * c / root)) for mu, c in zip(mus, cs))
        return np.exp(log).real

    if len(cs) == 1:  # no residual: one Gaussian of variance 1 - c / S (a step when 0)
        var = 1 - cs[0] / stride
        if var <= 0:
            return 1.0 if y >= mus[0] else 0.0
        return 0.5 * math.erfc(-(y - mus[0]) / math.sqrt(2 * var))
    # The integrand's envelope is exp(-(n - sum c^2 / S) w^2 / 2): integrate to 12 of its sds.
    spread = n - sum(c * c for c in cs) / stride
    if spread <= 1e-12:
        raise ValueError("every entry is full of needle tokens: the Fourier integral does not decay")
    reach = 12 / math.sqrt(spread)
    value, _ = integrate.quad(integrand, -reach, reach, epsabs=1e-13, epsrel=1e-11, limit=400)
    return math.sqrt(n / (2 * math.pi)) * value


def read_probability(beta, n, start_phase, stride, entries):
    cs = counts(start_phase, n, stride)
    mus = [beta * c / math.sqrt(n * stride) for c in cs]
    distractors = entries - len(cs)
    log_n = math.log(distractors)

    def density(y):  # of the maximum of the distractors
        log_cdf = special.log_ndtr(y)
        return math.exp(log_n + (distractors - 1) * log_cdf - 0.5 * y * y) / math.sqrt(2 * math.pi)

    lo = special.ndtri(math.exp(math.log(1e-16) / distractors))
    hi = -special.ndtri(-math.expm1(math.log1p(-1e-16) / distractors))
    value, _ = integrate.quad(lambda y: density(y) * all_below(y, mus, cs, n, stride), lo, hi,
                              epsabs=1e-12, epsrel=1e-10, limit=200,
                              points=sorted(m for m in mus if lo < m < hi) or None)
    return 1 - value
