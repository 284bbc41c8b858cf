#!/usr/bin/env python3
"""Issue 26's hostile list, run afresh against the built CLI: no hang, no replaced file, and
every refusal exits 2 with exactly one line on stderr and nothing on stdout.

    hostile_inputs.py PHASESIM

Each command runs under a 20 s timeout, so a hang fails this test instead of blocking the
suite. The exact messages of most of these cases are checked by
tests/cli/output_safety_cli_test.cpp and hardening_second_pass_cli_test.cpp; this script
covers the rest of the list (the issue's own spellings such as `1e8`, the other commands
that read a FIFO, `diagnose` into /dev/full, `--steps 1e7`, a list given to a sweep option of
one value, integer axes listed twice, the note of a long run) and the properties a user sees: bounded time, one
line, files intact. Exit status 1 lists every case that misbehaved."""
import json
import os
import pathlib
import select
import stat
import subprocess
import sys
import tempfile
import time

TIMEOUT_S = 20
KEEP = "keep: this file must survive\n"


class Cases:
    def __init__(self, phasesim, tmp):
        self.phasesim = phasesim
        self.tmp = tmp
        self.problems = []
        self.count = 0

    def run(self, args, stdout=subprocess.PIPE):
        self.count += 1
        start = time.monotonic()
        try:
            done = subprocess.run([self.phasesim, *args], stdout=stdout, stderr=subprocess.PIPE,
                                  stdin=subprocess.DEVNULL, timeout=TIMEOUT_S, cwd=self.tmp)
        except subprocess.TimeoutExpired:
            self.problems.append(f"{' '.join(args)}: still running after {TIMEOUT_S} s (a hang)")
            return None
        out = done.stdout.decode(errors="replace") if done.stdout is not None else ""
        return done.returncode, out, done.stderr.decode(errors="replace"), time.monotonic() - start

    def refused(self, args, says=None, json=True):
        """Exit 2, one line on stderr (containing `says`), no stdout, the --json file kept."""
        keep = self.tmp / "keep.json"
        keep.write_text(KEEP)
        full = [*args, "--json", str(keep)] if json else list(args)
        result = self.run(full)
        if result is None:
            return
        status, out, err, _ = result
        where = " ".join(full)
        if status != 2:
            self.problems.append(f"{where}: exit {status}, expected 2 (stderr: {err!r})")
        if err.count("\n") != 1 or not err.endswith("\n"):
            self.problems.append(f"{where}: stderr is not exactly one line: {err!r}")
        if says is not None and says not in err:
            self.problems.append(f"{where}: stderr {err!r} does not say {says!r}")
        if out:
            self.problems.append(f"{where}: wrote {len(out)} characters to stdout")
        if not keep.is_file() or keep.is_symlink() or keep.read_text() != KEEP:
            self.problems.append(f"{where}: replaced or changed {keep}")
        strays = [p.name for p in self.tmp.iterdir() if p.name.startswith("keep.json.")]
        if strays:
            self.problems.append(f"{where}: left temporary files {strays}")

    def fifo(self, name):
        path = self.tmp / name
        if not path.exists():
            os.mkfifo(path)
        return str(path)


def inputs_that_block(c):
    """A FIFO where a file is read: refused at once, never opened for reading (that blocks)."""
    fifo = c.fifo("in.fifo")
    for args in (["precision-check", "--gates", "@" + fifo], ["gpu-check", "--gates", "@" + fifo],
                 ["coverage", "--arch", fifo], ["compare", fifo]):
        c.refused(args, says="not a regular file")
    folder = c.tmp / "folder"
    folder.mkdir(exist_ok=True)
    c.refused(["precision-check", "--gates", "@" + str(folder)], says="a directory, not a file")
    c.refused(["sweep", str(folder), "--out", str(c.tmp / "d")], says="a directory, not a file",
              json=False)


def work_bounds(c):
    """The issue's own spellings: refused up front (1e8 is no integer), or bounded."""
    for args in (["optimize", "--restarts", "1e8"], ["dynamics", "--inits", "1e8"],
                 ["dynamics", "--steps", "1e7"], ["theorem", "lockin", "--inits", "1e8"],
                 ["diversity", "--train-runs", "1e8"],
                 ["theorem", "concentration", "--restarts", "1e8"]):
        c.refused(args, says="must be an integer")
    # The same sizes written out: refused by the estimate, not run.
    for args in (["dynamics", "--inits", "100000000", "--steps", "10000000"],
                 ["phase-diagram", "--restarts", "100000000"],
                 ["theorem", "lockin", "--steps", "2000000000", "--inits", "100"]):
        c.refused(args, says="too large")


