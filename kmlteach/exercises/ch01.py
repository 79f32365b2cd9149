"""Exercises of chapter 01 (margins and SVMs)."""

from __future__ import annotations

import numpy as np

from .core import Case, Exercise, register
from .quiz import Question, register_question


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
    hint=(
        'Decompose x into a point on the hyperplane plus a multiple of the normal direction w (UML Claim 15.1).',
        'Moving along the unit normal w/‖w‖ by t changes <w, x> + b by t‖w‖; so the signed distance is (<w, x> + b)/‖w‖.',
        'abs(np.dot(w, x) + b) / np.linalg.norm(w)',
    ),
    minutes=5,
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
    hint=(
        'Write the loss as a function of the margin z = y<w, x>: it is linear for z < 1 and zero for z >= 1.',
        'On the linear piece the loss is 1 - y<w, x>, whose gradient in w is -y·x; on the flat piece 0 is a subgradient.',
        'z = y * np.dot(w, x); if z < 1: return 1 - z, -y * x; else return 0.0, np.zeros_like(x).',
    ),
    minutes=10,
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
    hint=(
        'SGD for soft-SVM (UML §15.5) keeps θ, the running sum of -subgradients of the hinge parts; w is θ scaled.',
        'First w = θ/(λ t). Then the hinge term is active when y<w, x> < 1 (strictly).',
        'w = theta / (lam * t); return (w, theta + y * x) if y * np.dot(w, x) < 1 else (w, theta.copy()).',
    ),
    minutes=10,
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
    hint=(
        "Batch perceptron (UML §9.1.2): start at w = 0 and repeat 'find a mistake, fix it' until none is left.",
        'A mistake is y_i<w, x_i> <= 0 (with <=, so w = 0 counts as a mistake); always fix the FIRST one, w += y_i x_i.',
        'loop: bad = np.flatnonzero(y * (X @ w) <= 0); if bad.size == 0: return w; w = w + y[bad[0]] * X[bad[0]].',
    ),
    minutes=15,
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
    hint=(
        'The objective max_i (1 - y_i<w, x_i>) is a maximum of affine functions of w.',
        'A subgradient of a maximum is the gradient of any term that attains it; term i has gradient -y_i x_i.',
        'i = np.argmax(1 - y * (X @ w)) (the first maximiser); return -y[i] * X[i].',
    ),
    minutes=10,
    solution=("def max_margin_subgradient(w, X, y):\n    i = np.argmax(1 - y * (X @ w))\n"
              "    return -y[i] * X[i]\n"),
))


# 01.dual — derivation: the hard-SVM dual from the Lagrangian (UML §15.4) ---------------

def dual_from_alpha(X, y, alpha):
    """Return (w, D): the stationarity condition w = Σ α_i y_i x_i and the dual objective
    D(α) = Σ α_i − ½‖Σ α_i y_i x_i‖² of the homogeneous hard-SVM problem min ½‖w‖²."""
    w = (np.asarray(alpha, dtype=float) * np.asarray(y, dtype=float)) @ np.asarray(X, dtype=float)
    return w, float(np.sum(alpha) - 0.5 * np.dot(w, w))


def _dual_cases():
    r = _rng(6)
    cases = [Case((np.array([[1.0, 0.0], [-1.0, 0.0]]), np.array([1.0, -1.0]), np.array([0.5, 0.5])),
                  label="x = ±e_1, α = (½, ½): the optimum, w = e_1, D = ½")]
    for m, d in ((4, 2), (6, 3), (9, 5)):
        cases.append(Case((r.normal(size=(m, d)), r.choice([-1.0, 1.0], size=m),
                           r.uniform(0, 1, size=m))))
    return cases


