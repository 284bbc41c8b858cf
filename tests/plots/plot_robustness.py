#!/usr/bin/env python3
"""The plot scripts on the inputs that used to break them (issue 12): a numeric --where
matches "6" against "6.0", a text column as --value and an unknown --where column are one
line and exit 2, niah_bars.py reads a sweep's results.csv, and repeated legend labels are
told apart. And the cosmetics of issue 26: niah_bars.py on a sweep draws a figure of
bounded size (it was 5971 px wide) and refuses more cells than it can show, seeds print as
integers (they were 5.73091e+18), the legend sits clear of the bars (it hid group 0's), and
phase_clock.py's title names the number of groups, training_phases.py's title holds no
Python list.

usage: plot_robustness.py PLOTS_DIR EXPERIMENTS_DIR"""
import csv as csvlib
import os
import struct
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
        cosmetics(plots, experiments, csv, tmp)
    print("plot scripts: numeric --where, text --value, sweep CSV bars and legend labels, figure "
          "sizes, integer seeds, the legend clear of the bars all fine")


def png_size(path):
    with open(path, "rb") as f:
        return struct.unpack(">II", f.read(24)[16:24])


def reseeded(csv, tmp, name, cells):
    """A copy of the sweep's W8/S4 cell as CELLS cells that differ only in their seed."""
    with open(csv, newline="") as f:
        rows = [r for r in csvlib.DictReader(f) if r["stride"] == "4"]
    path = os.path.join(tmp, name)
    with open(path, "w", newline="") as f:
        writer = csvlib.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        for k in range(cells):
            writer.writerows({**r, "cell": f"c{k}", "seed": str(5730906519684867488 + k)} for r in rows)
    return path


def cosmetics(plots, experiments, csv, tmp):
    bars = os.path.join(plots, "niah_bars.py")
    out = os.path.join(tmp, "cosmetic")
    sweep = run(bars, csv, "--out", out)
    assert sweep.returncode == 0, sweep.stderr
    width, height = png_size(out + ".png")
    assert width <= 2400 and height <= 2400, f"a 5-cell sweep drew {width} x {height} px"

    seeds = reseeded(csv, tmp, "seeds.csv", 3)
    assert run(bars, seeds, "--out", out).returncode == 0
    with open(out + ".svg") as f:
        svg = f.read()
    assert "seed=5730906519684867488" in svg and "e+18" not in svg, "seeds in the legend"
    heat = run(os.path.join(plots, "sweep_heatmap.py"), seeds, "--x", "seed", "--y", "group",
               "--value", "accuracy", "--out", out)
    assert heat.returncode == 0, heat.stderr
    with open(out + ".svg") as f:
        svg = f.read()
    assert "5730906519684867490" in svg and "e+18" not in svg, "seeds on the heatmap's axis"
    refused(run(bars, reseeded(csv, tmp, "many.csv", 25), "--out", out),
            "25 results are too many to draw as bars (at most 24)")

    clock = run(os.path.join(plots, "phase_clock.py"),
                os.path.join(experiments, "v4-calibration/expected/v4_analytic.json"), "--out", out)
    assert clock.returncode == 0, clock.stderr
    with open(out + ".svg") as f:
        assert "by needle position mod 8" in f.read(), "phase_clock's title"

    trained = run(os.path.join(plots, "training_phases.py"),
                  os.path.join(experiments, "training-lab/expected-quick/showcase.json"), "--out", out)
    assert trained.returncode == 0, trained.stderr
    with open(out + ".svg") as f:
        assert "phases 0 to 3 held by 2, 0, 1, 1 heads" in f.read(), "a Python list in the title"

    # The legend of two results (the demo's w8s8_vs_full) covers no bar: group 0's reaches 93%.
    sys.path.insert(0, plots)
    import niah_bars
    from plotting import load_json
    docs = [load_json(os.path.join(experiments, f"w8s8-heads/expected/{name}.json"), "niah")
            for name in ("w8s8_fast", "full_fast")]
    fig = niah_bars.side_by_side(docs, ["W8/S8, 8 heads", "full attention, 8 heads"], "title")
    fig.canvas.draw()
    ax = fig.axes[0]
    legend = ax.get_legend().get_window_extent()
    covered = [p for p in ax.patches if p.get_window_extent().overlaps(legend)]
    assert not covered, f"the legend covers {len(covered)} bars"


if __name__ == "__main__":
    main(*sys.argv[1:])
