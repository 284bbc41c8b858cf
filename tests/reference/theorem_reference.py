#!/usr/bin/env python3
"""Reference values for the theorem tests (tests/theorems/concentration_test.cpp).

Independent of the C++ code in method: mpmath at 30 digits integrates over the needle's
noise, A = int phi(x) Phi(mean + sd x)^n dx with n = N - 1 distractors, whereas
theory/ integrates over the distractor maximum in double precision. beta* is the root of
the star-shapedness margin h(beta) = A_lin'(1) - (A_lin(1) - A_lin(0)) (THEORY.md, T1a).
Run: python3 tests/reference/theorem_reference.py
"""
import mpmath as mp

mp.mp.dps = 30


def success(mean, sd, n):
    """P(mean + sd Z > max of n iid N(0, 1))."""
    return mp.quad(lambda x: mp.npdf(x) * mp.ncdf(mean + sd * x) ** n, [-mp.inf, -5, 0, 5, mp.inf])


def margin(beta, entries):
    n = entries - 1
    slope = beta * mp.quad(
        lambda x: mp.npdf(x) * n * mp.ncdf(beta + x) ** (n - 1) * mp.npdf(beta + x),
        [-mp.inf, -5, 0, 5, mp.inf])
    return slope - (success(beta, 1, n) - success(0, 1, n))


for entries, guess in [(1024, 4.45), (32768, 5.48), (10**6, 6.30)]:
    star = mp.findroot(lambda b: margin(b, entries), guess)
    print(f"beta*({entries}) = {mp.nstr(star, 12)}")

for beta in [4, 5, 6, 8, 10, 12]:
    values = [k * success(beta / mp.sqrt(k), mp.sqrt(1 - mp.mpf(1) / k), 32767) for k in range(1, 5)]
    best = max(range(4), key=lambda k: values[k]) + 1
    print(f"beta {beta}: k A(1/sqrt k) = {[mp.nstr(v, 10) for v in values]}, k* = {best}")