register(Exercise(
    id="01.dual", title="hard-SVM dual from the Lagrangian (UML §15.4)",
    reference=dual_from_alpha, cases=_dual_cases,
    hint=(
        "Write the Lagrangian L(w, α) = ½‖w‖² + Σ α_i (1 − y_i<w, x_i>) with α ≥ 0 and minimise it over w.",
        "∇_w L = w − Σ α_i y_i x_i = 0 gives w(α); substitute it back: ½‖w‖² − ‖w‖² + Σ α_i.",
        "w = (alpha * y) @ X; return w, alpha.sum() - 0.5 * w @ w.",
    ),
    minutes=20,
    solution=("def dual_from_alpha(X, y, alpha):\n    w = (alpha * y) @ X\n"
              "    return w, alpha.sum() - 0.5 * w @ w\n"),
))


# questions: concept checks (predict, then run the cell below) and the recap quiz --------

_Q = [
    Question(id="01.c_support", kind="concept",
             prompt="At the hard-SVM solution, which points have a dual variable α_i > 0?",
             choices=("every training point", "only points with y_i(<w, x_i> + b) = 1, on the edge of the band",
                      "only misclassified points", "the points farthest from the hyperplane"),
             answer=1,
             explanation="Complementary slackness: α_i > 0 only where the constraint is tight, "
                         "so w is a combination of the support vectors alone."),
    Question(id="01.c_dimension", kind="concept",
             prompt="Same margin γ = 0.1 and ρ = 1, ten times the dimension (d = 20 → 200): the measured "
                    "test errors of hard-SVM, at every training set size m, ...",
             choices=("grow roughly tenfold", "stay within a few percentage points of each other",
                      "are zero for every m"),
             answer=1,
             explanation="Theorem 15.4 depends on (ρ/γ)² and m, not on d; the two error curves are close "
                         "(and both reach 0 once m is a few hundred)."),
    Question(id="01.c_width", kind="concept",
             prompt="Soft-SVM with λ = 0.003, 0.1, 3: as λ grows, the margin width 2/‖w‖ ...",
             choices=("shrinks", "grows", "stays the same"),
             answer=1,
             explanation="A larger λ weighs (λ/2)‖w‖² more, so ‖w‖ shrinks and the band widens, "
                         "at the price of more violations."),
    Question(id="01.q1", prompt="Distance of x = (3, 4) to the hyperplane <w, v> − 10 = 0 with w = (3, 4)?",
             choices=(), answer=3.0, tol=1e-6,
             explanation="|<w, x> + b|/‖w‖ = |9 + 16 − 10|/5 = 3 (UML Claim 15.1)."),
    Question(id="01.q2", prompt="Novikoff: with ‖x_i‖ ≤ R = 2 and margin γ = 0.5, at most how many "
                                "mistakes can the perceptron make?",
             choices=(), answer=16.0, tol=1e-6,
             explanation="(R/γ)² = (2/0.5)² = 16 (HSS2 §2.2.1)."),
    Question(id="01.q3", prompt="In the course's λ convention, scikit-learn's C for m examples is ...",
             choices=("C = λ", "C = 1/λ", "C = 1/(λ m)", "C = λ m"), answer=2,
             explanation="(λ/2)‖w‖² + (1/m)Σξ_i is ½‖w‖² + CΣξ_i divided by λ, with C = 1/(λm)."),
    Question(id="01.q4", prompt="In the soft-margin dual, a point with 0 < α_i < C lies ...",
             choices=("exactly on the edge of the band, y_i f(x_i) = 1", "strictly outside the band",
                      "inside the band or misclassified", "anywhere: α_i says nothing"),
             answer=0,
             explanation="KKT: α_i = 0 outside, 0 < α_i < C on the edge, α_i = C inside or misclassified."),
    Question(id="01.q5", prompt="Hinge loss max(0, 1 − z) at the margin z = y f(x) = −0.5?",
             choices=(), answer=1.5, tol=1e-6,
             explanation="1 − (−0.5) = 1.5; the point is misclassified and pays more than the 0–1 loss."),
]
for _q in _Q:
    register_question(_q)
