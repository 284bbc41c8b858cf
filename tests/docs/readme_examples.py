#!/usr/bin/env python3
"""The README's examples, run as a reader would run them (issue 26: "the README's claims are
checked by a test that runs each documented example command").

usage: readme_examples.py SOURCE_DIR BUILD_DIR

Every command of README.md's ```sh blocks runs in a fresh temporary folder that holds links
named build/ (BUILD_DIR), plots/, experiments/, benchmarks/, presets/ and scripts/, so the
commands run word for word; a ```toml block is written to the first *.toml file the next
```sh block names. Inline `phasesim ...` examples with nothing to fill in (no placeholder
such as W, SPEC, [...] or |), those of the Commands table and those the text gives an exit
status, run too, with `build/` in front. Each must exit with the status the README gives
it: the N of a following "(exit N", else 0 unless EXPECTED says otherwise. An unlabelled
block right after a ```sh block is that block's last command's output: each of its lines
but "..." (an elision) must be a line of the real output (timings aside). The ```python block runs with /usr/bin/python3 and
PYTHONPATH=BUILD_DIR/python. SKIPPED names each example not run, and why; an entry the
README no longer has fails the test, so the list stays true."""
import os
import re
import subprocess
import sys
import tempfile
import time

TIMEOUT = 120  # seconds per command; together they take well under a minute

# Examples not run here: (the command, or its start followed by " ...", why).
SKIPPED = [
    ("bash scripts/run-demo.sh", "installs packages and builds: the whole of README command 1 (CI runs it)"),
    ("bash scripts/run-tests.sh", "the whole test suite, of which this test is part"),
    ("bash scripts/build.sh && python3 benchmarks/compare-numpy.py",
     "builds, then benchmarks for minutes; ctest benchmark_compare_numpy_smoke runs it with --smoke"),
    ("build/phasesim train",
     "2,000 steps of the default model: 36 s of CPU, 86 s on the loaded 2-core machine; the "
     "next example trains 600"),
    ("cmake -S . -B build ...", "reconfigures the build under test"),
    ("mpirun -np 4 ...", "MPI, 12,500 prompts x 8 groups of the full engine: minutes; ctest mpi_* runs MPI"),
    ("#!/bin/bash ...", "a Slurm batch script: needs a cluster"),
    ("bash scripts/build.sh phasesim_command_benchmarks",
     "builds the benchmarks, which the next example runs"),
    ("build/phasesim_command_benchmarks --benchmark_out=commands.json --benchmark_out_format=json",
     "the whole grid of benchmarks/command_cases.cpp: about 80 s of CPU, 3 minutes on the loaded "
     "machine; tests/commands/estimate_test.cpp reads the recorded run"),
    ("experiments/run.sh period-equals-stride",
     "ctest experiment_period-equals-stride runs it and checks it against expected/"),
]

# Exit statuses other than 0 that the README documents in words, by the command's first words
# (an inline example followed by "(exit N" is held to N).
EXPECTED = {
    # Without a CUDA device (or CUDA support) both refuse, as the GPU section says.
    "build/phasesim niah --engine gpu": {0, 2},
    "build/phasesim gpu-check": {0, 2},
}
GPU_REFUSALS = ("this build has no CUDA support", "no CUDA device was found")

PLACEHOLDER = re.compile(r"(?<![-\w])[A-Z][A-Z0-9]*(?![\w])|[\[\]|]|\.\.\.")
LINKS = ("plots", "experiments", "benchmarks", "presets", "scripts")


def fenced_blocks(text):
    """(language, lines) of every fenced block, in order."""
    blocks, current = [], None
    for line in text.splitlines():
        if line.startswith("```"):
            if current is None:
                current = (line[3:].strip(), [])
            else:
                blocks.append(current)
                current = None
        elif current is not None:
            current[1].append(line)
    return blocks


def shell_commands(lines):
    """The commands of a ```sh block: continuation lines joined, a heredoc kept with its
    command, a trailing comment dropped (the comments say what a command does)."""
    if lines and lines[0].startswith("#!"):
        return ["\n".join(lines)]
    commands, pending, heredoc = [], "", None
    for line in lines:
        if heredoc:
            pending += "\n" + line
            if line == heredoc:
                commands.append(pending)
                pending, heredoc = "", None
            continue
        code = re.sub(r"\s+#.*$", "", line) if not line.lstrip().startswith("#") else ""
        if not code.strip() and not pending:
            continue
        marker = re.search(r"<<'?(\w+)'?", code)
        if code.endswith("\\"):
            pending += code[:-1]
        elif marker:
            pending, heredoc = pending + code, marker.group(1)
        else:
            commands.append((pending + code).strip())
            pending = ""
    return commands


def inline_commands(text):
    """Inline `phasesim COMMAND ...` examples with nothing to fill in: those of the Commands
    table, and those the prose gives an exit status, "`phasesim ...` (exit N)". (Elsewhere a
    span such as `phasesim train` names a command rather than showing a run of it.)"""
    span = r"`((?:build/)?phasesim [a-z][a-z-]*(?: [^`]*)?)`"
    table = [(s, None) for line in text.splitlines() if line.startswith("| ")
             for s in re.findall(span, line)]
    stated = [(s, int(status)) for s, status in re.findall(span + r" \(exit (\d+)", text)]
    found = {}
    for command, status in table + stated:
        if not PLACEHOLDER.search(command):
            found.setdefault(command if command.startswith("build/") else "build/" + command, status)
    return found.items()


