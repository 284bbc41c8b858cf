#!/usr/bin/env python3
"""The full engine's performance targets, measured side by side in one run.

Runs, on the issue's protocol (W=8 S=4, uniform gate, L=131072, d=64, query noise 1.47):
  1. the NumPy peer (benchmarks/numpy_peer.py) and `phasesim niah --engine full`, one thread
     each, in alternating rounds;
  2. the RNG floor: BM_FullTrial against BM_RngFloor of build/phasesim_benchmarks (one trial
     of the engine, and the generation of the same normals by the same generator, in the same
     binary), repetitions interleaved; and the generator's two halves (Philox words, Box-Muller
     normals) against the reference written in the benchmark (generator_reference.cpp);
  3. the engine on 1 and 2 threads on the same trials;
  4. peak memory (getrusage of each child) of the engine and the peer at two context lengths;
  5. the paper protocol: 2048 trials x 131072 tokens, uniform gate, --rms-norm, d=64, 2 threads,
     on the full engine and on the fast one (its exact streaming-rms path).
and prints every ratio next to its target, with the SIMD target that produced it and that
target's vector width. --simd-target runs everything at a lower target (PHASESIM_SIMD_TARGET):
on an AVX-512 machine, --simd-target avx2 measures what an AVX2 machine runs. Times are
wall-clock (what a user waits) and CPU
(user + system time of the child, which another process on the machine does not inflate);
the load average is printed with them. Run from anywhere:

    benchmarks/compare-numpy.py [--build build] [--simd-target avx2] [--smoke]

--smoke runs everything at toy sizes in seconds (the test suite does, to keep the script
working); its numbers mean nothing.
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
from python_needs import require  # noqa: E402

require(["numpy"], "python3-numpy")  # for the peer, which runs under this same Python

PROTOCOL = ["--window", "8", "--stride", "4", "--dim", "64", "--query-noise", "1.47"]
ONE_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def spawn(command, env=None):
    """Runs a child to the end: its wall and CPU seconds, peak resident memory and stdout.
    Waits with wait4 for the child's own rusage (subprocess would reap it without)."""
    start = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             env={**os.environ, **(env or {})}, text=True)
    out = child.stdout.read()  # small outputs: reading one pipe, then the other, cannot block
    err = child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - start
    if child.returncode != 0:
        sys.exit(f"compare-numpy: {' '.join(map(str, command))} failed:\n{err}")
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime,
            "peak_mib": usage.ru_maxrss / 1024, "out": out}


def cpu_flags():
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith(("model name", "flags")):
                    yield line.split(":", 1)
    except OSError:
        return


def cpu_name():
    return next((value.strip() for key, value in cpu_flags() if key.startswith("model name")),
                "CPU unknown")


def widest_vectors():
    """What this CPU could run: 512-bit with AVX-512, 256-bit with AVX2, else 128-bit."""
    flags = next((value.split() for key, value in cpu_flags() if key.startswith("flags")), [])
    if "avx512f" in flags:
        return "512-bit (AVX-512)"
    return "256-bit (AVX2)" if "avx2" in flags else "128-bit"


