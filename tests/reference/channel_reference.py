#!/usr/bin/env python3
"""High-precision reference values for the standardized channel (tests/channel/channel_test.cpp).

Independent of the C++ code in method and precision: mpmath at 40 digits integrates over
the *needle* maximum, P = E[Phi(max_s X_s)^n] = int f_maxX(x) Phi(x)^n dx, whereas
theory/channel.cpp integrates over the *distractor* maximum in double precision with
Gauss-Kronrod. Run: python3 tests/reference/channel_reference.py
"""
import mpmath as mp

mp.mp.dps = 40

CASES = [  # (beta, u values, entries in all)
    (3.0, [0.3], 10),
    (4.5, [0.8], 1024),
    (5.0, [0.7, 0.7], 32768),
    (2.0, [0.6, 0.6, 0.6], 50),
    (0.0, [0.9], 100),
    (4.0, [0.5], 10**7),
    (6.0, [0.95, 0.2], 10**7),
    (8.0, [0.999], 10**6),
    (5.0, [0.999999], 32768),
    (4.1482829466444615, [0.9999999847126457], 16384),  # sd 1.7e-4: a jump-like needle
]


def success(beta, us, entries):
    n = entries - len(us)
    laws = [(beta * u, mp.sqrt(1 - u * u)) for u in map(mp.mpf, us)]

    def density_of_needle_max(x):
        total = mp.mpf(0)
        for i, (mean, sd) in enumerate(laws):
            term = mp.npdf(x, mean, sd)
            for j, (m2, s2) in enumerate(laws):
                if j != i:
                    term *= mp.ncdf((x - m2) / s2)
            total += term
        return total

    peak = mp.sqrt(2 * mp.log(n))
    points = sorted({-mp.inf, mp.inf, -12, 0, peak - 1, peak, peak + 1, peak + 3}
                    | {m + k * s for m, s in laws for k in (-6, -2, 0, 2, 6)})
    return mp.quad(lambda x: density_of_needle_max(x) * mp.ncdf(x) ** n, points, maxdegree=12)


if __name__ == "__main__":
    for beta, us, entries in CASES:
        print(f"{{{beta}, {{{', '.join(map(str, us))}}}, {entries}, "
              f"{mp.nstr(success(beta, us, entries), 20)}}},")
