"""Oracle tests for kmlteach.ranking (UML §17.4-17.5.1) and its assignment kernel. — ``kmlteach.ranking.losses``."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import kendalltau
from sklearn.metrics import ndcg_score

from kmlteach import ranking as R


def brute_kendall(yp, y):
    r = len(y)
    bad = sum(np.sign(yp[i] - yp[j]) != np.sign(y[i] - y[j]) for i in range(r) for j in range(i + 1, r))
    return 2 * bad / (r * (r - 1))


def book_ndcg_loss(yp, y, k=None):
    """Direct transcription of the second form of the NDCG loss in UML §17.4."""
    r = len(y)
    k = r if k is None else min(k, r)

    def D(i):
        return 1 / np.log2(r - i + 2) if i >= r - k + 1 else 0.0

    pi_y, pi_p = R.permutation(y), R.permutation(yp)
    G = sum(D(pi_y[i]) * y[i] for i in range(r))
    return sum((D(pi_y[i]) - D(pi_p[i])) * y[i] for i in range(r)) / G


def test_permutation_book_example():
    np.testing.assert_array_equal(R.permutation([2, 1, 6, -1, 0.5]), [4, 3, 5, 1, 2])


def test_permutation_tie_rule_and_inverse_of_sort():
    np.testing.assert_array_equal(R.permutation([1, 1, 0]), [2, 3, 1])
    rng = np.random.default_rng(0)
    y = rng.normal(size=30)
    pi = R.permutation(y)
    assert np.array_equal(np.sort(y), y[np.argsort(pi)])  # position p holds the p-th smallest


def test_kendall_equals_scipy_tau_without_ties():
    rng = np.random.default_rng(1)
    for r in (2, 3, 10, 57):
        yp, y = rng.normal(size=r), rng.normal(size=r)
        tau = kendalltau(yp, y).statistic
        assert R.kendall_tau_loss(yp, y) == pytest.approx((1 - tau) / 2, abs=1e-12)
    assert R.kendall_tau_loss([1, 2, 3], [1, 2, 3]) == 0.0
    assert R.kendall_tau_loss([3, 2, 1], [1, 2, 3]) == 1.0


def test_kendall_ties_follow_sign_definition():
    # pair (0,1) tied in y only: disagreement; pair tied in both: agreement
    assert R.kendall_tau_loss([1.0, 2.0], [5.0, 5.0]) == 1.0
    assert R.kendall_tau_loss([2.0, 2.0], [5.0, 5.0]) == 0.0
    rng = np.random.default_rng(2)
    for _ in range(20):
        yp, y = rng.integers(0, 3, 8).astype(float), rng.integers(0, 3, 8).astype(float)
        assert R.kendall_tau_loss(yp, y) == pytest.approx(brute_kendall(yp, y))


def test_zero_one_ranking_loss():
    assert R.zero_one_ranking_loss([1, 2, 3], [10, 20, 30]) == 0.0
    assert R.zero_one_ranking_loss([1, 3, 2], [10, 20, 30]) == 1.0


def test_discount_values():
    # position r (the top) has discount 1, r-1 has 1/log2(3); outside the top k: 0
    np.testing.assert_allclose(R.discount(np.arange(1, 6), 5), 1 / np.log2(np.array([6, 5, 4, 3, 2])))
    np.testing.assert_allclose(R.discount(np.arange(1, 6), 5, k=2), [0, 0, 0, 1 / np.log2(3), 1])


@pytest.mark.parametrize("k", [None, 1, 3, 10])
def test_ndcg_matches_sklearn_and_book(k):
    rng = np.random.default_rng(3)
    for _ in range(10):
        yp = rng.normal(size=10)  # no ties in the prediction
        y = rng.integers(0, 4, 10).astype(float)
        if y.sum() == 0:
            y[0] = 1.0
        ours = R.ndcg_loss(yp, y, k=k)
        assert ours == pytest.approx(1 - ndcg_score([y], [yp], k=k), abs=1e-12)
        assert ours == pytest.approx(book_ndcg_loss(yp, y, k), abs=1e-12)
        assert 0.0 <= ours <= 1.0
    assert R.ndcg_loss(y, y, k=k) == 0.0


def test_ndcg_differences_with_sklearn_documented():
    y = np.array([3.0, 0.0, 1.0])
    yp = np.array([1.0, 1.0, 0.0])  # tie between items 0 and 1
    assert R.ndcg_loss(yp, y) == pytest.approx(book_ndcg_loss(yp, y))
    assert R.ndcg_loss(yp, y) != pytest.approx(1 - ndcg_score([y], [yp]))
    assert R.ndcg_loss([1.0, 2.0], [0.0, 0.0]) == 0.0  # G(y, y) = 0 -> loss 0


def test_bad_input_permutation_and_losses():
    with pytest.raises(TypeError, match="y"):
        R.permutation("abc")
    with pytest.raises(ValueError, match="y"):
        R.permutation([1.0, np.nan])
    with pytest.raises(ValueError, match="y"):
        R.permutation([])
    with pytest.raises(ValueError, match="y"):
        R.permutation(np.zeros((2, 2)))
    for fn in (R.kendall_tau_loss, R.ndcg_loss, R.zero_one_ranking_loss, R.dcg):
        with pytest.raises(ValueError, match="y_pred"):
            fn([1.0, 2.0], [1.0, 2.0, 3.0])
        with pytest.raises(ValueError, match="y_true"):
            fn([1.0, 2.0], [1.0, np.inf])
        with pytest.raises(TypeError, match="y_pred"):
            fn(None, [1.0, 2.0])
    with pytest.raises(ValueError, match="y_true"):
        R.kendall_tau_loss([1.0], [1.0])
    with pytest.raises(ValueError, match="y_true"):
        R.ndcg_loss([1.0, 2.0], [-1.0, 2.0])
    with pytest.raises(ValueError, match="k"):
        R.ndcg_loss([1.0, 2.0], [1.0, 2.0], k=0)
    with pytest.raises(TypeError, match="k"):
        R.ndcg_loss([1.0, 2.0], [1.0, 2.0], k="2")
    with pytest.raises(ValueError, match="positions"):
        R.discount([0, 1], 3)
    with pytest.raises(ValueError, match="r"):
        R.discount([1], 0)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(-5, 5), min_size=2, max_size=12))
def test_kendall_and_permutation_properties(vals):
    y = np.array(vals, dtype=float)
    pi = R.permutation(y)
    assert sorted(pi.tolist()) == list(range(1, len(y) + 1))
    # π(π(y)) = π(y), and a strictly increasing map leaves every loss unchanged
    np.testing.assert_array_equal(R.permutation(pi.astype(float)), pi)
    rng = np.random.default_rng(len(vals))
    yp = rng.normal(size=len(y))
    assert R.kendall_tau_loss(yp, y) == R.kendall_tau_loss(np.exp(yp), 3 * y + 1)
    assert R.kendall_tau_loss(yp, y) == pytest.approx(brute_kendall(yp, y))
