"""Recognising a catalogued mistake: does an answer behave like a wrong implementation?

``check`` (:mod:`.core`) and the grader's feedback call :func:`find_mistake` with the
answer's values on the visible cases; a mistake is named only when it agrees with the
answer on *every* one of them, so a wrong answer is never labelled on a guess.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ._timer import call_with_budget
from .model import copy_args

__all__ = ["find_mistake", "CASE_SECONDS"]

CASE_SECONDS = 5.0
"""Default wall-clock budget of one visible case (seconds)."""


def _matches(ex, m, index: int, case, expected: Any, got: Any) -> bool:
    if m.predicate is not None:
        return bool(m.predicate(expected, got))
    if m.outputs is not None:
        return index < len(m.outputs) and _alike(ex, m.outputs[index], got)
    args, kwargs = copy_args(case)
    return _alike(ex, ex.prepare(m.wrong(*args, **kwargs)), got)


def _alike(ex, wrong: Any, got: Any) -> bool:
    """The answer equals a wrong output: by the exercise's comparison, or both are the same
    numbers with NaN at the same places (a mistake that divides 0 by 0)."""
    if ex.compare(wrong, got):
        return True
    try:
        w, g = np.asarray(wrong, dtype=float), np.asarray(got, dtype=float)
    except (TypeError, ValueError):
        return False
    nan = np.isnan(w)
    return (
        w.shape == g.shape
        and bool(nan.any())
        and np.array_equal(nan, np.isnan(g))
        and bool(np.allclose(w[~nan], g[~nan]))
    )


def find_mistake(ex, cases: Sequence, values: Sequence[Any], seconds: float = CASE_SECONDS) -> Any:
    """The first catalogued mistake of ``ex`` that behaves like the answer whose (prepared)
    values on ``cases`` are ``values``: on *every* case, the wrong implementation's output
    (or the stored one) compares equal to the answer's, or the predicate holds. ``None``
    when no mistake does (a wrong answer is never labelled on a guess)."""
    if not cases or len(values) != len(cases):
        return None
    for m in ex.mistakes:

        def all_match(m=m):
            return all(
                _matches(ex, m, i, c, ex.expected(c), v) for i, (c, v) in enumerate(zip(cases, values))
            )

        try:
            if call_with_budget(all_match, seconds * len(cases)):
                return m
        except KeyboardInterrupt:
            raise
        except BaseException:  # a student's odd value must not break the verdict
            continue
    return None
