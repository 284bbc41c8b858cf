"""The Python module against the CLI (issue 21): for every bound command the dict equals the
CLI's JSON document for the same options (non-default values, not only defaults); the CLI's
refusals raise ValueError with its line; runs in two threads at once; Ctrl-C.

Run by ctest (python_module) with PYTHONPATH=build/python and PHASESIM_CLI=build/phasesim."""
import json
import math
import os
import subprocess
import sys
import tempfile
import textwrap
import threading
import time

import numpy as np
import pytest

import phasesim

CLI = os.environ.get("PHASESIM_CLI", os.path.join(os.path.dirname(__file__), "../../build/phasesim"))


def plain(value):
    """The dict as JSON reads it: arrays as lists."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def cli_document(arguments):
    """What `phasesim ARGUMENTS --json FILE` writes (statuses 3 and 5 are theorem verdicts)."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "out.json")
        run = subprocess.run([CLI, *arguments, "--json", path], capture_output=True, text=True)
        assert run.returncode in (0, 3, 5), run.stderr
        with open(path) as f:
            return json.load(f)


def assert_same(result, document):
    """Key for key and value for value, NumPy arrays where the document has numeric lists."""
    assert list(result) == list(document)
    assert plain(result) == document


# (function, keyword arguments, the CLI's arguments): non-default values throughout.
CASES = [
    (phasesim.channel, dict(beta=3.5, entries=1000, u=[0.6, 0.8]),
     "channel --beta 3.5 --entries 1000 --u 0.6,0.8"),
    (phasesim.coverage, dict(window=12, stride=4, gates="random:3:0.5"),
     "coverage --window 12 --stride 4 --gates random:3:0.5"),
    (phasesim.coverage, dict(arch="v4-hca"), "coverage --arch v4-hca"),
    (phasesim.niah, dict(window=8, stride=4, gates="last", beta=4.0, prompts=64, seed=1),
     "niah --window 8 --stride 4 --gates last --beta 4.0 --prompts 64 --seed 1"),
    (phasesim.niah, dict(window=12, stride=4, heads=3, gates="random:5", beta=5.5, context=8192,
                         groups=12, prompts=20, combine="vote:2", knockout=1, seed=7, threads=2),
     "niah --window 12 --stride 4 --heads 3 --gates random:5 --beta 5.5 --context 8192 "
     "--groups 12 --prompts 20 --combine vote:2 --knockout 1 --seed 7 --threads 2"),
    (phasesim.niah, dict(window=8, stride=8, gates="last", beta=4.0, groups=6, prompts=16,
                         context=4096),
     "niah --window 8 --stride 8 --gates last --beta 4.0 --groups 6 --prompts 16 "
     "--context 4096"),  # a warning: groups not a multiple of the stride
    (phasesim.niah, dict(window=8, stride=4, engine="analytic", beta=3.0, gates="uniform",
                         context=4096),
     "niah --window 8 --stride 4 --engine analytic --beta 3.0 --gates uniform --context 4096"),
    (phasesim.niah, dict(window=8, stride=4, beta=3.0, content_noise=0.5, context=4096,
                         prompts=16),
     "niah --window 8 --stride 4 --beta 3.0 --content-noise 0.5 --context 4096 --prompts 16"),
    (phasesim.niah, dict(window=4, stride=4, engine="full", dim=16, query_noise=0.5, rms_norm=True,
                         context=2048, prompts=8, seed=3),
     "niah --window 4 --stride 4 --engine full --dim 16 --query-noise 0.5 --rms-norm "
     "--context 2048 --prompts 8 --seed 3"),
    (phasesim.niah, dict(window=8, stride=4, offset=1, beta=5.0, context=8192, prompts=16),
     "niah --window 8 --stride 4 --offset 1 --beta 5.0 --context 8192 --prompts 16"),
    (phasesim.niah, dict(arch="nsa-compression", beta=5.0, context=8192, prompts=16),
     "niah --arch nsa-compression --beta 5.0 --context 8192 --prompts 16"),
    (phasesim.niah, dict(beta=5.0, context=8192, prompts=16, top_k=64, index_gates="uniform",
                         index_rho=0.5, sliding_window=128, sink=1.5, needle_tokens=2),
     "niah --beta 5.0 --context 8192 --prompts 16 --top-k 64 --index-gates uniform "
     "--index-rho 0.5 --sliding-window 128 --sink 1.5 --needle-tokens 2"),
    (phasesim.niah, dict(gates="channels:onehot:4=0.25|uniform=0.75", split_rho=0.5, dim=16,
                         engine="full", context=2048, prompts=8),
     "niah --gates channels:onehot:4=0.25|uniform=0.75 --split-rho 0.5 --dim 16 --engine full "
     "--context 2048 --prompts 8"),
    (phasesim.optimize, dict(beta=8.0, entries=4096, restarts=2, model="channels"),
     "optimize --beta 8.0 --entries 4096 --restarts 2 --model channels"),
    (phasesim.compare, dict(architectures=["v4-csa", "v4-hca"], beta=5.0, context=16384,
                            prompts=16, seed=2),
     "compare v4-csa v4-hca --beta 5.0 --context 16384 --prompts 16 --seed 2"),
    (phasesim.optimize, dict(window=8, stride=4, beta=6.0, entries=4096, restarts=2, seed=3,
                             weights=[1, 2, 1, 1]),
     "optimize --window 8 --stride 4 --beta 6.0 --entries 4096 --restarts 2 --seed 3 "
     "--weights 1,2,1,1"),
    (phasesim.phase_diagram, dict(window=6, stride=3, beta="4:6:1", entries=[1024, 4096],
                                  restarts=1, model="linear"),
     "phase-diagram --window 6 --stride 3 --beta 4:6:1 --entries 1024,4096 --restarts 1 "
     "--model linear"),
    (phasesim.dynamics, dict(steps=200, inits=2, record_every=50, lr=10.0, beta=5.0,
                             entries=4096),
     "dynamics --steps 200 --inits 2 --record-every 50 --lr 10 --beta 5.0 --entries 4096"),
    (phasesim.dynamics, dict(steps=100, reweight_at=50, weights=[0, 1, 0, 0], record_every=25,
                             content_noise=0.3, content_seed=[2, 3], content_samples=4),
     "dynamics --steps 100 --reweight-at 50 --weights 0,1,0,0 --record-every 25 "
     "--content-noise 0.3 --content-seed 2,3 --content-samples 4"),
    (phasesim.diversity, dict(stride=3, heads=[4, 8, 16], samples=200, seed=3, train_heads=[2],
                              train_runs=2, train_steps=20, entries=4096),
     "diversity --stride 3 --heads 4,8,16 --samples 200 --seed 3 --train-heads 2 "
     "--train-runs 2 --train-steps 20 --entries 4096"),
    (phasesim.diversity, dict(stride=1, heads=[4]), "diversity --stride 1 --heads 4"),  # NaN slope
    (phasesim.theorem_concentration, dict(entries=4096, restarts=2, model="linear", beta=3.0),
     "theorem concentration --entries 4096 --restarts 2 --model linear --beta 3.0"),
    (phasesim.theorem_lockin, dict(steps=200, inits=2, reweight_steps=50, entries=4096),
     "theorem lockin --steps 200 --inits 2 --reweight-steps 50 --entries 4096"),
    (phasesim.theorem_diversity, dict(heads=[64, 128], tolerance=0.1, success=0.8),
     "theorem diversity --heads 64,128 --tolerance 0.1 --success 0.8"),
    (phasesim.train, dict(steps=20, batch=4, heads=2, dim=8, context=512, prompts=16,
                          record_every=5, log_every=10, seed=4, init_lambda=2.0),
     "train --steps 20 --batch 4 --heads 2 --dim 8 --context 512 --prompts 16 "
     "--record-every 5 --log-every 10 --seed 4 --init-lambda 2.0"),
    (phasesim.train, dict(steps=10, batch=4, heads=1, dim=8, context=256, prompts=8,
                          per_channel=True, query_heads=2, query_projection=True,
                          split_rho=0.5),
     "train --steps 10 --batch 4 --heads 1 --dim 8 --context 256 --prompts 8 "
     "--per-channel --query-heads 2 --query-projection --split-rho 0.5"),
    (phasesim.train, dict(steps=10, batch=2, heads=2, dim=8, context=256, prompts=8,
                          batches="independent"),
     "train --steps 10 --batch 2 --heads 2 --dim 8 --context 256 --prompts 8 "
     "--batches independent"),
    (phasesim.frontier, dict(context=8192, beta=9.0, ratios=[4], overlaps=[1],
                             gate_families=["uniform", "last"], caches=[1, 2], top_k=[0],
                             sliding_windows=[0], presets=False),
     "frontier --context 8192 --beta 9.0 --ratios 4 --overlaps 1 --gate-families uniform last "
     "--caches 1,2 --top-k 0 --sliding-windows 0 --no-presets"),
]


