#!/usr/bin/env python3
"""Writes the type stubs of the phasesim package from the built module (Stim's
util_gen_stub_file.py is the pattern): every public function with its real signature, defaults
and docstring, as `inspect` finds them. scripts/regen-references.sh writes them to
python/phasesim/__init__.pyi; ctest references fails when the checked-in copy differs.

usage: PYTHONPATH=build/python python3 python/gen_stubs.py > python/phasesim/__init__.pyi"""
import inspect
import os
import sys

# The built package (PYTHONPATH), not the sources beside this script.
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path = [p for p in sys.path if os.path.abspath(p or ".") != HERE]
import phasesim  # noqa: E402

HEADER = '''\
# Type stubs of the phasesim package, generated from the built module by python/gen_stubs.py
# (scripts/regen-references.sh): do not edit. ctest references fails when they differ.
import os
from typing import Any, Mapping, Optional, Sequence, Union

Document = dict[str, Any]

__version__: str
'''


def annotation(a):
    if isinstance(a, type):
        return a.__name__
    return str(a).replace("typing.", "").replace("NoneType", "None")


def parameter(p):
    text = p.name
    if p.annotation is not inspect.Parameter.empty:
        text += ": " + annotation(p.annotation)
    if p.default is not inspect.Parameter.empty:
        text += " = " + repr(p.default)
    return text


def stub(function):
    signature = inspect.signature(function)
    words, keyword_only = [], False
    for p in signature.parameters.values():
        if p.kind is inspect.Parameter.KEYWORD_ONLY and not keyword_only:
            words.append("*")
            keyword_only = True
        words.append(parameter(p))
    arguments = "".join(f"\n    {w}," for w in words)
    returns = annotation(signature.return_annotation).replace("dict[str, Any]", "Document")
    doc = inspect.getdoc(function).replace('"""', "'''")
    body = "\n".join("    " + line if line else "" for line in doc.splitlines())
    return f'\ndef {function.__name__}({arguments}\n) -> {returns}:\n    """{body.lstrip()}\n    """\n'


def main():
    out = [HEADER]
    for name in phasesim.__all__:
        if name != "__version__":
            out.append(stub(getattr(phasesim, name)))
    sys.stdout.write("".join(out))


if __name__ == "__main__":
    main()
