"""Tests for kmlteach.kernel_methods. Oracles: the same algorithms run on explicit — ``kmlteach.kernel_methods.pca``."""

import numpy as np
import pytest
from sklearn.decomposition import KernelPCA as SKKernelPCA

from kmlteach import kernel_methods as km
from kmlteach import kernels as kk

RNG = np.random.default_rng(0)


X = RNG.normal(size=(25, 2))


def test_kernel_pca_matches_sklearn_and_reproduces_centred_gram():
    K = kk.gram("gaussian", X, sigma=0.8)
    res = km.kernel_pca(K, 4)
    sk = SKKernelPCA(4, kernel="precomputed", eigen_solver="dense").fit(K)
    ref = sk.transform(K)
    signs = np.sign(np.sum(res.embedding * ref, axis=0))
    assert np.allclose(res.embedding, ref * signs, atol=1e-8)
    assert np.allclose(res.eigenvalues, sk.eigenvalues_, rtol=1e-10)
    assert np.all(np.diff(res.eigenvalues) <= 0)
    Kc = kk.center(K)
    assert np.allclose(np.diag(res.alphas.T @ Kc @ res.alphas), 1.0)  # unit-norm axes
    Z = RNG.normal(size=(5, 2))
    Kz = kk.gram("gaussian", Z, X, sigma=0.8)
    assert np.allclose(km.kernel_pca_transform(res, Kz), sk.transform(Kz) * signs, atol=1e-8)
    full = km.kernel_pca(K, K.shape[0])  # HSS1 (1.32)
    assert np.allclose(full.embedding @ full.embedding.T, Kc, atol=1e-9)


def test_kernel_pca_lanczos_path_matches_dense_sklearn():
    # m > 200 and fewer than 10 components: the ARPACK path (as scikit-learn's "auto")
    Xl = np.random.default_rng(3).normal(size=(260, 2))
    K = kk.gram("gaussian", Xl, sigma=0.5)
    res = km.kernel_pca(K, 3)
    ref = SKKernelPCA(3, kernel="precomputed", eigen_solver="dense").fit_transform(K)
    assert np.allclose(np.abs(res.embedding), np.abs(ref), atol=1e-8)
    assert np.array_equal(res.embedding, km.kernel_pca(K, 3).embedding)  # deterministic


@pytest.mark.parametrize("m", [30, 300])  # dense and Lanczos paths
def test_kernel_pca_of_a_constant_kernel_is_all_zero(m):
    res = km.kernel_pca(np.ones((m, m)), 2)  # centring removes everything
    assert np.allclose(res.eigenvalues, 0) and np.all(res.alphas == 0) and np.all(res.embedding == 0)


def test_kernel_pca_rank_deficient_linear_kernel_is_ordinary_pca():
    K = kk.gram("linear", X)
    res = km.kernel_pca(K, 3)  # rank 2 after centring
    Xc = X - X.mean(0)
    s = np.linalg.svd(Xc, compute_uv=False)
    assert np.allclose(res.eigenvalues[:2], s**2)
    assert abs(res.eigenvalues[2]) < 1e-9
    assert np.all(res.alphas[:, 2] == 0) and np.allclose(res.embedding[:, 2], 0)
    assert np.allclose(res.embedding[:, :2] @ res.embedding[:, :2].T, Xc @ Xc.T)
