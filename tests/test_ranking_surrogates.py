"""Oracle tests for kmlteach.ranking (UML §17.4-17.5.1) and its assignment kernel. — ``kmlteach.ranking.surrogates``."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from kmlteach import ranking as R


def brute_ndcg_max(mu, y, k=None):
    r = len(y)
    pi_y = R.permutation(y)
    best = -np.inf
    for p in itertools.permutations(range(1, r + 1)):
        v = np.array(p)
        # Δ(v, y) with v as the predicted score vector: π(v) = v
        val = R.ndcg_loss(v.astype(float), y, k=k) + (v - pi_y) @ mu
        best = max(best, val)
    return best


@pytest.mark.parametrize("k", [None, 2])
def test_ndcg_most_violating_is_the_argmax(k):
    rng = np.random.default_rng(6)
    for _ in range(8):
        r = int(rng.integers(2, 7))
        X = rng.normal(size=(r, 3))
        w = rng.normal(size=3)
        y = rng.integers(0, 4, r).astype(float)
        if y.sum() == 0:
            y[0] = 2.0
        res = R.ndcg_hinge(w, X, y, k=k)
        assert res.loss == pytest.approx(brute_ndcg_max(X @ w, y, k), abs=1e-9)
        np.testing.assert_array_equal(res.v, R.ndcg_most_violating(X @ w, y, k=k))
        # upper bound on the NDCG loss of h_w
        assert res.loss >= R.ndcg_loss(X @ w, y, k=k) - 1e-12
        # subgradient inequality at a random other point (convexity)
        w2 = rng.normal(size=3)
        assert R.ndcg_hinge(w2, X, y, k=k).loss >= res.loss + res.grad @ (w2 - w) - 1e-9


@pytest.mark.parametrize("r", [30, 200])
@pytest.mark.parametrize("k", [None, 5])
def test_ndcg_most_violating_matches_scipy_beyond_brute_force(r, k):
    """Oracle SciPy on the cost matrix (17.9): exact whether the rows sorted by score are
    already optimal (large scores), nearly (small ones) or not at all (scores tied,
    relevances apart), with a top-k cutoff or without."""
    from scipy.optimize import linear_sum_assignment

    from kmlteach.ranking.surrogates import _ndcg_cost_matrix

    rng = np.random.default_rng(r)
    for scale in (3.0, 0.1, 0.003, 0.0):
        y = rng.integers(0, 4, r).astype(float)
        mu = rng.normal(size=r) * scale
        mu[: r // 3] = mu[0]  # a block of tied scores
        v = R.ndcg_most_violating(mu, y, k=k) - 1
        A, _, _ = _ndcg_cost_matrix(mu, y, r if k is None else k)
        rows, cols = linear_sum_assignment(A)
        assert np.array_equal(np.sort(v), np.arange(r))
        assert A[np.arange(r), v].sum() == pytest.approx(A[rows, cols].sum(), rel=1e-12, abs=1e-9)


def test_kendall_hinge_value_bound_and_gradient():
    rng = np.random.default_rng(7)
    r, d = 7, 3
    X = rng.normal(size=(r, d))
    y = rng.normal(size=r)
    for _ in range(5):
        w = rng.normal(size=d)
        res = R.kendall_hinge(w, X, y)
        direct = (
            sum(
                max(0, 1 - np.sign(y[i] - y[j]) * (X[i] - X[j]) @ w)
                for i in range(r)
                for j in range(i + 1, r)
            )
            * 2
            / (r * (r - 1))
        )
        assert res.loss == pytest.approx(direct)
        assert res.loss >= R.kendall_tau_loss(X @ w, y)
        eps = 1e-6  # differentiable almost everywhere: finite differences
        num = [
            (R.kendall_hinge(w + eps * e, X, y).loss - R.kendall_hinge(w - eps * e, X, y).loss) / (2 * eps)
            for e in np.eye(d)
        ]
        np.testing.assert_allclose(res.grad, num, atol=1e-5)
