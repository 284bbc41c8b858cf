#!/usr/bin/env python3
"""Fails when the code leaves the architecture of docs/ARCHITECTURE.md:

- an #include points from a lower layer to a higher one. A layer is a folder, theory/<layer>/
  or sim/<layer>/, with its public headers in include/phasesim/<layer>/; each layer may
  include its own headers and those of the layers listed for it below, nothing else, so
  the arrows point one way and the folders have no cycle;
- a `#pragma omp` outside the parallel policy (include/phasesim/core/parallel.hpp);
- a command file sim/cli/cmd_*.cpp longer than 150 lines (the CLI only declares options,
  calls the library and prints).
"""
import pathlib
import re
import sys

# Each layer and the layers it may use (directly or not), bottom first.
ALLOWED = {
    "core": set(),
    "model": {"core"},
    "channel": {"core", "model"},
    "theorems": {"core", "model", "channel"},
    "niah": {"core", "model"},
    "engines": {"core", "model", "channel", "niah"},
    "sweep": {"core"},
    "training": {"core", "model", "channel", "theorems", "niah", "engines"},
    "compare": {"core", "model", "channel", "niah", "engines"},
    "diagnose": {"core", "model", "channel", "theorems", "niah", "engines"},
    "cli": {
        "core",
        "model",
        "channel",
        "theorems",
        "niah",
        "engines",
        "sweep",
        "training",
        "compare",
        "diagnose",
    },
}
PARALLEL_POLICY = pathlib.Path("include/phasesim/core/parallel.hpp")
MAX_COMMAND_LINES = 150
INCLUDE = re.compile(r'^\s*#\s*include\s+"(phasesim/([a-z_]+)/|phasesim/version\.hpp|cli/)')


def layer_of(path: pathlib.Path) -> str | None:
    parts = path.parts
    if parts[:2] == ("include", "phasesim") and len(parts) > 3:
        return parts[2]
    if parts[0] in ("theory", "sim") and len(parts) > 2:
        return parts[1]
    return None


def main() -> int:
    root = pathlib.Path(__file__).resolve().parent.parent
    bad = []
    for path in sorted(root.glob("**/*")):
        rel = path.relative_to(root)
        if rel.parts[0] not in ("include", "theory", "sim") or path.suffix not in (
                ".cpp", ".hpp", ".cu", ".cuh"):
            continue
        layer = layer_of(rel)
        if layer not in ALLOWED:
            bad.append(f"{rel}: not in a layer folder ({', '.join(ALLOWED)})")
            continue
        lines = path.read_text().splitlines()
        if rel.parent == pathlib.Path("sim/cli") and rel.name.startswith("cmd_") and len(
                lines) > MAX_COMMAND_LINES:
            bad.append(f"{rel}: {len(lines)} lines (a command file stays within "
                       f"{MAX_COMMAND_LINES}: move the computing into the library)")
        for number, line in enumerate(lines, 1):
            if "#pragma omp" in line and rel != PARALLEL_POLICY:
                bad.append(f"{rel}:{number}: a raw OpenMP loop (use the parallel policy, "
                           f"{PARALLEL_POLICY})")
            match = INCLUDE.match(line)
            if not match:
                continue
            # phasesim/version.hpp is generated into core; cli/ headers belong to the CLI.
            target = match.group(2) or ("cli" if match.group(1) == "cli/" else "core")
            if target != layer and target not in ALLOWED[layer]:
                bad.append(f"{rel}:{number}: layer '{layer}' includes '{target}' ({line.strip()})")
    if bad:
        print("check-architecture:\n" + "\n".join(bad))
        return 1
    print("check-architecture: includes point down the layers, no raw OpenMP loop, "
          "command files within " + str(MAX_COMMAND_LINES) + " lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
