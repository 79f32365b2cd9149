"""Auto-checked exercises. Use ``check(id, fn)``, ``hint(id)``, ``solution(id)``.

Each chapter registers its exercises in ``kmlteach/exercises/chNN.py``; the ids are
listed with their points in ``book.toml``.
"""

from .core import Case, Exercise, allclose, check, exact, get, hint, register, registry, solution

__all__ = ["Case", "Exercise", "allclose", "check", "exact", "get", "hint", "register",
           "registry", "solution"]