@pytest.mark.parametrize("function, kwargs, arguments", CASES,
                         ids=[c[2].split(" --")[0] for c in CASES])
def test_result_equals_the_cli_document(function, kwargs, arguments):
    assert_same(function(**kwargs), cli_document(arguments.split()))


def test_numeric_vectors_and_matrices_are_numpy_arrays():
    r = phasesim.niah(window=8, stride=4, beta=4.0, prompts=16, context=4096)
    assert isinstance(r["summary"]["mean"], float)
    assert isinstance(r["groups"], list) and isinstance(r["groups"][0], dict)
    t = phasesim.train(steps=10, batch=2, heads=2, dim=8, context=256, prompts=8,
                       record_every=5)
    gates = t["gates"] if "gates" in t else None
    matrices = [v for v in _values(t) if isinstance(v, np.ndarray) and v.ndim == 2]
    assert matrices, "the trained gates are a heads x slots matrix"
    c = phasesim.coverage(window=8, stride=4, gates="last")
    assert c["gate_weights"].dtype == np.float64 and c["phases"][0]["slots"].dtype == np.int64
    del gates


def _values(value):
    if isinstance(value, dict):
        for v in value.values():
            yield from _values(v)
    elif isinstance(value, list):
        for v in value:
            yield from _values(v)
    else:
        yield value


