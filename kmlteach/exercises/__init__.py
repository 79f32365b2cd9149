"""Auto-checked exercises and questions.

Use ``check(id, fn)``, ``hint(id, level=1)``, ``solution(id)`` for exercises and
``ask(id, choice)``, ``quiz(chapter)``, ``quiz_html(chapter)`` for concept checks and
recap quizzes. Each exercise and question is one record in
``kmlteach/exercises/records/chNN.toml`` (points, minutes, hints, mistakes, ...); the
reference implementations and visible cases are in ``kmlteach/exercises/chNN.py`` and
the solution texts in the notebook sources (see :mod:`kmlteach.exercises.record`).
"""

from .core import Case, Exercise, Mistake, allclose, check, exact, get, hint, register, registry, solution
from .quiz import Question, ask, questions, quiz, quiz_html, register_question

__all__ = [
    "Case",
    "Exercise",
    "Mistake",
    "Question",
    "allclose",
    "ask",
    "check",
    "exact",
    "get",
    "hint",
    "questions",
    "quiz",
    "quiz_html",
    "register",
    "register_question",
    "registry",
    "solution",
]
