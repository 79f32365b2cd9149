"""Exercises of chapter 02: references pass, wrong answers fail, stubs say "not implemented"."""

from __future__ import annotations

import numpy as np
from exercise_contract import exercise_contract

from kmlteach.exercises import check

IDS = ["02.poly_features", "02.gram", "02.kernel_perceptron", "02.kernel_ridge", "02.class_mean"]


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


# independent implementations written from the formulas (not the library's)
INDEPENDENT = {"02.poly_features": _poly_features, "02.gram": _gram, "02.kernel_perceptron": _perceptron,
               "02.kernel_ridge": _ridge, "02.class_mean": _class_mean}
WRONG = {
    "02.poly_features": lambda X: np.column_stack([np.ones(len(X)), X, X ** 2]),  # no sqrt(2), no cross terms
    "02.gram": lambda X, Y, sigma: _gram(X, Y, sigma ** 2),        # sigma squared: not UML's convention
    "02.kernel_perceptron": lambda K, y: np.linalg.lstsq(K, y, rcond=None)[0],
    "02.kernel_ridge": lambda K, y, lam: np.linalg.solve(K + lam * np.eye(len(y)), y),  # forgot m
    "02.class_mean": lambda K_test, K, y: K_test[:, y > 0].mean(1) - K_test[:, y < 0].mean(1),  # no b
}


(test_reference_and_independent_solution_pass, test_wrong_answer_fails_with_message,
 test_stub_reports_not_implemented, test_written_solutions_pass) = exercise_contract(IDS, INDEPENDENT, WRONG)


def test_poly_features_rejects_wrong_shapes(capsys):
    assert not check("02.poly_features", lambda X: np.ones(len(X)))
    assert not check("02.poly_features", lambda X: "features")
