"""phasesim in Python: the library core of the phasesim simulator, one function per command.

Every function takes the CLI command's options as keyword arguments (dashes as underscores,
same defaults, same validation) and returns the command's JSON document as a dict, with
numeric vectors and matrices as NumPy arrays. Bad input raises ValueError with the CLI's
one line; Ctrl-C raises KeyboardInterrupt. Runs release the GIL.

    >>> import phasesim
    >>> r = phasesim.niah(window=8, stride=4, gates="last", beta=4.0, prompts=64, seed=1)
    >>> r["summary"]["mean"]
    >>> phasesim.to_frame(r)          # one row per group, as a pandas DataFrame
"""
import io
import os

from ._phasesim import (__version__, channel, compare, coverage, diversity, dynamics, niah,
                        optimize, phase_diagram, sweep, theorem_concentration,
                        theorem_diversity, theorem_lockin, train)
from ._phasesim import _diagnose

__all__ = ["channel", "compare", "coverage", "diagnose", "diversity", "dynamics", "niah",
           "optimize", "phase_diagram", "sweep", "theorem_concentration", "theorem_diversity",
           "theorem_lockin", "to_frame", "train", "__version__"]

# The row lists of the documents, as the sweep's results.csv reads them (sim/sweep).
_ROW_KEYS = ("groups", "phases", "rows")


def diagnose(table, *, window=None, stride=None, context=None, heads=None, replicates=9999,
             seed=1, threads=0):
    """From a per-group NIAH table back to the model (`phasesim diagnose`, docs/DIAGNOSE.md).

    table: a file (CSV with columns group,successes,trials or group,accuracy,trials, or a
    `phasesim niah --json` result), a pandas DataFrame with those columns, or a dict of
    arrays with those keys. window, stride, context, heads: the architecture when known.
    replicates and seed: the exact tests' Monte Carlo draws. Returns the `diagnose`
    document as a dict; its "table" is the file's name, or "DataFrame" / "dict".
    """
    if isinstance(table, (str, os.PathLike)):
        return _diagnose(os.fspath(table), None, window=window, stride=stride, context=context,
                         heads=heads, replicates=replicates, seed=seed, threads=threads)
    name = "DataFrame" if hasattr(table, "to_csv") else "dict"
    return _diagnose(name, _csv_text(table), window=window, stride=stride, context=context,
                     heads=heads, replicates=replicates, seed=seed, threads=threads)


def _csv_text(table):
    """The CSV text of a DataFrame or a dict of equally long columns; the library parses and
    validates it as it does a file (repr keeps every bit of a float)."""
    if hasattr(table, "to_csv"):
        return table.to_csv(index=False)
    columns = list(table)
    values = [list(table[c]) for c in columns]
    if len({len(v) for v in values}) > 1:
        raise ValueError("phasesim diagnose: invalid table (its columns have different lengths)")
    out = io.StringIO()
    out.write(",".join(columns) + "\n")
    for row in zip(*values):
        out.write(",".join(repr(x.item() if hasattr(x, "item") else x) for x in row) + "\n")
    return out.getvalue()


def to_frame(result):
    """The tidy pandas table of a result: one row per item of its row list ("groups",
    "phases" or "rows"; for coverage of an architecture, per cache and phase; for compare, per
    architecture and group), and the document's scalar parameters as columns."""
    import pandas as pd

    if result.get("command") == "sweep":  # its table is results.csv
        return pd.read_csv(result["results"])
    scalars = {k: v for k, v in result.items() if isinstance(v, (int, float, str, bool))}
    if "architectures" in result:  # compare: every architecture's groups, labelled
        frames = [_rows_frame(a["groups"], {"label": a["label"]}) for a in result["architectures"]]
        return _with(pd.concat(frames, ignore_index=True), scalars)
    if "architecture" in result and "heads" in result["architecture"] and \
            "phases" in result["architecture"]["heads"][0]:  # coverage --arch
        frames = [_rows_frame(h["phases"], {k: h[k] for k in ("layer", "head", "window",
                                                               "stride", "offset")})
                  for h in result["architecture"]["heads"] if "phases" in h]
        return _with(pd.concat(frames, ignore_index=True), scalars)
    for key in _ROW_KEYS:
        if key in result and isinstance(result[key], list):
            return _with(_rows_frame(result[key], {}), scalars)
    raise ValueError("to_frame: this result has no row list (groups, phases or rows)")


def _rows_frame(rows, labels):
    import pandas as pd

    frame = pd.DataFrame([{**labels, **_flat(r)} for r in rows])
    return frame


def _flat(row):
    """A row's scalars, and one-level objects flattened as summary_mean."""
    out = {}
    for k, v in row.items():
        if isinstance(v, dict):
            for k2, v2 in v.items():
                if not isinstance(v2, (dict, list)):
                    out[f"{k}_{k2}"] = v2
        else:
            out[k] = v
    return out


def _with(frame, scalars):
    for k, v in scalars.items():
        if k not in frame.columns:
            frame[k] = v
    return frame
