"""Imported first by every plot script: a Python with NumPy and matplotlib, else a re-run under
/usr/bin/python3 or one line saying what to install (scripts/python_needs.py, shared with the
benchmarks)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), os.pardir, "scripts"))
from python_needs import require  # noqa: E402

require(["numpy", "matplotlib"], "python3-numpy python3-matplotlib")
