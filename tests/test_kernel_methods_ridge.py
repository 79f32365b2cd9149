"""Tests for kmlteach.kernel_methods. Oracles: the same algorithms run on explicit — ``kmlteach.kernel_methods.ridge``."""

import numpy as np
import pytest

from kmlteach import kernel_methods as km
from kmlteach import kernels as kk

RNG = np.random.default_rng(0)


X = RNG.normal(size=(25, 2))


def test_kernel_ridge_equals_ridge_in_feature_space():
    Phi = kk.polynomial_features(X, 3)
    K = kk.gram("polynomial", X, degree=3)
    t = np.sin(X[:, 0]) + X[:, 1] ** 2
    lam, m = 0.05, X.shape[0]
    res = km.kernel_ridge(K, t, lam)
    w = np.linalg.solve(lam * m * np.eye(Phi.shape[1]) + Phi.T @ Phi, Phi.T @ t)
    assert np.allclose(Phi.T @ res.alpha, w, rtol=1e-8, atol=1e-9)
    obj = 0.5 * lam * w @ w + np.sum((Phi @ w - t) ** 2) / (2 * m)
    assert res.objective == pytest.approx(obj, rel=1e-9)
    Z = RNG.normal(size=(6, 2))
    pred = km.kernel_expansion(kk.gram("polynomial", Z, X, degree=3), res.alpha)
    assert np.allclose(pred, kk.polynomial_features(Z, 3) @ w, rtol=1e-8, atol=1e-9)
    # UML (16.8) with its lambda: minimiser is ours with lam = 2 lam_UML (gradient is zero)
    lam_uml = lam / 2
    grad = 2 * lam_uml * w + Phi.T @ (Phi @ w - t) / m
    assert np.allclose(grad, 0, atol=1e-9)
