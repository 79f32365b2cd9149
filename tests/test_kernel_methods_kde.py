"""Tests for kmlteach.kernel_methods. Oracles: the same algorithms run on explicit — ``kmlteach.kernel_methods.kde``."""

import numpy as np
import pytest

from kmlteach import kernel_methods as km
from kmlteach import kernels as kk

RNG = np.random.default_rng(0)


X = RNG.normal(size=(25, 2))


y = np.where(X[:, 0] ** 2 + 0.5 * X[:, 1] > 0.6, 1.0, -1.0)


K0 = kk.gram("gaussian", X)


def test_kernel_dependency_estimation_against_explicit_outputs():
    Yout = np.c_[np.sin(X[:, 0]), X[:, 1] ** 2, X[:, 0] * X[:, 1]]
    Kx, Ky = kk.gram("gaussian", X, sigma=1.0), kk.gram("linear", Yout)
    model = km.kernel_dependency_estimation(Kx, Ky, lam=0.01)
    cands = np.r_[Yout, RNG.normal(size=(10, 3))]
    Z = X[:8] + 0.01
    pred = km.kde_predict(
        model, kk.gram("gaussian", Z, X, sigma=1.0), kk.gram("linear", cands, Yout), np.sum(cands**2, 1)
    )
    mu = Yout.mean(0)
    _, S, Vt = np.linalg.svd(Yout - mu, full_matrices=False)
    coef = np.linalg.solve(Kx + 0.01 * 25 * np.eye(25), (Yout - mu) @ Vt.T)
    Tz = kk.gram("gaussian", Z, X, sigma=1.0) @ coef
    recon = mu + Tz @ Vt
    D = np.sum((cands[None] - recon[:, None]) ** 2, axis=2)
    assert np.allclose(pred.distances, D, atol=1e-8)
    assert np.array_equal(pred.index, np.argmin(D, axis=1))
    assert np.mean(pred.index == np.arange(8)) >= 0.75  # mostly decodes the right output


def test_parameters_are_validated():
    with pytest.raises(ValueError, match="lam"):
        km.kernel_sgd_svm(K0, y, 0.0, 10, 0)
    with pytest.raises(ValueError, match="T"):
        km.kernel_sgd_svm(K0, y, 0.1, 0, 0)
    with pytest.raises(TypeError, match="T"):
        km.kernel_sgd_svm(K0, y, 0.1, 2.5, 0)
    with pytest.raises((TypeError, ValueError), match="seed"):
        km.kernel_sgd_svm(K0, y, 0.1, 10, -1)
    with pytest.raises(ValueError, match="max_updates"):
        km.kernel_perceptron(K0, y, max_updates=-1)
    with pytest.raises(ValueError, match="lam"):
        km.kernel_ridge(K0, y, -1.0)
    with pytest.raises(ValueError, match="y"):
        km.kernel_ridge(K0, [np.nan] * 25, 1.0)
    with pytest.raises(ValueError, match="K"):
        km.kernel_ridge(np.ones((2, 3)), [1.0, 2.0], 1.0)
    with pytest.raises(ValueError, match="K_test"):
        km.kernel_expansion(np.ones((2, 3)), np.ones(4))
    with pytest.raises(ValueError, match="alpha"):
        km.kernel_expansion(np.ones((2, 3)), [np.inf, 0, 0])
    with pytest.raises(TypeError, match="b"):
        km.kernel_expansion(np.ones((2, 3)), np.ones(3), b="0")
    with pytest.raises(ValueError, match="n_components"):
        km.kernel_pca(K0, 26)
    with pytest.raises(ValueError, match="n_components"):
        km.kernel_pca(K0, 0)
    with pytest.raises(ValueError, match="K"):
        km.kernel_pca(np.ones((2, 3)), 1)
    res = km.kernel_pca(K0, 2)
    with pytest.raises(ValueError, match="K_test"):
        km.kernel_pca_transform(res, np.ones((2, 3)))
    with pytest.raises(TypeError, match="result"):
        km.kernel_pca_transform("res", np.ones((2, 25)))
    with pytest.raises(ValueError, match="K_y"):
        km.kernel_dependency_estimation(K0, np.eye(3), 0.1)
    with pytest.raises(ValueError, match="lam"):
        km.kernel_dependency_estimation(K0, K0, 0)
    model = km.kernel_dependency_estimation(K0, K0, 0.1, n_components=3)
    with pytest.raises(ValueError, match="K_y_cand"):
        km.kde_predict(model, np.ones((1, 25)), np.ones((2, 3)), np.ones(2))
    with pytest.raises(ValueError, match="k_y_cand_diag"):
        km.kde_predict(model, np.ones((1, 25)), np.ones((2, 25)), np.ones(3))
    with pytest.raises(ValueError, match="K_x_test"):
        km.kde_predict(model, np.ones((1, 2)), np.ones((2, 25)), np.ones(2))
    with pytest.raises(TypeError, match="model"):
        km.kde_predict(None, np.ones((1, 25)), np.ones((2, 25)), np.ones(2))
