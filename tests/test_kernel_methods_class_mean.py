"""Tests for kmlteach.kernel_methods. Oracles: the same algorithms run on explicit — ``kmlteach.kernel_methods.class_mean``."""

import numpy as np
import pytest

from kmlteach import kernel_methods as km
from kmlteach import kernels as kk

RNG = np.random.default_rng(0)


X = RNG.normal(size=(25, 2))


y = np.where(X[:, 0] ** 2 + 0.5 * X[:, 1] > 0.6, 1.0, -1.0)


def test_class_mean_classifier_equals_explicit_means():
    Phi = kk.polynomial_features(X, 2)
    K = kk.gram("polynomial", X, degree=2)
    res = km.class_mean_classifier(K, y)
    cp, cm = Phi[y > 0].mean(0), Phi[y < 0].mean(0)
    w, b = cp - cm, 0.5 * (cm @ cm - cp @ cp)
    assert np.allclose(Phi.T @ res.alpha, w)
    assert res.b == pytest.approx(b)
    Z = RNG.normal(size=(40, 2))
    PZ = kk.polynomial_features(Z, 2)
    Kz = kk.gram("polynomial", Z, X, degree=2)
    assert np.allclose(res.decision_function(Kz), PZ @ w + b)
    nearest = np.where(np.linalg.norm(PZ - cp, axis=1) <= np.linalg.norm(PZ - cm, axis=1), 1.0, -1.0)
    assert np.array_equal(res.predict(Kz), nearest)  # UML ex. 16.6: closer to c_+


def test_kernel_expansion():
    assert np.allclose(km.kernel_expansion([[1.0, 2.0], [0.0, 1.0]], [1.0, -1.0], b=0.5), [-0.5, -0.5])
