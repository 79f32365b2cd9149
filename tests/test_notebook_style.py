"""Notebook style that spans chapters: one import alias per module across the notebooks.

A student who meets ``kernels`` as ``kk`` in chapter 02 should not have to learn ``kr`` for
the same module in chapter 03. The test scans every notebook source ``notebooks/src/*.py``
for ``import kmlteach.X as Y`` and ``from kmlteach[.P] import X as Y`` and fails when one
module is bound to two names.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted((ROOT / "notebooks" / "src").glob("[0-9][0-9]-*.py"))

_IMPORT = re.compile(r"^\s*import\s+(kmlteach(?:\.\w+)+)\s+as\s+(\w+)\s*$")
_FROM = re.compile(r"^\s*from\s+(kmlteach(?:\.\w+)*)\s+import\s+(.+?)\s*$")


def aliases(text: str) -> list[tuple[str, str]]:
    """(module, alias) for every aliased kmlteach import in ``text``."""
    out = []
    for line in text.splitlines():
        line = line.split("#", 1)[0]
        m = _IMPORT.match(line)
        if m:
            out.append((m.group(1), m.group(2)))
            continue
        m = _FROM.match(line)
        if m:
            for part in m.group(2).strip("()").split(","):
                bits = part.split()
                if len(bits) == 3 and bits[1] == "as":
                    out.append((f"{m.group(1)}.{bits[0]}", bits[2]))
    return out


def test_the_scanner_reads_both_import_forms():
    text = ("import kmlteach.kernels as kk\n"
            "from kmlteach import kernels as kr, svm\n"
            "from kmlteach.plots import ch01 as p1  # a comment\n"
            "import numpy as np\n")
    assert aliases(text) == [("kmlteach.kernels", "kk"), ("kmlteach.kernels", "kr"),
                             ("kmlteach.plots.ch01", "p1")]


def test_one_alias_per_module_across_the_notebooks():
    assert len(SOURCES) >= 10, "notebook sources not found"
    seen: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    n = 0
    for src in SOURCES:
        for module, alias in aliases(src.read_text(encoding="utf-8")):
            seen[module][alias].append(src.name)
            n += 1
    assert n >= 5, "too few aliased imports found: is the scanner reading the notebooks?"
    clashes = {m: dict(a) for m, a in seen.items() if len(a) > 1}
    assert not clashes, f"one module imported under several aliases: {clashes}"
