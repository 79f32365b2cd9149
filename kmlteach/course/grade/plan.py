"""What the grader does for one chapter: exercises, points, cases and expected values.

Built once per chapter and grading run, in the grader's process: the cases (the
visible ones of ``kmlteach.exercises`` and the hidden ones of ``cases/chNN.py``) and
the reference's outputs on them. Only the cases' arguments are ever sent to a kernel.
"""

from __future__ import annotations

import contextlib
import functools
import glob
import importlib
import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..book import load as load_book
from . import cases as hidden
from .cells import check_calls, notebook_code_cells
from .codec import encode
from .inkernel.disarm import guard_target

__all__ = [
    "GradeCase",
    "ExercisePlan",
    "ChapterPlan",
    "chapter_plan",
    "student_plan",
    "book_exercises",
    "reference_files",
]


@dataclass(frozen=True)
class GradeCase:
    visible: bool
    label: str  # visible: its description; hidden: its kind only
    encoded: list  # [args, kwargs] as sent to the kernel
    expected: Any  # the reference's output (never sent anywhere)


@dataclass(frozen=True)
class ExercisePlan:
    id: str
    title: str
    points: float
    partial: bool
    function: str
    cases: tuple[GradeCase, ...]
    hint: str


@dataclass(frozen=True)
class ChapterPlan:
    chapter: str
    exercises: tuple[ExercisePlan, ...]
    guards: dict
    spared: dict = field(default_factory=dict)  # {path: [ids]}: helpers a guard's walk leaves

    @property
    def max_total(self) -> float:
        return float(sum(e.points for e in self.exercises))


def book_exercises(book_path=None) -> dict[str, list[dict]]:
    """``{chapter id: [{"id", "points", "partial"}, ...]}`` from ``book.toml``."""
    b = load_book(book_path)
    return {c.id: [dict(e) for e in c.exercises] for c in b.chapters if c.exercises}


@functools.cache
def _names(book_path, chapter: str) -> dict[str, str]:
    return _instructor_functions(book_path, chapter)


def _instructor_functions(book_path, chapter: str) -> dict[str, str]:
    b = load_book(book_path)
    try:
        nb_path = Path(b.root) / b.chapter(chapter).notebook
        nb = json.loads(nb_path.read_text(encoding="utf-8"))
    except (KeyError, OSError, ValueError):
        return {}
    return check_calls(notebook_code_cells(nb))


@functools.cache
def chapter_plan(chapter: str, book_path: str | None = None) -> ChapterPlan:
    """The plan of a chapter (cached). Raises ``KeyError`` for an unknown chapter."""
    return _plan(chapter, book_path)


def student_plan(chapter: str, book_path: str | None, secret: bytes, submission: str) -> ChapterPlan:
    """The plan of one submission under ``grade --secret``: the chapter's visible cases and
    hidden cases drawn from :func:`.cases.student_seed` (same kinds, the submission's own
    inputs); the expected values are the reference's on them."""
    return _plan(chapter, book_path, lambda ex_id: hidden.student_seed(secret, submission, ex_id))


@functools.cache
def _visible(ex_id: str) -> tuple:
    from kmlteach.exercises import get

    ex = get(ex_id)
    return tuple(
        GradeCase(
            True,
            f"visible case {i}: {c.describe()}",
            encode(c.args, c.kwargs),
            ex.reference(*_copy(c.args), **_copy(c.kwargs)),
        )
        for i, c in enumerate(ex.all_cases(), 1)
    )


def _plan(chapter: str, book_path, seed_of=None) -> ChapterPlan:
    from kmlteach.exercises import get

    entries = book_exercises(book_path).get(chapter)
    if not entries:
        raise KeyError(chapter)
    names = _names(book_path, chapter)
    plans = []
    for entry in entries:
        ex = get(entry["id"])
        if ex is None:
            raise KeyError(entry["id"])
        cases = list(_visible(ex.id))
        for h in hidden.hidden_cases(ex.id, None if seed_of is None else seed_of(ex.id)):
            cases.append(
                GradeCase(
                    False, h.kind, encode(h.args, h.kwargs), ex.reference(*_copy(h.args), **_copy(h.kwargs))
                )
            )
        plans.append(
            ExercisePlan(
                id=ex.id,
                title=ex.title,
                points=float(entry.get("points", 1)),
                partial=bool(entry.get("partial", False)),
                function=names.get(ex.id) or getattr(ex.reference, "__name__", ex.id),
                cases=tuple(cases),
                hint=_first_hint(ex),
            )
        )
    return ChapterPlan(chapter, tuple(plans), hidden.guards(chapter), hidden.spared(chapter))


def _first_hint(ex) -> str:
    """The first hint level (the later ones come close to the solution), and where the
    others are."""
    levels = ex.hints
    more = (
        f' (more: `hint("{ex.id}", level=2)` in the notebook, as its checks say)' if len(levels) > 1 else ""
    )
    return levels[0] + more


def _copy(v):
    import copy

    return copy.deepcopy(v)


def reference_files(guards) -> dict[str, list[str]]:
    """``{exercise: files}``: what a probe's child grading that exercise may not read, on top
    of the policy: the source, bytecode and Numba cache files of the modules that define the
    library functions it re-implements (``guards``: ``{library path: [exercise ids]}``, from
    ``grade/cases/chNN.py``'s ``GUARDS``). Red team 4: with them readable, a child loaded a
    copy of a reference again from its file (``spec_from_file_location`` on
    ``svm/margins.py``, or ``subprocess.run([sys.executable, ...])``) and scored 3.4 points
    with nothing implemented. Found here, in the grader, which has those modules imported
    for the expected values; the kernel imports them only for a submission whose code
    imports the package (``inkernel/server.py``), and its children are denied the files
    either way (``inkernel/lock.py``). Their denial is the one rule of a child's
    file access that is not in ``isolation/policy.py``, as it depends on the exercise.
    Made at each kernel's start (a few milliseconds), so a cache file Numba wrote since is
    on the list."""
    files: dict[str, set] = {}
    for path, ids in (guards or {}).items():
        modname = path.rpartition(".")[0]
        with contextlib.suppress(Exception):
            obj = guard_target(path, importlib.import_module)
            home = sys.modules.get(getattr(getattr(obj, "py_func", obj), "__module__", modname))
            modname = modname if modname in sys.modules else home.__name__  # Class.method
            for name in {modname, getattr(home, "__name__", modname)}:
                f = getattr(sys.modules.get(name), "__file__", None)
                if f and not f.endswith("__init__.py"):
                    stem = os.path.splitext(os.path.basename(f))[0]
                    # the source, its bytecode and Numba's cache files of its functions
                    cached = os.path.join(os.path.dirname(f), "__pycache__", glob.escape(stem) + ".*")
                    for ex in ids:
                        files.setdefault(ex, set()).add(os.path.realpath(f))
                        files[ex].update(os.path.realpath(p) for p in glob.glob(cached))
    return {ex: sorted(fs) for ex, fs in files.items()}
