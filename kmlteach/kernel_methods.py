"""Kernel methods: algorithms that touch the data only through a Gram matrix.

* :func:`kernel_sgd_svm` — "SGD for Solving Soft-SVM with Kernels" (UML §16.3), whose
  output equals SGD on explicit features (Lemma 16.3).
* :func:`kernel_perceptron` (UML ex. 16.2), :func:`kernel_ridge` (UML ex. 16.3),
  :func:`class_mean_classifier` (HSS1 §1.2.1, UML ex. 16.6).
* :func:`kernel_expansion`: evaluate ``f(x) = sum_j alpha_j k(x_j, x) + b``, the form the
  representer theorem guarantees (UML Thm 16.1, HSS1 Thm 6).
* :func:`kernel_pca` (HSS1 §1.3.2) and :func:`kernel_dependency_estimation` (HSS1 §1.5).
* Estimators :class:`KernelSVM` (kernel SGD, any two labels) and :class:`KernelPCA`.

Every function takes an **uncentred** Gram matrix ``K`` (``K[i, j] = k(x_i, x_j)``,
e.g. from :func:`kmlteach.kernels.gram`) and, for new points, the rectangular matrix
``K_test[a, j] = k(z_a, x_j)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._jit import jit
from ._validation import as_vector, check_binary_labels, check_int, check_positive
from ._kernel_pca import (KDEPrediction, KDEResult, KernelPCAResult, kde_predict,
                          kernel_dependency_estimation, kernel_pca, kernel_pca_transform)
from ._rkhs import _check_gram, _check_test
from .svm import sgd_indices

__all__ = [
    "KernelSGDResult", "kernel_sgd_svm", "KernelPerceptronResult", "kernel_perceptron",
    "KernelRidgeResult", "kernel_ridge", "ClassMeanResult", "class_mean_classifier",
    "kernel_expansion", "KernelPCAResult", "kernel_pca", "kernel_pca_transform",
    "KDEResult", "KDEPrediction", "kernel_dependency_estimation", "kde_predict",
    "KernelSVM", "KernelPCA",
]


# ----------------------------------------------------------------------------- kernel SGD SVM

@dataclass(frozen=True)
class KernelSGDResult:
    """Output of :func:`kernel_sgd_svm`.

    ``alpha`` = ᾱ = (1/T) Σ_{t=1..T} α⁽ᵗ⁾ (the predictor is Σ_j ᾱ_j k(x_j, ·)),
    ``alpha_last`` = α⁽ᵀ⁾ = β⁽ᵀ⁾/(λT), ``beta`` = β⁽ᵀ⁺¹⁾ (signed update counts),
    ``indices`` = the T indices drawn, ``n_updates`` = how often the test ``< 1`` fired.
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
    Ka = _check_gram(K)
    ya = check_binary_labels(y, "y", n=Ka.shape[0])
    lam = check_positive(lam, "lam")
    T = check_int(T, "T", minimum=1)
    idx = sgd_indices(Ka.shape[0], T, seed)  # the indices of sgd_soft_svm (Lemma 16.3)
    alpha, alpha_last, beta, n_up = _kernel_sgd_svm_kernel(Ka, ya, lam, idx)
    return KernelSGDResult(alpha, alpha_last, beta, idx, int(n_up))


@jit(warmup=lambda: (np.eye(3), np.array([1.0, -1.0, 1.0]), 0.5, np.array([0, 1, 2, 0], dtype=np.int64)))
def _kernel_sgd_svm_kernel(K, y, lam, idx):
    m = K.shape[0]
    T = idx.shape[0]
    beta = np.zeros(m)
    s = np.zeros(m)       # s_i = sum_j beta_j K[j, i]
    acc = np.zeros(m)     # sum over finished spans of beta_j * (sum of 1/t over the span)
    hstart = np.zeros(m)  # harmonic number H_{t0 - 1} where t0 starts the current span of beta_j
    H = 0.0               # H_t = sum_{r <= t} 1/r, advanced once per step
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
            for j in range(m):
                s[j] += y[i] * K[i, j]
            n_up += 1
    alpha = np.empty(m)
    for j in range(m):
        alpha[j] = (acc[j] + beta[j] * (H - hstart[j])) / (lam * T)
    return alpha, beta_T / (lam * T), beta, n_up