def test_diagnose_from_a_file_a_dataframe_and_a_dict():
    pd = pytest.importorskip("pandas")
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "table.csv")
        rows = {"group": list(range(8)), "successes": [60, 12, 58, 11, 61, 9, 57, 13],
                "trials": [64] * 8}
        pd.DataFrame(rows).to_csv(path, index=False)
        arguments = ["diagnose", path, "--replicates", "199", "--seed", "5", "--stride", "4"]
        document = cli_document(arguments)
        kwargs = dict(replicates=199, seed=5, stride=4)
        assert_same(phasesim.diagnose(path, **kwargs), document)
        for table, name in ((pd.DataFrame(rows), "DataFrame"), (rows, "dict")):
            result = plain(phasesim.diagnose(table, **kwargs))
            assert result.pop("table") == name
            expected = dict(document)
            expected.pop("table")
            assert result == expected



# diagnose under the read path (issue 38): its refusals are the CLI's lines, and a fit by the
# two-stage success (W = S = 4, top 4 of 16 entries, an 8-token window) is the CLI's document.
DIAGNOSE_TABLE = "group,successes,trials\n0,60,64\n1,30,64\n2,40,64\n3,50,64\n"
DIAGNOSE_REFUSALS = [dict(top_k=0), dict(sliding_window=-1), dict(needle_tokens=2),
                     dict(window=2, stride=2, needle_tokens=3)]


