"""Exercises of chapters 00 and 01: the contract (tests/exercise_contract.py), the dual at the
solver's α, and the chapters' tiered hints."""

from __future__ import annotations

import numpy as np
from exercise_contract import exercise_contract

from kmlteach.exercises import get


def _dot(a, b) -> float:
    return sum(float(p) * float(q) for p, q in zip(a, b))


def _margins(X, y, w):
    return np.array([y[i] * _dot(X[i], w) for i in range(len(y))])


def _distance(x, w, b):
    # the foot of the perpendicular is x - s w with <w, x - s w> + b = 0 (UML Claim 15.1)
    s = (_dot(w, x) + b) / _dot(w, w)
    return abs(s) * _dot(w, w) ** 0.5


def _hinge(w, x, y):
    z = y * _dot(w, x)
    return max(0.0, 1.0 - z), np.array([-y * v if z < 1 else 0.0 for v in x])


def _sgd_step(theta, t, lam, x, y):
    w = [th / (lam * t) for th in theta]
    update = y * _dot(w, x) < 1
    return np.array(w), np.array([th + (y * v if update else 0.0) for th, v in zip(theta, x)])


def _perceptron(X, y):
    w = [0.0] * len(X[0])
    while True:
        for i in range(len(y)):  # from the first point again after every update
            if y[i] * _dot(w, X[i]) <= 0:
                w = [a + y[i] * b for a, b in zip(w, X[i])]
                break
        else:
            return np.array(w)


def _subgradient(w, X, y):
    values = [1 - y[i] * _dot(w, X[i]) for i in range(len(y))]
    i = values.index(max(values))
    return np.array([-y[i] * v for v in X[i]])


def _dual(X, y, alpha):
    m = len(y)
    w = sum(alpha[i] * y[i] * X[i] for i in range(m))
    Q = sum(alpha[i] * alpha[j] * y[i] * y[j] * (X[i] @ X[j]) for i in range(m) for j in range(m))
    return w, sum(alpha) - 0.5 * Q


def _never_updates(X, y):  # the test written "< 0": from w = 0 nothing is ever a mistake
    return np.zeros(np.asarray(X).shape[1])


INDEPENDENT = {
    "00.margins": _margins,
    "01.distance": _distance,
    "01.hinge": _hinge,
    "01.sgd_step": _sgd_step,
    "01.perceptron": _perceptron,
    "01.subgradient_perceptron": _subgradient,
    "01.dual": _dual,
}
WRONG = {
    "00.margins": lambda X, y, w: X @ w,
    "01.distance": lambda x, w, b: (np.dot(w, x) + b) / np.linalg.norm(w),
    "01.hinge": lambda w, x, y: (max(0.0, 1 - y * np.dot(w, x)), y * np.asarray(x, dtype=float)),
    "01.sgd_step": lambda theta, t, lam, x, y: _sgd_step(np.asarray(theta) * t, t, lam, x, y),
    "01.perceptron": _never_updates,
    "01.subgradient_perceptron": lambda w, X, y: -_subgradient(w, X, y),
    "01.dual": lambda X, y, alpha: ((alpha * y) @ X, alpha.sum() - ((alpha * y) @ X) @ ((alpha * y) @ X)),
}

(
    test_every_exercise_has_its_test_functions,
    test_reference_and_independent_solution_pass,
    test_wrong_answer_fails_with_message,
    test_stub_reports_not_implemented,
    test_written_solutions_pass,
) = exercise_contract(["00", "01"], INDEPENDENT, WRONG)


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


def test_the_first_mistake_rule_is_the_courses_convention():
    """Issue 38, point 5: UML §9.1.2 lets the batch perceptron fix any violating point;
    fixing the first one is the course's convention, and the record says so."""
    from kmlteach.exercises import record

    (rec,) = [
        r for r in record.load_chapter(record.chapter_files()["01"])["exercise"] if r["id"] == "01.perceptron"
    ]
    texts = [*rec["hints"], rec["hint_last"], *(m["explain"] for m in rec["mistakes"])]
    for text in texts:
        for sentence in text.split(". "):
            if "first" in sentence and "UML" in sentence:
                assert "any" in sentence and "convention" in sentence, sentence
    (last,) = [m for m in get("01.perceptron").mistakes if "last mistake" in m.name]
    assert last.kind == "convention" and "any point" in last.explain


def test_a_cyclic_perceptron_and_a_test_at_margin_one_fail_a_visible_case():
    """Issue 36, point 4: the two plausible answers the walk found passing (8/8 and 4/4)."""
    import numpy as np

    from kmlteach.exercises import check

    def hinge_le(w, x, y):
        z = y * float(np.dot(w, x))
        return (1.0 - z, -y * np.asarray(x, float)) if z <= 1 else (0.0, np.zeros(len(x)))

    def cyclic(X, y):
        w = np.zeros(X.shape[1])
        for _ in range(1000):
            changed = False
            for i in range(len(y)):
                if y[i] * (X[i] @ w) <= 0:
                    w, changed = w + y[i] * X[i], True
            if not changed:
                return w
        return w

    assert not check("01.hinge", hinge_le, verbose=False)
    assert not check("01.perceptron", cyclic, verbose=False)
