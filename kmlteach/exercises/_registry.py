"""The registry: every :class:`~.model.Exercise` and :class:`~.model.Question`, by id.

Built once, on first use (:func:`registry`, :func:`get`, :func:`questions`,
:func:`question`), from the record files (:func:`kmlteach.exercises.record.chapter_files`):
an instructor record (``chNN.toml``) gets its reference and visible cases from the
functions of its chapter's code (``chNN.py``) it names (``reference``, ``cases_from``) and
its solution text from the notebook source; a student record (``chNN.json``) carries its
visible cases with their expected outputs as data, and no reference. ``check``
(:mod:`.core`), ``ask`` (:mod:`.quiz`), the grader and the tests all read it from here.
"""

from __future__ import annotations

from types import ModuleType

from . import record
from .compare import comparator, predicate, preparer
from .model import Case, Exercise, Mistake, Question
from .plain import from_plain

__all__ = [
    "register",
    "register_question",
    "registry",
    "get",
    "questions",
    "question",
    "chapter_code",
    "build_exercise",
    "build_question",
    "load_all",
]

_EXERCISES: dict[str, Exercise] = {}
_QUESTIONS: dict[str, Question] = {}
_LOADED = False


def register(exercise: Exercise) -> Exercise:
    """Add an exercise to the registry (ids are unique)."""
    if exercise.id in _EXERCISES and _EXERCISES[exercise.id] is not exercise:
        raise ValueError(f"exercise id {exercise.id!r} is registered twice")
    _EXERCISES[exercise.id] = exercise
    return exercise


def register_question(q: Question) -> Question:
    """Add a question to the registry (ids are unique)."""
    if q.id in _QUESTIONS and _QUESTIONS[q.id] is not q:
        raise ValueError(f"question id {q.id!r} is registered twice")
    _QUESTIONS[q.id] = q
    return q


def _load() -> None:
    global _LOADED
    if not _LOADED:
        _LOADED = True
        load_all()


def registry() -> dict[str, Exercise]:
    """All registered exercises, by id (in chapter and record order)."""
    _load()
    return dict(_EXERCISES)


def get(exercise_id: str) -> Exercise | None:
    """The exercise ``exercise_id``, or ``None``."""
    _load()
    return _EXERCISES.get(exercise_id) if isinstance(exercise_id, str) else None


def question(question_id: str) -> Question | None:
    """The question ``question_id``, or ``None``."""
    _load()
    return _QUESTIONS.get(question_id) if isinstance(question_id, str) else None


def questions(chapter: str | None = None, kind: str | None = None) -> list[Question]:
    """Registered questions, optionally of one chapter ("01") and/or one kind, in id order.

    Concept checks come first; recap questions sort by their number (q1, q2, ... q10).
    """
    _load()
    out = [
        q
        for q in _QUESTIONS.values()
        if (chapter is None or q.chapter == str(chapter)) and (kind is None or q.kind == kind)
    ]
    return sorted(out, key=_sort_key)


def _sort_key(q: Question):
    tail = q.id.split(".", 1)[-1]
    num = int(tail[1:]) if tail[:1] == "q" and tail[1:].isdigit() else -1
    return (q.chapter, q.kind != "concept", num, q.id)


def chapter_code() -> dict[str, ModuleType]:
    """``{chapter: its exercises' code}`` (``chNN.py``: references, visible cases, wrong
    implementations); empty in the student edition, which ships none of it."""
    try:
        from . import ch00, ch01, ch02, ch03, ch04, ch05, ch06, ch07, ch08, ch09
    except ImportError as exc:
        if exc.name != __package__:  # an import inside a chapter's code failed: a bug
            raise
        return {}
    modules = (ch00, ch01, ch02, ch03, ch04, ch05, ch06, ch07, ch08, ch09)
    return {m.__name__.rsplit(".", 1)[1][2:]: m for m in modules}


def _code_path(exercise_id: str) -> str:
    return f"kmlteach/exercises/ch{exercise_id[:2]}.py"


def _mistakes(rec: dict, module, where: str) -> tuple[Mistake, ...]:
    out = []
    for m in rec.get("mistakes", []):
        wrong = None
        if "wrong" in m:
            wrong = getattr(module, m["wrong"], None)
            if not callable(wrong):
                raise ValueError(
                    f"{where}: mistake {m['name']!r} names no function {m['wrong']!r} of {_code_path(rec['id'])}"
                )
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


def build_exercise(rec: dict, module: ModuleType | None, solution: str | None) -> Exercise:
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
        code = _code_path(rec["id"])
        if module is None:
            raise ValueError(f"{where}: its record is an instructor record, but {code} is missing")
        for key in ("reference", "cases_from"):
            if not hasattr(module, rec.get(key, "")):
                raise ValueError(f"{where}: {key} = {rec.get(key)!r} names no function of {code}")
        reference, cases = getattr(module, rec["reference"]), getattr(module, rec["cases_from"])
        if not callable(reference):
            raise ValueError(f"{where}: reference = {rec['reference']!r} is not a function of {code}")
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


def _wrong_value(w, question_id: str) -> tuple[float, str]:
    if not (isinstance(w, dict) and set(w) == {"value", "feedback"}):
        raise ValueError(
            f"question {question_id!r}: each of wrong_values is {{ value = number, feedback = text }}"
        )
    return w["value"], w["feedback"]


def build_question(rec: dict) -> Question:
    """The question of one record (the :class:`~.model.Question` checks its fields)."""
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
        wrong_values=tuple(_wrong_value(w, rec["id"]) for w in rec.get("wrong_values", ())),
    )


def load_all(folder=None) -> None:
    """Register every exercise and question of the records in ``folder`` (default: the
    package's ``records/``)."""
    code = chapter_code()
    for chapter, path in record.chapter_files(folder).items():
        data = record.load_chapter(path)
        solutions = record.solution_texts(chapter) if path.suffix == ".toml" else {}
        for rec in data["exercise"]:
            register(build_exercise(rec, code.get(chapter), solutions.get(rec["id"])))
        for rec in data["question"]:
            register_question(build_question(rec))
