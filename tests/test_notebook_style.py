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
    text = (
        "import kmlteach.kernels as kk\n"
        "from kmlteach import kernels as kr, svm\n"
        "from kmlteach.plots import ch01 as p1  # a comment\n"
        "import numpy as np\n"
    )
    assert aliases(text) == [
        ("kmlteach.kernels", "kk"),
        ("kmlteach.kernels", "kr"),
        ("kmlteach.plots.ch01", "p1"),
    ]


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


# -- the glossary ------------------------------------------------------------------------
GLOSSARY = ROOT / "docs" / "glossary.md"
# symbols the sources overload, and the least number of meanings the glossary must give them
OVERLOADED = {"γ": 6, "ρ": 5, "η": 3, "ψ, Ψ": 3, "λ": 2, "σ": 2, "C": 2}


def _first_markdown_cell(src: Path) -> str:
    text = src.read_text(encoding="utf-8")
    first = text.split("# %%", 2)[1]
    assert first.startswith(" [markdown]"), f"{src.name}: the first cell is not Markdown"
    return first


def test_every_chapter_links_the_glossary_from_its_opening_cell():
    missing = [s.name for s in SOURCES if "](../docs/glossary.md)" not in _first_markdown_cell(s)]
    assert not missing, f"no glossary link in the opening cell of {missing}"


def _overloaded_rows() -> dict[str, list[str]]:
    """Symbol → its meaning rows in the glossary's first table (continuation rows start '| |')."""
    text = GLOSSARY.read_text(encoding="utf-8")
    table = text.split("## Symbols with more than one meaning", 1)[1].split("\n## ", 1)[0]
    rows: dict[str, list[str]] = {}
    current = None
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or set(line) <= set("|- ") or cells[0] == "Symbol":
            continue
        if cells[0]:
            current = cells[0].replace("*", "").replace("⚠", "").strip()
            rows[current] = []
        rows[current].append(f"{cells[1]} | {cells[2]}")
    return rows


def test_the_glossary_flags_every_overloaded_symbol_with_each_meaning_and_where():
    rows = _overloaded_rows()
    for sym, n in OVERLOADED.items():
        assert sym in rows, f"{sym} is missing from the table of overloaded symbols"
        assert len(rows[sym]) >= n, f"{sym}: {len(rows[sym])} meanings listed, expected {n}"
    for sym, meanings in rows.items():
        assert len(meanings) >= 2, f"{sym} is listed as overloaded with one meaning"
        for m in meanings:
            assert re.search(r"\b0\d\b", m.split(" | ")[1]), f"{sym}: no chapter for '{m}'"


def test_the_glossary_has_a_section_per_chapter_and_flags_changes_there():
    text = GLOSSARY.read_text(encoding="utf-8")
    flagged = set(_overloaded_rows())
    for src in SOURCES:
        nn = src.name[:2]
        m = re.search(rf"^## {nn} · .*?(?=^## |\Z)", text, re.M | re.S)
        assert m, f"the glossary has no section for chapter {nn}"
        assert "|" in m.group(0), f"chapter {nn}'s glossary section has no table"
    # every symbol flagged ⚠ in a chapter table is one of the overloaded ones
    letters = {ch for f in flagged for ch in f if ch.isalpha()}
    chapters = text.split("## 00 ·", 1)[1]
    firsts = [ln.strip().strip("|").split("|")[0] for ln in chapters.splitlines() if "⚠" in ln]
    assert len(firsts) >= 30, "too few flags in the chapter tables"
    for cell in firsts:
        for part in cell.split("⚠")[:-1]:
            depth, items, cur = 0, [], ""
            for ch in part:  # the last top-level comma item before ⚠
                depth += ch in "([{"
                depth -= ch in ")]}"
                if ch == "," and depth == 0:
                    items.append(cur)
                    cur = ""
                else:
                    cur += ch
            sym = (items + [cur])[-1].strip()
            assert sym[0] in letters, f"{sym} is flagged in a chapter but not in the first table"
