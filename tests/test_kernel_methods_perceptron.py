"""Tests for kmlteach.kernel_methods. Oracles: the same algorithms run on explicit — ``kmlteach.kernel_methods.perceptron``."""

import numpy as np
import pytest

from kmlteach import kernel_methods as km
from kmlteach import kernels as kk
from kmlteach.svm import perceptron

RNG = np.random.default_rng(0)


X = RNG.normal(size=(25, 2))


y = np.where(X[:, 0] ** 2 + 0.5 * X[:, 1] > 0.6, 1.0, -1.0)


def perceptron_explicit(Phi, y, max_updates=10_000):
    w = np.zeros(Phi.shape[1])
    for n in range(max_updates + 1):
        bad = np.flatnonzero(y * (Phi @ w) <= 0)
        if bad.size == 0:
            return w, n
        w = w + y[bad[0]] * Phi[bad[0]]
    return w, max_updates


@pytest.mark.parametrize("degree", [2, 3])
def test_kernel_perceptron_equals_perceptron_on_features(degree):
    Phi = kk.polynomial_features(X, degree)
    K = kk.gram("polynomial", X, degree=degree)
    res = km.kernel_perceptron(K, y)
    w, n = perceptron_explicit(Phi, y)
    assert res.converged and res.n_updates == n
    assert np.allclose(Phi.T @ res.alpha, w, atol=1e-9)
    assert np.all(y * (K @ res.alpha) > 0)
    ref = perceptron(Phi, y)  # chapter 01's perceptron on explicit features
    assert ref.n_updates == res.n_updates
    assert np.allclose(Phi.T @ res.alpha, ref.w, atol=1e-9)


def test_kernel_perceptron_stops_at_max_updates():
    Xl = np.array([[0.0], [1.0], [2.0]])
    res = km.kernel_perceptron(kk.gram("linear", Xl), [1.0, -1.0, 1.0], max_updates=7)
    assert not res.converged and res.n_updates == 7
