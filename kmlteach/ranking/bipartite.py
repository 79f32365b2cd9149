"""Bipartite ranking with multivariate performance measures (UML §17.5.1).

Labels y ∈ {±1}^r, predictions y' = h_w(x̄) = (⟨w, x₁⟩, …, ⟨w, x_r⟩). A measure Δ is
a function of the confusion counts a, b, c, d of (17.11), and the thresholded
prediction is b(y') = argmax_{v ∈ V} Σ_i v_i y'_i (17.13) for a set V ⊆ {±1}^r
(all of {±1}^r, or the labellings with at least / at most k positives). The convex
surrogate is (17.14)

    ℓ(w) = max_{v ∈ V} [Δ(v, y) + Σ_i (v_i − y_i)⟨w, x_i⟩],

and its maximiser is found by the procedure "Solving Equation (17.14)": sort the
scores, and for every admissible (a, b) put +1 on the a best-scored positives and the
b best-scored negatives (:func:`bipartite_most_violating`, O(r log r + P·N)).

0/0 in Δ: a ratio whose denominator vanishes (e.g. the recall when y has no
positive) counts as a perfect score 1, so that Δ(y, y) = 0 for every measure.
(The metric functions in :mod:`kmlteach.metrics` follow scikit-learn instead and
return ``zero_division``, 0 by default.)
"""

from __future__ import annotations

import numpy as np

from kmlteach._jit import jit
from kmlteach._validation import (
    as_vector,
    check_binary_labels,
    check_measure,
    check_scores,
    check_X,
)
from kmlteach.ranking.sgd import SGDResult, check_queries, structured_sgd
from kmlteach.ranking.surrogates import SurrogateValue

__all__ = ["MEASURES", "bipartite_most_violating", "bipartite_loss", "bipartite_hinge", "bipartite_sgd"]

#: measure name -> (code used by the kernels, needs k, description of Δ and V)
MEASURES = {
    "f1": (0, False, "1 − 2a/(2a+b+c), V = {±1}^r"),
    "fbeta": (1, False, "1 − (1+β²)a/((1+β²)a+b+β²c), V = {±1}^r"),
    "balanced": (2, False, "1 − ½(a/(a+c) + d/(d+b)), V = {±1}^r"),
    "precision_at_k": (3, True, "1 − a/(a+b), V: a+b ≥ k"),
    "recall_at_k": (4, True, "1 − a/(a+c), V: a+b ≤ k"),
    "zero_one": (5, False, "(b+c)/r, V = {±1}^r (the zero-one loss, for comparison)"),
}


@jit(warmup=lambda: (1.0, 1.0, 1.0, 1.0, 0, 1.0))
def _delta(a, b, c, d, code, beta):
    """Δ(a, b, c, d) of the measure ``code``; 0/0 ratios count as 1 (see module doc)."""
    if code == 0 or code == 1:
        b2 = 1.0 if code == 0 else beta * beta
        den = (1.0 + b2) * a + b + b2 * c
        return 0.0 if den == 0.0 else 1.0 - (1.0 + b2) * a / den
    if code == 2:
        sens = 1.0 if a + c == 0.0 else a / (a + c)
        spec = 1.0 if d + b == 0.0 else d / (d + b)
        return 1.0 - 0.5 * (sens + spec)
    if code == 3:
        return 0.0 if a + b == 0.0 else 1.0 - a / (a + b)
    if code == 4:
        return 0.0 if a + c == 0.0 else 1.0 - a / (a + c)
    return (b + c) / (a + b + c + d)