def long_runs(c):
    """Runs inside the limits but over a minute say so on stderr before they start (about 7
    and 41 minutes on 2 threads: a billion dynamics steps at W = 8; 10^4 random starts each
    allowed 10^5 iterations at beta 8, where they lock in and use them)."""
    for args in (["dynamics", "--steps", "1000000000"],
                 ["optimize", "--beta", "8", "--restarts", "10000", "--max-iterations", "100000"]):
        c.count += 1
        child = subprocess.Popen([c.phasesim, *args], cwd=c.tmp, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
        try:
            ready, _, _ = select.select([child.stderr], [], [], TIMEOUT_S)
            first = child.stderr.readline().decode(errors="replace") if ready else ""
        finally:
            child.kill()
            child.wait()
        if "note: this run is estimated to take about" not in first:
            c.problems.append(f"{' '.join(args)}: no long-run note within {TIMEOUT_S} s, "
                              f"got {first!r}")


def numbers(c):
    """Out-of-range integers of every type say "out of range"; odd spellings are refused."""
    c.refused(["niah", "--seed", "99999999999999999999999"], says="--seed")
    c.refused(["niah", "--threads", "99999999999"], says="out of range")
    c.refused(["niah", "--context", "-99999999999999999999"], says="out of range")
    c.refused(["niah", "--prompts", "  5"], says="must be an integer")
    c.refused(["niah", "--beta", "+5"], says="must be a number")
    c.refused(["optimize", "--restarts", "0x10"], says="must be an integer")


def sweep_files(c):
    """Values listed twice on an integer axis, and a list for an option of one value."""
    for name, text, says in (
            ("ints.toml", 'command = "niah"\n[options]\nprompts = [4, 4]\n', "twice"),
            ("nested.toml", 'command = "compare"\n[options]\nprompts = [[4, 8]]\n',
             "takes one value")):
        grid = c.tmp / name
        grid.write_text(text)
        out = c.tmp / ("out-" + name)
        c.refused(["sweep", str(grid), "--out", str(out)], says=says, json=False)
        if out.exists():
            c.problems.append(f"sweep {name}: made {out} although refused")


def outputs(c):
    """diagnose into a full disk fails; a symlinked --json of another command keeps the link."""
    table = c.tmp / "t.csv"
    table.write_text("group,successes,trials\n0,179,256\n1,80,256\n2,200,256\n3,220,256\n")
    if os.path.exists("/dev/full"):
        with open("/dev/full", "w") as full:
            result = c.run(["diagnose", str(table)], stdout=full)
        if result is not None:
            status, _, err, _ = result
            if status != 2 or err.count("\n") != 1 or "cannot write to standard output" not in err:
                c.problems.append(f"diagnose > /dev/full: exit {status}, stderr {err!r}")
    target = c.tmp / "target.txt"
    target.write_text("old\n")
    link = c.tmp / "link.json"
    if not link.is_symlink():
        link.symlink_to("target.txt")
    result = c.run(["diagnose", str(table), "--json", str(link)])
    try:
        written = json.loads(target.read_text()).get("command")
    except ValueError:
        written = None
    if result is not None and (result[0] != 0 or not link.is_symlink() or written != "diagnose"):
        c.problems.append(f"diagnose --json LINK: exit {result[0]}, link kept "
                          f"{link.is_symlink()}, target {target.read_text()[:40]!r}")
    if not stat.S_ISCHR(os.stat("/dev/null").st_mode):
        c.problems.append("/dev/null is no longer a character device")


def main(phasesim):
    with tempfile.TemporaryDirectory(prefix="phasesim-hostile-") as tmp:
        c = Cases(os.path.abspath(phasesim), pathlib.Path(tmp))
        start = time.monotonic()
        for group in (inputs_that_block, work_bounds, long_runs, numbers, sweep_files,
                      outputs):
            group(c)
        took = time.monotonic() - start
    for problem in c.problems:
        print("FAIL " + problem)
    print(f"{c.count} hostile commands in {took:.1f} s, {len(c.problems)} problems")
    return 1 if c.problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
