"""Kernel dependency estimation (HSS1 §1.5): regress the kernel PCA coordinates
of the outputs on the inputs, decode by the nearest candidate in the output RKHS.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kmlteach._validation import (
    as_vector,
    check_finite_output,
    check_gram,
    check_int,
    check_kernel_test,
    check_positive,
)
from kmlteach.kernel_methods.pca import (
    KernelPCAResult,
    kernel_pca,
    kernel_pca_transform,
)

__all__ = ["KDEResult", "KDEPrediction", "kernel_dependency_estimation", "kde_predict"]


# ----------------------------------------------------------------------------- KDE


@dataclass(frozen=True)
class KDEResult:
    """Kernel dependency estimation model: ``pca`` (kernel PCA of the outputs) and the
    ridge coefficients ``coef`` (m, p) so that T_H(x) = K_x(x, train) @ coef.

    Source: HSS1 §1.5.
    """

    pca: KernelPCAResult
    coef: np.ndarray
    lam: float


@dataclass(frozen=True)
class KDEPrediction:
    """``index`` (n,): best candidate per test input; ``distances`` (n, c): the squared
    H_y distances of (1.44); ``embedding`` (n, p): the predicted output coordinates.

    Source: HSS1 §1.5.
    """

    index: np.ndarray
    distances: np.ndarray
    embedding: np.ndarray


def kernel_dependency_estimation(K_x, K_y, lam: float, n_components: int | None = None) -> KDEResult:
    """Kernel dependency estimation (HSS1 §1.5, after Weston et al. 2002).

    1. Embed the training outputs with kernel PCA on ``K_y`` (:func:`kernel_pca`).
    2. Learn ``T_H: X -> R^p`` by kernel ridge regression (:func:`kernel_ridge`, one
       output per component, same ``lam``): ``coef = (K_x + lam m I)^{-1} E``.
    3. Decode with :func:`kde_predict`: the candidate output closest in H_y (1.44).

    Parameters
    ----------
    K_x : (m, m) Gram matrix of the training inputs
    K_y : (m, m) Gram matrix of the training outputs
    lam : float > 0
    n_components : int, default=None (all m components)
    """
    Kx = check_gram(K_x, "K_x")
    Ky = check_gram(K_y, "K_y")
    if Ky.shape != Kx.shape:
        raise ValueError(f"K_y must have the shape of K_x {Kx.shape}, got {Ky.shape}")
    lam = check_positive(lam, "lam")
    m = Kx.shape[0]
    p = m if n_components is None else check_int(n_components, "n_components", minimum=1, maximum=m)
    pca = kernel_pca(Ky, p)
    coef = np.linalg.solve(Kx + lam * m * np.eye(m), pca.embedding)
    check_finite_output("lam", coef)
    return KDEResult(pca, coef, lam)


def kde_predict(model: KDEResult, K_x_test, K_y_cand, k_y_cand_diag) -> KDEPrediction:
    """Decode KDE predictions over a finite candidate set (HSS1 (1.44)).

    For each test input ``z`` the prediction ``T = T_H(z)`` is a point of the output
    RKHS (in the kernel PCA coordinates); the chosen candidate minimises
    ``||Phi_y(y_c) - T||^2 = ||Phi~(y_c)||^2 - 2 <e(y_c), T> + ||T||^2``, where
    ``Phi~`` is centred with the training outputs and ``e(y_c)`` its PCA coordinates.

    Parameters
    ----------
    model : KDEResult
    K_x_test : (n, m) input kernel between test inputs and training inputs
    K_y_cand : (c, m) output kernel between candidates and training outputs
    k_y_cand_diag : (c,) ``k_y(y_c, y_c)``
    """
    if not isinstance(model, KDEResult):
        raise TypeError(f"model must be a KDEResult, got {type(model).__name__}")
    m = model.coef.shape[0]
    Kx = check_kernel_test(K_x_test, m, "K_x_test")
    Kc = check_kernel_test(K_y_cand, m, "K_y_cand")
    diag = as_vector(k_y_cand_diag, "k_y_cand_diag", length=Kc.shape[0], of="one per row of K_y_cand")
    T = Kx @ model.coef
    E = kernel_pca_transform(model.pca, Kc)
    norm2 = diag - 2.0 * Kc.mean(axis=1) + model.pca.mean
    D = norm2[None, :] - 2.0 * T @ E.T + np.sum(T**2, axis=1)[:, None]
    check_finite_output("K_x_test, K_y_cand or k_y_cand_diag", D)
    return KDEPrediction(np.argmin(D, axis=1), D, T)
