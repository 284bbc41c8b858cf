#!/usr/bin/env python3
"""Compares an experiment's result data with its expected output.

Every .json and .csv under EXPECTED must exist under ACTUAL with the same structure;
numbers agree to a relative 1e-9 (absolute 1e-12), everything else exactly. The only
key ignored is `phasesim_version`. Exit status 1 lists the differences."""
import csv
import json
import math
import os
import sys

IGNORED = {"phasesim_version"}


def same_number(a, b):
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def compare(a, b, where, problems):
    if isinstance(a, bool) or isinstance(b, bool) or a is None or b is None:
        if a != b:
            problems.append(f"{where}: expected {a!r}, got {b!r}")
    elif isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if not same_number(a, b):
            problems.append(f"{where}: expected {a!r}, got {b!r}")
    elif isinstance(a, dict) and isinstance(b, dict):
        for key in sorted((set(a) | set(b)) - IGNORED):
            if key not in b or key not in a:
                problems.append(f"{where}.{key}: {'missing' if key not in b else 'unexpected'}")
            else:
                compare(a[key], b[key], f"{where}.{key}", problems)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            problems.append(f"{where}: expected {len(a)} items, got {len(b)}")
        for i, (x, y) in enumerate(zip(a, b)):
            compare(x, y, f"{where}[{i}]", problems)
    elif a != b:
        problems.append(f"{where}: expected {a!r}, got {b!r}")


def as_value(text):
    try:
        return float(text)
    except ValueError:
        return text


def load(path):
    with open(path, newline="") as f:
        if path.endswith(".json"):
            return json.load(f)
        return [[as_value(cell) for cell in row] for row in csv.reader(f)]


def main(expected_dir, actual_dir):
    problems = []
    files = 0
    for root, _, names in os.walk(expected_dir):
        for name in sorted(names):
            if not name.endswith((".json", ".csv")):
                continue
            files += 1
            rel = os.path.relpath(os.path.join(root, name), expected_dir)
            actual = os.path.join(actual_dir, rel)
            if not os.path.exists(actual):
                problems.append(f"{rel}: not produced")
                continue
            compare(load(os.path.join(root, name)), load(actual), rel, problems)
    if files == 0:
        problems.append(f"no expected output in {expected_dir} (run with --update once)")
    for p in problems[:40]:
        print("  DIFFERS " + p)
    if problems:
        print(f"== {len(problems)} difference(s) from the expected output")
        return 1
    print(f"== matches the expected output ({files} files)")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: compare.py EXPECTED_DIR ACTUAL_DIR")
    sys.exit(main(sys.argv[1], sys.argv[2]))
