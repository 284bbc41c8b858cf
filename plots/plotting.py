"""Shared helpers for the phasesim plot scripts: headless rendering, loading results,
and writing each figure as PNG and SVG."""
import needs  # noqa: F401  (first: a Python with NumPy and matplotlib)
import argparse
import csv
import json
import os
import sys

import matplotlib
import numpy as np

matplotlib.use("Agg")  # headless: no display needed, same output everywhere
import matplotlib.pyplot as plt  # noqa: E402


def parser(description):
    """An argument parser with the options every script shares."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("input", help="result file written by phasesim (--json PATH, or a sweep's results.csv)")
    p.add_argument("--out", required=True, help="output path without extension; writes OUT.png and OUT.svg")
    p.add_argument("--title", help="figure title (default: derived from the data)")
    return p


def fail(message):
    """A clear one-line error and exit status 2, as the CLI does."""
    print(f"{os.path.basename(sys.argv[0])}: {message}", file=sys.stderr)
    sys.exit(2)


def load_json(path, command=None):
    """A phasesim JSON document; checks the command that wrote it when given."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        fail(f"cannot read {path} ({e})")
    if command and doc.get("command") != command:
        fail(f"{path} was written by '{doc.get('command')}', expected a '{command}' result")
    return doc


def load_csv(path):
    try:
        with open(path, newline="") as f:
            return list(csv.DictReader(f))
    except OSError as e:
        fail(f"cannot read {path} ({e})")


def as_number(text):
    """The number a CSV or command-line field holds, else the text: an int when written as
    one, so that a seed keeps every digit and prints as 5730906519684867488, not 5.73091e+18
    ("6" and "6.0" still compare equal)."""
    for kind in (int, float):
        try:
            return kind(text)
        except (TypeError, ValueError):
            pass
    return text


def same_value(a, b):
    """True when two fields are equal as numbers (6 == 6.0) or, failing that, as text."""
    x, y = as_number(a), as_number(b)
    numbers = not isinstance(x, str) and not isinstance(y, str)
    return x == y if numbers else str(a) == str(b)


def shown(value):
    """A value in a label: a float to 6 digits (4.5, not 4.500000000000001), an integer
    (a seed) with every digit."""
    return f"{value:.6g}" if isinstance(value, float) else str(value)


def unique_labels(labels, docs):
    """Legend labels with every repeated one told apart by the parameters in which its
    documents differ ("W8/S4 fast, beta=6"), or by their position when none differ."""
    result = list(labels)
    for label in set(labels):
        same = [i for i, text in enumerate(labels) if text == label]
        if len(same) < 2:
            continue
        keys = [k for k, v in docs[same[0]].items()
                if not isinstance(v, (list, dict)) and k not in ("cell", "phasesim_version")
                and len({json.dumps(docs[i].get(k)) for i in same}) > 1]
        for n, i in enumerate(same):
            detail = ", ".join(f"{k}={shown(docs[i].get(k))}" for k in keys) or f"#{n + 1}"
            result[i] = f"{label}, {detail}"
    return result


def niah_docs_from_csv(path):
    """The niah results in a sweep's results.csv, one document per cell with the keys the
    plot scripts read (parameters, groups, summary)."""
    rows = load_csv(path)
    if not rows or "group" not in rows[0] or "accuracy" not in rows[0]:
        fail(f"{path} holds no niah results (it needs the columns group and accuracy: a "
             f"results.csv of a sweep of 'niah')")
    docs = {}
    for r in rows:
        doc = docs.setdefault(r["cell"], {k: as_number(v) for k, v in r.items()
                                          if not k.startswith("summary_")})
        doc.setdefault("summary", {k[len("summary_"):]: as_number(v) for k, v in r.items()
                                   if k.startswith("summary_")})
        doc.setdefault("groups", []).append({k: as_number(r[k]) for k in
                                             ("group", "accuracy", "ci_low", "ci_high")})
    for doc in docs.values():
        for key in ("window", "stride", "group"):
            if isinstance(doc.get(key), float):
                doc[key] = int(doc[key])
        for g in doc["groups"]:
            g["group"] = int(g["group"])
    return list(docs.values())


def percent_with_errors(rows):
    """Accuracies of result rows in percent, and their 95% intervals as matplotlib's yerr
    ([below, above]). Clipped at 0: a Wilson bound of an accuracy of 1 can round to just
    below it."""
    acc = np.array([r["accuracy"] for r in rows]) * 100
    low = np.clip(acc - np.array([r["ci_low"] for r in rows]) * 100, 0, None)
    high = np.clip(np.array([r["ci_high"] for r in rows]) * 100 - acc, 0, None)
    return acc, [low, high]


def save(fig, out):
    """Writes OUT.png and OUT.svg (creating the folder) and closes the figure."""
    folder = os.path.dirname(out)
    if folder:
        os.makedirs(folder, exist_ok=True)
    for ext in ("png", "svg"):
        fig.savefig(f"{out}.{ext}", dpi=150, bbox_inches="tight")
    plt.close(fig)
    print(f"wrote {out}.png and {out}.svg")
