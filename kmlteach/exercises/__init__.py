"""Auto-checked exercises and questions.

In a notebook: ``check(id, fn)``, ``hint(id, level=1)``, ``solution(id)`` for exercises;
``ask(id, choice)``, ``quiz(chapter)``, ``quiz_html(chapter)`` for concept checks and
recap quizzes; ``kmlteach.progress()`` for what you have done so far; on the course's hub,
``submit(chapter)`` and ``feedback(chapter)`` to hand in and read the feedback.

Each exercise and question is one record in ``kmlteach/exercises/records/chNN.toml``
(points, minutes, hints, mistakes, ...; :mod:`.record`), made into the objects of
:mod:`.model` by the registry (:func:`registry`, :func:`get`, :func:`questions`); the
reference implementations and visible cases are in ``kmlteach/exercises/chNN.py`` and the
solution texts in the notebook sources. CONTRIBUTING.md, "Adding an exercise", lists
every file an exercise touches.
"""

from ..classroom import feedback, submit  # hand in on the course's hub (kmlteach/classroom)
from ._match import find_mistake
from ._registry import get, question, questions, register, register_question, registry
from .compare import allclose, exact
from .core import check, hint, solution
from .model import Case, Exercise, Mistake, Question
from .output import Result
from .quiz import ask, quiz, quiz_html

__all__ = [
    "Case",
    "Exercise",
    "Mistake",
    "Question",
    "Result",
    "allclose",
    "ask",
    "check",
    "exact",
    "feedback",
    "find_mistake",
    "get",
    "hint",
    "question",
    "questions",
    "quiz",
    "quiz_html",
    "register",
    "register_question",
    "registry",
    "solution",
    "submit",
]
