"""Self-checking exercises: ``check``, ``hint``, ``solution`` and the results log.

An exercise is registered once (in ``kmlteach/exercises/chNN.py``) with a reference
implementation and a list of test cases. In a notebook a student writes a function
and calls ``check("01.hinge", hinge)``: every *visible* case is run on both functions
and the outputs are compared. ``check`` prints a short verdict and returns
``True``/``False``; it never raises, so a notebook whose exercises are still stubs runs
from top to bottom.

``check`` is feedback for learning, not a grade: it runs inside the student's own
kernel, so nothing it says can be trusted (a function can read the expected value from
the checker's frame; a notebook can replace ``check`` itself). The batch grader
(``python -m kmlteach grade``) never uses it: it calls the student's functions on hidden
cases and compares outside the student's process.

When the environment variable ``KMLTEACH_RESULTS`` names a file, every call of
``check`` appends one JSON line ``{"id", "passed", "status", "message", "time"}``
to it — a convenience for following one's own progress. Anyone can append a forged
line to it, and grading does not read it.
"""

from __future__ import annotations

import importlib
import json
import os
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ._match import CASE_SECONDS, find_mistake
from ._match import copy_args as _copy_args
from ._timer import CheckTimeout, call_with_budget
from .compare import Comparator, allclose, exact

__all__ = [
    "Exercise",
    "Case",
    "Mistake",
    "register",
    "check",
    "hint",
    "solution",
    "registry",
    "get",
    "allclose",
    "exact",
    "find_mistake",
    "CASE_SECONDS",
]


_UNSET = object()


@dataclass(frozen=True)
class Case:
    """One input to an exercise: positional and keyword arguments, a label and, in the
    student edition (no reference code), the expected output as data."""

    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    label: str = ""
    expected: Any = field(default=_UNSET, repr=False, compare=False)

    def describe(self) -> str:
        if self.label:
            return self.label
        parts = [_short(a) for a in self.args] + [f"{k}={_short(v)}" for k, v in self.kwargs.items()]
        return f"({', '.join(parts)})"


MISTAKE_KINDS = {"mistake": "Common mistake", "convention": "Convention"}
"""The kinds of catalogued mistake and the label ``check`` and the grader print for each."""


@dataclass(frozen=True)
class Mistake:
    """A catalogued mistake: ``check`` prints "Common mistake: <name> — <explain>" when a
    wrong answer behaves like it on every visible case ("Convention: ..." for ``kind =
    "convention"``: a tie-break, a row order, 0-based positions, a shape — the answer is
    not wrong in itself, it follows another convention than the exercise's). It is
    recognised by a ``wrong`` implementation (the answer equals its output), a
    ``predicate(expected, got)``, or, in the student edition, the wrong implementation's
    ``outputs`` on the visible cases (data). See :func:`find_mistake`."""

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
    """A registered exercise (built from its record, :mod:`kmlteach.exercises.record`).

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

    def expected(self, case: Case) -> Any:
        """The expected output on ``case``: its stored value, else the reference's."""
        if case.expected is not _UNSET:
            return case.expected
        args, kwargs = _copy_args(case)
        return self.reference(*args, **kwargs)

    @property
    def hints(self) -> tuple[str, ...]:
        """The hint levels 1..n (a single string is one level)."""
        if isinstance(self.hint, str):
            return (self.hint,)
        return tuple(str(h) for h in self.hint)

    def all_cases(self) -> list[Case]:
        cases = self.cases() if callable(self.cases) else self.cases
        return list(cases)


_REGISTRY: dict[str, Exercise] = {}
_LOADED = False


def register(exercise: Exercise) -> Exercise:
    """Add an exercise to the registry (ids are unique)."""
    if exercise.id in _REGISTRY and _REGISTRY[exercise.id] is not exercise:
        raise ValueError(f"exercise id {exercise.id!r} is registered twice")
    _REGISTRY[exercise.id] = exercise
    return exercise


def _load_all() -> None:
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    # the records and chapter modules beside this file (not through the package: no cycle)
    importlib.import_module("kmlteach.exercises._registry").load_all()


