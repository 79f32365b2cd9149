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

__all__ = ["HiddenCase", "ChapterCases", "hidden_cases", "guards", "spared", "SHARED", "student_seed"]

# Helpers of guarded functions that check or convert arguments, or assemble a result, and
# compute no exercise's answer: the walk through a guard's helpers (inkernel/disarm.py) spares
# them for every exercise, so the library's other functions that share them keep working
# while an exercise is graded (disarmed, they failed honest code: 01.distance through
# svm.geometric_margins' _points_and_w, 07.precision_at_k through metrics.precision, ...).
# tests/test_grade_guards.py walks every chapter's tools against the guards.
SHARED = """
svm.margins._points_and_w svm.margins._scalar svm.sgd.sgd_indices svm.nu._gram_params svm.nu._solution
losses._margins losses._out theory.losses._fy
kernels.distance._centred kernels.gram.kernel_params
kernel_methods.model_selection.kfold_indices kernel_methods.model_selection.standardize
multiclass.perceptrons._prepare multiclass.perceptrons._result multiclass.hinge._weights_and_data
multiclass.reductions._copy_learner multiclass.reductions._fit_binary
structured.viterbi._pad
metrics._theta metrics._ratio metrics._zd
ranking.assignment._checked ranking.assignment._normalised ranking.sgd.check_queries ranking.sgd.structured_sgd
""".split()


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


def spared(chapter: str) -> dict[str, list[str]]:
    """``{library path: [exercise ids]}`` of the functions the walk through the guards'
    helpers leaves working: ``SHARED`` for every exercise with guards, and each exercise's
    ``!path`` entries."""
    mod = _module(chapter)
    out: dict[str, list[str]] = {}
    for ex_id in sorted(mod.CASES.guards if mod else {}):
        for p in [*(f"kmlteach.{s}" for s in SHARED), *mod.CASES.spared.get(ex_id, [])]:
            out.setdefault(p, []).append(ex_id)
    return out


def guards(chapter: str) -> dict[str, list[str]]:
    """``{library path: [exercise ids]}`` of the functions blocked while grading."""
    mod = _module(chapter)
    out: dict[str, list[str]] = {}
    for ex_id, paths in (mod.CASES.guards if mod else {}).items():
        for p in paths:
            out.setdefault(p, []).append(ex_id)
    return out
