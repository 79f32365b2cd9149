"""One record per exercise: where each part of an exercise is defined, once.

An exercise used to live in five places (the chapter module, ``book.toml``, the
notebook, the grader's cases and tests that kept the copies in step). Now:

=====================  =========================================  ==================
part                   defined in                                 student edition
=====================  =========================================  ==================
id, title, points,     ``records/chNN.toml`` (``[[exercise]]``)   yes
minutes, partial,
compare, prepare,
hints but the last
last hint level        the same record, key ``hint_last``         after ``reveal``
catalogued mistakes    the record, ``mistakes = [{name, explain,  name, explain, kind
                       wrong | predicate, kind}]``                and the wrong
                                                                  outputs
reference, visible     functions of ``chNN.py`` that the record   visible cases with
cases                  names (``reference``, ``cases_from``)      expected outputs
                                                                  as data
solution text          the notebook source's solution block,      after ``reveal``
                       ``notebooks/src/NN-slug.py``
hidden cases, guards   ``kmlteach/course/grade/cases/chNN.py``    never
concept checks, quiz   ``records/chNN.toml`` (``[[question]]``)   yes
=====================  =========================================  ==================

``book.toml`` lists chapters only: :mod:`kmlteach.course.book` reads each chapter's
exercises (ids, points, minutes, partial) from these records, so the nbgrader metadata
(``execute --metadata-only``), the course map and the grader all see the same numbers.

**Why the notebook holds the solution text.** The solution a student sees with
``solution(id)`` must be the one the instructor notebook runs: nbval executes it and
``check`` passes it on every build, and the grader's own test scores it on the hidden
cases. Keeping the text only there means no copy can drift, and the release's
leak check (no solution line outside its markers) already guards it. The reference in
``chNN.py`` is a separate, defensive implementation (it accepts lists, casts types) and
is checked against the notebook's solution case by case by the tests.

**Why the rest is data.** The student edition (``python -m kmlteach publish-student``)
is cut from these records mechanically: :func:`student_record` drops
:data:`INSTRUCTOR_ONLY` keys and a mistake's ``wrong`` implementation, and the
publisher adds each visible case's arguments and expected output (and each wrong
implementation's output) as plain data, so ``check`` works with no reference code.
"""

from __future__ import annotations

import ast
import json
import re
import tomllib
from pathlib import Path
from typing import Any

__all__ = [
    "RECORDS",
    "SOURCES",
    "INSTRUCTOR_ONLY",
    "chapter_files",
    "load_chapter",
    "exercise_entries",
    "student_record",
    "solution_texts",
    "BEGIN",
    "END",
]

RECORDS = Path(__file__).with_name("records")
"""The folder of ``chNN.toml`` (instructor) or ``chNN.json`` (student edition) records."""

SOURCES = Path(__file__).resolve().parents[2] / "notebooks" / "src"
"""The instructor notebook sources, where the solution texts are (absent in the student edition)."""

INSTRUCTOR_ONLY = ("hint_last", "reference", "cases_from")
"""Exercise keys a student edition never holds before ``reveal`` (beside mistakes' ``wrong``)."""

BEGIN = "### BEGIN SOLUTION"
END = "### END SOLUTION"
_ID = re.compile(r"^(\d{2})\.\w+$")
_REVEALED = "revealed-ch{}.json"


def chapter_files(folder: Path | None = None) -> dict[str, Path]:
    """``{chapter: record file}``; a ``.toml`` record wins over a ``.json`` one."""
    folder = Path(folder) if folder else RECORDS
    found: dict[str, Path] = {}
    for path in sorted(folder.glob("ch[0-9][0-9].json")) + sorted(folder.glob("ch[0-9][0-9].toml")):
        found[path.stem[2:]] = path
    return dict(sorted(found.items()))


def _need(rec: dict, key: str, kind, where: str, default: Any = ...) -> Any:
    if key not in rec:
        if default is ...:
            raise ValueError(f"{where}: {key} is missing")
        return default
    v = rec[key]
    if not isinstance(v, kind) or (kind is int and isinstance(v, bool)):
        raise ValueError(f"{where}: {key} must be {getattr(kind, '__name__', kind)}, got {v!r}")
    return v


