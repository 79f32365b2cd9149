"""Reading time of a chapter, computed from its notebook (``reading_minutes`` in book.toml).

One rate for every chapter: the prose of the Markdown cells is read at
``WORDS_PER_MINUTE``, and each display equation, figure and widget adds a fixed time
(``MINUTES_PER_EQUATION``, ``MINUTES_PER_FIGURE``, ``MINUTES_PER_WIDGET``); the total is
rounded up to a multiple of ``ROUND_TO`` minutes. book.toml's header states the same
numbers, and tests/test_course_reading.py checks that every ``reading_minutes`` line equals
what this module computes from the stored notebook.

What counts:

* **prose**: the words of the Markdown cells outside the chapter's *Exercises* section
  (reading an exercise is part of its own ``minutes``) and its closing list of references
  (*Sources and further reading*); inline math ``$…$`` is one word,
  display math ``$$…$$`` is an equation, not words; link targets are not words;
* **equations**: the display-math blocks ``$$…$$`` of those cells;
* **widgets**: the code cells whose output holds a widget view;
* **figures**: the PNG images in the outputs of the other code cells.

``python -m kmlteach.course.reading`` prints the counts; ``--update`` rewrites the
``reading_minutes`` lines of book.toml (and nothing else).
"""

from __future__ import annotations

import json
import math
import re
import sys
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "WORDS_PER_MINUTE",
    "MINUTES_PER_EQUATION",
    "MINUTES_PER_FIGURE",
    "MINUTES_PER_WIDGET",
    "ROUND_TO",
    "ReadingCounts",
    "count",
    "update_book",
]

WORDS_PER_MINUTE = 100  # careful reading of technical prose with inline mathematics
MINUTES_PER_EQUATION = 1.0  # a display equation, read and checked against the text
MINUTES_PER_FIGURE = 1.0  # a static figure and its caption
MINUTES_PER_WIDGET = 3.0  # a widget, moved through a few settings
ROUND_TO = 5  # the estimate is rounded up to a multiple of this

_WIDGET = "application/vnd.jupyter.widget-view+json"
_DISPLAY = re.compile(r"\$\$.*?\$\$", re.S)
_INLINE = re.compile(r"\$[^$\n]+\$")
_LINK_TARGET = re.compile(r"\]\([^)]*\)")
_WORD = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*")
_SECTION = re.compile(r"^##\s+(.+)$", re.M)
_NOT_READ = ("Exercises", "Sources and further reading")  # sections left out of the prose


@dataclass(frozen=True)
class ReadingCounts:
    """What a chapter asks the reader to read: words, display equations, figures, widgets."""

    words: int
    equations: int
    figures: int
    widgets: int

    @property
    def exact_minutes(self) -> float:
        """Words at ``WORDS_PER_MINUTE`` plus the fixed time of every equation, figure, widget."""
        return (
            self.words / WORDS_PER_MINUTE
            + self.equations * MINUTES_PER_EQUATION
            + self.figures * MINUTES_PER_FIGURE
            + self.widgets * MINUTES_PER_WIDGET
        )

    @property
    def minutes(self) -> int:
        """``exact_minutes`` rounded up to a multiple of ``ROUND_TO`` (at least ``ROUND_TO``)."""
        return max(ROUND_TO, ROUND_TO * math.ceil(self.exact_minutes / ROUND_TO - 1e-9))


def _source(cell) -> str:
    s = cell.get("source", "")
    return "".join(s) if isinstance(s, list) else s


def count(notebook: str | Path) -> ReadingCounts:
    """Count the prose words, display equations, figures and widgets of a stored notebook."""
    path = Path(notebook)
    if path.suffix != ".ipynb":
        raise ValueError(f"notebook must be an .ipynb file, got {str(notebook)!r}")
    if not path.is_file():
        raise ValueError(f"notebook {str(notebook)!r} does not exist")
    try:
        nb = json.loads(path.read_text(encoding="utf-8"))
        cells = nb["cells"]
    except (ValueError, KeyError, TypeError):
        raise ValueError(f"notebook {str(notebook)!r} is not a notebook file") from None
    words = equations = figures = widgets = 0
    skipping = False
    for cell in cells:
        src = _source(cell)
        if cell.get("cell_type") == "markdown":
            heads = _SECTION.findall(src)
            if heads:
                skipping = any(name in heads[0] for name in _NOT_READ)
            if skipping:
                continue
            equations += len(_DISPLAY.findall(src))
            text = _LINK_TARGET.sub("]", _INLINE.sub(" x ", _DISPLAY.sub(" ", src)))
            words += len(_WORD.findall(text))
        elif cell.get("cell_type") == "code":
            outputs = cell.get("outputs", [])
            if any(_WIDGET in (o.get("data") or {}) for o in outputs):
                widgets += 1
            else:
                figures += sum("image/png" in (o.get("data") or {}) for o in outputs)
    return ReadingCounts(words, equations, figures, widgets)


_LINE = re.compile(r"^(reading_minutes\s*=\s*)(\d+)(.*)$")


def update_book(path: str | Path | None = None) -> dict[str, tuple[int, int]]:
    """Rewrite the ``reading_minutes`` lines of book.toml from the notebooks.

    Returns {chapter id: (old, new)} for the chapters whose value changed. Only those lines
    change; a chapter whose notebook is missing keeps its value.
    """
    from . import book as _book

    bk = _book.load(path)
    p = Path(path) if path else bk.root / "book.toml"
    lines = p.read_text(encoding="utf-8").split("\n")
    changed: dict[str, tuple[int, int]] = {}
    current = None
    for i, line in enumerate(lines):
        m_id = re.match(r'^id\s*=\s*"(\w+)"', line)
        if m_id:
            current = m_id.group(1)
        m = _LINE.match(line)
        if m and current is not None:
            nb = bk.root / bk.chapter(current).notebook
            if not nb.is_file():
                continue
            new = count(nb).minutes
            if new != int(m.group(2)):
                changed[current] = (int(m.group(2)), new)
                lines[i] = f"{m.group(1)}{new}{m.group(3)}"
    if changed:
        p.write_text("\n".join(lines), encoding="utf-8")
    return changed


def _main(argv: list[str]) -> int:
    from . import book as _book

    if "--update" in argv:
        for cid, (old, new) in update_book().items():
            print(f"chapter {cid}: reading_minutes {old} -> {new}")
        return 0
    bk = _book.load()
    print("chapter  words  equations  figures  widgets  minutes (exact)")
    for c in bk.chapters:
        nb = bk.root / c.notebook
        if nb.is_file():
            n = count(nb)
            print(
                f"{c.id:>7}  {n.words:5d}  {n.equations:9d}  {n.figures:7d}  {n.widgets:7d}  "
                f"{n.minutes:3d} ({n.exact_minutes:.1f})"
            )
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
