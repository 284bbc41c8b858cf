"""Shared helpers for the phasesim plot scripts: headless rendering, loading results,
and writing each figure as PNG and SVG."""
import argparse
import csv
import json
import os
import sys

import matplotlib

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


def save(fig, out):
    """Writes OUT.png and OUT.svg (creating the folder) and closes the figure."""
    folder = os.path.dirname(out)
    if folder:
        os.makedirs(folder, exist_ok=True)
    for ext in ("png", "svg"):
        fig.savefig(f"{out}.{ext}", dpi=150, bbox_inches="tight")
    plt.close(fig)
    print(f"wrote {out}.png and {out}.svg")
