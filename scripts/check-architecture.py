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
  calls the library and prints);
- a source file of sim/, theory/ or include/ over 600 lines, or a function over 80 lines
  there or in the front doors (python/, web/wasm/): a long file is several concepts, a long
  function several steps.

With --sizes it prints the longest files and functions instead (for a closing note).
"""
import pathlib
import re
import sys

# The library's layers: what the commands layer may use, and the CLI besides it.
LIBRARY = {"core", "stats", "model", "channel", "theorems", "niah", "engines", "sweep", "training",
           "compare", "frontier", "diagnose", "checkpoint", "inspect"}
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
    "frontier": {"core", "stats", "model", "channel", "niah", "engines"},
    "diagnose": {"core", "stats", "model", "channel", "theorems", "niah", "engines"},
    "checkpoint": {"core"},
    "inspect": {"core", "stats", "model", "channel", "niah", "engines", "checkpoint"},
    "commands": LIBRARY,
    "cli": LIBRARY | {"commands"},
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
MAX_FILE_LINES = 600
MAX_FUNCTION_LINES = 80
FRONT_DOORS = ("python", "web/wasm")
TYPE_DEFINITION = re.compile(r"^(?:struct|class|enum class|enum) (\w+)(?: final)?(?: :[^{;]*)? \{")
FUNCTION_DEFINITION = re.compile(r"^(?:inline |static |constexpr |PHASESIM_HD )*[A-Za-z][\w:<>,*& ]*?[ *&](\w+)\(")
NAMESPACE = re.compile(r"^namespace ([\w:]+) \{")
INCLUDE = re.compile(r'^\s*#\s*include\s+"(phasesim/([a-z_]+)/|phasesim/version\.hpp|cli/|commands/)')


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


def code_only(text: str) -> str:
    """The text with comments, string and character literals and preprocessor lines blanked
    (newlines kept), so that braces count as code."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif (raw := re.match(r'R"([^(\s]*)\(', text[i:i + 20])) and (i == 0 or not (
                text[i - 1].isalnum() or text[i - 1] == "_")):
            end = ")" + raw.group(1) + '"'
            j = text.find(end, i + raw.end())
            j = n if j < 0 else j + len(end)
        elif text[i] in "\"'" and not (text[i] == "'" and i and text[i - 1].isalnum()):
            j = i + 1
            while j < n and text[j] != text[i]:
                j += 2 if text[j] == "\\" else 1
            j += 1
        elif text[i] == "#" and not text[text.rfind("\n", 0, i) + 1:i].strip():
            j = i
            while True:
                k = text.find("\n", j)
                k = n if k < 0 else k
                if text[k - 1:k] != "\\":
                    break
                j = k + 1
            j = k
        else:
            out.append(text[i])
            i += 1
            continue
        out.append(re.sub(r"[^\n]", " ", text[i:j]))
        i = j
    return "".join(out)


def functions(text: str) -> list[tuple[str, int, int]]:
    """(name, first line, last line) of every function body at namespace or class scope
    (lambdas and local classes count as part of the function they are in)."""
    code = code_only(text)
    stack, last, found = [], 0, []
    for i, c in enumerate(code):
        if c == ";":
            last = i + 1
        elif c == "{":
            kind, name = "block", ""
            if not stack or stack[-1][0] in ("namespace", "class"):
                header = code[last:i].strip()
                keyword = re.search(r"\b(class|struct|union|enum)\b", header)
                if re.match(r'(inline\s+)?namespace\b|extern\s+"', header):
                    kind = "namespace"
                elif keyword and "(" not in header[:keyword.start()]:
                    kind = "class"
                elif ")" in header and not re.search(r"=\s*\[|=\s*$", header):
                    kind = "function"
                    match = re.search(r"([~\w:]+|operator\s*\S+?)\s*\(",
                                      re.sub(r"template\s*<[^{]*?>\s*", "", header))
                    name = match.group(1) if match else "?"
                else:
                    kind = "data"
            start = last + len(code[last:i]) - len(code[last:i].lstrip())
            stack.append((kind, code.count("\n", 0, start) + 1, name))
            last = i + 1
        elif c == "}":
            if stack:
                kind, first, name = stack.pop()
                if kind == "function":
                    found.append((name, first, code.count("\n", 0, i) + 1))
            last = i + 1
    return found


def sized_sources(root: pathlib.Path):
    """(path, relative path, lines, whether the file limit applies) of every C++ source whose
    functions are bounded."""
    for path in sorted(root.glob("**/*")):
        rel = path.relative_to(root)
        if path.suffix not in (".cpp", ".hpp", ".cu", ".cuh"):
            continue
        layered = rel.parts[0] in ("include", "theory", "sim")
        door = any(str(rel).startswith(d + "/") and len(rel.parts) == len(pathlib.Path(d).parts) + 1
                   for d in FRONT_DOORS)
        if layered or door:
            yield path, rel, path.read_text(), layered


def size_problems(root: pathlib.Path) -> list[str]:
    bad = []
    for _, rel, text, layered in sized_sources(root):
        lines = text.count("\n")
        if layered and lines > MAX_FILE_LINES:
            bad.append(f"{rel}: {lines} lines (at most {MAX_FILE_LINES}: split it by concept)")
        for name, first, end in functions(text):
            if end - first + 1 > MAX_FUNCTION_LINES:
                bad.append(f"{rel}:{first}: function {name} is {end - first + 1} lines (at most "
                           f"{MAX_FUNCTION_LINES}: split it into steps)")
    return bad


def print_sizes(root: pathlib.Path) -> int:
    files, funcs = [], []
    for _, rel, text, layered in sized_sources(root):
        files.append((text.count("\n"), str(rel)))
        funcs += [(end - first + 1, f"{rel}:{first}", name) for name, first, end in functions(text)]
    print("longest files:")
    for n, f in sorted(files, reverse=True)[:10]:
        print(f"  {n:5d}  {f}")
    print("longest functions:")
    for n, where, name in sorted(funcs, reverse=True)[:10]:
        print(f"  {n:5d}  {where}  {name}")
    return 0


def main() -> int:
    root = pathlib.Path(__file__).resolve().parent.parent
    if sys.argv[1:] == ["--sizes"]:
        return print_sizes(root)
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
            private = {"cli/": "cli", "commands/": "commands"}
            target = match.group(2) or private.get(match.group(1), "core")
            if target != layer and target not in ALLOWED[layer]:
                bad.append(f"{rel}:{number}: layer '{layer}' includes '{target}' ({line.strip()})")
    bad += concept_problems(defined)
    bad += size_problems(root)
    if bad:
        print("check-architecture:\n" + "\n".join(bad))
        return 1
    print("check-architecture: includes point down the layers, each layer in its namespace, "
          "every concept defined once, no raw OpenMP loop, command files within " +
          str(MAX_COMMAND_LINES) + " lines, files within " + str(MAX_FILE_LINES) +
          " and functions within " + str(MAX_FUNCTION_LINES))
    return 0


if __name__ == "__main__":
    sys.exit(main())
