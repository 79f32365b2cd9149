"""Ranking (UML §17.4) and bipartite ranking (UML §17.5).

A ranking of r items is encoded by a score vector y ∈ ℝʳ; sorting it gives the
permutation π(y). This module holds

* the ranking losses of §17.4: 0–1 ranking loss, Kendall-tau loss, the discount
  D(i) with top-k truncation and the NDCG loss;
* linear ranking predictors h_w(x̄) = (⟨w, x₁⟩, …, ⟨w, x_r⟩) (Eq. (17.6)) and their
  convex surrogates: the Kendall hinge loss and the NDCG generalized hinge (17.8),
  whose maximiser is an assignment problem (17.9) solved by :func:`assignment`;
* :func:`ranking_sgd`: SGD for multiclass learning (§17.2.5) with either surrogate;
* re-exported from :mod:`kmlteach._bipartite`: the procedure "Solving Equation
  (17.14)" (:func:`bipartite_most_violating`) and :func:`bipartite_sgd` (§17.5.1).

Conventions
-----------
Positions are 1-based as in the book: π(y)_i = r is the top item (largest y_i).
**Tie rule**: items with equal scores are ordered by index, the smaller index getting
the smaller position (a stable ascending sort), so ``permutation([1, 1])`` is (1, 2).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._assignment import assignment, assignment_cost
from ._jit import jit
from ._validation import as_vector, check_X, check_choice, check_int
from ._sgd import check_queries, structured_sgd, SGDResult

__all__ = [
    "permutation", "zero_one_ranking_loss", "kendall_tau_loss", "discount", "dcg",
    "ndcg_loss", "linear_scores", "kendall_hinge", "ndcg_hinge", "ndcg_most_violating",
    "ranking_sgd", "assignment", "assignment_cost", "SurrogateValue", "SGDResult",
    "bipartite_most_violating", "bipartite_loss", "bipartite_hinge", "bipartite_sgd",
    "MEASURES", "mean_loss",
]


# ----------------------------------------------------------------------------------
# π(y) and the ranking losses of §17.4
# ----------------------------------------------------------------------------------

def permutation(y) -> np.ndarray:
    """The permutation π(y) induced by a score vector (UML §17.4).

    π(y)_i is the 1-based position of y_i in y sorted in ascending order, so the item
    with the largest score gets position r ("top-ranked"). Ties: equal scores are
    ordered by index (the smaller index gets the smaller position).

    Parameters
    ----------
    y : array-like of shape (r,)

    Returns
    -------
    ndarray of shape (r,), int64, a permutation of 1..r

    Examples
    --------
    >>> permutation([2, 1, 6, -1, 0.5])   # the book's example
    array([4, 3, 5, 1, 2])
    """
    y = as_vector(y, "y")
    return _permutation(y)


def _permutation(y: np.ndarray) -> np.ndarray:
    order = np.argsort(y, kind="stable")
    pi = np.empty(y.shape[0], dtype=np.int64)
    pi[order] = np.arange(1, y.shape[0] + 1)
    return pi


def _check_pair(y_pred, y_true, min_length: int = 1):
    y_true = as_vector(y_true, "y_true", min_length=min_length)
    y_pred = as_vector(y_pred, "y_pred", length=y_true.shape[0])
    return y_pred, y_true


def zero_one_ranking_loss(y_pred, y_true) -> float:
    """0–1 ranking loss 1[π(y') ≠ π(y)] (UML §17.4), with the module's tie rule."""
    y_pred, y_true = _check_pair(y_pred, y_true)
    return float(not np.array_equal(_permutation(y_pred), _permutation(y_true)))


def kendall_tau_loss(y_pred, y_true) -> float:
    """Kendall-tau loss: the fraction of pairs ordered differently (UML §17.4).

    Δ(y', y) = 2/(r(r−1)) Σ_{i<j} 1[sign(y'_i − y'_j) ≠ sign(y_i − y_j)].

    Ties follow the book's sign definition: sign(0) = 0, so a pair tied in one
    vector and not in the other counts as a disagreement, and a pair tied in both
    agrees. Without ties Δ = (1 − τ)/2 with Kendall's τ.

    Parameters
    ----------
    y_pred, y_true : array-like of shape (r,), r ≥ 2

    Returns
    -------
    float in [0, 1]
    """
    y_pred, y_true = _check_pair(y_pred, y_true, min_length=2)
    r = y_true.shape[0]
    return 2.0 * _kendall_kernel(y_pred, y_true) / (r * (r - 1))


@jit(warmup=lambda: (np.array([2.0, 1.0, 6.0]), np.array([1.0, 2.0, 3.0])))
def _kendall_kernel(yp, y):
    r = y.shape[0]
    count = 0
    for i in range(r - 1):
        for j in range(i + 1, r):
            if np.sign(yp[i] - yp[j]) != np.sign(y[i] - y[j]):
                count += 1
    return count


def _check_k(k, r: int) -> int:
    if k is None:
        return r
    return min(check_int(k, "k", minimum=1), r)


def discount(positions, r: int, k=None) -> np.ndarray:
    """The discount D(i) = 1/log₂(r − i + 2) for i ∈ {r−k+1, …, r}, else 0 (UML §17.4).

    ``positions`` are 1-based positions in π (r = top item, whose discount is 1).
    ``k=None`` keeps every position (k = r); a k larger than r is treated as r.
    Written with the rank from the top ρ = r − i + 1 this is 1/log₂(ρ + 1), the
    discount of scikit-learn's ``ndcg_score``.
    """
    r = check_int(r, "r", minimum=1)
    k = _check_k(k, r)
    pos = np.asarray(positions)
    if pos.dtype.kind not in "iu" or np.any(pos < 1) or np.any(pos > r):
        raise ValueError(f"positions must be integers in 1..r = 1..{r}, got {positions!r}")
    return _discount(pos.astype(np.float64), r, k)


def _discount(pos: np.ndarray, r: int, k: int) -> np.ndarray:
    rank_from_top = r - pos + 1.0
    return np.where(rank_from_top <= k, 1.0 / np.log2(rank_from_top + 1.0), 0.0)


def dcg(y_pred, y_true, k=None) -> float:
    """Discounted cumulative gain G(y', y) = Σ_i D(π(y')_i) y_i (UML §17.4)."""
    y_pred, y_true = _check_pair(y_pred, y_true)
    r = y_true.shape[0]
    return float(_discount(_permutation(y_pred).astype(float), r, _check_k(k, r)) @ y_true)


def _check_relevance(y_true) -> None:
    if np.any(y_true < 0):
        raise ValueError("y_true must hold non-negative relevance scores for the NDCG loss, "
                         f"got minimum {float(y_true.min()):g}")


def ndcg_loss(y_pred, y_true, k=None) -> float:
    """NDCG loss Δ(y', y) = 1 − G(y', y)/G(y, y) (UML §17.4) with top-k discount.

    Parameters
    ----------
    y_pred : array-like of shape (r,)
        Predicted scores y'; ties are broken by the module's tie rule (by index).
    y_true : array-like of shape (r,)
        Non-negative true relevances y (the gains).
    k : int, optional
        Only the top-k positions count (default: all of them).

    Returns
    -------
    float in [0, 1]. When G(y, y) = 0 (no relevant item in the top k of the ideal
    ranking, e.g. all relevances zero) every ranking is as good as the ideal one and
    the loss is defined as 0.

    Notes
    -----
    scikit-learn's ``1 - ndcg_score([y_true], [y_pred], k=k)`` uses the same gains
    (the relevances themselves) and the same discount, and agrees whenever y_pred has
    no ties. It differs (i) on ties in y_pred, where it averages the gains of the tied
    items instead of breaking the tie by index, and (ii) when G(y, y) = 0, where its
    score is 0 (loss 1) instead of our loss 0.
    """
    y_pred, y_true = _check_pair(y_pred, y_true)
    _check_relevance(y_true)
    r = y_true.shape[0]
    k = _check_k(k, r)
    ideal = float(_discount(_permutation(y_true).astype(float), r, k) @ y_true)
    if ideal == 0.0:
        return 0.0
    got = float(_discount(_permutation(y_pred).astype(float), r, k) @ y_true)
    return 1.0 - got / ideal


# ----------------------------------------------------------------------------------
# Linear ranking predictors and their surrogates (§17.4.1)
# ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class SurrogateValue:
    """A convex surrogate at w: its value ``loss``, a subgradient ``grad`` and the
    maximiser ``v`` of the generalized hinge (None for the Kendall hinge)."""
    loss: float
    grad: np.ndarray
    v: np.ndarray | None = None


def _check_wX(w, X):
    X = check_X(X, "X")
    w = as_vector(w, "w", length=X.shape[1])
    return w, X


def linear_scores(w, X) -> np.ndarray:
    """The linear ranking predictor h_w(x̄) = (⟨w, x₁⟩, …, ⟨w, x_r⟩), Eq. (17.6)."""
    w, X = _check_wX(w, X)
    return X @ w


def kendall_hinge(w, X, y) -> SurrogateValue:
    """The hinge surrogate of the Kendall-tau loss and a subgradient (UML §17.4.1).

    ℓ(w) = 2/(r(r−1)) Σ_{i<j} max{0, 1 − sign(y_i − y_j)⟨w, x_i − x_j⟩}
    ≥ Δ_Kendall(h_w(x̄), y). Pairs with y_i = y_j contribute the constant 1 (as the
    formula says) and nothing to the subgradient.
    """
    w, X = _check_wX(w, X)
    y = as_vector(y, "y", length=X.shape[0], min_length=2)
    loss, coef = _kendall_hinge_kernel(X @ w, y)
    return SurrogateValue(loss=float(loss), grad=coef @ X)


@jit(warmup=lambda: (np.array([0.5, -1.0, 2.0]), np.array([1.0, 2.0, 0.0])))
def _kendall_hinge_kernel(mu, y):
    # returns the loss and coefficients c with subgradient Σ_i c_i x_i
    r = y.shape[0]
    scale = 2.0 / (r * (r - 1))
    coef = np.zeros(r)
    loss = 0.0
    for i in range(r - 1):
        for j in range(i + 1, r):
            s = np.sign(y[i] - y[j])
            h = 1.0 - s * (mu[i] - mu[j])
            if h > 0.0:
                loss += h
                coef[i] -= s
                coef[j] += s
    return scale * loss, scale * coef


def _ndcg_cost_matrix(mu, y, k):
    """A[i, j] = j α_i + D(j) β_i with α = −μ, β = y/G(y, y) (positions j = 1..r)."""
    r = y.shape[0]
    D = _discount(np.arange(1, r + 1, dtype=float), r, k)
    ideal = float(D[_permutation(y) - 1] @ y)
    beta = y / ideal if ideal > 0 else np.zeros(r)
    j = np.arange(1, r + 1, dtype=float)
    return np.outer(-mu, j) + np.outer(beta, D), D, ideal


def ndcg_most_violating(y_score, y_true, k=None) -> np.ndarray:
    """The permutation v maximising Δ_NDCG(v, y) + Σ_i (v_i − π(y)_i) μ_i (Eq. (17.8)).

    ``y_score`` is μ = h_w(x̄). As UML §17.4.1 shows this is the assignment problem
    argmin_v Σ_i (α_i v_i + β_i D(v_i)) with α_i = −μ_i and β_i = y_i/G(y, y), i.e.
    cost A[i, j] = j α_i + D(j) β_i, solved by :func:`assignment`.

    Returns 1-based positions v (int64), like :func:`permutation`.
    """
    mu, y = _check_pair(y_score, y_true)
    _check_relevance(y)
    A, _, _ = _ndcg_cost_matrix(mu, y, _check_k(k, y.shape[0]))
    return _assignment_from_validated(A) + 1


def _assignment_from_validated(A):
    from ._assignment import _assignment_kernel
    return _assignment_kernel(np.ascontiguousarray(A))


def ndcg_hinge(w, X, y, k=None) -> SurrogateValue:
    """The generalized hinge surrogate of the NDCG loss (UML Eq. (17.8)).

    ℓ(w) = max_{v ∈ V} [Δ(v, y) + Σ_i (v_i − π(y)_i)⟨w, x_i⟩], with subgradient
    Σ_i (v_i − π(y)_i) x_i at the maximiser v (Claim 14.6).
    """
    w, X = _check_wX(w, X)
    y = as_vector(y, "y", length=X.shape[0])
    _check_relevance(y)
    k = _check_k(k, y.shape[0])
    mu = X @ w
    A, D, ideal = _ndcg_cost_matrix(mu, y, k)
    v = _assignment_from_validated(A) + 1
    delta = 0.0 if ideal == 0 else 1.0 - float(D[v - 1] @ y) / ideal
    diff = (v - _permutation(y)).astype(float)
    return SurrogateValue(loss=delta + float(diff @ mu), grad=diff @ X, v=v)


# ----------------------------------------------------------------------------------
# SGD (§17.2.5 applied to §17.4.1)
# ----------------------------------------------------------------------------------

def ranking_sgd(queries, surrogate: str = "kendall", eta: float = 0.1, T: int = 1000,
                seed=None, k=None, record_every: int | None = None) -> SGDResult:
    """Learn a linear ranking function w by SGD on a convex surrogate (UML §17.4.1).

    "SGD for multiclass learning" (UML §17.2.5): w⁽¹⁾ = 0; at step t draw a query
    (x̄, y) uniformly from ``queries``, take a subgradient v_t of the surrogate at
    w⁽ᵗ⁾ and set w⁽ᵗ⁺¹⁾ = w⁽ᵗ⁾ − η v_t; output w̄ = (1/T) Σ_{t=1..T} w⁽ᵗ⁾.

    Parameters
    ----------
    queries : list of (X, y)
        ``X`` of shape (r_i, d) (one row per item), ``y`` of shape (r_i,) (relevances;
        non-negative for ``surrogate="ndcg"``); r_i ≥ 2.
    surrogate : {"kendall", "ndcg"}, default="kendall"
    eta : float > 0, default=0.1
    T : int ≥ 1, default=1000
    seed : int or None
        Seeds the draw of the T query indices.
    k : int, optional
        Top-k truncation of the NDCG discount (``surrogate="ndcg"`` only).
    record_every : int, optional
        Also store the running average w̄ after every ``record_every`` steps (for
        learning curves) in ``.path`` with the step numbers in ``.path_t``.

    Returns
    -------
    SGDResult with ``.w`` (averaged), ``.w_last`` (= w⁽ᵀ⁾), ``.indices`` (the drawn
    queries), ``.path``, ``.path_t``.
    """
    surrogate = check_choice(surrogate, "surrogate", ("kendall", "ndcg"))
    qs = check_queries(queries, "queries", nonnegative=surrogate == "ndcg")
    if k is not None:
        check_int(k, "k", minimum=1)
    if surrogate == "kendall":
        def oracle(w, X, y):
            _, coef = _kendall_hinge_kernel(X @ w, y)
            return coef @ X
    else:
        def oracle(w, X, y):
            A, _, _ = _ndcg_cost_matrix(X @ w, y, _check_k(k, y.shape[0]))
            v = _assignment_from_validated(A) + 1
            return (v - _permutation(y)).astype(float) @ X
    return structured_sgd(qs, oracle, eta, T, seed, record_every)


def mean_loss(w, queries, loss: str = "kendall", k=None) -> float:
    """Average ranking loss of h_w over a list of (X, y) queries ("kendall" or "ndcg")."""
    loss = check_choice(loss, "loss", ("kendall", "ndcg"))
    qs = check_queries(queries, "queries", nonnegative=loss == "ndcg")
    w = as_vector(w, "w", length=qs[0][0].shape[1])
    fn = kendall_tau_loss if loss == "kendall" else (lambda p, t: ndcg_loss(p, t, k=k))
    return float(np.mean([fn(X @ w, y) for X, y in qs]))


# Bipartite ranking (§17.5) lives in its own module; re-exported here (binding names).
from ._bipartite import (MEASURES, bipartite_hinge, bipartite_loss,  # noqa: E402
                         bipartite_most_violating, bipartite_sgd)

