"""The Python door against the CLI's, command by command (issue 42): the functions are made
from the commands' option tables, so their keywords, defaults and kinds are the CLI's options;
their signatures are real (Jupyter completes them); to_frame is the sweep's results.csv.

Run by ctest (python_module) with PHASESIM_CLI and PHASESIM_REFERENCE (build/phasesim-reference,
which lists the CLI's options as it declares them)."""
import inspect
import json
import math
import os
import subprocess

import pytest

import phasesim

CLI = os.environ.get("PHASESIM_CLI", "build/phasesim")
REFERENCE = os.environ.get("PHASESIM_REFERENCE", "build/phasesim-reference")
CLI_ONLY = {"--json"}  # where the CLI writes the document Python returns


def cli_commands():
    run = subprocess.run([REFERENCE, "json"], capture_output=True, text=True, check=True)
    return [c for c in json.loads(run.stdout) if c["python"]]


def default_text(value):
    """A Python default as the CLI's --help writes it (C++'s shortest round trip)."""
    if isinstance(value, list):
        return "[" + ",".join(default_text(v) for v in value) + "]"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e16:
        return str(int(value))
    return str(value)


@pytest.mark.parametrize("command", cli_commands(), ids=lambda c: c["command"])
def test_keywords_and_defaults_are_the_cli_options(command):
    function = getattr(phasesim, command["python"])
    parameters = inspect.signature(function).parameters
    options = [o for o in command["options"] if o["name"] not in CLI_ONLY]
    assert list(parameters) == [o["name"].lstrip("-").replace("-", "_") for o in options]
    for option, parameter in zip(options, parameters.values()):
        default = parameter.default
        if option["required"]:
            assert default is inspect.Parameter.empty, option
        elif option["flag"]:
            assert default is bool(option["negation"]), option  # --no-X: default true
        elif option["default"] == "":
            assert default is None, option
        else:
            assert default_text(default) == option["default"], option
        assert (parameter.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD) == option["positional"]


def test_every_function_has_a_real_signature():
    for name in phasesim.__all__:
        if name == "__version__":
            continue
        kinds = {p.kind for p in inspect.signature(getattr(phasesim, name)).parameters.values()}
        assert inspect.Parameter.VAR_KEYWORD not in kinds, name
    niah = inspect.signature(phasesim.niah).parameters
    assert niah["window"].default == 8 and niah["beta"].default is None
    assert niah["window"].annotation is int


def test_unknown_keyword_is_a_type_error():
    with pytest.raises(TypeError):
        phasesim.niah(windw=8)


def test_numpy_values_are_read_as_python_ones():
    np = pytest.importorskip("numpy")
    a = phasesim.channel(beta=np.float64(3.5), entries=np.int64(1000), u=np.array([0.6, 0.8]))
    b = phasesim.channel(beta=3.5, entries=1000, u=[0.6, 0.8])
    assert a["p_success"] == b["p_success"]
    with pytest.raises(ValueError, match=r"invalid --prompts '2\.5' \(must be an integer\)"):
        phasesim.niah(prompts=2.5)


def cells(frame):
    """Every value of a table as one kind: None for a missing one, floats for numbers."""
    def one(v):
        if v is None or (isinstance(v, float) and math.isnan(v)):
            return None
        if isinstance(v, bool) or type(v).__name__ == "bool_":
            return bool(v)
        if isinstance(v, (int, float)) or hasattr(v, "dtype"):
            return float(v)
        return str(v)
    return [[one(v) for v in row] for row in frame.itertuples(index=False)]


def test_to_frame_is_the_sweeps_results_csv(tmp_path):
    """One tidy flattening: a cell's document through to_frame gives the cell's rows of
    results.csv, column for column."""
    pd = pytest.importorskip("pandas")
    (tmp_path / "grid.toml").write_text(
        'command = "niah"\n[options]\nengine = "analytic"\ncontext = [4096, 8192]\nbeta = 5\n')
    out = tmp_path / "out"
    run = subprocess.run([CLI, "sweep", str(tmp_path / "grid.toml"), "--out", str(out)],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    results = pd.read_csv(out / "results.csv", float_precision="round_trip")
    for cell_file in sorted((out / "cells").glob("*.json")):
        with open(cell_file) as f:
            document = json.load(f)
        expected = results[results["cell"] == cell_file.stem].drop(columns="cell")
        frame = phasesim.to_frame(document)
        assert list(frame.columns) == list(expected.columns)
        assert cells(frame) == cells(expected)
