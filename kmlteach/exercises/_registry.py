"""Build the registry from the records: :class:`Exercise` and :class:`Question` objects.

For each record file (:func:`kmlteach.exercises.record.chapter_files`): an instructor
record (``chNN.toml``) gets its reference and visible cases from the functions of
``chNN.py`` it names (``reference``, ``cases_from``) and its solution text from the
notebook source; a student record
(``chNN.json``) carries its visible cases with their expected outputs as data, and no
reference. ``core`` calls :func:`load_all` once, on first use of the registry.
"""

from __future__ import annotations

import importlib

from . import record
from ._plain import from_plain
from .compare import comparator, predicate, preparer
from .core import Case, Exercise, Mistake, register
from .quiz import Question, register_question

__all__ = ["load_all", "build_exercise", "build_question"]


def _code(chapter: str):
    """The chapter module (references, cases, wrong implementations), or ``None`` when the
    edition has none."""
    try:
        return importlib.import_module(f"kmlteach.exercises.ch{chapter}")
    except ModuleNotFoundError as exc:
        if exc.name != f"kmlteach.exercises.ch{chapter}":
            raise
        return None


def _mistakes(rec: dict, module, where: str) -> tuple[Mistake, ...]:
    out = []
    for m in rec.get("mistakes", []):
        wrong = None
        if "wrong" in m:
            wrong = getattr(module, m["wrong"], None)
            if not callable(wrong):
                raise ValueError(f"{where}: mistake {m['name']!r} names no function {m['wrong']!r}")
        out.append(
            Mistake(
                name=m["name"],
                explain=m["explain"],
                wrong=wrong,
                predicate=predicate(m["predicate"], where) if "predicate" in m else None,
                outputs=tuple(from_plain(v) for v in m["outputs"]) if "outputs" in m else None,
                kind=m.get("kind", "mistake"),
            )
        )
    return tuple(out)


def build_exercise(rec: dict, module, solution: str | None) -> Exercise:
    """The exercise of one checked record; ``module`` is the chapter's code (or None)."""
    where = f"exercise {rec['id']}"
    if "cases" in rec:  # a student record: the cases are data
        reference = None
        cases = [
            Case(
                from_plain(c["args"]), from_plain(c["kwargs"]), c.get("label", ""), from_plain(c["expected"])
            )
            for c in rec["cases"]
        ]
    else:
        reference = getattr(module, rec.get("reference", ""), None)
        cases = getattr(module, rec.get("cases_from", ""), None)
        if not callable(reference) or cases is None:
            raise ValueError(
                f"{where}: reference and cases_from must name a function and the "
                f"cases of kmlteach/exercises/ch{rec['id'][:2]}.py"
            )
    hints = tuple(rec["hints"]) + ((rec["hint_last"],) if rec.get("hint_last") else ())
    return Exercise(
        id=rec["id"],
        title=rec["title"],
        reference=reference,
        cases=cases,
        hint=hints,
        solution=rec.get("solution", solution),
        compare=comparator(rec.get("compare"), where),
        prepare=preparer(rec.get("prepare"), where),
        minutes=rec["minutes"],
        points=rec["points"],
        partial=rec.get("partial", False),
        mistakes=_mistakes(rec, module, where),
        withheld=1 if "cases" in rec and "hint_last" not in rec else 0,
    )


def build_question(rec: dict) -> Question:
    answer = rec["answer"]
    return Question(
        id=rec["id"],
        prompt=rec["prompt"],
        choices=tuple(rec.get("choices", ())),
        answer=tuple(answer) if isinstance(answer, list) else answer,
        explanation=rec["explanation"],
        kind=rec.get("kind", "recap"),
        tol=float(rec.get("tol", 1e-6)),
        feedback=tuple(rec.get("feedback", ())),
    )


def load_all(folder=None) -> None:
    """Register every exercise and question of the records in ``folder`` (default: the
    package's ``records/``)."""
    for chapter, path in record.chapter_files(folder).items():
        data = record.load_chapter(path)
        module = _code(chapter)
        solutions = record.solution_texts(chapter) if path.suffix == ".toml" else {}
        for rec in data["exercise"]:
            register(build_exercise(rec, module, solutions.get(rec["id"])))
        for rec in data["question"]:
            register_question(build_question(rec))
