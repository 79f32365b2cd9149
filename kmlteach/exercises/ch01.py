"""Exercises of chapter 01 (margins and SVMs).

Only the code of each exercise's record in ``records/ch01.toml`` (see :mod:`.record`): the
reference implementation, the visible cases and any catalogued mistake's wrong implementation.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from .model import Case


def _rng(seed):
    return np.random.default_rng(seed)


# 01.distance — UML Claim 15.1 ---------------------------------------------------------


def distance(x, w, b):
    """Euclidean distance of the point x to the hyperplane {v : <w, v> + b = 0}."""
    return abs(float(np.dot(w, x)) + b) / float(np.linalg.norm(w))


def _distance_cases():
    r = _rng(1)
    cases = [
        Case((np.array([3.0, 4.0]), np.array([1.0, 0.0]), 0.0), label="x=(3,4), w=(1,0), b=0"),
        Case((np.array([0.0, 0.0]), np.array([3.0, 4.0]), -10.0), label="origin, w=(3,4), b=-10"),
        Case((np.array([1.0, 1.0]), np.array([-2.0, 2.0]), 0.0), label="a point on the hyperplane"),
    ]
    for _ in range(4):
        d = int(r.integers(2, 6))
        cases.append(
            Case(
                (r.normal(size=d), r.normal(size=d) * 3, float(r.normal())),
                label=f"random x, w, b in {d} dimensions",
            )
        )
    return cases


# 01.hinge — hinge loss and the subgradient used by SGD (UML §15.5) ---------------------


def hinge_and_subgradient(w, x, y):
    """Return (max(0, 1 - y<w,x>), v) with v = -y x if y<w,x> < 1 else 0 (a subgradient in w)."""
    z = y * float(np.dot(w, x))
    if z < 1:
        return 1.0 - z, -y * np.asarray(x, dtype=float)
    return 0.0, np.zeros_like(np.asarray(x, dtype=float))


def _hinge_cases():
    r = _rng(2)
    cases = [
        Case((np.array([0.0, 0.0]), np.array([1.0, 2.0]), 1.0), label="w = 0 (margin 0)"),
        Case((np.array([2.0, 0.0]), np.array([1.0, 5.0]), 1.0), label="margin 2: no loss"),
        Case(
            (np.array([0.5, 0.0]), np.array([2.0, 3.0]), 1.0),
            label="margin exactly 1: no loss, zero subgradient",
        ),
        Case((np.array([1.0, 1.0]), np.array([1.0, 1.0]), -1.0), label="misclassified"),
    ]
    for _ in range(5):
        d = int(r.integers(2, 5))
        w, x = r.normal(size=d), r.normal(size=d)
        z = float(np.dot(w, x))
        if abs(abs(z) - 1) < 1e-3:  # keep away from the kink, where subgradients are not unique
            x = x * 1.5
        cases.append(Case((w, x, float(r.choice([-1.0, 1.0]))), label=f"random w, x in {d} dimensions"))
    return cases


# 01.sgd_step — one iteration of "SGD for solving soft-SVM" (UML §15.5) ------------------


def sgd_step(theta, t, lam, x, y):
    """One step t of UML §15.5: return (w_t, theta_next) with w_t = theta/(lam t)."""
    theta = np.asarray(theta, dtype=float)
    w = theta / (lam * t)
    if y * float(np.dot(w, x)) < 1:
        return w, theta + y * np.asarray(x, dtype=float)
    return w, theta.copy()


def _sgd_cases():
    r = _rng(3)
    cases = [
        Case((np.zeros(2), 1, 0.1, np.array([1.0, -1.0]), 1.0), label="first step from θ = 0"),
        Case((np.array([5.0, 0.0]), 2, 1.0, np.array([1.0, 0.0]), 1.0), label="margin 2.5: no update"),
        Case((np.array([2.0, 0.0]), 1, 1.0, np.array([0.5, 0.0]), 1.0), label="margin exactly 1: no update"),
    ]
    for _ in range(5):
        d = int(r.integers(2, 5))
        theta = r.normal(size=d) * 3
        t = int(r.integers(1, 50))
        lam = float(r.choice([0.01, 0.1, 1.0]))
        x = r.normal(size=d)
        z = float(np.dot(theta / (lam * t), x))
        if abs(abs(z) - 1) < 1e-3:
            x = 1.5 * x
        cases.append(
            Case(
                (theta, t, lam, x, float(r.choice([-1.0, 1.0]))),
                label=f"random θ and x in {d} dimensions, t = {t}, λ = {lam}",
            )
        )
    return cases


# 01.perceptron — Batch Perceptron (UML §9.1.2) -----------------------------------------


def batch_perceptron(X, y):
    """Start at w = 0; while some i has y_i<w, x_i> <= 0, add y_i x_i for the first such i."""
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    w = np.zeros(X.shape[1])
    while True:
        bad = np.flatnonzero(y * (X @ w) <= 0)
        if bad.size == 0:
            return w
        i = bad[0]
        w = w + y[i] * X[i]


def _separable_case(r, m, d):
    u = r.normal(size=d)
    X = r.normal(size=(m, d))
    s = X @ u
    X = X + np.outer(np.sign(s) * 0.5, u / np.linalg.norm(u))
    y = np.sign(X @ u)
    y[y == 0] = 1.0
    return X, y


def _perceptron_cases():
    r = _rng(4)
    cases = [
        Case(
            (np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, -0.5]]), np.array([1.0, 1.0, -1.0])),
            label="three points",
        ),
        Case(
            (
                np.array([[3.0, -3.0], [0.0, 2.0], [-3.0, -1.0], [0.0, -1.0]]),
                np.array([1.0, 1.0, -1.0, -1.0]),
            ),
            label="four points: the first mistake each time, not a sweep",
        ),
    ]
    for m, d in ((10, 2), (20, 3), (30, 5)):
        cases.append(Case(_separable_case(r, m, d), label=f"separable sample, m={m}, d={d}"))
    return cases


# 01.subgradient_perceptron — UML §14 ex. 3(b) -----------------------------------------


def max_margin_subgradient(w, X, y):
    """A subgradient of f(w) = max_i (1 - y_i<w, x_i>): -y_i* x_i* for the first maximiser i*."""
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    i = int(np.argmax(1 - y * (X @ w)))
    return -y[i] * X[i]


def _subgrad_cases():
    r = _rng(5)
    cases = [
        Case(
            (np.zeros(2), np.array([[1.0, 0.0], [0.0, 2.0]]), np.array([1.0, -1.0])),
            label="w = 0: every term equals 1, the first maximiser wins",
        ),
        Case(
            (
                np.array([3.0, 3.0]),
                np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]]),
                np.array([1.0, 1.0, -1.0]),
            ),
            label="every margin above 1: the maximum is negative, still attained",
        ),
    ]
    for m, d in ((8, 2), (15, 3), (25, 4)):
        X, y = _separable_case(r, m, d)
        cases.append(Case((r.normal(size=d), X, y), label=f"random w, m={m}, d={d}"))
    return cases


# 01.dual — derivation: the hard-SVM dual from the Lagrangian (UML §15.4) ---------------


def dual_from_alpha(X, y, alpha):
    """Return (w, D): the stationarity condition w = Σ α_i y_i x_i and the dual objective
    D(α) = Σ α_i − ½‖Σ α_i y_i x_i‖² of the homogeneous hard-SVM problem min ½‖w‖²."""
    w = (np.asarray(alpha, dtype=float) * np.asarray(y, dtype=float)) @ np.asarray(X, dtype=float)
    return w, float(np.sum(alpha) - 0.5 * np.dot(w, w))


def _dual_cases():
    r = _rng(6)
    cases = [
        Case(
            (np.array([[1.0, 0.0], [-1.0, 0.0]]), np.array([1.0, -1.0]), np.array([0.5, 0.5])),
            label="x = ±e_1, α = (½, ½): the optimum, w = e_1, D = ½",
        )
    ]
    for m, d in ((4, 2), (6, 3), (9, 5)):
        cases.append(
            Case(
                (r.normal(size=(m, d)), r.choice([-1.0, 1.0], size=m), r.uniform(0, 1, size=m)),
                label=f"{m} random points in {d} dimensions, random α ≥ 0",
            )
        )
    return cases


# Catalogued mistakes (wrong implementations the records' ``mistakes`` name) -------------


def _distance_functional(x, w, b):
    return abs(float(np.dot(w, x)) + b)


def _distance_signed(x, w, b):
    return (float(np.dot(w, x)) + b) / float(np.linalg.norm(w))


def _distance_norm_squared(x, w, b):
    return abs(float(np.dot(w, x)) + b) / float(np.dot(w, w))


def _hinge_no_label_in_gradient(w, x, y):
    loss, v = hinge_and_subgradient(w, x, y)
    return loss, (v * y if loss > 0 else v)


def _hinge_no_max(w, x, y):
    z = y * float(np.dot(w, x))
    return 1.0 - z, -y * np.asarray(x, dtype=float)


def _hinge_gradient_sign(w, x, y):
    loss, v = hinge_and_subgradient(w, x, y)
    return loss, -v


def _sgd_lambda_not_lambda_t(theta, t, lam, x, y):
    return sgd_step(theta, 1, lam, x, y)


def _sgd_two_lambda_t(theta, t, lam, x, y):
    return sgd_step(theta, t, 2 * lam, x, y)


def _sgd_always_update(theta, t, lam, x, y):
    w, _ = sgd_step(theta, t, lam, x, y)
    return w, np.asarray(theta, dtype=float) + y * np.asarray(x, dtype=float)


def _perceptron(X, y, pick, strict=False, batch=False, cap=10_000):
    X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    w = np.zeros(X.shape[1])
    for _ in range(cap):
        s = y * (X @ w)
        bad = np.flatnonzero(s < 0 if strict else s <= 0)
        if bad.size == 0:
            break
        w = w + (y[bad] @ X[bad] if batch else y[bad[pick]] * X[bad[pick]])
    return w


_perceptron_strict = partial(_perceptron, pick=0, strict=True)
_perceptron_last_mistake = partial(_perceptron, pick=-1)
_perceptron_all_mistakes = partial(_perceptron, pick=0, batch=True)


def _subgrad_sign(w, X, y):
    return -max_margin_subgradient(w, X, y)


def _subgrad_argmin(w, X, y):
    X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    i = int(np.argmin(1 - y * (X @ w)))
    return -y[i] * X[i]


def _subgrad_sum(w, X, y):
    return -(np.asarray(y, dtype=float) @ np.asarray(X, dtype=float))


def _dual_no_label(X, y, alpha):
    return dual_from_alpha(X, np.ones(len(y)), alpha)


def _dual_plus_half(X, y, alpha):
    w, d = dual_from_alpha(X, y, alpha)
    return w, d + float(np.dot(w, w))


def _dual_no_half(X, y, alpha):
    w, d = dual_from_alpha(X, y, alpha)
    return w, d - 0.5 * float(np.dot(w, w))
