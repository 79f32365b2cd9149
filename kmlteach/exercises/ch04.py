"""Exercises of chapter 04 (multiclass).

Only the code of each exercise's record in ``records/ch04.toml`` (see :mod:`.record`): the
reference implementation, the visible cases and any catalogued mistake's wrong implementation.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from ..multiclass import generalized_hinge, multiclass_perceptron, multivector_psi
from .ch02 import _until_clean_pass
from .model import Case


def _rng(seed):
    return np.random.default_rng(seed)


def _random_class_cases(r, count, n_stop, k_stop, first, text):
    """``count`` random cases ``(x, label, k)`` of the functions of one example and one class
    (Ψ, Kesler): x of 1 ≤ n < ``n_stop`` features, 2 ≤ k < ``k_stop`` classes, a label from
    ``first`` to k − 1; ``text(n, label, k)`` names the case."""
    cases = []
    for _ in range(count):
        n, k = int(r.integers(1, n_stop)), int(r.integers(2, k_stop))
        x, label = r.normal(size=n), int(r.integers(first, k))
        cases.append(Case((x, label, k), label=text(n, label, k)))
    return cases


# 04.multivector_psi — UML §17.2.1, Eq. (17.2) --------------------------------------------


def psi(x, y, k):
    """Ψ(x, y) ∈ R^{kn}: zeros except block y (0-based), which holds x."""
    return multivector_psi(x, y, k)


def _psi_cases():
    r = _rng(41)
    # labels from 1 on: code that counts the blocks from 1 then gets values, and check() names
    # the convention (for label 0 its slice would be empty and raise); the hidden cases have label 0
    cases = [
        Case((np.array([1.0, 2.0]), 1, 3), label="x=(1,2), y=1, k=3 (the middle block)"),
        Case((np.array([1.0, 2.0]), 2, 3), label="x=(1,2), y=2, k=3 (last block)"),
        Case((np.array([-3.0]), 1, 2), label="one feature, two classes"),
    ]
    return cases + _random_class_cases(
        r, 4, n_stop=5, k_stop=6, first=1, text=lambda n, y, k: f"random x of {n} features, y = {y}, k = {k}"
    )


# 04.generalized_hinge — UML §17.2.4, Eq. (17.3) ------------------------------------------


def ghinge(W, x, y, Delta):
    """max_{y'} Delta[y', y] + <W[y'], x> - <W[y], x> for one example (multivector Ψ)."""
    return float(generalized_hinge(W, np.asarray(x)[None, :], [y], delta=Delta)[0])


def _ghinge_cases():
    r = _rng(42)
    I3 = 1.0 - np.eye(3)
    cases = [
        Case((np.zeros((3, 2)), np.array([1.0, 1.0]), 0, I3), label="W = 0: the loss is max Δ = 1"),
        Case(
            (np.array([[5.0, 0.0], [0.0, 0.0], [0.0, 0.0]]), np.array([1.0, 0.0]), 0, I3),
            label="correct with margin 5: loss 0",
        ),
        Case(
            (np.array([[0.0, 1.0], [1.0, 0.0], [0.0, 0.0]]), np.array([2.0, 0.0]), 0, I3),
            label="wrong prediction",
        ),
    ]
    for _ in range(5):
        k, d = int(r.integers(2, 5)), int(r.integers(1, 4))
        D = r.uniform(0.5, 3.0, size=(k, k))
        np.fill_diagonal(D, 0.0)
        W, x, y = r.normal(size=(k, d)), r.normal(size=d), int(r.integers(0, k))
        cases.append(
            Case((W, x, y, D), label=f"random W, x with {k} classes and {d} features, y = {y}, random Δ")
        )
    return cases


# 04.multiclass_perceptron — UML exercise 17.2 ---------------------------------------------


def batch_multiclass_perceptron(X, y, k):
    """UML ex. 17.2 with the multivector Ψ; scan in order, strongest competitor, stop
    after a clean pass. Returns W (k, n)."""
    return multiclass_perceptron(X, y).W


def _perceptron_cases():
    r = _rng(43)
    cases = [
        Case((np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([0, 1]), 2), label="two points, two classes"),
        Case(
            (np.array([[1.0, 0.2], [0.1, 1.0], [-1.0, -0.9]]), np.array([0, 1, 2]), 3),
            label="three points, three classes",
        ),
    ]
    while len(cases) < 5:
        k, m = 3 + len(cases) % 2, 12
        Wt = r.normal(size=(k, 2))
        X = r.normal(size=(m, 2)) * 2
        yy = np.argmax(X @ Wt.T, axis=1)
        if len(np.unique(yy)) == k:  # every class present
            cases.append(Case((X, yy, k), label=f"{m} separable points, {k} classes"))
    return cases


# 04.one_vs_all — UML §17.1 ----------------------------------------------------------------


def ova_predict(X, y, X_new, k, fit_binary):
    """One-vs-all with a binary learner fit_binary(X, t) -> w (scores X @ w); ties go to
    the smallest class index."""
    X_new = np.asarray(X_new, dtype=float)
    scores = np.empty((X_new.shape[0], k))
    for c in range(k):
        scores[:, c] = X_new @ fit_binary(X, np.where(np.asarray(y) == c, 1.0, -1.0))
    return np.argmax(scores, axis=1)


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


# 04.kesler — the slides' Kesler construction ---------------------------------------------


def kesler_vectors(x, i, k):
    """The k - 1 vectors x_ij = Ψ(x, i) − Ψ(x, j), j ≠ i increasing, as rows (k-1, k n)."""
    x = np.asarray(x, dtype=float)
    return np.array([multivector_psi(x, i, k) - multivector_psi(x, j, k) for j in range(k) if j != i])


def _kesler_cases():
    r = _rng(45)
    cases = [
        Case((np.array([1.0, 2.0]), 1, 4), label="x=(1,2), label 1 of 4 (0-based)"),
        Case((np.array([3.0]), 0, 2), label="one feature, two classes"),
    ]
    return cases + _random_class_cases(
        r, 3, n_stop=4, k_stop=5, first=0, text=lambda n, i, k: f"random x of {n} features, label {i} of {k}"
    )


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


# Catalogued mistakes (wrong implementations the records' ``mistakes`` name) -------------


def _psi_one_based(x, y, k):
    return psi(x, (y - 1) % k, k)


def _psi_interleaved(x, y, k):
    x = np.asarray(x, dtype=float)
    out = np.zeros((x.size, k))
    out[:, y] = x
    return out.ravel()


def _psi_matrix(x, y, k):
    return np.asarray(psi(x, y, k)).reshape(k, -1)


def _ghinge_parts(W, x, y, Delta, *, argmax_first=False, skip_true=False, transposed=False, minus_true=True):
    W, x, D = np.asarray(W, dtype=float), np.asarray(x, dtype=float), np.asarray(Delta, dtype=float)
    s = W @ x
    cost = D[y, :] if transposed else D[:, y]
    v = cost + s - (s[y] if minus_true else 0.0)
    if argmax_first:
        return float(v[int(np.argmax(s))])
    if skip_true:
        v = np.delete(v, y)
    return float(np.max(v))


_ghinge_argmax_first = partial(_ghinge_parts, argmax_first=True)
_ghinge_skip_true = partial(_ghinge_parts, skip_true=True)
_ghinge_delta_transposed = partial(_ghinge_parts, transposed=True)
_ghinge_no_true_score = partial(_ghinge_parts, minus_true=False)


def _ghinge_zero_one(W, x, y, Delta):
    return _ghinge_parts(W, x, y, 1.0 - np.eye(len(np.asarray(Delta))))


def _mc_perceptron(X, y, k, *, promote_only=False, strict=False, first=False, argmax_all=False, cap=20_000):
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    W = np.zeros((k, X.shape[1]))

    def update(i):
        s = W @ X[i]
        if argmax_all:  # the predicted label over all k (the true one included): a tie with it is no mistake
            j = int(np.argmax(s))
            if j == y[i]:
                return False
            W[y[i]] += X[i]
            W[j] -= X[i]
            return True
        rival = np.delete(np.arange(k), y[i])
        bad = rival[(s[rival] > s[y[i]]) if strict else (s[rival] >= s[y[i]])]
        if not bad.size:
            return False
        j = bad[0] if first else rival[int(np.argmax(s[rival]))]
        W[y[i]] += X[i]
        if not promote_only:
            W[j] -= X[i]
        return True

    _until_clean_pass(len(y), cap, update)
    return W


_mcp_promote_only = partial(_mc_perceptron, promote_only=True)
_mcp_strict = partial(_mc_perceptron, strict=True)
_mcp_first_violator = partial(_mc_perceptron, first=True)
_mcp_argmax_all = partial(_mc_perceptron, argmax_all=True)


def _ova_scores(X, y, X_new, k, fit_binary):
    X_new = np.asarray(X_new, dtype=float)
    return np.column_stack([X_new @ fit_binary(X, np.where(np.asarray(y) == c, 1.0, -1.0)) for c in range(k)])


def _ova_ties_last(X, y, X_new, k, fit_binary):
    return k - 1 - np.argmax(_ova_scores(X, y, X_new, k, fit_binary)[:, ::-1], axis=1)


def _ova_argmin(X, y, X_new, k, fit_binary):
    return np.argmin(_ova_scores(X, y, X_new, k, fit_binary), axis=1)


def _ova_on_training_points(X, y, X_new, k, fit_binary):
    return ova_predict(X, y, X, k, fit_binary)


def _ova_zero_one_targets(X, y, X_new, k, fit_binary):
    X_new, y = np.asarray(X_new, dtype=float), np.asarray(y)
    return np.argmax(
        np.column_stack([X_new @ fit_binary(X, (y == c).astype(float)) for c in range(k)]), axis=1
    )


def _kesler_sign(x, i, k):
    return -kesler_vectors(x, i, k)


def _kesler_order(x, i, k):
    return kesler_vectors(x, i, k)[::-1]


def _kesler_with_self(x, i, k):
    x = np.asarray(x, dtype=float)
    return np.array([multivector_psi(x, i, k) - multivector_psi(x, j, k) for j in range(k)])


def _hsub(W, x, y, Delta, *, argmax_first=False, skip_true=False, sign=1.0):
    W, x = np.asarray(W, dtype=float), np.asarray(x, dtype=float)
    s = W @ x
    v = np.asarray(Delta, dtype=float)[:, y] + s - s[y]
    if skip_true:
        v[y] = -np.inf
    yhat = int(np.argmax(s if argmax_first else v))
    G = np.zeros_like(W)
    G[yhat] += x
    G[y] -= x
    return sign * G


_hsub_argmax_first = partial(_hsub, argmax_first=True)
_hsub_sign = partial(_hsub, sign=-1.0)
_hsub_skip_true = partial(_hsub, skip_true=True)


def _hsub_zero_one(W, x, y, Delta):
    return _hsub(W, x, y, 1.0 - np.eye(len(np.asarray(Delta))))
