"""Exercises of chapter 04 (multiclass)."""

from __future__ import annotations

import numpy as np

from ..multiclass import generalized_hinge, multiclass_perceptron, multivector_psi
from .core import Case, Exercise, allclose, exact, register
from .quiz import Question, register_question


def _rng(seed):
    return np.random.default_rng(seed)


# 04.multivector_psi — UML §17.2.1, Eq. (17.2) --------------------------------------------

def psi(x, y, k):
    """Ψ(x, y) ∈ R^{kn}: zeros except block y (0-based), which holds x."""
    return multivector_psi(x, y, k)


def _psi_cases():
    r = _rng(41)
    cases = [Case((np.array([1.0, 2.0]), 0, 3), label="x=(1,2), y=0, k=3"),
             Case((np.array([1.0, 2.0]), 2, 3), label="x=(1,2), y=2, k=3 (last block)"),
             Case((np.array([-3.0]), 1, 2), label="one feature, two classes")]
    for _ in range(4):
        n, k = int(r.integers(1, 5)), int(r.integers(2, 6))
        cases.append(Case((r.normal(size=n), int(r.integers(0, k)), k)))
    return cases


register(Exercise(
    id="04.multivector_psi", title="the multivector feature map Ψ (UML (17.2))",
    reference=psi, cases=_psi_cases,
    minutes=4,
    hint=(
        'Ψ(x, y) has k blocks of length n = len(x), one per class; only block y is non-'
        'zero (UML (17.2)).',
        'Which entries does block y occupy? Count the n entries of each of the y blocks '
        'before it.',
        "Start from np.zeros(k * n) with n = len(x) and copy x into the slice "
        "[y * n, (y + 1) * n).",
    ),
    solution=("def psi(x, y, k):\n    n = len(x)\n    out = np.zeros(k * n)\n"
              "    out[y * n:(y + 1) * n] = x\n    return out\n"),
))


# 04.generalized_hinge — UML §17.2.4, Eq. (17.3) ------------------------------------------

def ghinge(W, x, y, Delta):
    """max_{y'} Delta[y', y] + <W[y'], x> - <W[y], x> for one example (multivector Ψ)."""
    return float(generalized_hinge(W, np.asarray(x)[None, :], [y], delta=Delta)[0])


def _ghinge_cases():
    r = _rng(42)
    I3 = 1.0 - np.eye(3)
    cases = [Case((np.zeros((3, 2)), np.array([1.0, 1.0]), 0, I3), label="W = 0: the loss is max Δ = 1"),
             Case((np.array([[5.0, 0.0], [0.0, 0.0], [0.0, 0.0]]), np.array([1.0, 0.0]), 0, I3),
                  label="correct with margin 5: loss 0"),
             Case((np.array([[0.0, 1.0], [1.0, 0.0], [0.0, 0.0]]), np.array([2.0, 0.0]), 0, I3),
                  label="wrong prediction")]
    for _ in range(5):
        k, d = int(r.integers(2, 5)), int(r.integers(1, 4))
        D = r.uniform(0.5, 3.0, size=(k, k))
        np.fill_diagonal(D, 0.0)
        cases.append(Case((r.normal(size=(k, d)), r.normal(size=d), int(r.integers(0, k)), D)))
    return cases


register(Exercise(
    id="04.generalized_hinge", title="the generalized hinge loss (UML (17.3))",
    reference=ghinge, cases=_ghinge_cases,
    minutes=6,
    hint=(
        "The loss compares the true label's score with every other label's score plus its"
        " cost Delta[y', y] (UML (17.3)); the label y' = y contributes exactly 0.",
        "With the multivector Ψ, ⟨w, Ψ(x, y')⟩ is just the score of class y' — one row of"
        ' W times x. Compute all k scores at once, then one maximum.',
        "With the multivector Ψ, ⟨w, Ψ(x, y')⟩ = W[y'] @ x. Compute the scores s = W @ x, "
        "then the maximum over y' of Delta[y', y] + s[y'] - s[y] (y' = y gives 0).",
    ),
    solution=("def ghinge(W, x, y, Delta):\n    s = W @ x\n"
              "    return float(np.max(Delta[:, y] + s - s[y]))\n"),
))


# 04.multiclass_perceptron — UML exercise 17.2 ---------------------------------------------

