"""Kernel PCA (HSS1 §1.3.2): eigenvectors of the centred Gram matrix, axes of
unit norm in the RKHS, projections of new points.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kmlteach._linalg import one_blas_thread
from kmlteach._validation import check_gram, check_int, check_kernel_test
from kmlteach.kernels.rkhs import center_train

__all__ = ["KernelPCAResult", "kernel_pca", "kernel_pca_transform"]


@dataclass(frozen=True)
class KernelPCAResult:
    """Kernel PCA of a Gram matrix (HSS1 §1.3.2).

    ``eigenvalues`` (descending) of the centred Gram matrix K̃ (not divided by m);
    ``alphas`` (m, p): column j holds the coefficients of the unit-norm axis
    v_j = Σ_i alphas[i, j] (Φ(x_i) − mean), i.e. eigenvector / √eigenvalue (zero columns
    for zero eigenvalues); ``embedding`` (m, p) = K̃ alphas, the projections of the
    training points; ``col_mean`` and ``mean`` of K, for centring new points.
    """

    eigenvalues: np.ndarray
    alphas: np.ndarray
    embedding: np.ndarray
    col_mean: np.ndarray
    mean: float


def _top_eigh(Ka: np.ndarray, k: int):
    """Largest k eigenpairs of the centred matrix K~ = (I - J) K (I - J), J = 11^T/m, descending.

    Like scikit-learn's KernelPCA: for few components of a large matrix (k < 10, m > 200)
    ARPACK's Lanczos iteration (``scipy.sparse.linalg.eigsh``, tolerance 0 = machine
    precision, fixed start vector so that results repeat); otherwise a dense solver
    (SciPy's subset solver if present, else ``numpy.linalg.eigh``). SciPy is optional.

    Lanczos only needs products K~ x, and K~ x = K z - mean(K z) 1 with z = x - mean(x) 1:
    one product with the uncentred K and two O(m) steps, so K~ itself is never formed on
    that path (forming it costs three passes over an m x m matrix, about as long as the
    whole iteration; issue 26's kernel PCA row). Only the dense solver centres K.
    """
    m = Ka.shape[0]
    try:
        from scipy.linalg import eigh as sp_eigh
        from scipy.sparse.linalg import LinearOperator, eigsh
    except ImportError:  # NumPy only: full decomposition
        lam, V = np.linalg.eigh(center_train(Ka, symmetric=True))
        lam, V = lam[m - k :], V[:, m - k :]
    else:
        lam = None
        if k < 10 and m > 200:

            def centred_product(x):
                z = np.ravel(x)
                w = Ka @ (z - z.mean())
                return w - w.mean()

            op = LinearOperator((m, m), matvec=centred_product, dtype=np.float64)
            v0 = np.random.default_rng(0).uniform(-1.0, 1.0, size=m)
            try:
                with one_blas_thread():  # 21+ memory-bound products: steadier and faster on one
                    lam, V = eigsh(op, k=k, which="LA", tol=0.0, v0=v0)
                order = np.argsort(lam)
                lam, V = lam[order], V[:, order]
            except Exception:  # ARPACK breakdown (e.g. rank < k): use the dense solver
                lam = None
        if lam is None:
            Kc = center_train(Ka, symmetric=True)  # Ka was checked symmetric (to 1e-8)
            lam, V = sp_eigh(Kc, subset_by_index=[m - k, m - 1], driver="evr")
    return lam[::-1].copy(), V[:, ::-1].copy()


def kernel_pca(K, n_components: int) -> KernelPCAResult:
    """Kernel PCA (HSS1 §1.3.2): principal axes in feature space from the Gram matrix.

    1. Centre ``K`` in feature space: ``K~ = K - 1_m K - K 1_m + 1_m K 1_m``
       (:func:`kmlteach.kernels.center`).
    2. Eigen-decompose ``K~ = sum_j lam_j u_j u_j^T`` (lam descending, ||u_j|| = 1).
    3. Axis ``v_j = sum_i alpha_ij (Phi(x_i) - mean)`` with ``alpha_j = u_j / sqrt(lam_j)``,
       so ``||v_j||^2 = alpha_j^T K~ alpha_j = 1`` (the scaling the source leaves open).
    4. Projections of the training points: ``K~ alpha_j = sqrt(lam_j) u_j``.

    Keeping every component with a non-zero eigenvalue, ``embedding @ embedding.T``
    reproduces ``K~`` (HSS1 (1.32), for the centred features). Each eigenvector's sign
    is fixed so that its largest-magnitude entry is positive.

    Parameters
    ----------
    K : (m, m) symmetric **uncentred** Gram matrix
    n_components : int in [1, m]

    Returns
    -------
    KernelPCAResult; project new points with :func:`kernel_pca_transform`.
    """
    Ka = check_gram(K)
    m = Ka.shape[0]
    n_components = check_int(n_components, "n_components", minimum=1, maximum=m)
    return _kernel_pca(Ka, n_components)


def _kernel_pca(Ka: np.ndarray, n_components: int) -> KernelPCAResult:
    """:func:`kernel_pca` on checked arguments (the estimator's fit validated them once)."""
    m = Ka.shape[0]
    lam, U = _top_eigh(Ka, n_components)
    big = np.argmax(np.abs(U), axis=0)
    U = U * np.where(U[big, np.arange(U.shape[1])] < 0, -1.0, 1.0)
    thresh = 1e-12 * max(1.0, float(lam[0]) if lam.size else 1.0) * m
    nonzero = lam > thresh
    alphas = np.zeros_like(U)
    alphas[:, nonzero] = U[:, nonzero] / np.sqrt(lam[nonzero])
    embedding = U * np.sqrt(np.where(nonzero, lam, 0.0))
    col_mean = Ka.mean(axis=0)
    return KernelPCAResult(lam, alphas, embedding, col_mean, float(col_mean.mean()))


def kernel_pca_transform(result: KernelPCAResult, K_test) -> np.ndarray:
    """Projections of new points on the kernel PCA axes: ``center(K, K_test) @ alphas``.

    ``K_test`` (n, m) holds the uncentred ``k(z_a, x_j)``; it is centred with the
    training means (HSS1 §1.3.1.2, test version) before projecting.
    """
    if not isinstance(result, KernelPCAResult):
        raise TypeError(f"result must be a KernelPCAResult from kernel_pca, got {type(result).__name__}")
    Kt = check_kernel_test(K_test, result.col_mean.shape[0])
    Kc = Kt - result.col_mean[None, :] - Kt.mean(axis=1)[:, None] + result.mean
    return Kc @ result.alphas
