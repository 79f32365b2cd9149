"""What a chapter's hidden cases are made of: :class:`HiddenCase` and :class:`ChapterCases`
(each chapter module ``chNN.py`` builds its ``CASES`` from them)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ["HiddenCase", "ChapterCases"]


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
    and ``guards`` (exercise id -> the library functions that compute its answer, or part of
    it: paths below ``kmlteach``, ``module.function`` or ``module.Class.method``), given as a
    table, one exercise a line (``ChapterCases(GUARDS)``), or with a generator
    (:meth:`hidden`). In the table, a path written ``!path`` is *spared* (``spared``):
    a function of a guard's module that the exercise may use, so the walk through the guards'
    helpers (``inkernel/disarm.py``) leaves it, and what only it reaches, working; e.g. the
    library's Viterbi while 05.loss_augmented, which reduces to it, is graded. The helpers
    every exercise may use (validators) are ``cases.SHARED``."""

    def __init__(self, guards: str = "") -> None:
        self.generators: dict[str, Callable[..., list[HiddenCase]]] = {}
        self.guards: dict[str, list[str]] = {}
        self.spared: dict[str, list[str]] = {}
        for line in guards.strip().splitlines():  # "NN.name  path !path ...": one exercise a line
            exercise_id, *paths = line.split()
            self.guards[exercise_id] = [_qualified(g) for g in paths if not g.startswith("!")]
            self.spared[exercise_id] = [_qualified(g[1:]) for g in paths if g.startswith("!")]

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