def skip_entry(command):
    """The SKIPPED entry that names the command, or None."""
    for entry in SKIPPED:
        start = entry[0]
        if command == start or (start.endswith(" ...") and command.startswith(start[:-4])):
            return entry
    return None


def expected_statuses(command):
    for start, statuses in EXPECTED.items():
        if command.startswith(start):
            return statuses
    return {0}


def normalized(line):
    """A line of output without its timing ("0.00 s") or trailing spaces."""
    return re.sub(r"\d+\.\d+ s\b", "T s", line).rstrip()


class Runner:
    def __init__(self, source, build, root):
        self.source, self.build, self.root = source, build, root
        self.failures, self.ran, self.skipped, self.used = [], [], [], set()

    def folder(self):
        work = tempfile.mkdtemp(prefix="readme-", dir=self.root)
        os.symlink(self.build, os.path.join(work, "build"))
        for name in LINKS:
            os.symlink(os.path.join(self.source, name), os.path.join(work, name))
        return work

    def run(self, command, work, env=None, statuses=None):
        """Runs one example; returns its stdout, or None when it was skipped or failed."""
        entry = skip_entry(command)
        first = command.splitlines()[0]
        if entry:
            self.used.add(entry[0])
            self.skipped.append((first, entry[1]))
            return None
        start = time.monotonic()
        try:
            result = subprocess.run(["bash", "-c", command], cwd=work, capture_output=True,
                                    text=True, timeout=TIMEOUT, env=env)
        except subprocess.TimeoutExpired:
            self.failures.append(f"{first}: still running after {TIMEOUT} s")
            return None
        seconds = time.monotonic() - start
        allowed = statuses or expected_statuses(command)
        status = result.returncode
        ok = status in allowed
        if ok and status == 2 and "gpu" in command:
            ok = any(line in result.stderr for line in GPU_REFUSALS)
        self.ran.append((first, status, seconds))
        if not ok:
            self.failures.append(f"{first}: exit status {status}, the README says "
                                 f"{' or '.join(map(str, sorted(allowed)))}\n{result.stderr[-2000:]}")
            return None
        return result.stdout + result.stderr

    def check_output(self, command, shown, actual):
        """Every line the README shows (it may abridge) is a line of the real output."""
        real = {normalized(line) for line in actual.splitlines()}
        for line in shown:
            if line.strip() not in ("", "...") and normalized(line) not in real:
                self.failures.append(f"{command.splitlines()[0]}: the README shows\n  {line}\n"
                                     f"which its output does not have:\n{actual}")

    def python_block(self, lines):
        path = os.path.join(self.build, "python")
        package = os.path.join(path, "phasesim")
        if not os.path.isdir(package) or not any(name.startswith("_phasesim") and name.endswith(".so")
                                                 for name in os.listdir(package)):
            self.skipped.append(("the From Python block", f"no phasesim module in {path} "
                                 "(it is built when Debian's pybind11-dev is installed)"))
            return
        env = {**os.environ, "PYTHONPATH": path}
        self.run("/usr/bin/python3 - <<'PY'\n" + "\n".join(lines) + "\nPY", self.folder(), env)


def main(source, build):
    source, build = os.path.abspath(source), os.path.abspath(build)
    with open(os.path.join(source, "README.md"), encoding="utf-8") as f:
        text = f.read()
    with tempfile.TemporaryDirectory() as root:
        runner = Runner(source, build, root)
        run_examples(runner, text)
    return report(runner)


def run_examples(runner, text):
    blocks = fenced_blocks(text)
    work, last = runner.folder(), None
    for k, (language, lines) in enumerate(blocks):
        if language == "toml":
            later = next((l for lang, l in blocks[k + 1:] if lang == "sh"), [])
            name = re.search(r"[\w.-]+\.toml", "\n".join(later)).group(0)
            with open(os.path.join(work, name), "w") as f:
                f.write("\n".join(lines) + "\n")
        elif language == "sh":
            last = None
            for command in shell_commands(lines):
                last = (command, runner.run(command, work))
        elif language == "python":
            runner.python_block(lines)
            last = None
        elif language == "" and last and last[1] is not None:
            runner.check_output(last[0], lines, last[1])
            last = None
    for command, status in inline_commands(text):
        if command not in (first for first, _, _ in runner.ran):  # once, if a block has it too
            runner.run(command, runner.folder(), statuses={status} if status is not None else None)
    for start, _ in SKIPPED:
        if start not in runner.used:
            runner.failures.append(f"SKIPPED names '{start}', which the README no longer has")


def report(runner):
    for first, status, seconds in runner.ran:
        print(f"ran   {seconds:6.2f} s  exit {status}  {first}")
    for first, reason in runner.skipped:
        print(f"skip  {first}\n      ({reason})")
    total = sum(seconds for _, _, seconds in runner.ran)
    print(f"{len(runner.ran)} examples run in {total:.1f} s, {len(runner.skipped)} skipped")
    for failure in runner.failures:
        print("FAIL " + failure, file=sys.stderr)
    return 1 if runner.failures or not runner.ran else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
