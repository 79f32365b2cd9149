"""Generators for chapters 06–07: ranking queries (UML §17.4) and fraud data (§17.5)."""

from __future__ import annotations

import numpy as np

from .._validation import (
    as_matrix,
    check_binary_labels,
    check_int,
    check_nonnegative,
    check_probability,
    check_rng,
)
from ._basic import random_direction

__all__ = ["ranking_queries", "fraud", "split_queries"]

#: relevance grade thresholds on the noisy utility ⟨w*, x⟩ + noise·ε (grades 0..3)
_GRADES = np.array([0.5, 1.25, 2.0])


def ranking_queries(
    n_queries: int = 100, r: int = 10, d: int = 5, noise: float = 0.5, seed=None, return_w: bool = False
):
    """Synthetic search queries with graded relevance (for UML §17.4).

    A hidden unit vector w* ∈ ℝᵈ defines the utility of an item x as ⟨w*, x⟩ plus
    Gaussian noise of standard deviation ``noise``. Each query holds r items
    x ~ N(0, I_d); an item's relevance y ∈ {0, 1, 2, 3} is its utility cut at 0.5,
    1.25 and 2, so most items are irrelevant and a few are very relevant, as for a
    search engine.

    Returns
    -------
    list of (X, y) with X of shape (r, d) and y of shape (r,) (float relevances);
    with ``return_w=True`` also w*.
    """
    n_queries = check_int(n_queries, "n_queries", minimum=1)
    r = check_int(r, "r", minimum=2)
    d = check_int(d, "d", minimum=1)
    noise = check_nonnegative(noise, "noise")
    rng = check_rng(seed)
    w_star = random_direction(rng, d)
    queries = []
    for _ in range(n_queries):
        X = rng.normal(size=(r, d))
        utility = X @ w_star + noise * rng.normal(size=r)
        queries.append((X, np.digitize(utility, _GRADES).astype(np.float64)))
    return (queries, w_star) if return_w else queries


def fraud(n: int = 20_000, pos_rate: float = 0.001, seed=None):
    """Imbalanced "fraud detection" data in ℝ² (UML §17.5): few positives.

    Benign transactions (y = −1) are N(0, I₂); fraudulent ones (y = +1), exactly
    round(n·pos_rate) of them (at least 1), are N((2.5, 2.5), 0.8²·I₂), so they sit
    in the tail of the benign cloud and even at their centre benign ones outnumber
    them: the classifier with the least zero-one loss flags almost nothing.

    Returns ``(X, y)`` with X (n, 2) and y in {−1, +1}, rows shuffled.
    """
    n = check_int(n, "n", minimum=2)
    pos_rate = check_probability(pos_rate, "pos_rate", open_left=True, open_right=True)
    rng = check_rng(seed)
    n_pos = min(max(1, int(round(n * pos_rate))), n - 1)
    X = rng.normal(size=(n, 2))
    X[:n_pos] = np.array([2.5, 2.5]) + 0.8 * rng.normal(size=(n_pos, 2))
    y = -np.ones(n)
    y[:n_pos] = 1.0
    perm = rng.permutation(n)
    return X[perm], y[perm]


def split_queries(X, y, n_queries: int, seed=None):
    """Cut a labelled sample into ``n_queries`` (x̄, y) groups for bipartite SGD.

    Stratified: positives and negatives are dealt round-robin after a shuffle, so
    every group gets ⌊P/n_queries⌋ or ⌈P/n_queries⌉ positives.
    """
    X = as_matrix(X, "X")
    y = check_binary_labels(y, "y", n=X.shape[0], of="one per row of X")
    n_queries = check_int(n_queries, "n_queries", minimum=1, maximum=X.shape[0])
    rng = check_rng(seed)
    groups = [[] for _ in range(n_queries)]
    pos = rng.permutation(np.flatnonzero(y > 0))
    neg = rng.permutation(np.flatnonzero(y < 0))
    for j, i in enumerate(np.r_[pos, neg]):
        groups[j % n_queries].append(i)
    return [(X[np.sort(g)], y[np.sort(g)]) for g in groups]
