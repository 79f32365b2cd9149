"""The parts of :mod:`kmlteach.course.release` that decide what a solution is: the markers,
the solution lines of a notebook, and the last check of a released notebook (no solution
line repeated anywhere in it, cell metadata included)."""

from __future__ import annotations

import functools
import keyword
from pathlib import Path

BEGIN = "### BEGIN SOLUTION"
END = "### END SOLUTION"


class ReleaseError(ValueError):
    """A notebook cannot be released safely, or the command is wrong (one-line message)."""


def solution_lines(nb: dict) -> list[str]:
    """The stripped, non-blank lines inside solution blocks of a notebook's code cells."""
    found, inside = [], False
    for cell in nb.get("cells", []):
        for line in _text(cell.get("source", "")).splitlines():
            s = line.strip()
            if s in (BEGIN, END):
                inside = s == BEGIN
            elif inside and s:
                found.append(s)
        inside = False
    return found


def _trivial(line: str) -> bool:
    """A line that tells nothing about a solution: punctuation or a bare keyword (``pass``)."""
    word = line.rstrip(":").strip()
    return not any(ch.isalnum() for ch in line) or keyword.iskeyword(word)


def _text(src) -> str:
    if isinstance(src, list) and all(isinstance(s, str) for s in src):
        return "".join(src)
    if isinstance(src, str):
        return src
    raise ReleaseError(f"cell source is {type(src).__name__}, not text")


def _strings(obj):
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield str(k)
            yield from _strings(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _strings(v)


@functools.lru_cache(maxsize=1)
def library_lines() -> frozenset[str]:
    """The stripped lines of the modules the course ships as its library (``kmlteach/``
    outside ``exercises/`` and ``course/``: algorithms, plots, widgets, data sets). A
    solution line that is one of them (``for i in range(r):``) gives nothing away: the
    library is public, and a chapter's own code may repeat it."""
    pkg = Path(__file__).resolve().parents[1]
    return frozenset(
        line.strip()
        for path in pkg.rglob("*.py")
        if path.relative_to(pkg).parts[0] not in ("exercises", "course")
        for line in path.read_text(encoding="utf-8").splitlines()
    )


def _assert_no_solution_line(nb: dict, out: dict, name: str) -> None:
    lines = [s for s in solution_lines(nb) if not _trivial(s) and s not in library_lines()]
    if not lines:
        return
    for i, cell in enumerate(out["cells"]):
        for text in _strings(cell):
            for s in lines:
                if s in text:
                    raise ReleaseError(
                        f"{name}, cell {i}: repeats a line of a solution ({s[:40]!r}) outside its markers"
                    )
