"""Self-checking exercises: ``check``, ``hint``, ``solution``.

An exercise is one record (``records/chNN.toml``) with a reference implementation and
visible cases in ``chNN.py`` (:mod:`kmlteach.exercises._registry` builds it). In a notebook
a student writes a function and calls ``check("01.hinge", hinge)``: every *visible* case is
run on both functions and the outputs are compared. ``check`` prints a short verdict and
returns a :class:`~.output.Result` (true when every visible case passed; it displays as
nothing, so the cell shows the verdict only); it never raises, so a notebook whose
exercises are still stubs runs from top to bottom.

``check`` is feedback for learning, not a grade: it runs inside the student's own
kernel, so nothing it says can be trusted (a function can read the expected value from
the checker's frame; a notebook can replace ``check`` itself). The batch grader
(``python -m kmlteach grade``) never uses it: it calls the student's functions on hidden
cases and compares outside the student's process.

Every call of ``check`` appends one line to the results file
(:mod:`kmlteach.exercises.progress`: ``kmlteach.progress()`` reads it back) — a
convenience for following one's own progress. Anyone can append a forged line to it,
and grading does not read it.
"""

from __future__ import annotations

import operator
import traceback
from collections.abc import Callable
from typing import Any

from . import _registry, progress
from ._match import CASE_SECONDS, find_mistake
from ._timer import CheckTimeout, call_with_budget
from .model import Case, Exercise, copy_args, short
from .output import Result, safe, say

__all__ = ["check", "hint", "solution", "CASE_SECONDS"]


def check(exercise_id: str, fn: Callable, *, verbose: bool = True, seconds: float = CASE_SECONDS) -> Result:
    """Run the visible cases of ``exercise_id`` on ``fn``; print a verdict.

    Returns a :class:`~.output.Result`, true when every visible case matches the
    reference (the verdict then says "visible cases passed — the grade also uses hidden
    cases"); Jupyter shows nothing for it. Never raises: an exception from ``fn`` —
    ``SystemExit`` and other ``BaseException`` included, only ``KeyboardInterrupt`` passes
    through — is reported, and a case still running after ``seconds`` of wall-clock time
    is stopped and reported (pure-Python code only; see :mod:`kmlteach.exercises._timer`).

    Not secure, by design: ``check`` runs in the student's own process, which can
    inspect or replace it. Grading never trusts it (see the module docstring).
    """
    try:
        return _check(exercise_id, fn, verbose, seconds)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # the checker itself must never break a notebook
        msg = f"internal error in the checker: {type(exc).__name__}: {safe(str, exc)}"
        if verbose:
            say(f"\u26a0 {exercise_id}: {msg}")
        return _logged(exercise_id, False, "error", msg)


def _logged(exercise_id: Any, ok: bool, status: str, msg: str) -> Result:
    progress.log(
        {"kind": "exercise", "id": safe(str, exercise_id), "passed": ok, "status": status, "message": msg}
    )
    return Result(exercise_id, ok, status, msg)


def _verdict(ex: Exercise, ok: bool, status: str, msg: str, verbose: bool) -> Result:
    if verbose:
        mark = {"passed": "\u2713", "not-implemented": "\u2026"}.get(status, "\u2717")
        tail = "" if ok or status == "not-implemented" else f"\n  {_hint_pointer(ex)}"
        say(f"{mark} {ex.id} ({ex.title})\n  {msg}{tail}")
    return _logged(ex.id, ok, status, msg)


def _run_case(ex: Exercise, fn: Callable, case: Case, expected: Any, seconds: float):
    """Call the student's function on one case and compare, all within the time budget;
    returns (passed, the student's value as shown in a message, the value)."""

    def run():
        args, kwargs = copy_args(case)
        got = ex.prepare(fn(*args, **kwargs))
        ok = bool(ex.compare(expected, got))
        return ok, ("" if ok else safe(short, got)), got

    return call_with_budget(run, seconds)


def _check(exercise_id: str, fn: Callable, verbose: bool, seconds: float) -> Result:
    ex = _registry.get(exercise_id)
    if ex is None:
        known = ", ".join(sorted(_registry.registry())) or "none"
        msg = f"unknown exercise id {exercise_id!r} (known: {known})"
        if verbose:
            say(f"\u2717 {msg}")
        return _logged(exercise_id, False, "unknown", msg)
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
                ex, False, "error", f"{where} raised {type(exc).__name__}: {safe(str, exc)}{line}", verbose
            )
        values.append(value)
        if not ok:
            msg = f"{where}: expected {short(expected)}, got {got}"
            return _verdict(ex, False, "wrong", msg + _mistake_line(ex, fn, cases, values, seconds), verbose)
    return _verdict(
        ex,
        True,
        "passed",
        f"visible cases passed ({len(cases)}/{len(cases)}) \u2014 the grade also uses hidden cases",
        verbose,
    )


