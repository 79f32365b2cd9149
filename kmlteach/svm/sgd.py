"""SGD for solving soft-SVM (UML §15.5), exactly as the book's pseudo-code:
θ accumulation, w⁽ᵗ⁾ = θ⁽ᵗ⁾/(λt), averaged output.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kmlteach._jit import jit
from kmlteach._validation import (
    as_vector,
    check_finite_result,
    check_int,
    check_positive,
    check_rng,
    check_Xy,
)
from kmlteach.svm.margins import _objective
from kmlteach.svm.smo import prefetch

__all__ = ["sgd_indices", "SGDSoftSVMResult", "sgd_soft_svm"]


# SGD for Soft-SVM (UML §15.5)
# --------------------------------------------------------------------------------------


def sgd_indices(m, T, seed):
    """The T example indices drawn by :func:`sgd_soft_svm` (0-based).

    Convention shared with ``kmlteach.kernel_methods.kernel_sgd_svm`` (so that
    Lemma 16.3 holds bit for bit): ``np.random.default_rng(seed).integers(0, m, size=T)``,
    i.e. the index of step t is entry t - 1.
    """
    m = check_int(m, "m", minimum=1)
    T = check_int(T, "T", minimum=1)
    rng = check_rng(seed)
    return np.ascontiguousarray(rng.integers(0, m, size=T), dtype=np.int64)


@dataclass(frozen=True)
class SGDSoftSVMResult:
    """Output of :func:`sgd_soft_svm`.

    Attributes
    ----------
    w : ndarray (d,)       the averaged output w̄ = (1/T) Σ_{t=1..T} w⁽ᵗ⁾
    w_last : ndarray (d,)  w⁽ᵀ⁾ = θ⁽ᵀ⁾/(λT)
    objective : float      F(w̄), UML (15.12)
    n_updates : int        number of steps with y_i <w⁽ᵗ⁾, x_i> < 1
    checkpoints : ndarray of int64     the requested t's (empty if none)
    w_checkpoints : ndarray (k, d)     w̄ after t steps, for each checkpoint t
    """

    w: np.ndarray
    w_last: np.ndarray
    objective: float
    n_updates: int
    checkpoints: np.ndarray
    w_checkpoints: np.ndarray


def sgd_soft_svm(X, y, lam, T, seed, checkpoints=None):
    """SGD for Soft-SVM, exactly as in UML §15.5.

    ::

        θ⁽¹⁾ = 0
        for t = 1..T:
            w⁽ᵗ⁾ = θ⁽ᵗ⁾ / (λ t)
            choose i uniformly from [m]              (i = sgd_indices(m, T, seed)[t-1])
            θ⁽ᵗ⁺¹⁾ = θ⁽ᵗ⁾ + y_i x_i  if y_i <w⁽ᵗ⁾, x_i> < 1   else θ⁽ᵗ⁾
        output w̄ = (1/T) Σ_{t=1..T} w⁽ᵗ⁾             (w⁽¹⁾ = 0 included)

    It minimises UML (15.12), ``(λ/2)||w||² + mean hinge`` (see :func:`soft_svm`, the
    exact reference). The indices are drawn in Python with NumPy
    (:func:`sgd_indices`); the same seed gives bit-identical output. The sum of the
    w⁽ᵗ⁾ is accumulated without an O(d) operation per step: θ is constant between
    updates, so its weight Σ 1/t is summed as a scalar and added when θ changes.

    Parameters
    ----------
    X : array_like (m, d); y : array_like (m,) in {-1, +1}
    lam : float > 0
    T : int >= 1   number of steps
    seed : int >= 0 or None
    checkpoints : sequence of int in [1, T], optional
        Also return w̄ after each of these numbers of steps (one run, many T).

    Returns
    -------
    SGDSoftSVMResult  (``.w`` = w̄, ``.w_last``, ``.objective``, ``.n_updates``, ...)
    """
    X, y = check_Xy(X, y)
    lam = check_positive(lam, "lam")
    T = check_int(T, "T", minimum=1)
    idx = sgd_indices(X.shape[0], T, seed)
    if checkpoints is None:
        cps = np.zeros(0, dtype=np.int64)
    else:
        cps = np.unique(as_vector(checkpoints, "checkpoints", min_length=0))
        if cps.size and (np.any(cps != np.round(cps)) or cps[0] < 1 or cps[-1] > T):
            raise ValueError(f"checkpoints must be integers between 1 and T={T}, got {checkpoints!r}")
        cps = np.ascontiguousarray(cps, dtype=np.int64)
    w, w_last, n_upd, W_cp = _sgd_soft_svm_kernel(X, y, lam, idx, cps)
    check_finite_result("lam", w, w_last)
    return SGDSoftSVMResult(
        w=w,
        w_last=w_last,
        objective=_objective(w, 0.0, X, y, lam),
        n_updates=int(n_upd),
        checkpoints=cps,
        w_checkpoints=W_cp,
    )


def _sgd_example():
    X = np.array([[1.0, 0.2], [-1.0, 0.5], [0.3, 1.0]])
    return (
        X,
        np.array([1.0, -1.0, 1.0]),
        0.1,
        np.array([0, 1, 2, 0], dtype=np.int64),
        np.array([2], dtype=np.int64),
    )


@jit(warmup=_sgd_example)
def _sgd_soft_svm_kernel(X, y, lam, idx, checkpoints):
    m, d = X.shape
    T = idx.shape[0]
    theta = np.zeros(d)
    S = np.zeros(d)  # Σ θ⁽ˢ⁾/s over the steps s whose θ has since changed
    h = 0.0  # Σ 1/s over the steps since θ last changed
    w_last = np.zeros(d)
    ncp = checkpoints.shape[0]
    W_cp = np.zeros((ncp, d))
    c = 0
    n_updates = 0
    for t in range(1, T + 1):
        i = idx[t - 1]
        if t + 7 < T:  # ask for the row needed 8 steps ahead
            for q in range(0, d, 8):  # (rows of a large X are cache misses)
                prefetch(X, idx[t + 7], q)
        h += 1.0 / t  # w⁽ᵗ⁾ = θ⁽ᵗ⁾/(λt) joins the average
        if t == T:
            for q in range(d):
                w_last[q] = theta[q] / (lam * t)
        if c < ncp and checkpoints[c] == t:
            for q in range(d):
                W_cp[c, q] = (S[q] + h * theta[q]) / (lam * t)
            c += 1
        s = 0.0
        for q in range(d):
            s += theta[q] * X[i, q]
        if y[i] * s / (lam * t) < 1.0:  # y_i <w⁽ᵗ⁾, x_i> < 1
            for q in range(d):
                S[q] += h * theta[q]
                theta[q] += y[i] * X[i, q]
            h = 0.0
            n_updates += 1
    wbar = np.empty(d)
    for q in range(d):
        wbar[q] = (S[q] + h * theta[q]) / (lam * T)
    return wbar, w_last, n_updates, W_cp
