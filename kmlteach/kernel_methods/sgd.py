"""SGD for solving soft-SVM with kernels (UML §16.3): β accumulation,
α⁽ᵗ⁾ = β⁽ᵗ⁾/(λt), averaged ᾱ; with the same seed it equals SGD on explicit features
(Lemma 16.3).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kmlteach._jit import jit
from kmlteach._validation import (
    check_binary_labels,
    check_finite_result,
    check_gram,
    check_int,
    check_positive,
)
from kmlteach.kernels.distance import gaussian_direct_kernel
from kmlteach.svm import sgd_indices

__all__ = ["KernelSGDResult", "kernel_sgd_svm"]


# ----------------------------------------------------------------------------- kernel SGD SVM


@dataclass(frozen=True)
class KernelSGDResult:
    """Output of :func:`kernel_sgd_svm`.

    ``alpha`` = ᾱ = (1/T) Σ_{t=1..T} α⁽ᵗ⁾ (the predictor is Σ_j ᾱ_j k(x_j, ·)),
    ``alpha_last`` = α⁽ᵀ⁾ = β⁽ᵀ⁾/(λT), ``beta`` = β⁽ᵀ⁺¹⁾ (signed update counts),
    ``indices`` = the T indices drawn, ``n_updates`` = how often the test ``< 1`` fired.

    Source: UML §16.3.
    """

    alpha: np.ndarray
    alpha_last: np.ndarray
    beta: np.ndarray
    indices: np.ndarray
    n_updates: int


def kernel_sgd_svm(K, y, lam: float, T: int, seed=None) -> KernelSGDResult:
    """SGD for soft-SVM with kernels, exactly as in UML §16.3.

    Solves ``min_w (lam/2)||w||^2 + (1/m) sum_i max(0, 1 - y_i <w, psi(x_i)>)``
    (UML Eq. (16.5)) through the coefficients of ``w = sum_j alpha_j psi(x_j)``::

        beta(1) = 0
        for t = 1..T:
            alpha(t) = beta(t) / (lam t)
            draw i uniformly from [m]
            if y_i sum_j alpha_j(t) K(x_j, x_i) < 1:  beta_i += y_i    (strict <, as in §15.5)
        output alpha_bar = (1/T) sum_t alpha(t)

    The indices are those of :func:`kmlteach.svm.sgd_soft_svm` for the same ``seed``,
    so with ``K = Psi Psi^T`` the predictor ``sum_j alpha_bar_j psi(x_j)`` equals the
    ``w`` of ``sgd_soft_svm(Psi, y, lam, T, seed)`` (Lemma 16.3).

    Implementation: the scores ``s = K beta`` are updated only when beta changes
    (O(m) per update, O(1) per step otherwise), and the average of ``alpha(t)`` is
    accumulated lazily with harmonic sums ``sum 1/t`` per coordinate (O(m) memory).

    Parameters
    ----------
    K : (m, m) symmetric Gram matrix
    y : (m,) labels in {-1, +1}
    lam : float > 0
    T : int >= 1, number of SGD steps
    seed : int or None

    Returns
    -------
    KernelSGDResult with ``.alpha`` (m,)
    """
    Ka = check_gram(K)
    ya = check_binary_labels(y, "y", n=Ka.shape[0], of="one per row of K")
    lam = check_positive(lam, "lam")
    T = check_int(T, "T", minimum=1)
    return _kernel_sgd_svm(Ka, ya, lam, T, seed)


def _kernel_sgd_svm(
    Ka: np.ndarray | None, ya: np.ndarray, lam: float, T: int, seed, rows=None
) -> KernelSGDResult:
    """:func:`kernel_sgd_svm` on checked arguments (the estimator's fit validated them once).

    ``rows = (Xc, XcT, gamma)`` (from :func:`kmlteach.kernels.distance.gaussian_row_data`)
    instead of ``Ka`` (then ``None``): the Gaussian Gram matrix's rows are computed when
    first needed, bit for bit as ``gram`` computes them (same result). SGD reads row i
    only when it updates β_i, and few points are ever updated (145 of 3000 in T = m steps
    of the benchmark), so the estimator never forms the m x m matrix, as libsvm's SMO
    computes only the kernel columns it needs (issue 26's kernel SVM row).
    """
    m = ya.shape[0]
    idx = sgd_indices(m, T, seed)  # the indices of sgd_soft_svm (Lemma 16.3)
    if rows is None:
        Xc, XcT, gamma = np.empty((0, 0)), np.empty((0, 0)), 0.0
    else:
        (Xc, XcT, gamma), Ka = rows, np.empty((0, 0))
    alpha, alpha_last, beta, n_up = _kernel_sgd_svm_kernel(Ka, Xc, XcT, gamma, ya, lam, idx)
    check_finite_result("lam", alpha, alpha_last)
    return KernelSGDResult(alpha, alpha_last, beta, idx, int(n_up))


def _sgd_warmup():
    y = np.array([1.0, -1.0, 1.0])
    idx = np.array([0, 1, 2, 0], dtype=np.int64)
    return np.eye(3), np.empty((0, 0)), np.empty((0, 0)), 0.0, y, 0.5, idx


@jit(warmup=_sgd_warmup)
def _kernel_sgd_svm_kernel(K, Xc, XcT, gamma, y, lam, idx):
    """The loop of UML §16.3 with the scores s = K beta kept up to date. ``K`` (m, m), or,
    when ``K`` has no rows, row i of the Gaussian Gram matrix of the centred data ``Xc``
    computed the first time beta_i changes (see :func:`_kernel_sgd_svm`)."""
    m = y.shape[0]
    T = idx.shape[0]
    lazy = K.shape[0] == 0
    slot = np.full(m, -1, dtype=np.int64)  # lazy: row of R holding k(x_i, .), or -1
    R = np.empty((min(m, 64) if lazy else 0, m))
    n_rows = 0
    beta = np.zeros(m)
    s = np.zeros(m)  # s_i = sum_j beta_j K[j, i]
    acc = np.zeros(m)  # sum over finished spans of beta_j * (sum of 1/t over the span)
    hstart = np.zeros(m)  # harmonic number H_{t0 - 1} where t0 starts the current span of beta_j
    H = 0.0  # H_t = sum_{r <= t} 1/r, advanced once per step
    beta_T = np.zeros(m)
    n_up = 0
    for t in range(1, T + 1):
        H += 1.0 / t
        i = idx[t - 1]
        if t == T:
            beta_T[:] = beta
        if y[i] * (s[i] / (lam * t)) < 1.0:
            acc[i] += beta[i] * (H - hstart[i])  # beta_i held its old value for steps t0..t
            hstart[i] = H
            beta[i] += y[i]
            if lazy:
                if slot[i] < 0:
                    if n_rows == R.shape[0]:
                        grown = np.empty((min(m, 2 * n_rows), m))
                        grown[:n_rows] = R[:n_rows]
                        R = grown
                    gaussian_direct_kernel(R[n_rows : n_rows + 1], Xc[i : i + 1], XcT, gamma, False, 0, 1)
                    slot[i] = n_rows
                    n_rows += 1
                row = R[slot[i]]
            else:
                row = K[i]
            for j in range(m):
                s[j] += y[i] * row[j]
            n_up += 1
    alpha = np.empty(m)
    for j in range(m):
        alpha[j] = (acc[j] + beta[j] * (H - hstart[j])) / (lam * T)
    return alpha, beta_T / (lam * T), beta, n_up