def _mistake_line(ex: Exercise, fn: Callable, cases: list[Case], values: list, seconds: float) -> str:
    """ "\\n  Common mistake: ..." (or "Convention: ...") when the answer behaves like a
    catalogued mistake on every visible case (the cases after the first failing one are
    run too), else ""."""
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


def _levels(ex: Exercise) -> int:
    """How many hint levels the exercise has (some perhaps not in this edition yet)."""
    return len(ex.hints) + ex.withheld


def _ordinal(k: int) -> str:
    return {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth"}.get(k, f"level-{k}")


def _levels_now(ex: Exercise) -> str:
    """How many hint levels a student can ask for now, and what comes later."""
    have, n = len(ex.hints), _levels(ex)
    if have == n:
        return f"{n} levels"
    return (
        f"{have} level{'s' if have > 1 else ''} in this copy now; the {_ordinal(n)}, "
        "closest to code, comes with the solutions"
    )


def _hint_pointer(ex: Exercise) -> str:
    """The line under a failed check: the same call the chapter's text names."""
    if _levels(ex) <= 1:
        return f'stuck? hint("{ex.id}")'
    if len(ex.hints) == 1:
        return f'stuck? hint("{ex.id}") ({_levels_now(ex)})'
    return f'stuck? hint("{ex.id}"), then hint("{ex.id}", level=2) and so on ({_levels_now(ex)})'


_NOT_YET = (
    "is not in this copy of the course yet: it comes with the solutions, when your course releases them"
)


def _whole(value) -> int | None:
    """``value`` as a whole number (an int, an integral float, or its text), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        value = value.strip()
        return int(value) if value.lstrip("+-").isdigit() else None
    try:
        return operator.index(value)
    except TypeError:
        pass
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def _level(ex: Exercise, level) -> tuple[int | None, str]:
    """(the level asked for, "") or (None, why it cannot be given)."""
    n = _levels(ex)
    which = "1" if n == 1 else ", ".join(str(k) for k in range(1, n)) + f" or {n}"
    k = _whole(level)
    if k is None:
        return None, f"the level of a hint is a whole number ({which}), got {safe(repr, level)[:40]}"
    if not 1 <= k <= n:
        return None, (
            f"{ex.id} has no hint level {k}: its levels are {which} ({_levels_now(ex)}); "
            f'start with hint("{ex.id}")'
        )
    return k, ""


def hint(exercise_id: str, level: int = 1) -> None:
    """Print hint ``level`` (1, 2, ...) of an exercise, once; never raises.

    Level 1 is a nudge, level 2 the idea to use, the last level the one closest to code
    (in a student edition, that one comes with the solutions). A level that does not
    exist (0, one beyond the last, not a number) is refused with the levels there are;
    when more levels exist, a line says how to ask for the next one. (Returns nothing:
    the hint is printed, not repeated as a value; ``kmlteach.exercises.get(id).hints``
    holds the texts.)
    """
    ex = _registry.get(exercise_id)
    if ex is None:
        say(f"unknown exercise id {exercise_id!r}")
        return
    levels, n = ex.hints, _levels(ex)
    k, problem = _level(ex, level)
    if k is None:
        say(problem)
        return
    if k > len(levels):
        text = (
            f"hint {k} of {n} (the one closest to code) {_NOT_YET}; "
            f'hint("{ex.id}", level={len(levels)}) is the last one for now'
        )
    else:
        text = levels[k - 1]
    if k < len(levels):
        text += f'\n(hint {k} of {n} \u2014 hint("{ex.id}", level={k + 1}) for more)'
    elif k < n:
        text += f"\n(hint {k} of {n}: the last one in this copy for now; the {_ordinal(n)} comes with the solutions)"
    elif n > 1 and k <= len(levels):
        text += f"\n(hint {k} of {n}: the last one)"
    say(text)


def solution(exercise_id: str) -> None:
    """Print the instructor's solution of an exercise (the function of the instructor
    notebook's solution cell; in a student edition, once released); never raises."""
    ex = _registry.get(exercise_id)
    if ex is None:
        say(f"unknown exercise id {exercise_id!r}")
    elif ex.solution is None:
        say(f"the solution of {ex.id} {_NOT_YET}")
    else:
        say(ex.solution, wrapped=False)