def _cli_arguments(kwargs):
    return [word for key, value in kwargs.items()
            for word in ("--" + key.replace("_", "-"), str(value))]


@pytest.mark.parametrize("kwargs", DIAGNOSE_REFUSALS, ids=lambda k: str(k))
def test_diagnose_read_path_refusal_is_the_cli_line(kwargs):
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "table.csv")
        with open(path, "w") as f:
            f.write(DIAGNOSE_TABLE)
        run = subprocess.run([CLI, "diagnose", path, *_cli_arguments(kwargs)],
                             capture_output=True, text=True)
        assert run.returncode == 2 and run.stdout == ""
        with pytest.raises(ValueError) as error:
            phasesim.diagnose(path, **kwargs)
        assert str(error.value) + "\n" == run.stderr


def test_diagnose_read_path_fit_is_the_cli_document():
    kwargs = dict(window=4, stride=4, context=64, top_k=4, sliding_window=8, replicates=99, seed=3)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "table.csv")
        with open(path, "w") as f:
            f.write(DIAGNOSE_TABLE)
        document = cli_document(["diagnose", path, *_cli_arguments(kwargs)])
        result = phasesim.diagnose(path, **kwargs)
    assert document["top_k"] == 4 and document["sliding_window"] == 8
    assert_same(result, document)

# 2-token needles (issue 38): W = 1, S = 2, so each phase's needle sits in one entry and the
# one weight is fixed by the norm: a fit of beta alone, about a second; with 4 heads, beta and
# the heads' assignment (all on the one phase with a slot).
@pytest.mark.parametrize("heads, assumption", [(1, "2-token needles, one head"),
                                               (4, "2-token needles, one-hot heads")])
def test_diagnose_two_token_fit_is_the_cli_document(heads, assumption):
    kwargs = dict(window=1, stride=2, context=64, heads=heads, needle_tokens=2, replicates=99,
                  seed=3)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "table.csv")
        with open(path, "w") as f:
            f.write("group,successes,trials\n0,40,64\n1,30,64\n")
        document = cli_document(["diagnose", path, *_cli_arguments(kwargs)])
        result = phasesim.diagnose(path, **kwargs)
    assert document["needle_tokens"] == 2
    assert document["fits"][0]["assumption"] == assumption
    if heads > 1:
        assert [p["heads"] for p in document["fits"][0]["phases"]] == [0, heads]
    assert_same(result, document)


def test_to_frame():
    pytest.importorskip("pandas")
    r = phasesim.niah(window=8, stride=4, beta=4.0, prompts=16, context=4096, knockout=None)
    frame = phasesim.to_frame(r)
    assert len(frame) == 8 and list(frame["group"]) == list(range(8))
    assert (frame["window"] == 8).all()
    c = phasesim.compare(["v4-csa", "v4-hca"], context=16384, prompts=8)
    assert len(phasesim.to_frame(c)) == 2 * len(c["architectures"][0]["groups"])
    assert len(phasesim.to_frame(phasesim.coverage(window=8, stride=4))) == 4
    assert len(phasesim.to_frame(phasesim.coverage(arch="v4-csa"))) == 4  # one cache, 4 phases
    assert len(phasesim.to_frame(phasesim.channel())) == 1  # no row list: one row


