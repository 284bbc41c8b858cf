"""phasesim in Python: the library core of the phasesim simulator, one function per command.

Every function is made from its command's option table in the library (the table the CLI
reads too): its keyword arguments are the CLI command's options (dashes as underscores, the
same defaults, the same validation), its signature and docstring list them, and it returns
the command's JSON document as a dict, with numeric vectors and matrices as NumPy arrays.
Bad input raises ValueError with the CLI's one line; Ctrl-C raises KeyboardInterrupt. Runs
release the GIL.

    >>> import phasesim
    >>> r = phasesim.niah(window=8, stride=4, gates="last", beta=4.0, prompts=64, seed=1)
    >>> r["summary"]["mean"]
    >>> phasesim.to_frame(r)          # one row per group, as a pandas DataFrame
"""
import inspect as _inspect
import io
import json
import os
import textwrap
from typing import Any, Mapping, Optional, Sequence, Union

from ._phasesim import __version__, _commands, _run, _tidy

Document = dict[str, Any]

# The Python type of each kind of option (phasesim/commands/option.hpp).
_TYPES = {"flag": bool, "integer": int, "seed": int, "number": float, "text": str,
          "integers": Sequence[int], "seeds": Sequence[int], "numbers": Sequence[float],
          "texts": Sequence[str]}
_PATH = Union[str, os.PathLike]

# Arguments that take more than their option's text: diagnose's table may be a DataFrame or a
# dict of columns, which the library reads as CSV text.
_TABLE = Union[str, os.PathLike, Mapping[str, Sequence[float]], Any]


def _columns(table):
    """The (name, values) columns of a dict of sequences or a NumPy structured array; None for
    anything else."""
    names = getattr(getattr(table, "dtype", None), "names", None)
    if names:  # a structured array: one field per column
        return "structured array", [(n, table[n].tolist()) for n in names]
    if not isinstance(table, Mapping):
        return None
    columns = []
    for name, values in table.items():
        if isinstance(values, (str, bytes)) or not hasattr(values, "__len__"):
            raise ValueError(f"phasesim diagnose: invalid table column {name!r} "
                             f"({type(values).__name__}: each column must be a sequence of numbers)")
        columns.append((str(name), list(values)))
    return "dict", columns


def _table_input(table):
    """A diagnose table: a path as it is; a DataFrame, a dict of columns or a NumPy structured
    array as its CSV text."""
    if isinstance(table, (str, os.PathLike)):
        return table
    if hasattr(table, "to_csv"):
        return {"name": "DataFrame", "text": table.to_csv(index=False)}
    found = _columns(table)
    if found is None:
        raise ValueError(f"phasesim diagnose: invalid table of type {type(table).__name__} "
                         "(must be a path, a pandas DataFrame, a dict of columns or a NumPy "
                         "structured array)")
    name, columns = found
    if len({len(v) for _, v in columns}) > 1:
        raise ValueError("phasesim diagnose: invalid table (its columns have different lengths)")
    out = io.StringIO()
    out.write(",".join(c for c, _ in columns) + "\n")
    for row in zip(*(v for _, v in columns)):  # repr keeps every bit of a float
        out.write(",".join(repr(x.item() if hasattr(x, "item") else x) for x in row) + "\n")
    return {"name": name, "text": out.getvalue()}


_SPECIAL = {("diagnose", "table"): (_TABLE, _table_input)}


def _annotation(command, option):
    special = _SPECIAL.get((command, option["name"]))
    if special:
        return special[0]
    kind = _PATH if option["input_file"] and option["kind"] == "text" else _TYPES[option["kind"]]
    return Optional[kind] if option["default"] is None and not option["required"] else kind


def _parameter(command, option):
    kind = (_inspect.Parameter.POSITIONAL_OR_KEYWORD if option["positional"]
            else _inspect.Parameter.KEYWORD_ONLY)
    default = _inspect.Parameter.empty if option["required"] else option["default"]
    return _inspect.Parameter(option["keyword"], kind, default=default,
                             annotation=_annotation(command, option))


def _docstring(command):
    lines = [command["summary"] + f" (`phasesim {command['name']}`).", "",
             "Arguments, as the CLI's options (dashes as underscores):"]
    for option in command["options"]:
        default = "required" if option["required"] else (
            "not given" if option["default"] is None else f"default {option['default']!r}")
        text = f"{option['keyword']}: {option['help']} ({default})"
        lines += textwrap.wrap(text, 92, initial_indent="  ", subsequent_indent="      ")
    lines += [""] + textwrap.wrap(
        f"Returns the `{command['name']}` JSON document as a dict. Bad input raises ValueError "
        "with the CLI's line; Ctrl-C raises KeyboardInterrupt.", 92)
    return "\n".join(lines)


def _function(command):
    name = command["name"]
    signature = _inspect.Signature([_parameter(name, o) for o in command["options"]],
                                  return_annotation=Document)

    def run(*args, **kwargs):
        try:
            arguments = signature.bind(*args, **kwargs).arguments
        except TypeError as e:  # the call itself: say which argument, and what is allowed
            allowed = ", ".join(p.name for p in signature.parameters.values())
            positional = [p.name for p in signature.parameters.values()
                          if p.kind == _inspect.Parameter.POSITIONAL_OR_KEYWORD]
            raise TypeError(f"phasesim {name}: {e} (its arguments: {allowed}; "
                            f"by position: {', '.join(positional) or 'none'})") from None
        for key, value in arguments.items():
            special = _SPECIAL.get((name, key))
            if special and value is not None:
                arguments[key] = special[1](value)
        return _run(name, arguments)

    run.__name__ = run.__qualname__ = command["function"]
    run.__module__ = __name__
    run.__doc__ = _docstring(command)
    run.__signature__ = signature
    return run


_FUNCTIONS = [_function(c) for c in _commands()]
globals().update({f.__name__: f for f in _FUNCTIONS})


def _plain(value):
    """NumPy arrays and scalars as JSON reads them."""
    return value.tolist()


def to_frame(result: Document) -> Any:
    """The tidy table of a result as a pandas DataFrame: the library's, which a sweep writes as
    results.csv and the page exports as CSV (phasesim/core/tidy.hpp). One row per item of its
    row list ("groups", "phases" or "rows"; for compare per architecture and group, for
    coverage of an architecture per cache and phase; one row when it has none), every scalar of
    the document a column, one-level objects flattened as summary_mean, lists of scalars as
    their JSON text. For a sweep's result, its results.csv."""
    import pandas as pd

    if not isinstance(result, Mapping):
        raise TypeError(f"to_frame takes a phasesim result (the dict a command returns), "
                        f"not {type(result).__name__}")
    if result.get("command") == "sweep":
        return pd.read_csv(result["results"], float_precision="round_trip")
    table = _tidy(json.dumps(result, default=_plain))
    return pd.DataFrame(table["rows"], columns=table["columns"])


__all__ = sorted([f.__name__ for f in _FUNCTIONS] + ["to_frame", "__version__"])