def batch_multiclass_perceptron(X, y, k):
    """UML ex. 17.2 with the multivector Ψ; scan in order, strongest competitor, stop
    after a clean pass. Returns W (k, n)."""
    return multiclass_perceptron(X, y).W


def _perceptron_cases():
    r = _rng(43)
    cases = [Case((np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([0, 1]), 2), label="two points, two classes"),
             Case((np.array([[1.0, 0.2], [0.1, 1.0], [-1.0, -0.9]]), np.array([0, 1, 2]), 3),
                  label="three points, three classes")]
    while len(cases) < 5:
        k, m = 3 + len(cases) % 2, 12
        Wt = r.normal(size=(k, 2))
        X = r.normal(size=(m, 2)) * 2
        yy = np.argmax(X @ Wt.T, axis=1)
        if len(np.unique(yy)) == k:                # every class present
            cases.append(Case((X, yy, k), label=f"{m} separable points, {k} classes"))
    return cases


register(Exercise(
    id="04.multiclass_perceptron", title="the batch multiclass perceptron (UML ex. 17.2)",
    reference=batch_multiclass_perceptron, cases=_perceptron_cases,
    minutes=15,
    hint=(
        'The perceptron only changes W when an example is mistaken (or tied): then it '
        "moves the true class's weights towards x and the strongest wrong class's weights"
        ' away (UML ex. 17.2).',
        'Keep passing over the data in order; inside a pass, find the competitor j ≠ y[i]'
        ' with the largest score; update if it scores at least as high as y[i]; stop '
        'after a pass with no update.',
        "W = np.zeros((k, n)). Repeat passes i = 0..m-1: s = W @ X[i]; among the labels "
        "j != y[i] take the one with the largest s[j] (np.argmax after setting s[y[i]] to "
        "-inf on a copy); if s[j] >= s[y[i]], add X[i] to W[y[i]] and subtract it from W[j]. "
        "Stop after a pass without any update.",
    ),
    solution=("def batch_multiclass_perceptron(X, y, k):\n    W = np.zeros((k, X.shape[1]))\n"
              "    while True:\n        updated = False\n        for x, yi in zip(X, y):\n"
              "            s = W @ x\n            c = s.copy()\n            c[yi] = -np.inf\n"
              "            j = int(np.argmax(c))\n            if s[j] >= s[yi]:\n"
              "                W[yi] += x\n                W[j] -= x\n                updated = True\n"
              "        if not updated:\n            return W\n"),
))


# 04.one_vs_all — UML §17.1 ----------------------------------------------------------------

def ova_predict(X, y, X_new, k, fit_binary):
    """One-vs-all with a binary learner fit_binary(X, t) -> w (scores X @ w); ties go to
    the smallest class index."""
    S = np.column_stack([X_new @ fit_binary(X, np.where(y == c, 1.0, -1.0)) for c in range(k)])
    return np.argmax(S, axis=1)


def _lstsq_fit(X, t):
    return np.linalg.lstsq(X, t, rcond=None)[0]


def _only_class_zero(X, t):
    """A degenerate learner: w = 0 except for the problem 'class 0 vs rest'."""
    return _lstsq_fit(X, t) if t[0] > 0 else np.zeros(X.shape[1])


def _ova_cases():
    r = _rng(44)
    cases = []
    for k in (3, 4):
        C = r.normal(scale=3, size=(k, 2))
        y = np.arange(30) % k
        X = np.c_[C[y] + r.normal(size=(30, 2)), np.ones(30)]
        Xn = np.c_[r.normal(scale=3, size=(10, 2)), np.ones(10)]
        cases.append(Case((X, y, Xn, k, _lstsq_fit), label=f"{k} blobs, least-squares learner"))
    X = np.c_[r.normal(size=(12, 2)), np.ones(12)]
    y = np.arange(12) % 3
    y[0] = 0
    cases.append(Case((X, y, np.zeros((4, 3)), 3, _lstsq_fit), label="all scores 0: ties"))
    cases.append(Case((X, y, X, 3, _only_class_zero), label="learners 1 and 2 return w = 0"))
    return cases


