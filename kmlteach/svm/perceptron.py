"""The Batch Perceptron (UML §9.1.2) and the perceptron as subgradient descent
(UML §14 ex. 3). Re-exported by :mod:`kmlteach.svm`; import them from there.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from kmlteach._jit import jit
from kmlteach._validation import (
    check_finite_result,
    check_int,
    check_positive,
    check_Xy,
)

__all__ = ["perceptron", "subgradient_perceptron", "PerceptronResult", "SubgradientPerceptronResult"]


# --------------------------------------------------------------------------------------
# the Batch Perceptron (UML §9.1.2; HSS2 §2.2.1, Theorem 10)
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PerceptronResult:
    """Output of :func:`perceptron`.

    Attributes
    ----------
    w : ndarray (d,)         final weight vector
    n_updates : int          number of updates (mistakes corrected)
    converged : bool         True when w separates the sample (no mistake left)
    history : ndarray (n_updates,) of int64
        index of the example used at each update, in order
    w_path : ndarray (n_updates + 1, d) or None
        w after 0, 1, ..., n_updates updates (None when it would exceed 2·10⁶ numbers)

    Source: UML §9.1.2 (Batch Perceptron).
    """

    w: np.ndarray
    n_updates: int
    converged: bool
    history: np.ndarray
    w_path: np.ndarray | None = field(default=None, repr=False)


def perceptron(X, y, max_updates=100_000):
    """Batch Perceptron (UML §9.1.2) for homogeneous halfspaces, started at w = 0.

    Repeat: if some i has ``y_i <w, x_i> <= 0`` (a mistake), set ``w <- w + y_i x_i``;
    otherwise stop and return w. The violating example used is always the **first one in
    data order** (smallest i), which makes the run deterministic.

    The mistake test uses ``<= 0``: a point exactly on the hyperplane is a mistake.
    HSS2 §2.2.1 prints the opposite convention (``y<x, w> >= 0`` counts as correct),
    under which nothing ever happens from w = 0, since every score is then 0.

    If the sample is separable with margin γ by a unit vector and ``R = max_i ||x_i||``,
    at most ``(R/γ)²`` updates are made (Novikoff; HSS2 Theorem 10, UML Theorem 9.1).
    For a halfspace with bias, append a constant feature: ``np.c_[X, np.ones(m)]``.

    Parameters
    ----------
    X : array_like, shape (m, d)
    y : array_like, shape (m,), labels in {-1, +1} (both present)
    max_updates : int, default=100_000
        Stop (with ``converged=False``) after this many updates; needed when the
        sample is not separable.

    Returns
    -------
    PerceptronResult
        ``.w``, ``.n_updates``, ``.converged``, ``.history``, ``.w_path``.

    Examples
    --------
    >>> r = perceptron([[1.0, 0.0], [-1.0, 0.5]], [1, -1])
    >>> r.w, r.n_updates, r.converged
    (array([1., 0.]), 1, True)
    """
    X, y = check_Xy(X, y)
    max_updates = check_int(max_updates, "max_updates", minimum=1)
    w, hist, converged = _perceptron_kernel(X, y, max_updates)
    n = int(hist.shape[0])
    path = None
    if (n + 1) * X.shape[1] <= 2_000_000:
        path = np.vstack([np.zeros((1, X.shape[1])), np.cumsum(y[hist, None] * X[hist], axis=0)])
    return PerceptronResult(w=w, n_updates=n, converged=bool(converged), history=hist, w_path=path)


def _perceptron_example():
    return (np.array([[1.0, 0.2], [-1.0, 0.5], [0.3, 1.0]]), np.array([1.0, -1.0, 1.0]), 100)


@jit(warmup=_perceptron_example)
def _perceptron_kernel(X, y, max_updates):
    m, d = X.shape
    w = np.zeros(d)
    hist = np.empty(max_updates, dtype=np.int64)
    n = 0
    converged = False
    while True:
        found = -1
        for i in range(m):
            s = 0.0
            for q in range(d):
                s += w[q] * X[i, q]
            if y[i] * s <= 0.0:
                found = i
                break
        if found < 0:
            converged = True
            break
        if n >= max_updates:
            break
        for q in range(d):
            w[q] += y[found] * X[found, q]
        hist[n] = found
        n += 1
    return w, hist[:n].copy(), converged


@dataclass(frozen=True)
class SubgradientPerceptronResult:
    """Output of :func:`subgradient_perceptron`.

    Attributes
    ----------
    w : ndarray (d,)
    n_iter : int              number of subgradient steps taken
    converged : bool          True when f(w) < 1, i.e. w separates the sample
    history : ndarray of int64   the index i* used at each step
    objective : ndarray       f(w) before each step and at the end (n_iter + 1 values)

    Source: UML §14 ex. 3.
    """

    w: np.ndarray
    n_iter: int
    converged: bool
    history: np.ndarray
    objective: np.ndarray


def subgradient_perceptron(X, y, eta=1.0, max_iter=100_000):
    """Subgradient descent on ``f(w) = max_i (1 - y_i <w, x_i>)`` (UML §14 ex. 3b–c).

    Start at w = 0. At each step take ``i* = argmax_i (1 - y_i <w, x_i>)`` (the example
    with the smallest margin; the first one on ties); ``v = -y_{i*} x_{i*}`` is a
    subgradient of f at w, and the step is ``w <- w - eta v = w + eta y_{i*} x_{i*}``.
    Stop as soon as ``f(w) < 1``: then every ``y_i <w, x_i> > 0``, so w separates S.

    While f(w) >= 1 the chosen example has ``y_{i*} <w, x_{i*}> <= 0``: this is the
    Batch Perceptron that always corrects the *worst* mistake, so the perceptron
    analysis applies for every eta > 0: at most ``(R ||w*||)²`` steps, where w* is the
    minimum-norm vector with all ``y_i <w*, x_i> >= 1`` (``||w*|| = 1/γ``).

    Parameters
    ----------
    X : array_like (m, d); y : array_like (m,) in {-1, +1}
    eta : float > 0, default=1.0
    max_iter : int, default=100_000

    Returns
    -------
    SubgradientPerceptronResult
    """
    X, y = check_Xy(X, y)
    eta = check_positive(eta, "eta")
    max_iter = check_int(max_iter, "max_iter", minimum=1)
    w, hist, fvals, converged = _subgradient_perceptron_kernel(X, y, eta, max_iter)
    check_finite_result("eta", w)
    return SubgradientPerceptronResult(
        w=w, n_iter=int(hist.shape[0]), converged=bool(converged), history=hist, objective=fvals
    )


def _subgradient_example():
    return (np.array([[1.0, 0.2], [-1.0, 0.5], [0.3, 1.0]]), np.array([1.0, -1.0, 1.0]), 1.0, 100)


@jit(warmup=_subgradient_example)
def _subgradient_perceptron_kernel(X, y, eta, max_iter):
    m, d = X.shape
    w = np.zeros(d)
    hist = np.empty(max_iter, dtype=np.int64)
    fvals = np.empty(max_iter + 1)
    n = 0
    converged = False
    while True:
        istar = 0
        fmax = -np.inf
        for i in range(m):
            s = 0.0
            for q in range(d):
                s += w[q] * X[i, q]
            v = 1.0 - y[i] * s
            if v > fmax:
                fmax = v
                istar = i
        fvals[n] = fmax
        if fmax < 1.0:
            converged = True
            break
        if n >= max_iter:
            break
        for q in range(d):
            w[q] += eta * y[istar] * X[istar, q]
        hist[n] = istar
        n += 1
    return w, hist[:n].copy(), fvals[: n + 1].copy(), converged
