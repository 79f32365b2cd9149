"""Self-checking exercises: ``check``, ``hint``, ``solution`` and the results log.

An exercise is registered once (in ``kmlteach/exercises/chNN.py``) with a reference
implementation and a list of test cases. In a notebook a student writes a function
and calls ``check("01.hinge", hinge)``: every case is run on both functions and the
outputs are compared. ``check`` prints a short verdict and returns ``True``/``False``;
it never raises, so a notebook whose exercises are still stubs runs from top to bottom.

When the environment variable ``KMLTEACH_RESULTS`` names a file, every call of
``check`` appends one JSON line ``{"id", "passed", "status", "message", "time"}``
to it; the grader reads those lines.
"""

from __future__ import annotations

import importlib
import json
import os
import pkgutil
import time
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

__all__ = ["Exercise", "Case", "register", "check", "hint", "solution", "registry", "get",
           "allclose", "exact"]


@dataclass(frozen=True)
class Case:
    """One input to an exercise: positional and keyword arguments, and a label."""
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    label: str = ""

    def describe(self) -> str:
        if self.label:
            return self.label
        parts = [_short(a) for a in self.args] + [f"{k}={_short(v)}" for k, v in self.kwargs.items()]
        return f"({', '.join(parts)})"


Comparator = Callable[[Any, Any], bool]


def allclose(rtol: float = 1e-7, atol: float = 1e-9) -> Comparator:
    """Compare numbers / arrays / tuples of them with ``np.allclose`` (shapes must agree)."""

    def compare(expected: Any, got: Any) -> bool:
        if isinstance(expected, (tuple, list)) and not _is_numeric_sequence(expected):
            if not isinstance(got, (tuple, list)) or len(got) != len(expected):
                return False
            return all(compare(e, g) for e, g in zip(expected, got))
        try:
            e = np.asarray(expected, dtype=float)
            g = np.asarray(got, dtype=float)
        except (TypeError, ValueError):
            return False
        return e.shape == g.shape and bool(np.allclose(e, g, rtol=rtol, atol=atol))

    return compare


def exact() -> Comparator:
    """Compare with ``==`` (arrays element-wise, shapes must agree)."""

    def compare(expected: Any, got: Any) -> bool:
        if isinstance(expected, np.ndarray) or isinstance(got, np.ndarray):
            e, g = np.asarray(expected), np.asarray(got)
            return e.shape == g.shape and bool(np.all(e == g))
        return bool(expected == got)

    return compare


@dataclass(frozen=True)
class Exercise:
    """A registered exercise.

    ``reference`` is the instructor's implementation; ``cases`` is a sequence of
    :class:`Case` or a zero-argument callable returning one (so random cases are drawn
    from a fixed seed at check time). ``compare(expected, got)`` decides a case.
    ``prepare(got)`` post-processes a student's return value before comparison (e.g.
    to pull ``.w`` out of a result object), default identity. ``hint`` is one string
    or a sequence of levels (the last close to code); ``minutes`` is a time estimate.
    """
    id: str
    title: str
    reference: Callable
    cases: Sequence[Case] | Callable[[], Sequence[Case]]
    hint: str | Sequence[str]
    solution: str
    compare: Comparator = field(default_factory=allclose)
    prepare: Callable[[Any], Any] = lambda got: got
    minutes: int | None = None

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
    # the chapter modules beside this file (not through the package: no import cycle)
    for mod in pkgutil.iter_modules([os.path.dirname(__file__)]):
        if mod.name.startswith("ch"):
            importlib.import_module(f"kmlteach.exercises.{mod.name}")
    _LOADED = True


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


def _is_numeric_sequence(seq: Any) -> bool:
    return all(isinstance(v, (int, float, np.number)) and not isinstance(v, bool) for v in seq)


def _log(exercise_id: str, passed: bool, status: str, message: str) -> None:
    path = os.environ.get("KMLTEACH_RESULTS")
    if not path:
        return
    record = {"id": exercise_id, "passed": bool(passed), "status": status,
              "message": message, "time": time.strftime("%Y-%m-%dT%H:%M:%S")}
    try:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(record) + "\n")
    except OSError:
        pass  # a results log that cannot be written must not break a notebook


