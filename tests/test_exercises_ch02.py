"""Exercises of chapter 02: references pass, wrong answers fail, stubs say "not implemented"."""

from __future__ import annotations

import numpy as np
from exercise_contract import exercise_contract

from kmlteach.exercises import check


def _poly_features(X):
    # a different order and signs than the library's: still the same inner products
    m, d = X.shape
    cols = [X[:, j] ** 2 for j in range(d)] + [-np.sqrt(2) * X[:, j] for j in range(d)]
    cols += [np.sqrt(2) * X[:, j] * X[:, k] for j in range(d) for k in range(j + 1, d)] + [np.ones(m)]
    return np.column_stack(cols)


def _gram(X, Y, sigma):
    return np.array([[np.exp(-np.sum((x - z) ** 2) / (2 * sigma)) for z in Y] for x in X])


def _perceptron(K, y):
    alpha = np.zeros(len(y))
    while True:
        bad = [i for i in range(len(y)) if y[i] * (K[:, i] @ alpha) <= 0]
        if not bad:
            return alpha
        alpha[bad[0]] += y[bad[0]]


def _ridge(K, y, lam):
    m = len(y)
    return np.linalg.inv(K + lam * m * np.eye(m)) @ y


def _class_mean(K_test, K, y):
    p, n = y > 0, y < 0
    cp = K[np.ix_(p, p)].sum() / p.sum() ** 2
    cn = K[np.ix_(n, n)].sum() / n.sum() ** 2
    return K_test[:, p].sum(1) / p.sum() - K_test[:, n].sum(1) / n.sum() + 0.5 * (cn - cp)


def _kernel_sgd(K, y, lam, idx):
    # SGD on θ = Σ β_j ψ(x_j) with the average written as Σ_t β(t)/(λ t) / T
    beta, acc = np.zeros(len(y)), np.zeros(len(y))
    for t in range(1, len(idx) + 1):
        i = idx[t - 1]
        score = sum(beta[j] * K[j, i] for j in range(len(y))) / (lam * t)
        acc += beta / t
        if y[i] * score < 1:
            beta[i] = beta[i] + y[i]
    return acc / (lam * len(idx))


def _kernel_sgd_after_update(K, y, lam, idx):
    # plausible slip: averaging α AFTER the step's update
    beta, total = np.zeros(len(y)), np.zeros(len(y))
    for t, i in enumerate(idx, 1):
        if y[i] * (K[i] @ (beta / (lam * t))) < 1:
            beta[i] += y[i]
        total += beta / (lam * t)
    return total / len(idx)


# independent implementations written from the formulas (not the library's)
INDEPENDENT = {
    "02.poly_features": _poly_features,
    "02.gram": _gram,
    "02.kernel_perceptron": _perceptron,
    "02.kernel_ridge": _ridge,
    "02.class_mean": _class_mean,
    "02.kernel_sgd": _kernel_sgd,
}
WRONG = {
    "02.poly_features": lambda X: np.column_stack([np.ones(len(X)), X, X**2]),  # no sqrt(2), no cross terms
    "02.gram": lambda X, Y, sigma: _gram(X, Y, sigma**2),  # sigma squared: not UML's convention
    "02.kernel_perceptron": lambda K, y: np.linalg.lstsq(K, y, rcond=None)[0],
    "02.kernel_ridge": lambda K, y, lam: np.linalg.solve(K + lam * np.eye(len(y)), y),  # forgot m
    "02.class_mean": lambda K_test, K, y: K_test[:, y > 0].mean(1) - K_test[:, y < 0].mean(1),  # no b
    "02.kernel_sgd": _kernel_sgd_after_update,
}


(
    test_every_exercise_has_its_test_functions,
    test_reference_and_independent_solution_pass,
    test_wrong_answer_fails_with_message,
    test_stub_reports_not_implemented,
    test_written_solutions_pass,
) = exercise_contract(["02"], INDEPENDENT, WRONG)


def test_poly_features_rejects_wrong_shapes(capsys):
    assert not check("02.poly_features", lambda X: np.ones(len(X)))
    assert not check("02.poly_features", lambda X: "features")


def test_kernel_sgd_reference_is_lemma_16_3():
    # oracle: the library's kernel SGD (lazy harmonic sums, Numba) with the same indices,
    # and SGD on explicit features (Lemma 16.3)
    from kmlteach.exercises.ch02 import kernel_sgd_alpha
    from kmlteach.kernel_methods import kernel_sgd_svm
    from kmlteach.kernels import gram, polynomial_features
    from kmlteach.svm import sgd_soft_svm

    rng = np.random.default_rng(5)
    X, y = rng.normal(size=(12, 2)), rng.choice([-1.0, 1.0], size=12)
    K = gram("polynomial", X, degree=2)
    res = kernel_sgd_svm(K, y, 0.1, 200, 3)
    alpha = kernel_sgd_alpha(K, y, 0.1, res.indices)
    assert np.allclose(alpha, res.alpha, atol=1e-12)
    w = sgd_soft_svm(polynomial_features(X, 2), y, 0.1, 200, 3).w
    assert np.allclose(polynomial_features(X, 2).T @ alpha, w, atol=1e-10)


def test_expneg_concept_check_has_four_options_listed_in_the_notebook():
    """Issue 38, point 5: 02.c_expneg offers 3-4 options, each with its feedback, and the
    notebook lists the same options before asking."""
    from pathlib import Path

    from kmlteach.exercises.quiz import questions

    (q,) = [q for q in questions("02") if q.id == "02.c_expneg"]
    assert 3 <= len(q.choices) <= 4 and len(q.feedback) == len(q.choices)
    src = (Path(__file__).resolve().parents[1] / "notebooks" / "src" / "02-kernels.py").read_text(
        encoding="utf-8"
    )
    block = src[: src.index('ask("02.c_expneg"')].rsplit("**Predict first.**", 1)[1]
    for letter, choice in zip("abcd", q.choices):
        head = choice.split(" ")[0]
        assert f"({letter}) {head}" in block, (letter, choice)
