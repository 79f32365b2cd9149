"""Exercises of chapter 06 (ranking, UML §17.4): π(y), Kendall tau, NDCG with top-k."""

from __future__ import annotations

import numpy as np

from .core import Case, Exercise, allclose, exact, register
from .quiz import Question, register_question


def _rng(seed):
    return np.random.default_rng(seed)


# 06.permutation — π(y) -------------------------------------------------------------------

def permutation(y):
    """π(y)_i = 1-based position of y_i in y sorted increasingly (ties: smaller index first)."""
    y = np.asarray(y, dtype=float)
    order = np.argsort(y, kind="stable")
    pi = np.empty(len(y), dtype=int)
    pi[order] = np.arange(1, len(y) + 1)
    return pi


def _permutation_cases():
    r = _rng(61)
    cases = [Case((np.array([2.0, 1.0, 6.0, -1.0, 0.5]),), label="the book's example (2, 1, 6, -1, 0.5)"),
             Case((np.array([3.0]),), label="a single item"),
             Case((np.array([1.0, 1.0, 0.0]),), label="a tie: the smaller index gets the smaller position")]
    for n in (4, 7, 12):
        cases.append(Case((np.round(r.normal(size=n), 3),)))
    return cases


register(Exercise(
    id="06.permutation", title="the permutation π(y) (UML §17.4)",
    reference=permutation, cases=_permutation_cases, compare=exact(),
    minutes=6,
    hint=(
        'π(y)_i is the position of item i when the items are sorted by score, the largest'
        ' score getting position r (UML §17.4).',
        'Sorting gives the items in order; you need the inverse: for each item, its place'
        ' in that order (1-based). Use a stable sort so ties keep their input order.',
        "np.argsort(y, kind='stable') lists the items from the smallest to the largest score; "
        "the item at place p of that list has position p + 1. Invert the list: "
        "pi[order] = np.arange(1, r + 1).",
    ),
    solution=("def permutation(y):\n    order = np.argsort(y, kind='stable')\n"
              "    pi = np.empty(len(y), dtype=int)\n    pi[order] = np.arange(1, len(y) + 1)\n"
              "    return pi\n"),
))


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


register(Exercise(
    id="06.kendall", title="the Kendall-tau loss (UML §17.4)",
    reference=kendall_tau_loss, cases=_kendall_cases, compare=allclose(),
    minutes=8,
    hint=(
        "Kendall's tau loss counts the pairs of items that the two vectors order "
        'differently, divided by the number of pairs (UML §17.4).',
        "For every pair i < j compare sign(y'_i − y'_j) with sign(y_i − y_j); the pair "
        'counts as a disagreement when the two signs differ.',
        "Loop over the pairs i < j (or build the r×r matrices of sign(y_i − y_j) with "
        "broadcasting and keep the upper triangle). A pair counts when the two signs differ — "
        "np.sign(0) = 0, so a pair tied in one vector only counts. Divide by r(r−1)/2.",
    ),
    solution=("def kendall_tau_loss(y_pred, y_true):\n    r = len(y_true)\n    bad = 0\n"
              "    for i in range(r):\n        for j in range(i + 1, r):\n"
              "            if np.sign(y_pred[i] - y_pred[j]) != np.sign(y_true[i] - y_true[j]):\n"
              "                bad += 1\n    return 2 * bad / (r * (r - 1))\n"),
))


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


register(Exercise(
    id="06.ndcg", title="the NDCG loss with a top-k discount (UML §17.4)",
    reference=ndcg_loss, cases=_ndcg_cases, compare=allclose(),
    minutes=15,
    hint=(
        'NDCG rewards putting relevant items on top, with a discount that decreases with '
        "the position and is 0 below the top k (UML §17.4); the loss is 1 − G(y', y)/G(y,"
        ' y).',
        "Compute the positions π(y') with your permutation, the discount of each "
        "position, then G(y', y) = Σ_i D(π(y')_i) · y_i, and the same with y' = y for the"
        ' normaliser.',
        "Use your permutation: the item with position π_i = r is on top. The discount of position "
        "i is 1/log2(r − i + 2) when i ≥ r − k + 1 (the top k places) and 0 otherwise. "
        "G(y', y) = Σ_i D(π(y')_i) · y_i; the loss is 1 − G(y', y)/G(y, y).",
    ),
    solution=("def ndcg_loss(y_pred, y_true, k):\n    r = len(y_true)\n\n    def D(pos):\n"
              "        return np.where(pos >= r - k + 1, 1 / np.log2(r - pos + 2), 0.0)\n\n"
              "    G = lambda s: D(permutation(s)) @ y_true\n"
              "    return 1 - G(y_pred) / G(y_true)\n"),
))
