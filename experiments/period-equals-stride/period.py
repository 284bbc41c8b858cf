#!/usr/bin/env python3
"""Estimates the period of each per-group accuracy profile: the smallest divisor P of
the group count G such that groups r and r + P agree within 5 combined standard errors
for every r (Monte Carlo), i.e. the profile is P-periodic up to noise. A flat profile
has period 1."""
import csv
import json
import math
import sys
from collections import defaultdict


def period(accuracy, error):
    groups = len(accuracy)
    for p in range(1, groups + 1):
        if groups % p:
            continue
        if all(abs(accuracy[r] - accuracy[(r + p) % groups])
               <= 5 * math.hypot(error[r], error[(r + p) % groups]) + 1e-12 for r in range(groups)):
            return p
    return groups


def profiles(csv_path, full_attention_json):
    cells = defaultdict(list)
    with open(csv_path, newline="") as f:
        for row in csv.DictReader(f):
            cells[int(row["stride"])].append(row)
    for stride, rows in sorted(cells.items()):
        rows.sort(key=lambda r: int(r["group"]))
        yield (f"W8/S{stride}", stride, [float(r["accuracy"]) for r in rows],
               [float(r["std_error"]) for r in rows])
    with open(full_attention_json) as f:
        doc = json.load(f)
    yield ("full attention", 1, [g["accuracy"] for g in doc["groups"]],
           [g["std_error"] for g in doc["groups"]])


def main(csv_path, full_attention_json, out_json):
    rows = []
    print(f"{'model':>15} {'stride':>6} {'period':>6} {'best':>6} {'worst':>6} {'gap':>6}")
    for name, stride, acc, err in profiles(csv_path, full_attention_json):
        p = period(acc, err)
        rows.append({"model": name, "stride": stride, "period": p, "best": max(acc),
                     "worst": min(acc), "gap": max(acc) - min(acc), "period_equals_stride": p == stride})
        print(f"{name:>15} {stride:>6} {p:>6} {max(acc):6.3f} {min(acc):6.3f} {max(acc) - min(acc):6.3f}")
    with open(out_json, "w") as f:
        json.dump({"rows": rows, "all_periods_equal_stride": all(r["period_equals_stride"] for r in rows)},
                  f, indent=2)
    return 0 if all(r["period_equals_stride"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