def niah(phasesim, context, trials, threads, extra=(), engine="full"):
    groups = 8 if trials >= 8 else 1
    command = [phasesim, "niah", "--engine", engine, "--gates", "uniform", *PROTOCOL,
               "--context", str(context), "--groups", str(groups),
               "--prompts", str(trials // groups), "--threads", str(threads), *extra]
    return spawn(command, ONE_THREAD if threads == 1 else None)


def numpy_peer(context, trials):
    groups = 8 if trials >= 8 else 1
    command = [sys.executable, str(ROOT / "benchmarks" / "numpy_peer.py"), "--gate", "uniform",
               *PROTOCOL, "--context", str(context), "--groups", str(groups),
               "--prompts", str(trials // groups)]
    run = spawn(command, ONE_THREAD)
    run["report"] = json.loads(run["out"])
    return run


def best(runs, key):
    return min(r[key] for r in runs)


# Vector width in bits of Highway's target names (the AVX3 family is AVX-512).
def vector_bits(target):
    if target.startswith("AVX3"):
        return 512
    return {"AVX2": 256, "SCALAR": 32}.get(target, 128)


def medians(benchmarks, pattern, repetitions, key):
    """The median of each benchmark matching `pattern`: {name: (real, cpu)} for key "time",
    else the counter `key`."""
    command = [benchmarks, f"--benchmark_filter={pattern}",
               f"--benchmark_repetitions={repetitions}",
               "--benchmark_enable_random_interleaving=true", "--benchmark_format=json"]
    if repetitions < 3:
        command.append("--benchmark_min_time=0.01")
    report = json.loads(spawn(command)["out"])
    found = {}
    for b in report["benchmarks"]:
        if b.get("aggregate_name") == "median" or (repetitions == 1 and "aggregate_name" not in b):
            found[b["run_name"]] = (b["real_time"], b["cpu_time"]) if key == "time" else b[key]
    return found, report["context"]["simd_target"]


def floor_ratio(benchmarks, repetitions):
    found, simd = medians(benchmarks, "^BM_(FullTrial|RngFloor)$", repetitions, "time")
    return found["BM_FullTrial"], found["BM_RngFloor"], simd


# The generator's whole cost: rows as wide as the protocol's keys (d = 64); and at one Philox
# word per normal instead of two, in rows wide enough for a whole AVX-512 batch.
NORMAL_ROWS = "BM_NormalRows/{}/cols:64"
ONE_WORD_ROWS = "BM_NormalRows/one_word_{}/cols:256"


def generator(benchmarks, target, repetitions):
    """ns per word (Philox) and per normal (Box-Muller, both) on `target` and its reference.
    The reference runs only where the CPU has its instructions; the target's own numbers must
    all be there (a renamed benchmark fails here instead of printing a dash)."""
    names = f"({target}|reference_{target})"
    words, _ = medians(benchmarks, f"^BM_Philox/{names}$", repetitions, "ns/word")
    rows = [NORMAL_ROWS.format(target), ONE_WORD_ROWS.format(target)]
    normals, _ = medians(benchmarks, f"^BM_BoxMuller/{names}$|^({'|'.join(rows)})$",
                         repetitions, "ns/normal")
    found = {**words, **normals}
    own = ["BM_Philox/" + target, "BM_BoxMuller/" + target, *rows]
    missing = [name for name in own if name not in found]
    if missing:
        sys.exit(f"compare-numpy: phasesim_benchmarks did not report {', '.join(missing)}")
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default=str(ROOT / "build"), help="the build directory")
    parser.add_argument("--simd-target", help="run at this SIMD target or below "
                        "(PHASESIM_SIMD_TARGET: avx3, avx2, sse4, ...)")
    parser.add_argument("--smoke", action="store_true", help="toy sizes: checks the script runs")
    args = parser.parse_args()
    if args.simd_target:
        os.environ["PHASESIM_SIMD_TARGET"] = args.simd_target
    build = pathlib.Path(args.build)
    phasesim, benchmarks = str(build / "phasesim"), str(build / "phasesim_benchmarks")
    for program in (phasesim, benchmarks):
        if not os.access(program, os.X_OK):
            sys.exit(f"compare-numpy: {program} not found (build it: bash scripts/build.sh)")
    if args.simd_target:  # before any measurement: phasesim names the targets this build has
        check = subprocess.run([phasesim, "--version"], capture_output=True, text=True)
        if check.returncode != 0:
            print(f"compare-numpy: invalid --simd-target {args.simd_target}: "
                  f"{check.stderr.strip().removeprefix('phasesim: ')}", file=sys.stderr)
            sys.exit(2)
    smoke = args.smoke
    L = 4096 if smoke else 131072
    rounds = 1 if smoke else 3
    np_trials, engine_trials, threaded_trials = (1, 8, 8) if smoke else (8, 64, 256)

    load_start = os.getloadavg()[0]

    # 1. NumPy and the engine, one thread each, alternating.
    peer, engine = [], []
    for _ in range(rounds):
        peer.append(numpy_peer(L, np_trials))
        engine.append(niah(phasesim, L, engine_trials, 1))
    peer_wall = min(r["report"]["seconds"] for r in peer) / np_trials
    peer_cpu = min(r["report"]["cpu_seconds"] for r in peer) / np_trials
    engine_wall = best(engine, "wall") / engine_trials
    engine_cpu = best(engine, "cpu") / engine_trials

    # 2. The RNG floor, in one binary, and the generator's halves on the same target.
    repetitions = 1 if smoke else 5
    (trial_real, trial_cpu), (floor_real, floor_cpu), simd = floor_ratio(benchmarks, repetitions)
    rng = generator(benchmarks, simd, repetitions)

    # 3. Two threads on the same trials.
    one, two = [], []
    for _ in range(rounds):
        one.append(niah(phasesim, L, threaded_trials, 1))
        two.append(niah(phasesim, L, threaded_trials, 2))
    efficiency_wall = best(one, "wall") / (2 * best(two, "wall"))
    efficiency_cpu = best(one, "cpu") / best(two, "cpu")

    # 4. Peak memory at two context lengths.
    short = L // 8
    memory = {
        "engine": [niah(phasesim, n, 8, 1)["peak_mib"] for n in (short, L)],
        "numpy": [numpy_peer(n, 1)["peak_mib"] for n in (short, L)],
    }

    # 5. The paper protocol, on both engines.
    paper_trials = 64 if smoke else 2048
    paper = {engine: niah(phasesim, L, paper_trials, 2, ["--rms-norm"], engine)
             for engine in ("full", "fast")}
    load = os.getloadavg()[0]

    def ns(name):
        value = rng.get(name)
        return "-" if value is None else f"{value:.2f}"

    rows = [
        ("full engine vs NumPy, 1 thread each (trials/s ratio)",
         f"{peer_wall / engine_wall:.1f}x wall, {peer_cpu / engine_cpu:.1f}x CPU", ">= 10x"),
        ("  NumPy peer, trials/s", f"{1 / peer_wall:.2f} wall, {1 / peer_cpu:.2f} CPU", ""),
        ("  full engine, trials/s", f"{1 / engine_wall:.1f} wall, {1 / engine_cpu:.1f} CPU", ""),
        ("full engine vs RNG floor (time per trial)",
         f"{trial_real / floor_real:.2f}x wall, {trial_cpu / floor_cpu:.2f}x CPU", "<= 1.3x"),
        ("  one trial / its normals alone, ms",
         f"{trial_cpu:.1f} / {floor_cpu:.1f} CPU", ""),
        ("generator, ns per float normal (Philox + Box-Muller)",
         f"{ns(NORMAL_ROWS.format(simd))} (reference: Philox {ns('BM_Philox/reference_' + simd)}"
         f" per word, Box-Muller {ns('BM_BoxMuller/reference_' + simd)})", "<= 1.5 on AVX2"),
        ("  Philox4x32-10, ns per 32-bit word", ns("BM_Philox/" + simd), ""),
        ("  Box-Muller, ns per normal", ns("BM_BoxMuller/" + simd), ""),
        ("  the same at one Philox word per normal (a cheaper stream)",
         ns(ONE_WORD_ROWS.format(simd)), ""),
        ("2-thread efficiency (T1 / 2 T2)",
         f"{100 * efficiency_wall:.0f}% wall, {100 * efficiency_cpu:.0f}% CPU", ">= 90%"),
        (f"peak memory, full engine, L={short} / L={L}",
         f"{memory['engine'][0]:.1f} / {memory['engine'][1]:.1f} MiB", "independent of L"),
        (f"peak memory, NumPy peer, L={short} / L={L}",
         f"{memory['numpy'][0]:.1f} / {memory['numpy'][1]:.1f} MiB", ""),
        (f"paper protocol, fast engine ({paper_trials} trials, --rms-norm, 2 threads)",
         f"{paper['fast']['wall']:.1f} s wall, {paper['fast']['cpu']:.1f} s CPU", "< 8 s"),
        (f"paper protocol, full engine ({paper_trials} trials, --rms-norm, 2 threads)",
         f"{paper['full']['wall']:.1f} s wall, {paper['full']['cpu']:.1f} s CPU", "< 16 s"),
    ]
    simd_text = f"{simd}, {vector_bits(simd)}-bit"
    print(f"protocol: W=8 S=4, uniform gate, L={L}, d=64, query noise 1.47; {cpu_name()}, "
          f"{os.cpu_count()} cores, widest vectors {widest_vectors()}; SIMD target {simd_text}; "
          f"load average {load_start:.2f} at the start\n")
    width = max(len(r[0]) for r in rows)
    value_width = max(len(r[1]) for r in rows)
    target_width = max(len(r[2]) for r in rows)
    print(f"{'measure':<{width}}  {'measured':<{value_width}}  {'target':<{target_width}}  SIMD")
    for name, value, target in rows:
        print(f"{name:<{width}}  {value:<{value_width}}  {target:<{target_width}}  {simd_text}")
    print(f"\n(load average {load:.2f} at the end on {os.cpu_count()} cores; the CPU column "
          "counts only the process's own time, the wall column what a user waits; "
          "2-thread efficiency in CPU is T1's CPU time over T2's: the work two threads add)")


if __name__ == "__main__":
    main()
