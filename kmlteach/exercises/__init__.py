"""Auto-checked exercises and questions.

Use ``check(id, fn)``, ``hint(id, level=1)``, ``solution(id)`` for exercises and
``ask(id, choice)``, ``quiz(chapter)``, ``quiz_html(chapter)`` for concept checks and
recap quizzes. Each chapter registers its exercises and questions in
``kmlteach/exercises/chNN.py``; the exercise ids are listed with their points and
minutes in ``book.toml``.
"""

from .core import Case, Exercise, allclose, check, exact, get, hint, register, registry, solution
from .quiz import Question, ask, questions, quiz, quiz_html, register_question

__all__ = ["Case", "Exercise", "Question", "allclose", "ask", "check", "exact", "get", "hint",
           "questions", "quiz", "quiz_html", "register", "register_question", "registry",
           "solution"]