@jit(warmup=lambda: (np.array([0.5, -1.0]), np.array([0.2, 0.1, -0.3]), 0, 1, 1.0))
def _most_violating_kernel(mu_pos, mu_neg, code, k, beta):
    # mu_pos / mu_neg: scores of the positives / negatives sorted in decreasing order.
    P = mu_pos.shape[0]
    N = mu_neg.shape[0]
    SP = np.zeros(P + 1)
    SN = np.zeros(N + 1)
    for i in range(P):
        SP[i + 1] = SP[i] + mu_pos[i]
    for j in range(N):
        SN[j + 1] = SN[j] + mu_neg[j]
    total = SP[P] + SN[N]
    best = -np.inf
    best_a = 0
    best_b = 0
    for a in range(P + 1):
        c = P - a
        for b in range(N + 1):
            if code == 3 and a + b < k:  # precision@k: V = {a + b >= k}
                continue
            if code == 4 and a + b > k:  # recall@k: V = {a + b <= k}
                break
            d = N - b
            # Σ_i v_i μ_i with +1 on the a best positives and the b best negatives
            alpha = _delta(a, b, c, d, code, beta) + 2.0 * (SP[a] + SN[b]) - total
            if alpha >= best:
                best = alpha
                best_a = a
                best_b = b
    return best_a, best_b


def _top(idx, mu, m):
    """The m entries of ``idx`` with the largest scores (ties: smaller index first)."""
    order = np.argsort(-mu[idx], kind="stable")
    return idx[order[:m]]


def _most_violating(mu, y, code, k, beta):
    pos = np.flatnonzero(y > 0)
    neg = np.flatnonzero(y < 0)
    pos = _top(pos, mu, pos.size)
    neg = _top(neg, mu, neg.size)
    a, b = _most_violating_kernel(np.ascontiguousarray(mu[pos]), np.ascontiguousarray(mu[neg]), code, k, beta)
    v = -np.ones(y.shape[0])
    v[pos[:a]] = 1.0
    v[neg[:b]] = 1.0
    return v


def bipartite_most_violating(y_score, y_true, measure: str = "f1", k=None, beta: float = 1.0):
    """The labelling v ∈ V maximising Δ(v, y) + Σ_i (v_i − y_i)·y_score_i (UML (17.14)).

    The procedure "Solving Equation (17.14)" of UML §17.5.1: sort the scores; for
    every a = 0..P and b = 0..N with (a, b) admissible, set v = +1 on the a
    best-scored positives and the b best-scored negatives, and keep the best value
    (ties: the later (a, b) wins, as in the book's "if α ≥ α*"). O(r log r + P·N).

    Parameters
    ----------
    y_score : array-like of shape (r,)
        μ = h_w(x̄), the scores ⟨w, x_i⟩.
    y_true : array-like of shape (r,)
        Labels in {−1, +1}.
    measure : {"f1", "fbeta", "balanced", "precision_at_k", "recall_at_k", "zero_one"}
        Δ and V as in :data:`MEASURES` ("zero_one" is an extra, for comparisons).
    k : int, optional
        Required for the @k measures, 1 ≤ k ≤ r.
    beta : float > 0, default=1.0
        β of F_β.

    Returns
    -------
    v : ndarray of shape (r,) with entries ±1.
    """
    y_score, y_true = check_scores(y_score, y_true)
    code, k, beta = check_measure(measure, k, beta, y_true.shape[0], MEASURES)
    return _most_violating(y_score, y_true, code, k, beta)


def _threshold_labelling(y_pred, code, k):
    """b(y'): the labelling a prediction y' stands for (UML (17.13)).

    With V = {±1}^r it is "+1 iff y'_i ≥ 0". For precision@k (V: a + b ≥ k) and
    recall@k (V: a + b ≤ k) the threshold 0 is moved to the k-th largest score when
    the count of non-negative scores violates V — with the tie rule of
    :func:`kmlteach.metrics.precision_at_k` / :func:`~kmlteach.metrics.recall_at_k`:
    items tied at the k-th score are all positive for precision@k, and all negative
    for recall@k unless they all fit. So ``1 − bipartite_loss`` of the top-k
    prediction is the metric of the same name; with distinct scores b(y') is exactly
    the maximiser of Σ v_i y'_i over V.
    """
    r = y_pred.shape[0]
    m = int(np.count_nonzero(y_pred >= 0))
    if code == 3 and m < k:
        sk = np.partition(y_pred, r - k)[r - k]
        return np.where(y_pred >= sk, 1.0, -1.0)
    if code == 4 and m > k:
        sk = np.partition(y_pred, r - k)[r - k]
        if np.count_nonzero(y_pred >= sk) <= k:
            return np.where(y_pred >= sk, 1.0, -1.0)
        return np.where(y_pred > sk, 1.0, -1.0)
    return np.where(y_pred >= 0, 1.0, -1.0)


