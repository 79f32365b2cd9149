"""Exercises of chapter 01 (margins and SVMs)."""

from __future__ import annotations

import numpy as np

from .core import Case, Exercise, register


def _rng(seed):
    return np.random.default_rng(seed)


# 01.distance — UML Claim 15.1 ---------------------------------------------------------

def distance(x, w, b):
    """Euclidean distance of the point x to the hyperplane {v : <w, v> + b = 0}."""
    return abs(float(np.dot(w, x)) + b) / float(np.linalg.norm(w))


def _distance_cases():
    r = _rng(1)
    cases = [Case((np.array([3.0, 4.0]), np.array([1.0, 0.0]), 0.0), label="x=(3,4), w=(1,0), b=0"),
             Case((np.array([0.0, 0.0]), np.array([3.0, 4.0]), -10.0), label="origin, w=(3,4), b=-10"),
             Case((np.array([1.0, 1.0]), np.array([-2.0, 2.0]), 0.0), label="a point on the hyperplane")]
    for _ in range(4):
        d = int(r.integers(2, 6))
        cases.append(Case((r.normal(size=d), r.normal(size=d) * 3, float(r.normal()))))
    return cases


register(Exercise(
    id="01.distance", title="distance to a hyperplane (UML Claim 15.1)",
    reference=distance, cases=_distance_cases,
    hint="Project x onto the unit normal w/‖w‖: the signed distance is (<w, x> + b)/‖w‖; "
         "the distance is its absolute value.",
    solution="def distance(x, w, b):\n    return abs(np.dot(w, x) + b) / np.linalg.norm(w)\n",
))


# 01.hinge — hinge loss and the subgradient used by SGD (UML §15.5) ---------------------

def hinge_and_subgradient(w, x, y):
    """Return (max(0, 1 - y<w,x>), v) with v = -y x if y<w,x> < 1 else 0 (a subgradient in w)."""
    z = y * float(np.dot(w, x))
    if z < 1:
        return 1.0 - z, -y * np.asarray(x, dtype=float)
    return 0.0, np.zeros_like(np.asarray(x, dtype=float))


def _hinge_cases():
    r = _rng(2)
    cases = [Case((np.array([0.0, 0.0]), np.array([1.0, 2.0]), 1.0), label="w = 0 (margin 0)"),
             Case((np.array([2.0, 0.0]), np.array([1.0, 5.0]), 1.0), label="margin 2: no loss"),
             Case((np.array([1.0, 1.0]), np.array([1.0, 1.0]), -1.0), label="misclassified")]
    for _ in range(5):
        d = int(r.integers(2, 5))
        w, x = r.normal(size=d), r.normal(size=d)
        z = float(np.dot(w, x))
        if abs(abs(z) - 1) < 1e-3:  # keep away from the kink, where subgradients are not unique
            x = x * 1.5
        cases.append(Case((w, x, float(r.choice([-1.0, 1.0])))))
    return cases


register(Exercise(
    id="01.hinge", title="hinge loss and its subgradient",
    reference=hinge_and_subgradient, cases=_hinge_cases,
    hint="Compute the margin z = y·<w, x>. If z < 1 the loss is 1 - z and its gradient in w is "
         "-y·x; otherwise the loss is 0 and 0 is a subgradient.",
    solution=("def hinge_and_subgradient(w, x, y):\n    z = y * np.dot(w, x)\n    if z < 1:\n"
              "        return 1 - z, -y * x\n    return 0.0, np.zeros_like(x)\n"),
))


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
    cases = [Case((np.zeros(2), 1, 0.1, np.array([1.0, -1.0]), 1.0), label="first step from θ = 0"),
             Case((np.array([5.0, 0.0]), 2, 1.0, np.array([1.0, 0.0]), 1.0), label="margin 2.5: no update")]
    for _ in range(5):
        d = int(r.integers(2, 5))
        theta = r.normal(size=d) * 3
        t = int(r.integers(1, 50))
        lam = float(r.choice([0.01, 0.1, 1.0]))
        x = r.normal(size=d)
        z = float(np.dot(theta / (lam * t), x))
        if abs(abs(z) - 1) < 1e-3:
            x = 1.5 * x
        cases.append(Case((theta, t, lam, x, float(r.choice([-1.0, 1.0])))))
    return cases


register(Exercise(
    id="01.sgd_step", title="one step of SGD for soft-SVM (UML §15.5)",
    reference=sgd_step, cases=_sgd_cases,
    hint="First w = θ/(λ t). Then test the margin y·<w, x> against 1 (strictly smaller means a "
         "hinge subgradient is non-zero) and add y·x to θ in that case.",
    solution=("def sgd_step(theta, t, lam, x, y):\n    w = theta / (lam * t)\n"
              "    if y * np.dot(w, x) < 1:\n        return w, theta + y * x\n    return w, theta.copy()\n"),
))


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
    cases = [Case((np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, -0.5]]), np.array([1.0, 1.0, -1.0])),
                  label="three points")]
    for m, d in ((10, 2), (20, 3), (30, 5)):
        cases.append(Case(_separable_case(r, m, d), label=f"separable sample, m={m}, d={d}"))
    return cases


register(Exercise(
    id="01.perceptron", title="the batch perceptron (UML §9.1.2)",
    reference=batch_perceptron, cases=_perceptron_cases,
    hint="Keep w (start at zeros). Find every i with y_i·<w, x_i> <= 0 (note: <=, so that w = 0 "
         "counts as a mistake); if there is none, return w; otherwise update with the first one.",
    solution=("def batch_perceptron(X, y):\n    w = np.zeros(X.shape[1])\n    while True:\n"
              "        bad = np.flatnonzero(y * (X @ w) <= 0)\n        if bad.size == 0:\n"
              "            return w\n        w = w + y[bad[0]] * X[bad[0]]\n"),
))


# 01.subgradient_perceptron — UML §14 ex. 3(b) -----------------------------------------

def max_margin_subgradient(w, X, y):
    """A subgradient of f(w) = max_i (1 - y_i<w, x_i>): -y_i* x_i* for the first maximiser i*."""
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    i = int(np.argmax(1 - y * (X @ w)))
    return -y[i] * X[i]


def _subgrad_cases():
    r = _rng(5)
    cases = [Case((np.zeros(2), np.array([[1.0, 0.0], [0.0, 2.0]]), np.array([1.0, -1.0])),
                  label="w = 0: every term equals 1, the first maximiser wins")]
    for m, d in ((8, 2), (15, 3), (25, 4)):
        X, y = _separable_case(r, m, d)
        cases.append(Case((r.normal(size=d), X, y), label=f"random w, m={m}, d={d}"))
    return cases


register(Exercise(
    id="01.subgradient_perceptron", title="perceptron as subgradient descent (UML §14 ex. 3)",
    reference=max_margin_subgradient, cases=_subgrad_cases,
    hint="The subgradient of a maximum of affine functions is the gradient of a term that attains "
         "the maximum. Here the i-th term 1 - y_i<w, x_i> has gradient -y_i x_i. Use np.argmax "
         "(it returns the first maximiser).",
    solution=("def max_margin_subgradient(w, X, y):\n    i = np.argmax(1 - y * (X @ w))\n"
              "    return -y[i] * X[i]\n"),
))
