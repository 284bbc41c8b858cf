#!/usr/bin/env python3
"""Fails when the code leaves the architecture of docs/ARCHITECTURE.md:

- an #include points from a lower layer to a higher one. A layer is a folder, theory/<layer>/
  or sim/<layer>/, with its public headers in include/phasesim/<layer>/; each layer may
  include its own headers and those of the layers listed for it below, nothing else, so
  the arrows point one way and the folders have no cycle;
- a layer's code outside its namespace: core and model (the vocabulary every layer speaks)
  are in phasesim itself, every other layer L in phasesim::L. A file may also open another
  namespace to forward-declare a class, and phasesim to specialize core's Fields;
- a concept defined twice: a type of one name in two layers (the one-definition rule would
  merge them), or a concept of the table CONCEPTS defined outside the layer that owns it
  (a second period test, channel quadrature, entry geometry, normal sampler, interval,
  validation helper or softmax);
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
    "stats": {"core"},
    "model": {"core"},
    "channel": {"core", "model"},
    "theorems": {"core", "model", "channel"},
    "niah": {"core", "stats", "model"},
    "engines": {"core", "stats", "model", "channel", "niah"},
    "sweep": {"core"},
    "training": {"core", "stats", "model", "channel", "theorems", "niah", "engines"},
    "compare": {"core", "stats", "model", "channel", "niah", "engines"},
    "diagnose": {"core", "stats", "model", "channel", "theorems", "niah", "engines"},
    "cli": {
        "core",
        "stats",
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
# The vocabulary every layer speaks lives in phasesim itself; each other layer in its own.
VOCABULARY = {"core", "model"}
# Concepts that exist once, in the layer that owns them: a type or function whose name matches
# the pattern and is defined elsewhere is a second version of the concept.
CONCEPTS = [
    ("a period test", "stats",
     r"\w*Period(Test|Candidate|Estimate|Options)\w*|HomogeneityTest|estimate_period|test_periods"
     r"|period_statistic"),
    ("a quadrature of the retrieval channel", "channel",
     r"needle_success\w*|needle_beats_distractors|success_probability|phase_success_at"
     r"|SuccessCurve|single_entry_success"),
    ("entry geometry (which entries hold a position)", "model",
     r"entr(y|ies)_(holds?|contains?|containing|holding)|needle_entries|holds|interior"),
    ("a normal sampler", "core",
     r"\w*ziggurat\w*|box_muller|normal_(pair|rows|sequence)\w*|\w*[Bb]ox[Mm]uller\w*"),
    ("a binomial interval or estimate", "stats",
     r"\w*[Ww]ilson\w*|estimate_proportion|likelihood_interval|\w*[Cc]lopper\w*"
     r"|HypergeometricSampler"),
    ("a validation helper", "core",
     r"require_(in_range|range|at_least|positive|non_negative|finite)\w*"),
    # Its derivative (theorems' softmax_backprop) is not a second softmax.
    ("a softmax", "model", r"(?!\w*_backprop$)\w*[Ss]oft_?[Mm]ax\w*"),
]
PARALLEL_POLICY = pathlib.Path("include/phasesim/core/parallel.hpp")
MAX_COMMAND_LINES = 150
TYPE_DEFINITION = re.compile(r"^(?:struct|class|enum class|enum) (\w+)(?: final)?(?: :[^{;]*)? \{")
FUNCTION_DEFINITION = re.compile(r"^(?:inline |static |constexpr |PHASESIM_HD )*[A-Za-z][\w:<>,*& ]*?[ *&](\w+)\(")
NAMESPACE = re.compile(r"^namespace ([\w:]+) \{")
INCLUDE = re.compile(r'^\s*#\s*include\s+"(phasesim/([a-z_]+)/|phasesim/version\.hpp|cli/)')


def layer_of(path: pathlib.Path) -> str | None:
    parts = path.parts
    if parts[:2] == ("include", "phasesim") and len(parts) > 3:
        return parts[2]
    if parts[0] in ("theory", "sim") and len(parts) > 2:
        return parts[1]
    return None


def namespace_problems(rel: pathlib.Path, layer: str, lines: list[str]) -> list[str]:
    """Namespaces a file of `layer` opens that are not its own."""
    own = "phasesim" if layer in VOCABULARY else "phasesim::" + layer
    bad = []
    for number, line in enumerate(lines, 1):
        match = NAMESPACE.match(line)
        if not match:
            continue
        name = match.group(1)
        if name == own or name.startswith(own + "::") or not name.startswith("phasesim"):
            continue
        block = []
        for inner in lines[number:]:
            if inner.startswith("}"):
                break
            if inner.strip():
                block.append(inner.strip())
        forward = all(re.fullmatch(r"(class|struct) \w+;", b) for b in block)
        fields = name == "phasesim" and all(
            b.startswith(("template <>", "struct Fields<")) or not b.startswith(("struct", "class",
                                                                                 "template"))
            for b in block) and any(b.startswith("struct Fields<") for b in block)
        if not forward and not fields:
            bad.append(f"{rel}:{number}: layer '{layer}' opens namespace {name} (its code "
                       f"belongs in {own})")
    return bad


def definitions(lines: list[str]) -> list[tuple[int, str]]:
    """(line, name) of the types and functions a file defines or declares at column 0."""
    found = []
    for number, line in enumerate(lines, 1):
        for pattern in (TYPE_DEFINITION, FUNCTION_DEFINITION):
            match = pattern.match(line)
            if match and not line.startswith(("return", "namespace", "using", "}", "#", "//")):
                found.append((number, match.group(1)))
    return found


def concept_problems(defined: dict[str, list[tuple[str, pathlib.Path, int]]]) -> list[str]:
    bad = []
    for name, places in sorted(defined.items()):
        # Types of headers: a .cpp's own types live in its anonymous namespace.
        types = [p for p in places if p[1].suffix in (".hpp", ".cuh") and name[:1].isupper()]
        if len({layer for layer, _, _ in types}) > 1:
            where = ", ".join(f"{rel}:{n}" for _, rel, n in types)
            bad.append(f"type {name} is defined in the headers of the layers "
                       f"{', '.join(sorted({layer for layer, _, _ in types}))} ({where}): "
                       f"one concept, one layer")
        for concept, owner, pattern in CONCEPTS:
            if not re.fullmatch(pattern, name):
                continue
            for layer, rel, number in places:
                if layer != owner:
                    bad.append(f"{rel}:{number}: {name} is {concept}, which lives in layer "
                               f"'{owner}': call it there instead of defining another")
    return bad


def main() -> int:
    root = pathlib.Path(__file__).resolve().parent.parent
    bad = []
    defined: dict[str, list[tuple[str, pathlib.Path, int]]] = {}
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
        bad += namespace_problems(rel, layer, lines)
        for number, name in definitions(lines):
            defined.setdefault(name, []).append((layer, rel, number))
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
    bad += concept_problems(defined)
    if bad:
        print("check-architecture:\n" + "\n".join(bad))
        return 1
    print("check-architecture: includes point down the layers, each layer in its namespace, "
          "every concept defined once, no raw OpenMP loop, command files within " +
          str(MAX_COMMAND_LINES) + " lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
