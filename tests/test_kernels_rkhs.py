"""Tests for kmlteach.kernels: Gram matrices (oracles: scikit-learn, SciPy, closed forms), — ``kmlteach.kernels.rkhs``."""

import numpy as np
import pytest

from kmlteach import kernels as kk

RNG = np.random.default_rng(0)


X = RNG.normal(size=(12, 3))


def test_translate_and_center_match_explicit_features():
    P = RNG.normal(size=(6, 2))
    Z = RNG.normal(size=(4, 2))
    Phi, PhiZ = kk.polynomial_features(P, 2), kk.polynomial_features(Z, 2)
    K, Kz = Phi @ Phi.T, PhiZ @ Phi.T
    a = RNG.normal(size=6)
    G = Phi.T @ a
    assert np.allclose(kk.translate(K, a), (Phi + G) @ (Phi + G).T)
    assert np.allclose(kk.translate(K, a, Kz), (PhiZ + G) @ (Phi + G).T)
    mu = Phi.mean(axis=0)
    assert np.allclose(kk.center(K), (Phi - mu) @ (Phi - mu).T)
    assert np.allclose(kk.center(K, Kz), (PhiZ - mu) @ (Phi - mu).T)
    assert np.allclose(kk.center(K), kk.translate(K, -np.ones(6) / 6))
    D = kk.rkhs_distances(K)
    assert np.allclose(D, np.linalg.norm(Phi[:, None] - Phi[None], axis=2), atol=1e-7)
    Dz = kk.rkhs_distances(Kz, np.sum(PhiZ**2, 1), np.sum(Phi**2, 1))
    assert np.allclose(Dz, np.linalg.norm(PhiZ[:, None] - Phi[None], axis=2), atol=1e-7)
    b = RNG.normal(size=6)
    assert kk.rkhs_inner(a, b, K) == pytest.approx(float((Phi.T @ a) @ (Phi.T @ b)))
    assert kk.rkhs_norm(a, K) == pytest.approx(float(np.linalg.norm(Phi.T @ a)))


def test_projection_deflation_and_gram_schmidt():
    P = RNG.normal(size=(7, 2))
    Phi = kk.polynomial_features(P, 2)  # 6 features, 7 points: rank 6
    K = Phi @ Phi.T
    a, g = RNG.normal(size=7), RNG.normal(size=7)
    psi, gam = Phi.T @ a, Phi.T @ g
    assert np.allclose(Phi.T @ kk.project(a, g, K), (gam @ psi) / (gam @ gam) * gam)
    d = kk.deflate(a, g, K)
    assert np.allclose(Phi.T @ d, psi - (gam @ psi) / (gam @ gam) * gam)
    assert abs(kk.rkhs_inner(d, g, K)) < 1e-9
    Q = kk.gram_schmidt(K)
    assert Q.shape == (7, 6)  # the 7th vector depends on the others
    assert np.allclose(Q.T @ K @ Q, np.eye(6), atol=1e-9)
    # same span: projecting Phi onto the orthonormal basis reproduces it
    B = Phi.T @ Q
    assert np.allclose(B @ (B.T @ Phi.T), Phi.T, atol=1e-8)
    with pytest.raises(ValueError, match="g"):
        kk.project(a, np.zeros(7), K)


def test_rkhs_operations_reject_bad_input():
    K = kk.gram("gaussian", X)
    with pytest.raises(ValueError, match="alpha"):
        kk.translate(K, np.ones(3))
    with pytest.raises(ValueError, match="K_test"):
        kk.translate(K, np.ones(12), np.ones((2, 3)))
    with pytest.raises(ValueError, match="K"):
        kk.center(np.ones((3, 4)))
    with pytest.raises(ValueError, match="K_test"):
        kk.center(K, np.ones((2, 5)))
    with pytest.raises(ValueError, match="diag"):
        kk.rkhs_distances(np.ones((2, 3)), diag_test=np.ones(2))
    with pytest.raises(ValueError, match="K"):
        kk.rkhs_distances(np.ones((2, 3)))
    with pytest.raises(ValueError, match="a"):
        kk.rkhs_inner(np.ones(2), np.ones(12), K)
    with pytest.raises(ValueError, match="b"):
        kk.rkhs_inner(np.ones(12), [np.nan] * 12, K)
    with pytest.raises(ValueError, match="a"):
        kk.rkhs_norm(np.ones(2), K)
    with pytest.raises(ValueError, match="g"):
        kk.deflate(np.ones(12), np.ones(2), K)
    with pytest.raises(ValueError, match="A"):
        kk.gram_schmidt(K, np.ones((3, 2)))
    with pytest.raises(ValueError, match="tol"):
        kk.gram_schmidt(K, tol=0)
