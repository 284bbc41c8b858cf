#!/usr/bin/env python3
"""The plot scripts on the inputs that used to break them (issue 12): a numeric --where
matches "6" against "6.0", a text column as --value and an unknown --where column are one
line and exit 2, niah_bars.py reads a sweep's results.csv, and repeated legend labels are
told apart.

usage: plot_robustness.py PLOTS_DIR EXPERIMENTS_DIR"""
import os
import subprocess
import sys
import tempfile


def run(script, *args):
    return subprocess.run([sys.executable, script, *args], capture_output=True, text=True)


def refused(result, message):
    assert result.returncode == 2, f"exit {result.returncode}, expected 2:\n{result.stderr}"
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.stderr


def main(plots, experiments):
    heatmap = os.path.join(plots, "sweep_heatmap.py")
    bars = os.path.join(plots, "niah_bars.py")
    csv = os.path.join(experiments, "period-equals-stride/expected/sweep/results.csv")
    fast = os.path.join(experiments, "w8s8-heads/expected/w8s8_fast.json")
    axes = ["--x", "group", "--y", "stride"]
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "figure")
        # beta is written 4.5 in the CSV; 4.50 is the same number.
        ok = run(heatmap, csv, *axes, "--value", "accuracy", "--where", "beta=4.50", "--out", out)
        assert ok.returncode == 0, ok.stderr
        refused(run(heatmap, csv, *axes, "--value", "accuracy", "--where", "beta=6", "--out", out),
                "no rows with beta=6 (beta takes 4.5)")
        refused(run(heatmap, csv, *axes, "--value", "gates", "--out", out),
                "--value gates is not a numeric column")
        refused(run(heatmap, csv, *axes, "--value", "accuracy", "--where", "bogus=1", "--out", out),
                "has no column 'bogus'")
        sweep = run(bars, csv, "--out", out)
        assert sweep.returncode == 0, sweep.stderr
        with open(out + ".svg") as f:
            svg = f.read()
        assert all(f"W8/S{s} fast" in svg for s in (2, 4, 6, 8)), "a cell of the sweep is missing"
        twice = run(bars, fast, fast, "--out", out)
        assert twice.returncode == 0, twice.stderr
        with open(out + ".svg") as f:
            svg = f.read()
        assert "W8/S8 fast, #1" in svg and "W8/S8 fast, #2" in svg, "repeated legend labels"
    print("plot scripts: numeric --where, text --value, sweep CSV bars and legend labels all fine")


if __name__ == "__main__":
    main(*sys.argv[1:])
