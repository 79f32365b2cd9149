"""What an exercise and a question are: :class:`Case`, :class:`Mistake`, :class:`Exercise`,
:class:`Question`.

Plain frozen dataclasses, built from the records (``records/chNN.toml``) by
:mod:`kmlteach.exercises._registry` and used by ``check`` (:mod:`.core`), ``ask``
(:mod:`.quiz`) and the grader. A chapter's code (``chNN.py``) imports :class:`Case` from
here to write its visible cases. Each class refuses a value it cannot use (a
:class:`ValueError` naming the field), so a record that loads is one ``check`` and ``ask``
can show.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .compare import Comparator, allclose

__all__ = [
    "Case",
    "Mistake",
    "Exercise",
    "Question",
    "MISTAKE_KINDS",
    "QUESTION_KINDS",
    "LETTERS",
    "copy_args",
    "short",
]

_UNSET = object()

LETTERS = "abcdefghij"
"""The letters of a multiple-choice question's options, in order."""

MISTAKE_KINDS = {"mistake": "Common mistake", "convention": "Convention"}
"""The kinds of catalogued mistake and the label ``check`` and the grader print for each."""

QUESTION_KINDS = ("concept", "recap")


def _plain(obj: Any, depth: int = 0) -> str:
    """A value as a student would write it: numbers without NumPy's ``np.float64(...)``
    wrapper (6 significant digits), arrays rounded to 4 digits, tuples, lists and dicts
    of those; anything else by its ``repr``."""
    if isinstance(obj, np.ndarray):
        with np.printoptions(precision=4, suppress=True, threshold=12, edgeitems=3):
            return " ".join(np.array2string(obj, separator=", ").split())
    if isinstance(obj, (bool, np.bool_)):
        return str(bool(obj))
    if isinstance(obj, (int, np.integer)):
        return str(int(obj))
    if isinstance(obj, (float, np.floating)):
        return f"{float(obj):.6g}"
    if depth < 3 and type(obj) in (tuple, list):
        inner = ", ".join(_plain(v, depth + 1) for v in obj[:20]) + (", ..." if len(obj) > 20 else "")
        if isinstance(obj, tuple):
            return f"({inner},)" if len(obj) == 1 else f"({inner})"
        return f"[{inner}]"
    if depth < 3 and type(obj) is dict:
        return "{" + ", ".join(f"{k!r}: {_plain(v, depth + 1)}" for k, v in list(obj.items())[:20]) + "}"
    return repr(obj)


def short(obj: Any, limit: int = 70) -> str:
    """A value as one short line (arrays rounded to 4 digits, NumPy scalars as plain
    numbers, long text cut with "...")."""
    text = _plain(obj)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _kind(obj: Any) -> str:
    """What an argument is, in a few words (a case without a label is described by these)."""
    if isinstance(obj, np.ndarray):
        if obj.ndim == 0:
            return short(obj.item(), 20)
        if obj.ndim == 1:
            return short(obj, 30) if obj.size <= 4 else f"{obj.size} values"
        shape = "×".join(map(str, obj.shape))
        first = shape.split("×")[0]
        return f"{'an' if first[0] == '8' or first in ('11', '18') else 'a'} {shape} array"
    if isinstance(obj, (str, bool, int, float, np.integer, np.floating, np.bool_)):
        return short(obj, 20)
    if callable(obj):
        return getattr(obj, "__name__", "a function")
    if isinstance(obj, (tuple, list)):
        return short(obj, 30) if len(obj) <= 4 else f"{len(obj)} items"
    return type(obj).__name__


@dataclass(frozen=True)
class Case:
    """One input to an exercise: positional and keyword arguments, a label and, in the
    student edition (no reference code), the expected output as data."""

    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    label: str = ""
    expected: Any = field(default=_UNSET, repr=False, compare=False)

    def describe(self) -> str:
        """The case's label, or (for a case without one) its arguments in a few words:
        small ones as values, arrays by their shape — never a dump of their numbers."""
        if self.label:
            return self.label
        parts = [_kind(a) for a in self.args] + [f"{k}={_kind(v)}" for k, v in self.kwargs.items()]
        return f"({', '.join(parts)})"


def copy_args(case: Case) -> tuple[tuple, dict]:
    """The arguments of ``case``, arrays copied (a function that writes into its input
    changes no case)."""

    def cp(v):
        return v.copy() if isinstance(v, np.ndarray) else v

    return tuple(cp(a) for a in case.args), {k: cp(v) for k, v in case.kwargs.items()}


@dataclass(frozen=True)
class Mistake:
    """A catalogued mistake: ``check`` prints "Common mistake: <name> — <explain>" when a
    wrong answer behaves like it on every visible case ("Convention: ..." for ``kind =
    "convention"``: a tie-break, a row order, 0-based positions, a shape — the answer is
    not wrong in itself, it follows another convention than the exercise's). It is
    recognised by a ``wrong`` implementation (the answer equals its output), a
    ``predicate(expected, got)``, or, in the student edition, the wrong implementation's
    ``outputs`` on the visible cases (data); see :mod:`kmlteach.exercises._match`."""

    name: str
    explain: str
    wrong: Callable | None = None
    predicate: Callable[[Any, Any], bool] | None = None
    outputs: tuple | None = None
    kind: str = "mistake"

    def __post_init__(self):
        if self.kind not in MISTAKE_KINDS:
            raise ValueError(f"mistake {self.name!r}: kind must be one of {', '.join(MISTAKE_KINDS)}")

    @property
    def label(self) -> str:
        """ "Common mistake" or "Convention"."""
        return MISTAKE_KINDS[self.kind]

    def line(self) -> str:
        """The line ``check`` and the grader's feedback print: "<label>: <name> — <explain>"."""
        return f"{self.label}: {self.name} \u2014 {self.explain}"


