#!/usr/bin/env python3
"""scripts/python_needs.py, as the plot scripts and the Python benchmarks use it (issue 26:
run as the README shows them with a python3 that lacks NumPy, they failed with a traceback).

usage: python_needs_test.py SOURCE_DIR

1. /usr/bin/python3 -S (Debian's packages hidden): one line naming what is missing, what to
   install and /usr/bin/python3, exit status 2, for a benchmark and a plot script.
2. A virtualenv's python3 without NumPy (a researcher's pyenv or venv python first on PATH),
   called as `python3 SCRIPT` and through the scripts' `#!/usr/bin/env python3`: the script
   runs again under /usr/bin/python3 and works.
Exit status 77 (skipped) when /usr/bin/python3 lacks NumPy or cannot make a virtualenv."""
import os
import subprocess
import sys
import tempfile

SYSTEM = "/usr/bin/python3"
SCRIPTS = ["benchmarks/compare-numpy.py", "benchmarks/numpy_peer.py",
           "benchmarks/python_overhead.py", "plots/niah_bars.py"]
WITH_HELP = [s for s in SCRIPTS if s != "benchmarks/python_overhead.py"]  # it has no --help


def run(command, env=None):
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)


def main(source):
    if run([SYSTEM, "-c", "import numpy, matplotlib"]).returncode != 0:
        print(f"skipped: {SYSTEM} has no NumPy or matplotlib")
        return 77
    for script in SCRIPTS:
        name = os.path.basename(script)
        wants = "numpy or matplotlib" if script.startswith("plots/") else "numpy"
        hidden = run([SYSTEM, "-S", os.path.join(source, script), "--help"])
        expected = (f"{name}: {SYSTEM} has no {wants}; run it with {SYSTEM} after "
                    f"scripts/install-deps.sh (Debian: ")
        assert hidden.returncode == 2, f"{script} under -S: exit {hidden.returncode}, expected 2"
        assert hidden.stdout == "" and hidden.stderr.startswith(expected) \
            and hidden.stderr.count("\n") == 1, f"{script} under -S said:\n{hidden.stderr}"

    with tempfile.TemporaryDirectory() as tmp:
        venv = os.path.join(tmp, "venv")
        if run([SYSTEM, "-m", "venv", "--without-pip", venv]).returncode != 0:
            print("skipped: /usr/bin/python3 -m venv does not work here")
            return 77
        python = os.path.join(venv, "bin", "python3")
        assert run([python, "-c", "import numpy"]).returncode != 0, "the venv has NumPy"
        # PATH as a researcher's: the venv's python3 first.
        env = {**os.environ, "PATH": os.path.join(venv, "bin") + os.pathsep + os.environ["PATH"]}
        for script in WITH_HELP:
            path = os.path.join(source, script)
            for command in ([python, path, "--help"], [path, "--help"]):
                result = run(command, env)
                assert result.returncode == 0 and "usage:" in result.stdout, \
                    f"{' '.join(command)} with a python3 without NumPy first on PATH: exit " \
                    f"{result.returncode}\n{result.stderr}"
    print(f"{len(SCRIPTS)} scripts: one line under a Python without NumPy; {len(WITH_HELP)} "
          f"re-run by {SYSTEM} from a virtualenv's python3")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