def registry() -> dict[str, Exercise]:
    """All registered exercises, by id."""
    _load_all()
    return dict(_REGISTRY)


def get(exercise_id: str) -> Exercise | None:
    _load_all()
    return _REGISTRY.get(exercise_id)


def _short(obj: Any, limit: int = 70) -> str:
    if isinstance(obj, np.ndarray):
        with np.printoptions(precision=4, suppress=True, threshold=12, edgeitems=3):
            text = np.array2string(obj, separator=", ")
        text = " ".join(text.split())
    elif isinstance(obj, float):
        text = f"{obj:.6g}"
    else:
        text = repr(obj)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _log(exercise_id: str, passed: bool, status: str, message: str) -> None:
    path = os.environ.get("KMLTEACH_RESULTS")
    if not path:
        return
    record = {
        "id": exercise_id,
        "passed": bool(passed),
        "status": status,
        "message": message,
        "time": time.strftime("%Y-%m-%dT%H:%M:%S"),
    }
    try:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(record) + "\n")
    except OSError:
        pass  # a results log that cannot be written must not break a notebook


def check(exercise_id: str, fn: Callable, *, verbose: bool = True, seconds: float = CASE_SECONDS) -> bool:
    """Run the visible cases of ``exercise_id`` on ``fn``; print a verdict.

    Returns ``True`` when every visible case matches the reference; the verdict then
    says "visible cases passed — the grade also uses hidden cases". Never raises: an
    exception from ``fn`` — ``SystemExit`` and other ``BaseException`` included, only
    ``KeyboardInterrupt`` passes through — is reported, and a case still running after
    ``seconds`` of wall-clock time is stopped and reported (pure-Python code only; see
    :mod:`kmlteach.exercises._timer`).

    Not secure, by design: ``check`` runs in the student's own process, which can
    inspect or replace it. Grading never trusts it (see the module docstring).
    """
    try:
        return _check(exercise_id, fn, verbose, seconds)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # the checker itself must never break a notebook
        msg = f"internal error in the checker: {type(exc).__name__}: {_safe(str, exc)}"
        if verbose:
            _say(f"⚠ {exercise_id}: {msg}")
        _log(exercise_id, False, "error", msg)
        return False


def _say(text: str) -> None:
    """Print, unless the notebook broke ``sys.stdout`` (a verdict must not raise)."""
    try:
        print(text)
    except KeyboardInterrupt:
        raise
    except BaseException:
        pass


def _safe(show: Callable[[Any], str], obj: Any) -> str:
    """``show(obj)``, or a placeholder when the student's object cannot be shown."""
    try:
        return str(show(obj))
    except KeyboardInterrupt:
        raise
    except BaseException as exc:
        return f"<cannot be shown: {type(exc).__name__}>"


def _verdict(ex: Exercise, ok: bool, status: str, msg: str, verbose: bool) -> bool:
    if verbose:
        mark = {"passed": "✓", "not-implemented": "…"}.get(status, "✗")
        tail = "" if ok or status == "not-implemented" else f"\n  {_hint_pointer(ex)}"
        _say(f"{mark} {ex.id} ({ex.title}): {msg}{tail}")
    _log(ex.id, ok, status, msg)
    return ok


def _run_case(ex: Exercise, fn: Callable, case: Case, expected: Any, seconds: float):
    """Call the student's function on one case and compare, all within the time budget;
    returns (passed, the student's value as shown in a message)."""

    def run():
        args, kwargs = _copy_args(case)
        got = ex.prepare(fn(*args, **kwargs))
        ok = bool(ex.compare(expected, got))
        return ok, ("" if ok else _safe(_short, got)), got

    return call_with_budget(run, seconds)