@dataclass(frozen=True)
class Exercise:
    """An exercise (built from its record, :mod:`kmlteach.exercises.record`).

    ``reference`` is the instructor's implementation (``None`` in the student edition,
    whose cases carry their expected outputs); ``cases`` is a sequence of :class:`Case`
    or a zero-argument callable returning one (so random cases are drawn from a fixed
    seed at check time). ``compare(expected, got)`` decides a case. ``prepare(got)``
    post-processes a student's return value before comparison, default identity.
    ``hint`` is one string or a sequence of levels (the last close to code), of which
    ``withheld`` more levels exist but are not in this edition; ``solution`` is the
    text ``solution()`` shows (``None``: not released); ``minutes`` is a time estimate.
    """

    id: str
    title: str
    reference: Callable | None
    cases: Sequence[Case] | Callable[[], Sequence[Case]]
    hint: str | Sequence[str]
    solution: str | None = None
    compare: Comparator = field(default_factory=allclose)
    prepare: Callable[[Any], Any] = lambda got: got
    minutes: int | None = None
    points: int = 1
    partial: bool = False
    mistakes: tuple[Mistake, ...] = ()
    withheld: int = 0

    @property
    def chapter(self) -> str:
        return self.id.split(".", 1)[0]

    def expected(self, case: Case) -> Any:
        """The expected output on ``case``: its stored value, else the reference's."""
        if case.expected is not _UNSET:
            return case.expected
        args, kwargs = copy_args(case)
        return self.reference(*args, **kwargs)

    @property
    def hints(self) -> tuple[str, ...]:
        """The hint levels 1..n of this edition (a single string is one level)."""
        if isinstance(self.hint, str):
            return (self.hint,)
        return tuple(str(h) for h in self.hint)

    def all_cases(self) -> list[Case]:
        cases = self.cases() if callable(self.cases) else self.cases
        return list(cases)


@dataclass(frozen=True)
class Question:
    """A multiple-choice or numeric question; invalid fields raise ``ValueError``.

    ``answer`` is an index into ``choices`` (or a tuple of indices, any of which is
    accepted); for a numeric question ``choices`` is empty, ``answer`` is a float and a
    reply within ``tol`` (absolute, or relative to ``|answer|`` if larger) is right.
    ``kind`` is ``"concept"`` (predict-then-reveal, asked in the text) or ``"recap"``
    (end-of-chapter quiz). ``feedback`` is empty or one text per choice: what a student
    who picks that choice has probably thought, and why it does not hold (shown for a
    wrong choice; it must not name the right one). ``feedback`` of a numeric question is
    one text, shown for a wrong number that none of ``wrong_values`` — ``(value, text)``
    pairs, the common wrong results, each recognised within ``tol`` — names.
    """

    id: str
    prompt: str
    choices: tuple[str, ...]
    answer: int | tuple[int, ...] | float
    explanation: str
    kind: str = "recap"
    tol: float = 1e-6
    feedback: tuple[str, ...] = ()
    wrong_values: tuple[tuple[float, str], ...] = ()

    def __post_init__(self):
        where = f"question {self.id!r}"
        if self.kind not in QUESTION_KINDS:
            raise ValueError(f"{where}: kind must be 'concept' or 'recap', got {self.kind!r}")
        if not isinstance(self.feedback, tuple) or not all(isinstance(f, str) for f in self.feedback):
            raise ValueError(f"{where}: feedback must be a tuple of strings")
        if self.feedback and len(self.feedback) != (1 if self.numeric else len(self.choices)):
            raise ValueError(
                f"{where}: feedback needs one text per choice "
                f"(one for a numeric question), got {len(self.feedback)}"
            )
        if self.numeric:
            if isinstance(self.answer, tuple) or not math.isfinite(float(self.answer)):
                raise ValueError(f"{where}: a numeric answer must be one finite number")
        else:
            if len(self.choices) > len(LETTERS):
                raise ValueError(f"{where}: at most {len(LETTERS)} choices")
            idx = self.answer if isinstance(self.answer, tuple) else (self.answer,)
            if not idx or any(
                not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < len(self.choices) for i in idx
            ):
                raise ValueError(f"{where}: answer must index choices, got {self.answer!r}")
        if self.wrong_values and not self.numeric:
            raise ValueError(f"{where}: wrong_values are for a numeric question")
        for value, text in self.wrong_values:
            if not (isinstance(text, str) and text) or not math.isfinite(float(value)):
                raise ValueError(f"{where}: wrong_values must be (finite number, text) pairs")
            if self.is_right(float(value)):
                raise ValueError(f"{where}: wrong value {value!r} is within tol of the answer")

    @property
    def chapter(self) -> str:
        return self.id.split(".", 1)[0]

    @property
    def numeric(self) -> bool:
        return len(self.choices) == 0

    def answers(self) -> tuple[int, ...]:
        """The accepted choice indices (empty for a numeric question)."""
        if self.numeric:
            return ()
        return tuple(self.answer) if isinstance(self.answer, tuple) else (int(self.answer),)

    def _close(self, reply: float, target: float) -> bool:
        return abs(float(reply) - target) <= self.tol * max(1.0, abs(target))

    def is_right(self, reply: Any) -> bool:
        """Whether a parsed reply (an index, or a number) is right."""
        if self.numeric:
            return self._close(reply, float(self.answer))
        return int(reply) in self.answers()

    def feedback_for(self, reply: Any) -> str:
        """The feedback for a (wrong) parsed reply, or ``""``."""
        if self.numeric:
            for value, text in self.wrong_values:
                if self._close(reply, float(value)):
                    return text
            return self.feedback[0] if self.feedback else ""
        return self.feedback[int(reply)] if self.feedback else ""