# ----------------------------------------------------------------------------- kernel perceptron

@dataclass(frozen=True)
class KernelPerceptronResult:
    """``alpha``: w = Σ_j alpha_j ψ(x_j) (alpha_j = y_j × number of updates on j);
    ``n_updates``; ``converged`` (no mistake left within ``max_updates``)."""
    alpha: np.ndarray
    n_updates: int
    converged: bool


def kernel_perceptron(K, y, max_updates: int = 100_000) -> KernelPerceptronResult:
    """The Batch Perceptron (UML §9.1.2) run through kernel values only (UML ex. 16.2).

    ``w = sum_j alpha_j psi(x_j)`` starts at 0; while some i has
    ``y_i sum_j alpha_j K(x_j, x_i) <= 0`` (a mistake, with ``<=`` so that it fires at
    w = 0), take the **smallest** such i and set ``alpha_i += y_i`` (i.e. w += y_i psi(x_i)).
    Same choice rule as :func:`kmlteach.svm.perceptron`, so with ``K = Psi Psi^T`` both
    give the same sequence of updates and ``Psi^T alpha`` equals its ``w``.

    Returns
    -------
    KernelPerceptronResult with ``.alpha``, ``.n_updates``, ``.converged``
    """
    Ka = _check_gram(K)
    ya = check_binary_labels(y, "y", n=Ka.shape[0])
    max_updates = check_int(max_updates, "max_updates", minimum=0)
    alpha, n_up, ok = _kernel_perceptron_kernel(Ka, ya, max_updates)
    return KernelPerceptronResult(alpha, int(n_up), bool(ok))


@jit(warmup=lambda: (np.eye(2), np.array([1.0, -1.0]), 10))
def _kernel_perceptron_kernel(K, y, max_updates):
    m = K.shape[0]
    alpha = np.zeros(m)
    s = np.zeros(m)  # s_i = sum_j alpha_j K[j, i]
    n_up = 0
    while True:
        i = -1
        for r in range(m):
            if y[r] * s[r] <= 0.0:
                i = r
                break
        if i < 0:
            return alpha, n_up, True
        if n_up >= max_updates:
            return alpha, n_up, False
        alpha[i] += y[i]
        for j in range(m):
            s[j] += y[i] * K[i, j]
        n_up += 1


# ----------------------------------------------------------------------------- kernel ridge

@dataclass(frozen=True)
class KernelRidgeResult:
    """``alpha`` = (K + λ m I)⁻¹ y; ``objective`` = value of the objective at the optimum."""
    alpha: np.ndarray
    objective: float


def kernel_ridge(K, y, lam: float) -> KernelRidgeResult:
    """Kernel ridge regression in closed form (UML ex. 16.3).

    Minimises ``(lam/2) ||w||^2 + (1/(2m)) sum_i (<w, psi(x_i)> - y_i)^2`` over
    ``w = sum_j alpha_j psi(x_j)`` (representer theorem). Setting the gradient
    ``lam K alpha + (1/m) K (K alpha - y)`` to zero gives
    ``alpha = (K + lam m I)^{-1} y``.

    Scaling: UML's (16.8) writes ``lam ||w||^2 + (1/(2m)) sum (...)^2``; its minimiser is
    ours with ``lam = 2 lam_UML`` (the same factor 2 as between (15.6) and (15.12)).

    Parameters
    ----------
    K : (m, m) symmetric Gram matrix
    y : (m,) real targets
    lam : float > 0

    Returns
    -------
    KernelRidgeResult; predict with ``kernel_expansion(K_test, result.alpha)``.
    """
    Ka = _check_gram(K)
    ya = as_vector(y, "y", length=Ka.shape[0])
    lam = check_positive(lam, "lam")
    m = Ka.shape[0]
    alpha = np.linalg.solve(Ka + lam * m * np.eye(m), ya)
    f = Ka @ alpha
    obj = 0.5 * lam * float(alpha @ f) + float(np.sum((f - ya) ** 2)) / (2 * m)
    return KernelRidgeResult(alpha, obj)


