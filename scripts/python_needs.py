"""One check, shared by the plot scripts (plots/needs.py) and the Python benchmarks
(benchmarks/*.py): when the Python running a script lacks a module it needs (a pyenv or
virtualenv python3 first on PATH is common), the script is run again by /usr/bin/python3
when that one has every module (scripts/install-deps.sh installs them there), as
experiments/lib.sh does; otherwise one line names what is missing and what to install, exit
status 2, instead of a traceback. A script finds this file by its path:

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "scripts"))
    from python_needs import require
    require(["numpy"], "python3-numpy")
"""
import importlib.util
import os
import subprocess
import sys

SYSTEM = "/usr/bin/python3"


def require(modules, debian_packages):
    """Returns when every module imports here; else re-runs the script under /usr/bin/python3
    (this process is replaced) or exits 2 with one line."""
    missing = [name for name in modules if importlib.util.find_spec(name) is None]
    if not missing:
        return
    # Another interpreter, or another environment of the same one (a virtualenv's python3 is a
    # link to /usr/bin/python3 without its packages); /usr/bin/python3 itself (say under -S)
    # is not run again, so this cannot loop.
    other = sys.executable != SYSTEM
    if other and os.access(SYSTEM, os.X_OK) and subprocess.run(
            [SYSTEM, "-c", "import " + ", ".join(modules)], capture_output=True).returncode == 0:
        os.execv(SYSTEM, [SYSTEM] + sys.argv)
    print(f"{os.path.basename(sys.argv[0])}: {sys.executable} has no {' or '.join(missing)}; "
          f"run it with {SYSTEM} after scripts/install-deps.sh (Debian: {debian_packages})",
          file=sys.stderr)
    sys.exit(2)
