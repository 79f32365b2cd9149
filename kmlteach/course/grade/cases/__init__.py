"""Hidden cases, per chapter, kept with the grader (never in a released notebook).

Each chapter module ``chNN.py`` holds ``CASES = ChapterCases()`` and declares each
exercise's generator where it is defined, ``@CASES.hidden("NN.name", guards=[...])``: a
callable(seed) -> list[HiddenCase] (seeded: the same cases for the same seed; each
generator's default seed gives the class-wide cases, ``grade --secret`` a seed per
submission, see :func:`student_seed`; the fixed edge cases of a kind are the same for
every seed), and the public library paths naming the functions the exercise
re-implements; those are unavailable to the student's code while it is graded. A
chapter without a module is graded on its visible cases only.
"""

from __future__ import annotations

import hashlib
import hmac
import inspect

from . import ch00, ch01, ch02, ch03, ch04, ch05, ch06, ch07, ch08, ch09
from .model import ChapterCases, HiddenCase

__all__ = ["HiddenCase", "ChapterCases", "hidden_cases", "guards", "student_seed"]


_CHAPTERS = {
    "00": ch00,
    "01": ch01,
    "02": ch02,
    "03": ch03,
    "04": ch04,
    "05": ch05,
    "06": ch06,
    "07": ch07,
    "08": ch08,
    "09": ch09,
}


def _module(chapter: str):
    """The chapter's case module, or None for a chapter without one."""
    return _CHAPTERS.get(chapter)


def student_seed(secret: bytes, submission: str, exercise_id: str) -> int:
    """The seed of one submission's hidden cases of one exercise: HMAC-SHA256 of the
    submission id and exercise id under the instructor's secret (64 bits)."""
    if not isinstance(secret, (bytes, bytearray)) or not secret:
        raise ValueError("secret must be non-empty bytes")
    msg = f"{submission}\0{exercise_id}".encode("utf-8", "surrogateescape")
    return int.from_bytes(hmac.new(bytes(secret), msg, hashlib.sha256).digest()[:8], "big")


def hidden_cases(exercise_id: str, seed: int | None = None) -> list[HiddenCase]:
    """The hidden cases of an exercise (an empty list when the grader has none); with
    ``seed``, that seed's draw (see :func:`student_seed`)."""
    mod = _module(exercise_id.split(".")[0])
    gen = mod.CASES.generators.get(exercise_id) if mod else None
    if not gen:
        return []
    if seed is None or not inspect.signature(gen).parameters:
        return list(gen())
    return list(gen(seed))


def guards(chapter: str) -> dict[str, list[str]]:
    """``{library path: [exercise ids]}`` of the functions blocked while grading."""
    mod = _module(chapter)
    out: dict[str, list[str]] = {}
    for ex_id, paths in (mod.CASES.guards if mod else {}).items():
        for p in paths:
            out.setdefault(p, []).append(ex_id)
    return out