# ----------------------------------------------------------------------------- class means

@dataclass(frozen=True)
class ClassMeanResult:
    """The class-mean classifier as a kernel expansion: f(x) = Σ_j alpha_j k(x_j, x) + b,
    with alpha_j = 1/m₊ (y_j = +1) or −1/m₋ (y_j = −1); predict +1 iff f(x) >= 0."""
    alpha: np.ndarray
    b: float

    def decision_function(self, K_test) -> np.ndarray:
        return kernel_expansion(K_test, self.alpha, self.b)

    def predict(self, K_test) -> np.ndarray:
        return np.where(self.decision_function(K_test) >= 0.0, 1.0, -1.0)


def class_mean_classifier(K, y) -> ClassMeanResult:
    """Nearest class mean in feature space, from kernel values only (HSS1 (1.4)-(1.6), UML ex. 16.6).

    With ``c_± = (1/m_±) sum_{y_i = ±1} psi(x_i)``, ``w = c_+ - c_-`` and
    ``b = (||c_-||^2 - ||c_+||^2) / 2`` the rule is ``sign(<w, psi(x)> + b)``, i.e.
    "closer to c_+ than to c_-" (ties go to +1, as UML's ``<=``). In kernel form
    ``<w, psi(x)> = (1/m_+) sum_{y_i=+1} k(x, x_i) - (1/m_-) sum_{y_i=-1} k(x, x_i)`` and
    ``b = (1/2) (mean of K over (-,-) pairs - mean of K over (+,+) pairs)``.

    Returns
    -------
    ClassMeanResult with ``.alpha``, ``.b``, ``.decision_function(K_test)``, ``.predict(K_test)``
    """
    Ka = _check_gram(K)
    ya = check_binary_labels(y, "y", n=Ka.shape[0])
    pos, neg = ya > 0, ya < 0
    alpha = np.where(pos, 1.0 / pos.sum(), -1.0 / neg.sum())
    b = 0.5 * (float(Ka[np.ix_(neg, neg)].mean()) - float(Ka[np.ix_(pos, pos)].mean()))
    return ClassMeanResult(alpha, b)


def kernel_expansion(K_test, alpha, b: float = 0.0) -> np.ndarray:
    """Evaluate ``f(z_a) = sum_j alpha_j k(x_j, z_a) + b`` for every row of ``K_test``.

    This is the predictor form of the representer theorem (UML Thm 16.1 and the display
    after (16.4); HSS1 Thm 6, Eq. (1.25)).

    Parameters
    ----------
    K_test : (n, m) with ``K_test[a, j] = k(z_a, x_j)``
    alpha : (m,)
    b : float, default=0.0
    """
    av = as_vector(alpha, "alpha")
    Kt = _check_test(K_test, av.shape[0])
    if isinstance(b, bool) or not isinstance(b, (int, float, np.integer, np.floating)) \
            or not np.isfinite(b):
        raise TypeError(f"b must be a finite real number, got {b!r}")
    return Kt @ av + float(b)


def __getattr__(name):
    # KernelSVM / KernelPCA are built on scikit-learn's base classes (an optional
    # dependency that takes seconds to import): load them on first use only.
    if name in ("KernelSVM", "KernelPCA"):
        from . import _kernel_estimators

        return getattr(_kernel_estimators, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
