"""Exercises of chapter 06 (ranking, UML §17.4): π(y), Kendall tau, NDCG with top-k.

Only the code of each exercise's record in ``records/ch06.toml`` (see :mod:`.record`): the
reference implementation, the visible cases and any catalogued mistake's wrong implementation.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from ..ranking import permutation as _ranking_permutation
from .model import Case


def _rng(seed):
    return np.random.default_rng(seed)


# 06.permutation — π(y) -------------------------------------------------------------------


def permutation(y):
    """π(y)_i = 1-based position of y_i in y sorted increasingly (ties: smaller index first)."""
    return _ranking_permutation(np.asarray(y, dtype=float))


def _permutation_cases():
    r = _rng(61)
    cases = [
        Case((np.array([2.0, 1.0, 6.0, -1.0, 0.5]),), label="the book's example (2, 1, 6, -1, 0.5)"),
        Case((np.array([3.0]),), label="a single item"),
        Case((np.array([1.0, 1.0, 0.0]),), label="a tie: the smaller index gets the smaller position"),
    ]
    for n in (4, 7, 12):
        cases.append(Case((np.round(r.normal(size=n), 3),), label=f"{n} random scores"))
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
    cases = [
        Case((np.array([1.0, 2.0, 3.0]), np.array([10.0, 20.0, 30.0])), label="same order"),
        Case((np.array([3.0, 2.0, 1.0]), np.array([10.0, 20.0, 30.0])), label="reversed order"),
        Case((np.array([1.0, 2.0]), np.array([5.0, 5.0])), label="a pair tied in y only"),
    ]
    for n in (4, 6, 9):
        cases.append(
            Case(
                (np.round(r.normal(size=n), 2), r.integers(0, 4, n).astype(float)),
                label=f"{n} random items, ties in y",
            )
        )
    return cases


# 06.ndcg — the NDCG loss with a top-k discount ------------------------------------------


def ndcg_loss(y_pred, y_true, k):
    """1 − G(y', y)/G(y, y) with D(i) = 1/log2(r − i + 2) for the top-k positions i, else 0."""
    yp = np.asarray(y_pred, dtype=float)
    y = np.asarray(y_true, dtype=float)
    r = len(y)

    def D(pos):
        rank = r - pos + 1  # rank 1 = top
        return np.where(rank <= k, 1.0 / np.log2(r - pos + 2.0), 0.0)

    def G(scores):
        return float(D(permutation(scores)) @ y)

    return 1.0 - G(yp) / G(y)


def _ndcg_cases():
    r = _rng(63)
    cases = [
        Case((np.array([0.3, 0.2, 0.1]), np.array([3.0, 2.0, 1.0]), 3), label="ideal order"),
        Case((np.array([0.1, 0.2, 0.3]), np.array([3.0, 2.0, 0.0]), 3), label="reversed order"),
        Case((np.array([0.9, 0.1, 0.5, 0.3]), np.array([0.0, 3.0, 1.0, 2.0]), 1), label="k = 1"),
    ]
    for n, k in ((5, 2), (6, 3), (8, 8), (10, 4)):
        y = r.integers(0, 4, n).astype(float)
        y[int(r.integers(n))] = 3.0  # at least one relevant item
        yp = r.permutation(n).astype(float) + 0.5 * r.random(n)  # no ties in the prediction
        cases.append(Case((yp, y, k), label=f"{n} random items, k = {k}"))
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
    cases = [
        Case((np.array([0.3, 0.2, 0.1]), np.array([3.0, 2.0, 1.0]), 3), label="r = 3, k = 3"),
        Case(
            (np.array([0.9, 0.1, 0.5, 0.3]), np.array([0.0, 3.0, 1.0, 2.0]), 1),
            label="k = 1: only the top position has a discount",
        ),
        Case(
            (np.array([0.5, -0.5]), np.array([0.0, 0.0]), 2), label="no relevant item: G(y, y) = 0, so β = 0"
        ),
    ]
    for n, k in ((5, 2), (6, 6), (7, 3)):
        y = r.integers(0, 4, n).astype(float)
        y[int(r.integers(n))] = 3.0
        cases.append(Case((r.normal(size=n), y, k), label=f"{n} random items, k = {k}"))
    return cases


# Catalogued mistakes (wrong implementations the records' ``mistakes`` name) -------------


def _perm_inverse(y):
    return np.argsort(np.asarray(y, dtype=float), kind="stable") + 1


def _perm_zero_based(y):
    return permutation(y) - 1


def _perm_decreasing(y):
    return len(y) + 1 - permutation(y)


def _perm_from_the_top(y):
    """Position 1 for the largest score, ties in input order (a stable sort of −y)."""
    y = np.asarray(y, dtype=float)
    pi = np.empty(len(y), dtype=int)
    pi[np.argsort(-y, kind="stable")] = np.arange(1, len(y) + 1)
    return pi


def _kendall_disagreements(y_pred, y_true, strict=False):
    yp, y = np.asarray(y_pred, dtype=float), np.asarray(y_true, dtype=float)
    if strict:
        bad = (yp[:, None] - yp[None, :]) * (y[:, None] - y[None, :]) < 0
    else:
        bad = np.sign(yp[:, None] - yp[None, :]) != np.sign(y[:, None] - y[None, :])
    return int(np.triu(bad, k=1).sum()), len(y)


def _kendall_twice(y_pred, y_true):
    return 2 * kendall_tau_loss(y_pred, y_true)


def _kendall_not_normalised(y_pred, y_true):
    return float(_kendall_disagreements(y_pred, y_true)[0])


def _kendall_strict_product(y_pred, y_true):
    n, r = _kendall_disagreements(y_pred, y_true, strict=True)
    return 2.0 * n / (r * (r - 1))


def _ndcg_parts(y_pred, y_true, k, *, from_top=False, gain=False, cut=True):
    yp, y = np.asarray(y_pred, dtype=float), np.asarray(y_true, dtype=float)
    r = len(y)

    def D(pos):
        rank = pos if from_top else r - pos + 1
        keep = rank <= k if cut else np.ones_like(rank, dtype=bool)
        return np.where(keep, 1.0 / np.log2(rank + 1.0), 0.0)

    with np.errstate(divide="ignore", invalid="ignore"):  # 0/0 from the top: nan, as a student gets
        ratio = float(np.float64(D(permutation(yp)) @ y) / np.float64(D(permutation(y)) @ y))
    return ratio if gain else 1.0 - ratio


_ndcg_from_top = partial(_ndcg_parts, from_top=True)
_ndcg_gain = partial(_ndcg_parts, gain=True)
_ndcg_no_cut = partial(_ndcg_parts, cut=False)


def _costs(y_score, y_true, k, *, from_top=False, alpha_sign=-1.0, normalise=True):
    mu, y = np.asarray(y_score, dtype=float), np.asarray(y_true, dtype=float)
    r = y.shape[0]
    j = np.arange(1, r + 1, dtype=float)
    if from_top:
        D = np.where(j <= k, 1.0 / np.log2(j + 1), 0.0)
    else:
        D = np.where(j >= r - k + 1, 1.0 / np.log2(r - j + 2), 0.0)
    ideal = float(D[permutation(y) - 1] @ y)
    beta = (y / ideal if ideal > 0 else np.zeros(r)) if normalise else y
    return np.outer(alpha_sign * mu, j) + np.outer(beta, D)


_costs_from_top = partial(_costs, from_top=True)
_costs_alpha_sign = partial(_costs, alpha_sign=1.0)
_costs_not_normalised = partial(_costs, normalise=False)
