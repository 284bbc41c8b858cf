#!/usr/bin/env python3
"""The beta at which full attention with 8 heads (W = S = 1, standardized channel)
has the published mean NIAH score, found by bisection on `phasesim niah --engine analytic`."""
import json
import os
import subprocess
import sys

PHASESIM = os.environ.get("PHASESIM", "build/phasesim")


def mean_at(beta):
    command = [PHASESIM, "niah", "--engine", "analytic", "--window", "1", "--stride", "1",
               "--heads", "8", "--gates", "last", "--beta", repr(beta), "--json", "-"]
    return json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)["summary"]["mean"]


def main(target, out):
    lo, hi = 0.0, 10.0
    for _ in range(50):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if mean_at(mid) < target else (lo, mid)
    beta = (lo + hi) / 2
    with open(out, "w") as f:
        json.dump({"target_full_attention_mean": target, "beta": beta, "full_attention_mean": mean_at(beta)}, f, indent=2)
    print(f"beta = {beta:.5f} gives full attention (8 heads) a mean of {mean_at(beta):.4f}")


if __name__ == "__main__":
    main(float(sys.argv[1]), sys.argv[2])
