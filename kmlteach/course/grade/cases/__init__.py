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
import importlib
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ["HiddenCase", "ChapterCases", "hidden_cases", "guards", "student_seed"]


@dataclass(frozen=True)
class HiddenCase:
    """Arguments of one hidden case and its kind (the only thing feedback reveals)."""

    kind: str
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)


def _qualified(path: str) -> str:
    return path if path.startswith("kmlteach.") else f"kmlteach.{path}"


class ChapterCases:
    """The hidden cases of one chapter module: ``generators`` (exercise id -> generator)
    and ``guards`` (exercise id -> the library functions that compute its answer: paths below
    ``kmlteach``, ``module.function`` or ``module.Class.method``), given as a table, one
    exercise a line (``ChapterCases(GUARDS)``), or with a generator (:meth:`hidden`)."""

    def __init__(self, guards: str = "") -> None:
        self.generators: dict[str, Callable[..., list[HiddenCase]]] = {}
        self.guards: dict[str, list[str]] = {}
        for line in guards.strip().splitlines():  # "NN.name  path path ...": one exercise a line
            exercise_id, *paths = line.split()
            self.guards[exercise_id] = [_qualified(g) for g in paths]

    def hidden(self, exercise_id: str, guards: list[str] | None = None):
        """Decorator: the function is the generator of ``exercise_id``'s hidden cases, and
        the library functions named in ``guards`` are blocked while it is graded (paths below
        ``kmlteach``, e.g. ``"svm.perceptron"`` or ``"multiclass.psi.MultivectorPsi.all"``)."""

        def declare(generator):
            self.generators[exercise_id] = generator
            if guards:
                self.guards[exercise_id] = [_qualified(g) for g in guards]
            return generator

        return declare


def _module(chapter: str):
    try:
        return importlib.import_module(f"{__name__}.ch{chapter}")
    except ModuleNotFoundError:
        return None


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
