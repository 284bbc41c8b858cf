#!/usr/bin/env python3
"""The overhead of calling phasesim from Python (issue 21): phasesim.channel 10^4 times
against the same 10^4 library calls in C++ (build/phasesim_channel_call_benchmark), measured
side by side in one run, three rounds alternating, and printed as a ratio of the medians.

    PYTHONPATH=build/python /usr/bin/python3 benchmarks/python_overhead.py [build]

A call from Python parses the keyword arguments, releases the GIL, runs the library's
channel_document (validation, quadrature, the JSON document) and converts the document to a
dict; the C++ loop runs channel_document alone."""
import json
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), os.pardir, "scripts"))
from python_needs import require  # noqa: E402

require(["numpy"], "python3-numpy")  # the phasesim module returns NumPy arrays

CALLS = 10_000
ROUNDS = 3


def python_seconds_per_call(phasesim):
    start = time.perf_counter()
    for _ in range(CALLS):
        phasesim.channel(beta=5.0, entries=32768, u=[1.0])
    return (time.perf_counter() - start) / CALLS


def cpp_seconds_per_call(binary):
    run = subprocess.run([binary, "--benchmark_format=json"], capture_output=True, text=True,
                         check=True)
    (result,) = json.loads(run.stdout)["benchmarks"]
    assert result["time_unit"] == "ns" and result["iterations"] == CALLS
    return result["real_time"] * 1e-9


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    sys.path.insert(0, os.path.join(build, "python"))
    import phasesim

    binary = os.path.join(build, "phasesim_channel_call_benchmark")
    python, cpp = [], []
    for _ in range(ROUNDS):
        cpp.append(cpp_seconds_per_call(binary))
        python.append(python_seconds_per_call(phasesim))
    p, c = statistics.median(python), statistics.median(cpp)
    print(f"channel, {CALLS} calls x {ROUNDS} rounds (medians of the rounds):")
    print(f"  Python phasesim.channel: {p * 1e6:9.2f} us per call")
    print(f"  C++ channel_document:    {c * 1e6:9.2f} us per call")
    print(f"  overhead of a Python call: {(p - c) * 1e6:.2f} us, ratio Python/C++ {p / c:.3f}")


if __name__ == "__main__":
    main()