# The refusals of tests/cli/hardening_cli_test.cpp that are the library's (not CLI11's
# parsing of text, which Python's types replace): the ValueError's line is the CLI's.
REFUSALS = [
    (phasesim.niah, dict(threads=100000), "niah --threads 100000"),
    (phasesim.coverage, dict(window=100000000, stride=4), "coverage --window 100000000 --stride 4"),
    (phasesim.niah, dict(window=1000000000), "niah --window 1000000000"),
    (phasesim.niah, dict(engine="full", dim=4096, context=100000000, prompts=100000, threads=2),
     "niah --engine full --dim 4096 --context 100000000 --prompts 100000 --threads 2"),
    (phasesim.train, dict(steps=1000000, batch=4096, context=8192, threads=2),
     "train --steps 1000000 --batch 4096 --context 8192 --threads 2"),
    (phasesim.compare, dict(architectures=["nsa"], threads=100000), "compare nsa --threads 100000"),
    (phasesim.optimize, dict(beta=8.0, restarts=100000, max_iterations=10000000),
     "optimize --beta 8 --restarts 100000 --max-iterations 10000000"),
    (phasesim.dynamics, dict(init="uniform"), "dynamics --init uniform"),
    (phasesim.theorem_lockin, dict(init="uniform"), "theorem lockin --init uniform"),
    (phasesim.theorem_lockin, dict(stride=1), "theorem lockin --stride 1"),
    (phasesim.theorem_diversity, dict(heads=[1024]), "theorem diversity --heads 1024"),
    (phasesim.theorem_diversity, dict(heads=[1024, 512]), "theorem diversity --heads 1024,512"),
    (phasesim.theorem_diversity, dict(stride=1), "theorem diversity --stride 1"),
    (phasesim.niah, dict(gates="random:1:2:3"), "niah --gates random:1:2:3"),
    (phasesim.coverage, dict(gates="last;uniform"), "coverage --gates last;uniform"),
    (phasesim.niah, dict(seed=-1), "niah --seed -1"),
    (phasesim.niah, dict(split_rho=1.5), "niah --split-rho 1.5"),
    (phasesim.niah, dict(seed=99999999999999999999999), "niah --seed 99999999999999999999999"),
    (phasesim.diversity, dict(heads=[4], train_heads=[0]), "diversity --heads 4 --train-heads 0"),
    (phasesim.phase_diagram, dict(beta="6:4:1"), "phase-diagram --beta 6:4:1"),
    # the read path's (issue 37)
    (phasesim.niah, dict(top_k=0), "niah --top-k 0"),
    (phasesim.niah, dict(index_rho=1.5), "niah --index-rho 1.5"),
    (phasesim.niah, dict(needle_tokens=300), "niah --needle-tokens 300"),
    (phasesim.niah, dict(sliding_window=200000), "niah --sliding-window 200000"),
    (phasesim.niah, dict(sink=float("nan")), "niah --sink nan"),
    (phasesim.niah, dict(engine="analytic", needle_tokens=3),
     "niah --engine analytic --needle-tokens 3"),
    (phasesim.optimize, dict(top_k=0), "optimize --top-k 0"),
    # work bounded up front (issue 26), by the library for both
    (phasesim.optimize, dict(restarts=100000000), "optimize --restarts 100000000"),
    (phasesim.phase_diagram, dict(restarts=10000000), "phase-diagram --restarts 10000000"),
    (phasesim.theorem_concentration, dict(restarts=100000000),
     "theorem concentration --restarts 100000000"),
    (phasesim.dynamics, dict(inits=100000000), "dynamics --inits 100000000"),
    (phasesim.theorem_lockin, dict(inits=100000000), "theorem lockin --inits 100000000"),
    (phasesim.diversity, dict(heads=[4], train_heads=[8], train_runs=100000000),
     "diversity --heads 4 --train-heads 8 --train-runs 100000000"),
    (phasesim.frontier, dict(caches=[65]), "frontier --caches 65"),
    (phasesim.sweep, dict(file="/nonexistent.toml", out="/tmp/phasesim-never"),
     "sweep /nonexistent.toml --out /tmp/phasesim-never"),
]


@pytest.mark.parametrize("function, kwargs, arguments", REFUSALS,
                         ids=[c[2] for c in REFUSALS])
def test_refusal_is_the_cli_line(function, kwargs, arguments):
    run = subprocess.run([CLI, *arguments.split()], capture_output=True, text=True)
    assert run.returncode == 2 and run.stdout == ""
    with pytest.raises(ValueError) as error:
        function(**kwargs)
    assert str(error.value) + "\n" == run.stderr


