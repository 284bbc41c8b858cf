"""Issue 40 in Python: bad arguments raise with the CLI's line (ValueError for values, TypeError
naming the argument for the call itself), tables of every accepted kind, paths refused as the
CLI refuses them, and Ctrl-C within a second in every family of long calls.

Run by ctest (python_module) with PYTHONPATH=build/python."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import phasesim

TABLE = {"group": [0, 1, 2, 3], "successes": [30, 31, 29, 70], "trials": [100, 100, 100, 100]}


@pytest.mark.parametrize("call, line", [
    (lambda: phasesim.sweep("grid.toml", out=""),
     "phasesim sweep: invalid --out '' (an empty value: give one)"),
    (lambda: phasesim.niah(arch=""),
     "phasesim niah: invalid --arch '' (an empty value: give one, or leave --arch out)"),
    (lambda: phasesim.niah(prompts="010"), "phasesim niah: invalid --prompts '010' (must be an integer)"),
    (lambda: phasesim.niah(arch="x" * 300),
     "phasesim niah: cannot read --arch '" + "x" * 300 + "' (File name too long)"),
    (lambda: phasesim.diagnose(5),
     "phasesim diagnose: invalid table of type int (must be a path, a pandas DataFrame, a dict of "
     "columns or a NumPy structured array)"),
    (lambda: phasesim.diagnose([1, 2, 3]),
     "phasesim diagnose: invalid table of type list (must be a path, a pandas DataFrame, a dict "
     "of columns or a NumPy structured array)"),
    (lambda: phasesim.diagnose({"group": 5}),
     "phasesim diagnose: invalid table column 'group' (int: each column must be a sequence of "
     "numbers)"),
])
def test_bad_values_raise_value_error_with_the_cli_line(call, line):
    with pytest.raises(ValueError) as e:
        call()
    assert str(e.value) == line


def test_paths_too_long_are_refused_as_the_cli_refuses_them(tmp_path):
    grid = tmp_path / "grid.toml"
    grid.write_text('command = "channel"\n')
    out = tmp_path / ("x" * 300)
    with pytest.raises(ValueError) as e:
        phasesim.sweep(str(grid), out=str(out))
    assert str(e.value) == ("phasesim sweep: invalid --out " + str(out) +
                            " (cannot create it: a name of 300 bytes, the limit is 255)")


def test_call_errors_name_the_function_and_its_arguments():
    with pytest.raises(TypeError) as e:
        phasesim.channel(bogus=1)
    assert str(e.value) == ("phasesim channel: got an unexpected keyword argument 'bogus' (its "
                            "arguments: beta, entries, u; by position: none)")
    with pytest.raises(TypeError) as e:
        phasesim.diagnose()
    assert str(e.value).startswith("phasesim diagnose: missing a required argument: 'table' (")
    with pytest.raises(TypeError) as e:
        phasesim.to_frame(5)
    assert str(e.value) == "to_frame takes a phasesim result (the dict a command returns), not int"


def test_a_structured_array_is_a_table_like_a_dict():
    array = np.array(list(zip(*TABLE.values())),
                     dtype=[("group", "i8"), ("successes", "i8"), ("trials", "i8")])
    by_array = phasesim.diagnose(array, replicates=99)
    by_dict = phasesim.diagnose(TABLE, replicates=99)
    assert by_array["table"] == "structured array"
    by_array.pop("table"), by_dict.pop("table")
    assert repr(by_array) == repr(by_dict)


# One long call of each family: the theory's dynamics (steps inside one run), the exact T3
# rows, the engines' trials, the optimizer's ascents, training, diagnose's null tables, and a
# sweep's cells (whose own loops must stop too).
LONG = {
    "dynamics": "phasesim.dynamics(steps=1000000, inits=1)",
    "theorem_lockin": "phasesim.theorem_lockin(steps=1000000, inits=1)",
    "diversity": "phasesim.diversity(heads=[10000000], stride=64)",
    "niah": "phasesim.niah(engine='full', dim=64, prompts=100000, threads=2)",
    "theorem_concentration": "phasesim.theorem_concentration(restarts=100000)",
    "train": "phasesim.train(steps=1000000)",
    "diagnose": "phasesim.diagnose(TABLE, replicates=1000000)",
    "sweep": "phasesim.sweep(GRID, out=OUT)",
}


def test_ctrl_c_stops_every_family_within_a_second(tmp_path):
    grid = tmp_path / "grid.toml"
    grid.write_text('command = "dynamics"\n[options]\nsteps = 1000000\ninits = 1\n'
                    'beta = [4.5, 5.0]\n')
    script = textwrap.dedent(f"""
        import os, signal, threading, time, phasesim
        TABLE = {TABLE!r}
        GRID, OUT = {str(grid)!r}, {str(tmp_path / "out")!r}
        # Functions, not eval() of the calls: a KeyboardInterrupt out of eval() makes Python
        # exit by SIGINT at the end even when it was caught.
        calls = {{name: eval("lambda: " + call) for name, call in {LONG!r}.items()}}
        for name, call in calls.items():
            timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
            start = time.monotonic()
            timer.start()
            try:
                call()
                print(name, "finished")
            except KeyboardInterrupt:  # seconds from the signal to the exception
                print(name, "%.2f" % (time.monotonic() - start - 0.5), flush=True)
            timer.join()
    """)
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=300, env=dict(os.environ))
    assert run.returncode == 0, run.stderr
    seconds = dict(line.split() for line in run.stdout.splitlines())
    assert set(seconds) == set(LONG), run.stdout
    for name, after in seconds.items():
        assert after != "finished", name
        assert float(after) < 1.0, (name, after)
