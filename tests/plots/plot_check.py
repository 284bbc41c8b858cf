#!/usr/bin/env python3
"""Test of one plot script: --help works, the script renders a fixture headless into a
real PNG and SVG, and a missing input file is an error with exit status 2.

usage: plot_check.py SCRIPT [ARGS...]   (ARGS: the fixture input and options, no --out)"""
import os
import subprocess
import sys
import tempfile


def run(*command):
    return subprocess.run([sys.executable, *command], capture_output=True, text=True)


def main(script, *args):
    assert run(script, "--help").returncode == 0, f"{script} --help failed"
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "figure")
        result = run(script, *args, "--out", out)
        assert result.returncode == 0, f"{script} failed:\n{result.stderr}"
        with open(out + ".png", "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n", "not a PNG"
        with open(out + ".svg") as f:
            assert "<svg" in f.read(), "not an SVG"
        missing = run(script, os.path.join(tmp, "missing.json"), *args[1:], "--out", out + "2")
        assert missing.returncode == 2, f"missing input: exit {missing.returncode}, expected 2"
        assert "cannot read" in missing.stderr, missing.stderr
    print(f"{os.path.basename(script)}: help, PNG, SVG and the missing-input error all fine")


if __name__ == "__main__":
    main(*sys.argv[1:])
