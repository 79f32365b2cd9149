"""Tests for kmlteach.kernel_methods. Oracles: the same algorithms run on explicit — ``kmlteach.kernel_methods.sgd``."""

import numpy as np
import pytest

from kmlteach import kernel_methods as km
from kmlteach import kernels as kk
from kmlteach.svm import sgd_soft_svm

RNG = np.random.default_rng(0)


X = RNG.normal(size=(25, 2))


y = np.where(X[:, 0] ** 2 + 0.5 * X[:, 1] > 0.6, 1.0, -1.0)


def sgd_explicit(Phi, y, lam, T, seed):
    """UML §15.5 written out on explicit features (the oracle for Lemma 16.3)."""
    idx = np.random.default_rng(seed).integers(0, Phi.shape[0], size=T)
    theta = np.zeros(Phi.shape[1])
    total = np.zeros(Phi.shape[1])
    w = theta
    for t in range(1, T + 1):
        w = theta / (lam * t)
        total += w
        i = idx[t - 1]
        if y[i] * (w @ Phi[i]) < 1:
            theta = theta + y[i] * Phi[i]
    return total / T, w


K0 = kk.gram("gaussian", X)


@pytest.mark.parametrize("degree, lam, T, seed", [(2, 0.1, 400, 0), (3, 0.01, 1500, 7), (1, 1.0, 50, 3)])
def test_kernel_sgd_equals_sgd_on_features(degree, lam, T, seed):
    Phi = kk.polynomial_features(X, degree)
    K = kk.gram("polynomial", X, degree=degree, c=1)
    res = km.kernel_sgd_svm(K, y, lam, T, seed)
    w_bar, w_last = sgd_explicit(Phi, y, lam, T, seed)
    assert np.allclose(Phi.T @ res.alpha, w_bar, rtol=1e-10, atol=1e-10)
    assert np.allclose(Phi.T @ res.alpha_last, w_last, rtol=1e-10, atol=1e-10)
    assert np.array_equal(res.indices, np.random.default_rng(seed).integers(0, 25, size=T))
    assert np.all(res.beta * y >= 0)  # beta_i only ever moves by y_i
    assert res.n_updates == int(np.sum(np.abs(res.beta)))


def test_kernel_sgd_equals_chapter01_sgd_soft_svm():
    Phi = kk.polynomial_features(X, 2)
    K = kk.gram("polynomial", X, degree=2)
    for seed in (0, 1, 2):
        ref = sgd_soft_svm(Phi, y, 0.05, 600, seed)
        res = km.kernel_sgd_svm(K, y, 0.05, 600, seed)
        assert np.allclose(Phi.T @ res.alpha, ref.w, rtol=1e-10, atol=1e-10)
        assert np.allclose(Phi.T @ res.alpha_last, ref.w_last, rtol=1e-10, atol=1e-10)


def test_kernel_sgd_different_seeds_differ_and_same_seed_repeats():
    K = kk.gram("gaussian", X, sigma=0.5)
    a = km.kernel_sgd_svm(K, y, 0.1, 300, 1).alpha
    assert np.array_equal(a, km.kernel_sgd_svm(K, y, 0.1, 300, 1).alpha)
    assert not np.array_equal(a, km.kernel_sgd_svm(K, y, 0.1, 300, 2).alpha)


def test_kernel_sgd_gaussian_fits_the_training_set():
    K = kk.gram("gaussian", X, sigma=0.3)
    res = km.kernel_sgd_svm(K, y, 0.001, 5000, 0)
    assert np.mean(np.sign(K @ res.alpha) == y) >= 0.95


@pytest.mark.parametrize(
    "fn",
    [
        lambda K, yy: km.kernel_sgd_svm(K, yy, 0.1, 10, 0),
        lambda K, yy: km.kernel_perceptron(K, yy),
        lambda K, yy: km.class_mean_classifier(K, yy),
    ],
)
def test_binary_methods_reject_bad_input(fn):
    with pytest.raises(ValueError, match="K"):
        fn(np.ones((3, 4)), [1, -1, 1])
    with pytest.raises(ValueError, match="K"):
        fn([[1.0, 2.0], [0.0, 1.0]], [1, -1])
    with pytest.raises(ValueError, match="K"):
        fn([[np.nan, 0], [0, 1]], [1, -1])
    with pytest.raises(TypeError, match="K"):
        fn("K", [1, -1])
    with pytest.raises(ValueError, match="y"):
        fn(K0, np.ones(25))
    with pytest.raises(ValueError, match="y"):
        fn(K0, np.where(y > 0, 1, 0))
    with pytest.raises(ValueError, match="y"):
        fn(K0, y[:5])
    with pytest.raises(ValueError, match="K"):
        fn(np.zeros((0, 0)), [])