def _copy_args(case: Case) -> tuple[tuple, dict]:
    def cp(v):
        return v.copy() if isinstance(v, np.ndarray) else v
    return tuple(cp(a) for a in case.args), {k: cp(v) for k, v in case.kwargs.items()}


def check(exercise_id: str, fn: Callable, *, verbose: bool = True) -> bool:
    """Run the registered cases of ``exercise_id`` on ``fn``; print a verdict.

    Returns ``True`` when every case matches the reference. Never raises.
    """
    try:
        return _check(exercise_id, fn, verbose)
    except Exception as exc:  # the checker itself must never break a notebook
        msg = f"internal error in the checker: {type(exc).__name__}: {exc}"
        if verbose:
            print(f"⚠ {exercise_id}: {msg}")
        _log(exercise_id, False, "error", msg)
        return False


def _check(exercise_id: str, fn: Callable, verbose: bool) -> bool:
    ex = get(exercise_id)
    if ex is None:
        known = ", ".join(sorted(registry())) or "none"
        msg = f"unknown exercise id {exercise_id!r} (known: {known})"
        if verbose:
            print(f"✗ {msg}")
        _log(exercise_id, False, "unknown", msg)
        return False
    if not callable(fn):
        msg = f"check() expects your function, got {type(fn).__name__}"
        if verbose:
            print(f"✗ {ex.id} ({ex.title}): {msg}")
        _log(ex.id, False, "error", msg)
        return False
    cases = ex.all_cases()
    for i, case in enumerate(cases, 1):
        args, kwargs = _copy_args(case)
        expected = ex.reference(*args, **kwargs)
        args, kwargs = _copy_args(case)
        try:
            got = ex.prepare(fn(*args, **kwargs))
        except NotImplementedError:
            msg = "not implemented yet: replace the `raise NotImplementedError` line with your code"
            if verbose:
                print(f"… {ex.id} ({ex.title}): {msg}")
            _log(ex.id, False, "not-implemented", msg)
            return False
        except Exception as exc:
            tb = traceback.extract_tb(exc.__traceback__)
            where = f" (line {tb[-1].lineno})" if tb else ""
            msg = (f"case {i}/{len(cases)} {case.describe()} raised "
                   f"{type(exc).__name__}: {exc}{where}")
            if verbose:
                print(f"✗ {ex.id} ({ex.title}): {msg}\n  {_hint_pointer(ex)}")
            _log(ex.id, False, "error", msg)
            return False
        if not ex.compare(expected, got):
            msg = (f"case {i}/{len(cases)} {case.describe()}: expected {_short(expected)}, "
                   f"got {_short(got)}")
            if verbose:
                print(f"✗ {ex.id} ({ex.title}): {msg}\n  {_hint_pointer(ex)}")
            _log(ex.id, False, "wrong", msg)
            return False
    msg = f"all {len(cases)} cases passed"
    if verbose:
        print(f"✓ {ex.id} ({ex.title}): {msg}")
    _log(ex.id, True, "passed", msg)
    return True


def _hint_pointer(ex: Exercise) -> str:
    n = len(ex.hints)
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
    try:
        k = int(level)
    except (TypeError, ValueError, OverflowError):
        k = 1
    k = min(max(k, 1), len(levels))
    text = levels[k - 1]
    if k < len(levels):
        text += (f"\n(hint {k} of {len(levels)} \u2014 hint({ex.id!r}, level={k + 1}) "
                 "for more)")
    elif len(levels) > 1:
        text += f"\n(hint {k} of {len(levels)}: the last one)"
    print(text)
    return text


def solution(exercise_id: str) -> str:
    """Print and return the instructor's solution of an exercise."""
    ex = get(exercise_id)
    text = ex.solution if ex else f"unknown exercise id {exercise_id!r}"
    print(text)
    return text