def _check_exercise(rec: dict, chapter: str, where: str) -> dict:
    if not isinstance(rec, dict):
        raise ValueError(f"{where}: an exercise record must be a table")
    ex_id = _need(rec, "id", str, where)
    where = f"{where}, exercise {ex_id!r}"
    m = _ID.match(ex_id)
    if not m or m.group(1) != chapter:
        raise ValueError(f"{where}: id must look like '{chapter}.name'")
    _need(rec, "title", str, where)
    for key in ("points", "minutes"):
        if _need(rec, key, int, where) < 0:
            raise ValueError(f"{where}: {key} must be a non-negative integer, got {rec[key]!r}")
    _need(rec, "partial", bool, where, False)
    hints = _need(rec, "hints", list, where)
    if not all(isinstance(h, str) and h for h in hints):
        raise ValueError(f"{where}: hints must be non-empty strings")
    _need(rec, "hint_last", str, where, "")
    for i, mistake in enumerate(_need(rec, "mistakes", list, where, [])):
        w = f"{where}, mistake {i + 1}"
        if not isinstance(mistake, dict):
            raise ValueError(f"{w}: must be a table {{name, explain, wrong | predicate}}")
        _need(mistake, "name", str, w)
        _need(mistake, "explain", str, w)
        if _need(mistake, "kind", str, w, "mistake") not in ("mistake", "convention"):
            raise ValueError(
                f"{w}: kind must be 'mistake' (the default) or 'convention', got {mistake['kind']!r}"
            )
        if sum(k in mistake for k in ("wrong", "predicate", "outputs")) != 1:
            raise ValueError(
                f"{w}: give exactly one of wrong (a function of chNN.py) or "
                "predicate (a name in kmlteach.exercises.compare)"
            )
    return rec


def load_chapter(path: str | Path) -> dict:
    """The checked records of one chapter file: ``{"exercise": [...], "question": [...]}``."""
    path = Path(path)
    chapter = path.stem[2:]
    try:
        text = path.read_text(encoding="utf-8")
        data = tomllib.loads(text) if path.suffix == ".toml" else json.loads(text)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ValueError(f"{path}: cannot read the exercise records ({exc})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: the exercise records must be a table")
    exercises = [_check_exercise(r, chapter, str(path)) for r in data.get("exercise", [])]
    ids = [r["id"] for r in exercises]
    if len(set(ids)) != len(ids):
        raise ValueError(f"{path}: an exercise id is listed twice")
    revealed = path.with_name(_REVEALED.format(chapter))
    if revealed.is_file():
        extra = json.loads(revealed.read_text(encoding="utf-8"))
        exercises = [{**r, **extra.get(r["id"], {})} for r in exercises]
    return {"exercise": exercises, "question": list(data.get("question", []))}


def exercise_entries(folder: str | Path | None = None) -> dict[str, list[dict]]:
    """``{chapter: [{"id", "points", "minutes", "partial"}, ...]}`` in record order
    (what ``book.toml`` used to list)."""
    out = {}
    for chapter, path in chapter_files(Path(folder) if folder else None).items():
        entries = [
            {
                "id": r["id"],
                "points": r["points"],
                "minutes": r["minutes"],
                "partial": r.get("partial", False),
            }
            for r in load_chapter(path)["exercise"]
        ]
        if entries:
            out[chapter] = entries
    return out


def student_record(rec: dict) -> dict:
    """An exercise record without its instructor-only parts (no case data yet)."""
    out = {k: v for k, v in rec.items() if k not in INSTRUCTOR_ONLY and k != "solution"}
    out["mistakes"] = [{k: v for k, v in m.items() if k != "wrong"} for m in rec.get("mistakes", [])]
    return out


# --- the solution texts: the notebook sources' solution blocks ---------------------------


def _cells(text: str) -> list[str]:
    """The code cells of a jupytext py:percent source."""
    cells, cur, code = [], [], False
    for line in text.splitlines(keepends=True):
        if line.startswith("# %%"):
            if code:
                cells.append("".join(cur))
            cur, code = [], "[markdown]" not in line and "[raw]" not in line
        else:
            cur.append(line)
    if code:
        cells.append("".join(cur))
    return cells


_CHECK = re.compile(r"""^check\(\s*["'](\d{2}\.\w+)["']\s*,\s*(\w+)""", re.M)


def solution_texts(chapter: str, sources: str | Path | None = None) -> dict[str, str]:
    """``{exercise id: the function holding its solution block, markers removed, after the
    cell's own imports}`` from the chapter's notebook source (empty when the source is not
    there: a student edition)."""
    folder = Path(sources) if sources else SOURCES
    paths = sorted(folder.glob(f"{chapter}-*.py")) if folder.is_dir() else []
    out: dict[str, str] = {}
    for path in paths:
        for cell in _cells(path.read_text(encoding="utf-8")):
            if BEGIN not in cell:
                continue
            lines = cell.splitlines(keepends=True)
            nodes = ast.parse(cell).body
            imports = [
                "".join(lines[n.lineno - 1 : n.end_lineno])
                for n in nodes
                if isinstance(n, (ast.Import, ast.ImportFrom))
                and not (getattr(n, "module", "") or "").startswith("kmlteach.exercises")
            ]
            for ex_id, name in _CHECK.findall(cell):
                for node in nodes:
                    if isinstance(node, ast.FunctionDef) and node.name == name:
                        body = lines[node.lineno - 1 - len(node.decorator_list) : node.end_lineno]
                        text = "".join(ln for ln in body if ln.strip() not in (BEGIN, END))
                        out[ex_id] = "".join(imports) + ("\n\n" if imports else "") + text
    return out