def test_two_threads_at_once():
    """Both finish, each with the result it has alone (the GIL is released during runs)."""
    arguments = [dict(window=8, stride=4, beta=4.0, prompts=256, context=32768, seed=s)
                 for s in (1, 2)]
    alone = [plain(phasesim.niah(**a)) for a in arguments]
    results = [None, None]

    def run(i):
        results[i] = plain(phasesim.niah(**arguments[i]))

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == alone
    assert alone[0]["summary"] != alone[1]["summary"]


def test_ctrl_c_raises_keyboard_interrupt_promptly():
    """SIGINT during a run of minutes: KeyboardInterrupt within a second or so."""
    script = textwrap.dedent("""
        import os, signal, threading, time, phasesim
        threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
        start = time.monotonic()
        try:
            phasesim.niah(engine="full", dim=64, context=131072, prompts=100000, threads=2)
            print("finished")
        except KeyboardInterrupt:
            print("interrupted after %.2f s" % (time.monotonic() - start))
    """)
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=120, env=dict(os.environ))
    assert run.stdout.startswith("interrupted after"), run.stdout + run.stderr
    assert float(run.stdout.split()[2]) < 5.0


def test_help_shows_docstrings():
    assert "needle-in-a-haystack" in phasesim.niah.__doc__
    assert "window" in phasesim.niah.__doc__
    assert phasesim.to_frame.__doc__ and phasesim.diagnose.__doc__


def test_the_issue_example_prints_the_cli_number():
    r = phasesim.niah(window=8, stride=4, gates="last", beta=4.0, prompts=64, seed=1)
    d = cli_document("niah --window 8 --stride 4 --gates last --beta 4.0 --prompts 64 "
                     "--seed 1".split())
    assert r["summary"]["mean"] == d["summary"]["mean"]
    assert not math.isnan(r["summary"]["mean"])


def test_progress_on_stderr():
    """progress=True: the trials done so far, on sys.stderr, ending with all of them."""
    script = ("import phasesim; phasesim.niah(engine='full', dim=32, prompts=64, context=65536, "
              "threads=1, progress=True)")
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=120, env=dict(os.environ))
    assert run.returncode == 0, run.stderr
    lines = run.stderr.replace("\r", "\n").split()
    assert run.stderr.rstrip().endswith("niah: 512 done"), run.stderr
    assert len(lines) >= 3


SWEEP = """command = "niah"
seed = 7
[options]
beta = [4.0, 5.0]
prompts = [16]
engine = ["analytic", "fast"]
"""


def test_sweep_writes_what_the_cli_writes(tmp_path):
    """The same sweep file: the same sweep.json, cells and results.csv, byte for byte, and the
    result is sweep.json's document with the run's counts; resume=True runs nothing more."""
    (tmp_path / "grid.toml").write_text(SWEEP)
    grid = str(tmp_path / "grid.toml")
    run = subprocess.run([CLI, "sweep", grid, "--out", str(tmp_path / "cli")], capture_output=True,
                         text=True)
    assert run.returncode == 0, run.stderr
    result = phasesim.sweep(grid, out=str(tmp_path / "py"), threads=2)
    names = sorted(p.relative_to(tmp_path / "cli") for p in (tmp_path / "cli").rglob("*.*"))
    assert len(names) == 6  # sweep.json, results.csv, 4 cells
    for name in names:
        assert (tmp_path / "py" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes()
    with open(tmp_path / "cli" / "sweep.json") as f:
        manifest = json.load(f)
    assert {k: plain(result[k]) for k in manifest} == manifest
    assert (result["cells_run"], result["cells_resumed"]) == (4, 0)
    assert phasesim.to_frame(result).shape[0] == 4 * 8  # a row per cell and group
    again = phasesim.sweep(grid, out=str(tmp_path / "py"), resume=True)
    assert (again["cells_run"], again["cells_resumed"]) == (0, 4)

