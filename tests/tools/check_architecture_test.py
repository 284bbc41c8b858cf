#!/usr/bin/env python3
"""scripts/check-architecture.py can fail: on a copy of the tree with one violation of each
rule planted in it, it exits 1 and names every one; on the clean copy it exits 0."""
import pathlib
import shutil
import subprocess
import sys
import tempfile

PLANTED = {
    # A second period test in training: the type of an owned concept.
    "include/phasesim/training/planted.hpp":
        "#pragma once\nnamespace phasesim::training {\n\nstruct PeriodTest {\n  int period;\n};"
        "\n\n}  // namespace phasesim::training\n",
    # A sampler, an entry-geometry helper and a softmax outside their layers.
    "sim/training/planted.cpp":
        "namespace phasesim::training {\n\ndouble ziggurat_normal(int i) { return i; }\n\n"
        "bool entry_holds(int j, int p) { return j == p; }\n\n"
        "void softmax_rows(double* x, int n) { x[n] = 0; }\n\n}  // namespace phasesim::training\n",
    # A softmax in a header of the engines layer, as a PHASESIM_HD template.
    "include/phasesim/engines/planted.hpp":
        "#pragma once\nnamespace phasesim::engines {\n\ntemplate <class Out>\n"
        "PHASESIM_HD inline void masked_softmax(Out out, int n) { out[n] = 0; }\n\n"
        "}  // namespace phasesim::engines\n",
    # A layer's code in another layer's namespace.
    "sim/niah/planted.cpp": "namespace phasesim {\n\nint planted() { return 0; }\n\n}  // namespace phasesim\n",
    # One type name in the headers of two layers.
    "include/phasesim/compare/planted.hpp":
        "#pragma once\nnamespace phasesim::compare {\n\nstruct NiahRun {};\n\n}  // namespace phasesim::compare\n",
    # A file over 600 lines, and a function over 80.
    "sim/training/planted_long.cpp":
        "namespace phasesim::training {\n\nint planted_long() {\n" + "  int x = 0;\n" * 81 +
        "  return 0;\n}\n" + "\n" * 520 + "}  // namespace phasesim::training\n",
}
EXPECTED = [
    "PeriodTest is a period test, which lives in layer 'stats'",
    "ziggurat_normal is a normal sampler, which lives in layer 'core'",
    "entry_holds is entry geometry (which entries hold a position), which lives in layer 'model'",
    "softmax_rows is a softmax, which lives in layer 'model'",
    "masked_softmax is a softmax, which lives in layer 'model'",
    "sim/niah/planted.cpp:1: layer 'niah' opens namespace phasesim",
    "type NiahRun is defined in the headers of the layers compare, niah",
    "sim/training/planted_long.cpp: 607 lines (at most 600",
    "sim/training/planted_long.cpp:3: function planted_long is 84 lines (at most 80",
]


def run(root: pathlib.Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(root / "scripts/check-architecture.py")],
                          capture_output=True, text=True)


def main() -> int:
    source = pathlib.Path(__file__).resolve().parents[2]
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        for folder in ("include", "theory", "sim", "scripts"):
            shutil.copytree(source / folder, root / folder)
        clean = run(root)
        if clean.returncode != 0:
            print("the clean tree fails:\n" + clean.stdout)
            return 1
        for path, text in PLANTED.items():
            (root / path).write_text(text)
        planted = run(root)
        missing = [e for e in EXPECTED if e not in planted.stdout]
        if planted.returncode != 1 or missing:
            print(f"exit {planted.returncode}; not reported: {missing}\n{planted.stdout}")
            return 1
    print("check-architecture: every planted violation reported")
    return 0


if __name__ == "__main__":
    sys.exit(main())
