"""Hidden cases, per chapter, kept with the grader (never in a released notebook).

Each chapter module ``chNN.py`` defines ``HIDDEN: dict[exercise id, callable() ->
list[HiddenCase]]`` (seeded: the same cases every run) and ``GUARDS: dict[exercise
id, list of public library paths]`` naming the library functions an exercise
re-implements; those are unavailable to the student's code while it is graded. A
chapter without a module is graded on its visible cases only.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field

__all__ = ["HiddenCase", "hidden_cases", "guards"]


@dataclass(frozen=True)
class HiddenCase:
    """Arguments of one hidden case and its kind (the only thing feedback reveals)."""

    kind: str
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)


def _module(chapter: str):
    try:
        return importlib.import_module(f"{__name__}.ch{chapter}")
    except ModuleNotFoundError:
        return None


def hidden_cases(exercise_id: str) -> list[HiddenCase]:
    """The hidden cases of an exercise (an empty list when the grader has none)."""
    mod = _module(exercise_id.split(".")[0])
    gen = getattr(mod, "HIDDEN", {}).get(exercise_id) if mod else None
    return list(gen()) if gen else []


def guards(chapter: str) -> dict[str, list[str]]:
    """``{library path: [exercise ids]}`` of the functions blocked while grading."""
    mod = _module(chapter)
    out: dict[str, list[str]] = {}
    for ex_id, paths in (getattr(mod, "GUARDS", {}) if mod else {}).items():
        for p in paths:
            out.setdefault(p, []).append(ex_id)
    return out
