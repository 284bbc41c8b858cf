"""Imported first by every plot script. When the Python running it lacks NumPy or matplotlib
(a pyenv or virtualenv python3 first on PATH is common), the script is run again by
/usr/bin/python3 when that one has them (scripts/install-deps.sh installs them there), as
experiments/lib.sh does; otherwise one line says what is missing, instead of a traceback."""
import importlib.util
import os
import subprocess
import sys

_PACKAGES = ("numpy", "matplotlib")
_SYSTEM = "/usr/bin/python3"

_missing = [name for name in _PACKAGES if importlib.util.find_spec(name) is None]
if _missing:
    _other = os.path.realpath(sys.executable) != os.path.realpath(_SYSTEM)
    if _other and os.access(_SYSTEM, os.X_OK) and subprocess.run(
            [_SYSTEM, "-c", "import numpy, matplotlib"], capture_output=True).returncode == 0:
        os.execv(_SYSTEM, [_SYSTEM] + sys.argv)
    sys.exit(f"{os.path.basename(sys.argv[0])}: {sys.executable} has no {' or '.join(_missing)}; "
             f"run it with {_SYSTEM} after scripts/install-deps.sh "
             "(Debian: python3-numpy python3-matplotlib)")