register(Exercise(
    id="04.one_vs_all", title="one-vs-all prediction (UML §17.1)",
    reference=ova_predict, cases=_ova_cases, compare=exact(),
    prepare=lambda got: np.asarray(got),
    minutes=10,
    hint=(
        "One-vs-all trains k binary problems, 'class c against the rest', and predicts "
        'the class whose binary scorer is most confident (UML §17.1).',
        'For class c the binary labels are +1 on class c and −1 elsewhere; fit_binary '
        'gives w_c, and X_new @ w_c the scores. Ties go to the smallest class index.',
        "For each class c build t = +1 where y == c and -1 elsewhere, get w_c = "
        "fit_binary(X, t) and the scores X_new @ w_c. Stack them as columns and take "
        "np.argmax along axis 1 (it returns the first maximum: the smallest index).",
    ),
    solution=("def ova_predict(X, y, X_new, k, fit_binary):\n"
              "    S = np.column_stack([X_new @ fit_binary(X, np.where(y == c, 1.0, -1.0))\n"
              "                         for c in range(k)])\n    return np.argmax(S, axis=1)\n"),
))


# 04.kesler — the slides' Kesler construction ---------------------------------------------

def kesler_vectors(x, i, k):
    """The k - 1 vectors x_ij = Ψ(x, i) − Ψ(x, j), j ≠ i increasing, as rows (k-1, k n)."""
    x = np.asarray(x, dtype=float)
    return np.array([multivector_psi(x, i, k) - multivector_psi(x, j, k)
                     for j in range(k) if j != i])


def _kesler_cases():
    r = _rng(45)
    cases = [Case((np.array([1.0, 2.0]), 1, 4), label="x=(1,2), label 1 of 4 (0-based)"),
             Case((np.array([3.0]), 0, 2), label="one feature, two classes")]
    for _ in range(3):
        n, k = int(r.integers(1, 4)), int(r.integers(2, 5))
        cases.append(Case((r.normal(size=n), int(r.integers(0, k)), k)))
    return cases


register(Exercise(
    id="04.kesler", title="Kesler's construction of one example",
    reference=kesler_vectors, cases=_kesler_cases, compare=allclose(),
    minutes=8,
    hint=(
        "Kesler's construction turns 'class i beats class j' into one binary constraint "
        'on the stacked vector w = [w_1; …; w_k]: ⟨w_i − w_j, x⟩ > 0.',
        'One row per competitor j ≠ i (k − 1 rows), in increasing j; each row has k '
        'blocks of length n.',
        "For each j != i (increasing), the row is zero except +x in block i and -x in "
        "block j (block c = columns c*n to (c+1)*n).",
    ),
    solution=("def kesler_vectors(x, i, k):\n    n = len(x)\n    rows = []\n"
              "    for j in range(k):\n        if j == i:\n            continue\n"
              "        v = np.zeros(k * n)\n        v[i * n:(i + 1) * n] = x\n"
              "        v[j * n:(j + 1) * n] = -x\n        rows.append(v)\n    return np.array(rows)\n"),
))


# Concept checks (predict, then reveal) and the recap quiz --------------------------------