def _counts(v, y):
    a = float(np.sum((v > 0) & (y > 0)))
    b = float(np.sum((v > 0) & (y < 0)))
    c = float(np.sum((v < 0) & (y > 0)))
    d = float(np.sum((v < 0) & (y < 0)))
    return a, b, c, d


def bipartite_loss(y_pred, y_true, measure: str = "f1", k=None, beta: float = 1.0) -> float:
    """Δ(b(y'), y): the measure's loss of the labelling b(y') of (17.13).

    For V = {±1}^r, b(y') predicts +1 iff y'_i ≥ 0 (θ = 0). For precision@k (V: at
    least k positives) and recall@k (V: at most k positives) the threshold moves to
    the k-th largest score when needed, with the tie rule of
    :func:`kmlteach.metrics.precision_at_k` / :func:`~kmlteach.metrics.recall_at_k`,
    so one minus the loss of the top-k prediction is the metric of the same name.
    """
    y_pred, y_true = check_scores(y_pred, y_true, "y_pred")
    code, k, beta = check_measure(measure, k, beta, y_true.shape[0], MEASURES)
    v = _threshold_labelling(y_pred, code, k)
    return float(_delta(*_counts(v, y_true), code, beta))


def bipartite_hinge(w, X, y, measure: str = "f1", k=None, beta: float = 1.0):
    """The surrogate (17.14) at w, a subgradient Σ_i (v_i − y_i) x_i and the maximiser v."""
    X = check_X(X, "X")
    w = as_vector(w, "w", length=X.shape[1])
    y = check_binary_labels(y, "y", n=X.shape[0], require_both=False, of="one per row of X")
    code, k, beta = check_measure(measure, k, beta, y.shape[0], MEASURES)
    mu = X @ w
    v = _most_violating(mu, y, code, k, beta)
    loss = float(_delta(*_counts(v, y), code, beta)) + float((v - y) @ mu)
    return SurrogateValue(loss=loss, grad=(v - y) @ X, v=v)


def bipartite_sgd(
    queries,
    measure: str = "f1",
    eta: float = 0.1,
    T: int = 1000,
    seed=None,
    k=None,
    beta: float = 1.0,
    record_every: int | None = None,
) -> SGDResult:
    """SGD for bipartite ranking with a multivariate measure (UML §17.5.1).

    SGD for multiclass learning (§17.2.5) on the surrogate (17.14); the subgradient
    at a drawn query (x̄, y) is Σ_i (v_i − y_i) x_i with v from
    :func:`bipartite_most_violating`. w⁽¹⁾ = 0, w⁽ᵗ⁺¹⁾ = w⁽ᵗ⁾ − η v_t, output the
    average w̄ = (1/T) Σ_{t=1..T} w⁽ᵗ⁾. The predictor has no bias: append a
    constant feature to X to learn one.

    Parameters
    ----------
    queries : list of (X, y)
        ``X`` (r_i, d), ``y`` (r_i,) in {−1, +1}. For the @k measures every query
        needs r_i ≥ k.
    measure, k, beta : as in :func:`bipartite_most_violating`.
    eta, T, seed, record_every : as in :func:`kmlteach.ranking.ranking_sgd`.
    """
    qs = check_queries(queries, "queries", binary=True, min_items=1)
    min_r = min(X.shape[0] for X, _ in qs)
    code, k, beta = check_measure(measure, k, beta, min_r, MEASURES)

    def oracle(w, X, y):
        v = _most_violating(X @ w, y, code, k, beta)
        return (v - y) @ X

    return structured_sgd(qs, oracle, eta, T, seed, record_every)