def _check(exercise_id: str, fn: Callable, verbose: bool, seconds: float) -> bool:
    ex = get(exercise_id)
    if ex is None:
        known = ", ".join(sorted(registry())) or "none"
        msg = f"unknown exercise id {exercise_id!r} (known: {known})"
        if verbose:
            _say(f"✗ {msg}")
        _log(exercise_id, False, "unknown", msg)
        return False
    if not callable(fn):
        return _verdict(
            ex, False, "error", f"check() expects your function, got {type(fn).__name__}", verbose
        )
    cases = ex.all_cases()
    values: list = []
    for i, case in enumerate(cases, 1):
        expected = ex.expected(case)
        where = f"case {i}/{len(cases)} {case.describe()}"
        try:
            ok, got, value = _run_case(ex, fn, case, expected, seconds)
        except KeyboardInterrupt:
            raise
        except NotImplementedError:
            return _verdict(
                ex,
                False,
                "not-implemented",
                "not implemented yet: replace the `raise NotImplementedError` line with your code",
                verbose,
            )
        except CheckTimeout:
            return _verdict(
                ex,
                False,
                "timeout",
                f"{where} was still running after {seconds:g} s and was stopped (an endless loop?)",
                verbose,
            )
        except BaseException as exc:  # SystemExit, GeneratorExit, ... are reported too
            tb = traceback.extract_tb(exc.__traceback__)
            line = f" (line {tb[-1].lineno})" if tb else ""
            return _verdict(
                ex, False, "error", f"{where} raised {type(exc).__name__}: {_safe(str, exc)}{line}", verbose
            )
        values.append(value)
        if not ok:
            msg = f"{where}: expected {_short(expected)}, got {got}"
            return _verdict(ex, False, "wrong", msg + _mistake_line(ex, fn, cases, values, seconds), verbose)
    return _verdict(
        ex,
        True,
        "passed",
        f"visible cases passed ({len(cases)}/{len(cases)}) — the grade also uses hidden cases",
        verbose,
    )


def _mistake_line(ex: Exercise, fn: Callable, cases: list[Case], values: list, seconds: float) -> str:
    """ "\n  Common mistake: ..." (or "Convention: ...") when the answer behaves like a catalogued mistake on every
    visible case (the cases after the first failing one are run too), else ""."""
    if not ex.mistakes:
        return ""
    try:
        for case in cases[len(values) :]:
            values.append(_run_case(ex, fn, case, ex.expected(case), seconds)[2])
    except KeyboardInterrupt:
        raise
    except BaseException:  # an answer that fails later on in another way: no label
        return ""
    m = find_mistake(ex, cases, values, seconds)
    return f"\n  {m.line()}" if m else ""


def _hint_pointer(ex: Exercise) -> str:
    n = len(ex.hints) + ex.withheld
    more = f", then level=2 .. {n}" if n > 1 else ""
    return f"hint: kmlteach.exercises.hint({ex.id!r}){more}"


def hint(exercise_id: str, level: int = 1) -> str:
    """Print and return hint ``level`` (1, 2, ...) of an exercise; never raises.

    A level beyond the last prints the last one; when more levels exist, a line says
    how to ask for the next one.
    """
    ex = get(exercise_id) if isinstance(exercise_id, str) else None
    if ex is None:
        text = f"unknown exercise id {exercise_id!r}"
        print(text)
        return text
    levels = ex.hints
    n = len(levels) + ex.withheld
    try:
        k = int(level)
    except (TypeError, ValueError, OverflowError):
        k = 1
    k = min(max(k, 1), n)
    if k > len(levels):
        text = (
            f"hint {k} of {n} (the one closest to code) is released after the due date; "
            f"hint({ex.id!r}, level={len(levels)}) is the last one for now"
        )
    else:
        text = levels[k - 1]
    if k < n:
        text += f"\n(hint {k} of {n} \u2014 hint({ex.id!r}, level={k + 1}) for more)"
    elif n > 1 and k <= len(levels):
        text += f"\n(hint {k} of {n}: the last one)"
    print(text)
    return text


def solution(exercise_id: str) -> str:
    """Print and return the instructor's solution of an exercise (the function of the
    instructor notebook's solution cell; in a student edition, once released)."""
    ex = get(exercise_id) if isinstance(exercise_id, str) else None
    if ex is None:
        text = f"unknown exercise id {exercise_id!r}"
    elif ex.solution is None:
        text = f"the solution of {ex.id} is released after the due date"
    else:
        text = ex.solution
    print(text)
    return text
