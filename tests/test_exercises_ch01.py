"""Exercises of chapter 01: the derivation exercise 01.dual and the chapter's tiered hints."""

from __future__ import annotations

import numpy as np
from exercise_contract import exercise_contract

from kmlteach.exercises import get

IDS = ["01.dual"]


def _dual(X, y, alpha):
    m = len(y)
    w = sum(alpha[i] * y[i] * X[i] for i in range(m))
    Q = sum(alpha[i] * alpha[j] * y[i] * y[j] * (X[i] @ X[j]) for i in range(m) for j in range(m))
    return w, sum(alpha) - 0.5 * Q


INDEPENDENT = {"01.dual": _dual}
WRONG = {
    "01.dual": lambda X, y, alpha: ((alpha * y) @ X, alpha.sum() - ((alpha * y) @ X) @ ((alpha * y) @ X))
}

(
    test_reference_and_independent_solution_pass,
    test_wrong_answer_fails_with_message,
    test_stub_reports_not_implemented,
    test_written_solutions_pass,
) = exercise_contract(IDS, INDEPENDENT, WRONG)


def test_dual_value_at_the_solver_alpha_is_the_primal_value():
    # strong duality (UML §15.4): at the optimal α, D(α) = ½‖w*‖² and w(α) = w*
    from kmlteach.datasets import separable
    from kmlteach.exercises.ch01 import dual_from_alpha
    from kmlteach.svm import hard_svm

    X, y = separable(30, seed=2)
    res = hard_svm(X, y, homogeneous=True)
    w, D = dual_from_alpha(X, y, res.alpha)
    assert np.allclose(w, res.w, atol=1e-6)
    assert abs(D - 0.5 * res.w @ res.w) < 1e-6


def test_chapters_00_to_03_have_tiered_hints_and_minutes():
    from kmlteach.course import book

    for c in ("00", "01", "02", "03"):
        for e in book.load().chapter(c).exercises:
            ex = get(e["id"])
            assert len(ex.hints) >= 2, e["id"]
            assert ex.minutes == e["minutes"], f"{e['id']}: minutes differ from book.toml"
