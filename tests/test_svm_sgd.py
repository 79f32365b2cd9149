"""Tests of kmlteach.svm against oracles. — ``kmlteach.svm.sgd``."""

import numpy as np
import pytest
from helpers import soft_data

from kmlteach import svm


def sgd_by_the_book(X, y, lam, T, seed):
    """UML §15.5 transcribed literally (w(t) materialised at every step)."""
    idx = np.random.default_rng(seed).integers(0, len(y), size=T)
    theta = np.zeros(X.shape[1])
    total = np.zeros(X.shape[1])
    running = []
    n_upd = 0
    w = theta
    for t in range(1, T + 1):
        w = theta / (lam * t)
        total = total + w
        running.append(total / t)
        i = idx[t - 1]
        if y[i] * (w @ X[i]) < 1:
            theta = theta + y[i] * X[i]
            n_upd += 1
    return total / T, w, n_upd, np.array(running)


def test_sgd_matches_the_book_procedure():
    X, y = soft_data(11, m=30, d=3)
    for seed, T, lam in [(0, 1, 0.1), (1, 7, 0.5), (2, 600, 0.05), (3, 2000, 0.01)]:
        r = svm.sgd_soft_svm(X, y, lam, T, seed, checkpoints=[1, T // 2 + 1, T])
        wbar, w_last, n_upd, running = sgd_by_the_book(X, y, lam, T, seed)
        np.testing.assert_allclose(r.w, wbar, rtol=1e-11, atol=1e-14)
        np.testing.assert_allclose(r.w_last, w_last, rtol=1e-11, atol=1e-14)
        assert r.n_updates == n_upd
        np.testing.assert_array_equal(r.checkpoints, sorted({1, T // 2 + 1, T}))
        np.testing.assert_allclose(r.w_checkpoints, running[r.checkpoints - 1], rtol=1e-11, atol=1e-14)
        assert r.objective == pytest.approx(svm.soft_svm_objective(r.w, X, y, lam), rel=1e-14)
    # T = 1: w(1) = 0 is the whole average
    assert not np.any(svm.sgd_soft_svm(X, y, 0.1, 1, 5).w)


def test_sgd_index_convention_and_reproducibility():
    np.testing.assert_array_equal(
        svm.sgd_indices(17, 50, 3), np.random.default_rng(3).integers(0, 17, size=50)
    )
    assert svm.sgd_indices(17, 50, 3).dtype == np.int64
    assert not np.array_equal(svm.sgd_indices(17, 50, 3), svm.sgd_indices(17, 50, 4))
    X, y = soft_data(12, m=40)
    a = svm.sgd_soft_svm(X, y, 0.1, 3000, 42)
    b = svm.sgd_soft_svm(X, y, 0.1, 3000, 42)
    c = svm.sgd_soft_svm(X, y, 0.1, 3000, 43)
    assert np.array_equal(a.w, b.w) and np.array_equal(a.w_last, b.w_last)
    assert not np.array_equal(a.w, c.w)
