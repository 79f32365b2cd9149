"""Linear ranking predictors h_w(x̄) = (⟨w, x₁⟩, …, ⟨w, x_r⟩) (UML Eq. (17.6)) and
their convex surrogates (§17.4.1): the Kendall hinge loss and the NDCG generalized
hinge (17.8), whose maximiser is the assignment problem (17.9).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kmlteach._jit import jit
from kmlteach._validation import as_vector, check_cutoff, check_relevance, check_scores, check_w_X
from kmlteach.ranking.assignment import solve_from_order, solve_normalised
from kmlteach.ranking.losses import (
    _discount,
    _permutation,
)

__all__ = ["SurrogateValue", "linear_scores", "kendall_hinge", "ndcg_most_violating", "ndcg_hinge"]


# ----------------------------------------------------------------------------------
# Linear ranking predictors and their surrogates (§17.4.1)
# ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class SurrogateValue:
    """A convex surrogate at w: its value ``loss``, a subgradient ``grad`` and the
    maximiser ``v`` of the generalized hinge (None for the Kendall hinge).

    Source: UML §17.4.1.
    """

    loss: float
    grad: np.ndarray
    v: np.ndarray | None = None


def linear_scores(w, X) -> np.ndarray:
    """The linear ranking predictor h_w(x̄) = (⟨w, x₁⟩, …, ⟨w, x_r⟩), Eq. (17.6)."""
    w, X = check_w_X(w, X)
    return X @ w


def kendall_hinge(w, X, y) -> SurrogateValue:
    """The hinge surrogate of the Kendall-tau loss and a subgradient (UML §17.4.1).

    ℓ(w) = 2/(r(r−1)) Σ_{i<j} max{0, 1 − sign(y_i − y_j)⟨w, x_i − x_j⟩}
    ≥ Δ_Kendall(h_w(x̄), y). Pairs with y_i = y_j contribute the constant 1 (as the
    formula says) and nothing to the subgradient.
    """
    w, X = check_w_X(w, X)
    y = as_vector(y, "y", length=X.shape[0], min_length=2, of="one per row of X")
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
    mu, y = check_scores(y_score, y_true, binary=False)
    check_relevance(y)
    A, _, ideal = _ndcg_cost_matrix(mu, y, check_cutoff(k, y.shape[0]))
    return _ndcg_assignment(A, mu, y, ideal, "y_score") + 1


def _assignment_from_validated(A, name="w"):
    """The generic solver on a checked cost matrix (``kmlteach.ranking.sgd``'s oracle)."""
    return solve_normalised(A, name)


def _ndcg_assignment(A, mu, y, ideal, name="w"):
    """The assignment (17.9) of the cost A[i, j] = −μ_i j + β_i D(j), started from the rows
    sorted by score (positions 1..r in increasing μ; equal scores: larger β = y/G(y, y)
    first, i.e. lower).

    Why this start: two rows i, i' with μ_i < μ_i' placed at positions j < j' cost no more
    than the swap exactly when (μ_i' − μ_i)(j' − j) ≥ (β_i − β_i')(D(j') − D(j)) — the
    rearrangement inequality of the score term, corrected by the discount term. For rows
    of equal relevance (β_i = β_i') it always holds, and it holds for every pair whose
    scores differ by more than |β_i − β_i'| times the discount's steepest step; the rows
    sorted by score are then a Monge matrix and the sorted ranking is optimal.
    :func:`kmlteach.ranking.assignment.solve_from_order` checks that with the potentials
    of the Monge chain and re-solves only the rows where it fails (scores close together
    and relevances apart), so the answer is exact in every case.
    """
    beta = y / ideal if ideal > 0 else np.zeros(y.shape[0])
    order = np.lexsort((-beta, mu))
    return solve_from_order(A, order, name)


def ndcg_hinge(w, X, y, k=None) -> SurrogateValue:
    """The generalized hinge surrogate of the NDCG loss (UML Eq. (17.8)).

    ℓ(w) = max_{v ∈ V} [Δ(v, y) + Σ_i (v_i − π(y)_i)⟨w, x_i⟩], with subgradient
    Σ_i (v_i − π(y)_i) x_i at the maximiser v (Claim 14.6).
    """
    w, X = check_w_X(w, X)
    y = as_vector(y, "y", length=X.shape[0], of="one per row of X")
    check_relevance(y)
    k = check_cutoff(k, y.shape[0])
    mu = X @ w
    A, D, ideal = _ndcg_cost_matrix(mu, y, k)
    v = _ndcg_assignment(A, mu, y, ideal) + 1
    delta = 0.0 if ideal == 0 else 1.0 - float(D[v - 1] @ y) / ideal
    diff = (v - _permutation(y)).astype(float)
    return SurrogateValue(loss=delta + float(diff @ mu), grad=diff @ X, v=v)
