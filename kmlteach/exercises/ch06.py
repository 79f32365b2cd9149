"""Exercises of chapter 06 (ranking, UML §17.4): π(y), Kendall tau, NDCG with top-k.

Only the code of each exercise's record in ``records/ch06.toml`` (see :mod:`.record`): the
reference implementation, the visible cases and any catalogued mistake's wrong implementation.
"""

from __future__ import annotations

import numpy as np

from ..ranking import permutation as _ranking_permutation
from .core import Case


def _rng(seed):
    return np.random.default_rng(seed)


# 06.permutation — π(y) -------------------------------------------------------------------

def permutation(y):
    """π(y)_i = 1-based position of y_i in y sorted increasingly (ties: smaller index first)."""
    return _ranking_permutation(np.asarray(y, dtype=float))


def _permutation_cases():
    r = _rng(61)
    cases = [Case((np.array([2.0, 1.0, 6.0, -1.0, 0.5]),), label="the book's example (2, 1, 6, -1, 0.5)"),
             Case((np.array([3.0]),), label="a single item"),
             Case((np.array([1.0, 1.0, 0.0]),), label="a tie: the smaller index gets the smaller position")]
    for n in (4, 7, 12):
        cases.append(Case((np.round(r.normal(size=n), 3),)))
    return cases


# 06.kendall — the Kendall-tau loss ------------------------------------------------------

def kendall_tau_loss(y_pred, y_true):
    """2/(r(r-1)) Σ_{i<j} 1[sign(y'_i − y'_j) ≠ sign(y_i − y_j)]."""
    yp = np.asarray(y_pred, dtype=float)
    y = np.asarray(y_true, dtype=float)
    r = len(y)
    sp = np.sign(yp[:, None] - yp[None, :])
    st = np.sign(y[:, None] - y[None, :])
    disagree = np.triu(sp != st, k=1).sum()
    return 2.0 * disagree / (r * (r - 1))


def _kendall_cases():
    r = _rng(62)
    cases = [Case((np.array([1.0, 2.0, 3.0]), np.array([10.0, 20.0, 30.0])), label="same order"),
             Case((np.array([3.0, 2.0, 1.0]), np.array([10.0, 20.0, 30.0])), label="reversed order"),
             Case((np.array([1.0, 2.0]), np.array([5.0, 5.0])), label="a pair tied in y only")]
    for n in (4, 6, 9):
        cases.append(Case((np.round(r.normal(size=n), 2), r.integers(0, 4, n).astype(float))))
    return cases


# 06.ndcg — the NDCG loss with a top-k discount ------------------------------------------

def ndcg_loss(y_pred, y_true, k):
    """1 − G(y', y)/G(y, y) with D(i) = 1/log2(r − i + 2) for the top-k positions i, else 0."""
    yp = np.asarray(y_pred, dtype=float)
    y = np.asarray(y_true, dtype=float)
    r = len(y)

    def D(pos):
        rank = r - pos + 1                      # rank 1 = top
        return np.where(rank <= k, 1.0 / np.log2(r - pos + 2.0), 0.0)

    def G(scores):
        return float(D(permutation(scores)) @ y)

    return 1.0 - G(yp) / G(y)


def _ndcg_cases():
    r = _rng(63)
    cases = [Case((np.array([0.3, 0.2, 0.1]), np.array([3.0, 2.0, 1.0]), 3), label="ideal order"),
             Case((np.array([0.1, 0.2, 0.3]), np.array([3.0, 2.0, 0.0]), 3), label="reversed order"),
             Case((np.array([0.9, 0.1, 0.5, 0.3]), np.array([0.0, 3.0, 1.0, 2.0]), 1), label="k = 1")]
    for n, k in ((5, 2), (6, 3), (8, 8), (10, 4)):
        y = r.integers(0, 4, n).astype(float)
        y[int(r.integers(n))] = 3.0             # at least one relevant item
        yp = r.permutation(n).astype(float) + 0.5 * r.random(n)   # no ties in the prediction
        cases.append(Case((yp, y, k)))
    return cases


# 06.ndcg_costs — a derivation: the NDCG surrogate as an assignment problem (UML (17.9)) ---

def ndcg_costs(y_score, y_true, k):
    """The (r, r) cost matrix A[i, j−1] = j·α_i + D(j)·β_i, α_i = −y_score_i,
    β_i = y_true_i / G(y, y), positions j = 1..r; β = 0 when G(y, y) = 0. Minimising
    Σ_i A[i, v_i − 1] over permutations v maximises (17.8) for the NDCG loss."""
    mu, y = np.asarray(y_score, dtype=float), np.asarray(y_true, dtype=float)
    r = y.shape[0]
    j = np.arange(1, r + 1, dtype=float)
    D = np.where(j >= r - k + 1, 1.0 / np.log2(r - j + 2), 0.0)
    ideal = float(D[permutation(y) - 1] @ y)
    beta = y / ideal if ideal > 0 else np.zeros(r)
    return np.outer(-mu, j) + np.outer(beta, D)


def _cost_cases():
    r = _rng(64)
    cases = [Case((np.array([0.3, 0.2, 0.1]), np.array([3.0, 2.0, 1.0]), 3), label="r = 3, k = 3"),
             Case((np.array([0.9, 0.1, 0.5, 0.3]), np.array([0.0, 3.0, 1.0, 2.0]), 1),
                  label="k = 1: only the top position has a discount"),
             Case((np.array([0.5, -0.5]), np.array([0.0, 0.0]), 2),
                  label="no relevant item: G(y, y) = 0, so β = 0")]
    for n, k in ((5, 2), (6, 6), (7, 3)):
        y = r.integers(0, 4, n).astype(float)
        y[int(r.integers(n))] = 3.0
        cases.append(Case((r.normal(size=n), y, k)))
    return cases