register_question(Question(
    id="04.c_ova", kind="concept",
    prompt=("UML Example 17.1: three classes in a row, the middle one (class 2) holding 20 % "
            "of the mass. One-vs-all with an exact ERM learner over halfspaces: which fraction "
            "of the class-2 points does it classify correctly?"),
    choices=("all of them", "about half of them", "none of them",
             "it depends on the random sample"),
    answer=2,
    explanation=("Every halfspace that captures some of class 2 captures at least as much of "
                 "classes 1 or 3, so ERM for 'class 2 vs rest' is the constant −1; the tie on "
                 "class 2 then goes to class 1 and class 2 is never predicted (UML §17.1)."),
))
register_question(Question(
    id="04.c_mass", kind="concept",
    prompt=("Keep class 2 on the line between classes 1 and 3 but let its mass grow above one "
            "third. What does the ERM halfspace for 'class 2 against the rest' become?"),
    choices=("still the constant −1", "a halfspace that cuts class 2 off alone",
             "a halfspace that puts class 2 together with an outer class on the + side",
             "the constant +1"),
    answer=2,
    explanation=("Once class 2 outweighs an outer class, labelling class 2 and class 3 (or 1) "
                 "positive makes fewer mistakes than the constant rule: the failure moves "
                 "elsewhere. The widget below shows it."),
))
register_question(Question(
    id="04.q1",
    prompt="How many binary classifiers does all-pairs train for k = 6 classes?",
    choices=(), answer=15.0, tol=0.0,
    explanation="One per unordered pair of classes: k(k − 1)/2 = 15 (UML §17.1).",
))
register_question(Question(
    id="04.q2",
    prompt=("With the multivector map (17.2), k classes and n features, what is the dimension "
            "of Ψ(x, y)?"),
    choices=("n", "k", "k·n", "k + n"),
    answer=2,
    explanation="k blocks of length n, only block y non-zero (UML §17.2.1).",
))
register_question(Question(
    id="04.q3",
    prompt=("The generalized hinge loss max_{y'} [Δ(y', y) + ⟨w, Ψ(x, y') − Ψ(x, y)⟩] is zero "
            "exactly when"),
    choices=("the prediction is right",
             "the true label beats every other label y' by a margin of at least Δ(y', y)",
             "w = 0", "Δ is the 0–1 cost"),
    answer=1,
    explanation=("y' = y contributes 0, so the maximum is 0 iff every other label's term is "
                 "≤ 0, i.e. a margin of Δ(y', y) (UML (17.3)). A right prediction with a small "
                 "margin still has a positive loss."),
))
register_question(Question(
    id="04.q4",
    prompt=("In Kesler's construction, an example of class i in R^n becomes how many binary "
            "vectors, and of what dimension?"),
    choices=("k vectors in R^n", "k − 1 vectors in R^{kn}", "k(k − 1)/2 vectors in R^n",
             "one vector in R^{kn}"),
    answer=1,
    explanation=("One vector x_ij = Ψ(x, i) − Ψ(x, j) per competitor j ≠ i, each with k blocks "
                 "of length n."),
))
register_question(Question(
    id="04.q5",
    prompt=("The generalized hinge loss at w upper-bounds which quantity of the prediction "
            "h_w(x)?"),
    choices=("the 0–1 loss only", "the cost Δ(h_w(x), y)", "the hinge loss of each pair",
             "nothing: it is only a heuristic"),
    answer=1,
    explanation=("Take y' = h_w(x) in the maximum: its score is at least the true label's, so "
                 "the loss is ≥ Δ(h_w(x), y) (UML §17.2.4)."),
))


# 04.hinge_subgradient — a derivation: UML §17.2.5 ----------------------------------------

def hinge_subgradient(W, x, y, Delta):
    """A subgradient of W ↦ generalized hinge loss at W (multivector Ψ), as a (k, n) matrix:
    Ψ(x, ŷ) − Ψ(x, y) with ŷ the maximiser of Delta[y', y] + s[y'] − s[y] (smallest index
    on ties), so row ŷ holds +x and row y holds −x (zero if ŷ = y)."""
    W, x = np.asarray(W, dtype=float), np.asarray(x, dtype=float)
    s = W @ x
    yhat = int(np.argmax(Delta[:, y] + s - s[y]))
    G = np.zeros_like(W)
    G[yhat] += x
    G[y] -= x
    return G


register(Exercise(
    id="04.hinge_subgradient", title="derive a subgradient of the generalized hinge (UML §17.2.5)",
    reference=hinge_subgradient, cases=_ghinge_cases, compare=allclose(),
    prepare=lambda got: np.asarray(got, dtype=float),
    minutes=15,
    hint=(
        "The loss is a maximum of functions that are affine in W; a subgradient of a "
        "maximum is the gradient of a maximising piece (UML Claim 14.6).",
        "The piece of label y' is Δ(y', y) + ⟨w, Ψ(x, y') − Ψ(x, y)⟩; its gradient in w is "
        "Ψ(x, y') − Ψ(x, y). With the multivector Ψ, reshape it to (k, n): which rows are "
        "non-zero?",
        "s = W @ x; yhat = argmax(Delta[:, y] + s - s[y]); G = zeros((k, n)); G[yhat] += x; "
        "G[y] -= x (the two cancel when yhat == y).",
    ),
    solution=("def hinge_subgradient(W, x, y, Delta):\n    s = W @ x\n"
              "    yhat = int(np.argmax(Delta[:, y] + s - s[y]))\n"
              "    G = np.zeros(W.shape)\n    G[yhat] += x\n    G[y] -= x\n    return G\n"),
))
