"""Margins and support vector machines (UML ch. 15, UML §9.1.2 and §14 ex. 3, HSS2 §2.2.1, §2.3.1).

Functions first, each named as the book names it:

* geometry — :func:`signed_distance`, :func:`distance_to_hyperplane` (Claim 15.1),
  :func:`functional_margins`, :func:`geometric_margins`, :func:`geometric_margin`,
  :func:`support_vectors`;
* :func:`perceptron` — the Batch Perceptron (UML §9.1.2), and
  :func:`subgradient_perceptron` — subgradient descent on max_i(1 - y_i<w,x_i>)
  (UML §14 ex. 3);
* :func:`hard_svm` — the exact solution of (15.2) / (15.3), with its dual α (15.11);
* :func:`soft_svm` — the exact minimiser of (λ/2)||w||² + mean hinge (15.12);
* :func:`sgd_soft_svm` — "SGD for Solving Soft-SVM" (UML §15.5), with the index
  convention :func:`sgd_indices` shared with ``kernel_methods.kernel_sgd_svm``;
* estimators :class:`HardSVM` and :class:`SoftSVM` (scikit-learn style).

Labels are -1/+1 for the functions (the estimators accept any two labels). The exact
solvers live in :mod:`kmlteach._svm_solvers`.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from . import _svm_solvers as _S
from ._jit import jit
from ._margins import (_objective, distance_to_hyperplane, functional_margins, geometric_margin,
                       geometric_margins, hinge_objective, signed_distance, soft_svm_objective,
                       support_vectors)
from ._perceptron import (PerceptronResult, SubgradientPerceptronResult, perceptron,
                          subgradient_perceptron)
from ._validation import as_vector, check_int, check_positive, check_rng, check_Xy

__all__ = [
    "signed_distance", "distance_to_hyperplane", "functional_margins", "geometric_margins",
    "geometric_margin", "support_vectors", "soft_svm_objective", "hinge_objective",
    "perceptron", "subgradient_perceptron", "hard_svm", "soft_svm", "sgd_soft_svm",
    "sgd_indices", "PerceptronResult", "SubgradientPerceptronResult", "HardSVMResult",
    "SoftSVMResult", "SGDSoftSVMResult", "HardSVM", "SoftSVM",
]


# --------------------------------------------------------------------------------------
# Hard-SVM (UML §15.1, (15.2)/(15.3); dual (15.11); Theorem 15.8)
# --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class HardSVMResult:
    """Output of :func:`hard_svm`.

    Attributes
    ----------
    w, b : the solution (w0, b0) of (15.2) (b = 0 for (15.3)): minimum ||w|| subject to
        ``y_i(<w, x_i> + b) >= 1``; the closest points have functional margin exactly 1.
    alpha : ndarray (m,)  dual solution of (15.11): ``w = Σ α_i y_i x_i``, α >= 0
        (and ``Σ α_i y_i = 0`` with a bias).
    support : ndarray of int64  indices with ``α_i > 1e-8 · max α`` (the support vectors).
    margin : float  geometric margin of (w, b) on the sample, ``= 1/||w||``.
    w_unit, b_unit : UML's normalised output ``w0/||w0||, b0/||w0||``.
    n_iter : int  SMO iterations.
    """

    w: np.ndarray
    b: float
    alpha: np.ndarray
    support: np.ndarray
    margin: float
    w_unit: np.ndarray
    b_unit: float
    n_iter: int
    homogeneous: bool


#: tests set this to exercise the nearest-points solver on separable samples too
_FORCE_NEAREST_POINTS = False


def _not_separable(homogeneous: bool, detail: str = "") -> ValueError:
    what = "by a homogeneous halfspace (through the origin)" if homogeneous else "by any halfspace"
    return ValueError(f"the sample (X, y) is not linearly separable {what}{detail}; hard-SVM has "
                      "no solution — use soft_svm instead")


def hard_svm(X, y, homogeneous=False):
    """Hard-SVM: the separating hyperplane with the largest margin, solved exactly.

    Solves UML (15.2) ``min ||w||² s.t. y_i(<w, x_i> + b) >= 1`` (or (15.3) with b = 0
    when ``homogeneous=True``) through its dual (15.11),
    ``max Σα_i - ½||Σ α_i y_i x_i||²`` over α >= 0 (plus ``Σ α_i y_i = 0`` with a bias),
    then ``w = Σ α_i y_i x_i``. The solver is SMO (sequential minimal optimisation) with
    libsvm's second-order working-set selection, incrementally updated gradients,
    cached rows ``<x_i, x_k>`` computed on demand and shrinking, in two forms:

    1. with a bias, first libsvm's own form (C = ∞, α = 0 at the start, so the
       iterations follow ``SVC(kernel="linear", C=1e10)``). Its dual is unbounded
       when the sample is not separable, so this run is only trusted once some iterate
       w separates the two classes (checked every 200 iterations);
    2. otherwise, and always without a bias, the *nearest-points* scaling
       ``β = α / Σ_{y_i = +1} α_i``: the closest points of the convex hulls of the two
       classes (without bias: the point of the hull of the ``y_i x_i`` closest to the
       origin; Bennett & Bredensteiner 2000, not in the course sources). This problem is
       bounded even for a non-separable sample — its value is then 0 — so
       non-separability is detected reliably. From its solution ``u`` of length δ:
       ``α = 2β/δ²`` (``β/δ²`` without bias).

    ``b`` is the midpoint of the gap between the classes along w, and the result is
    returned only if every ``y_i(<w, x_i> + b) > 0``.

    Parameters
    ----------
    X : array_like (m, d)
    y : array_like (m,), labels in {-1, +1}, both present
    homogeneous : bool, default=False
        Solve (15.3): hyperplanes through the origin, b = 0.

    Returns
    -------
    HardSVMResult
        ``.w``, ``.b``, ``.alpha``, ``.support``, ``.margin`` (= 1/||w||), ...

    Raises
    ------
    ValueError
        If the sample is not linearly separable (message "not linearly separable");
        numerically this means the margin is below 1e-9 times the radius of the data.

    Examples
    --------
    >>> r = hard_svm([[0.0, 0.0], [2.0, 0.0]], [-1, 1])
    >>> r.w, r.b, r.margin
    (array([1., 0.]), -1.0, 1.0)
    """
    X, y = check_Xy(X, y)
    if not isinstance(homogeneous, (bool, np.bool_)):
        raise TypeError(f"homogeneous must be True or False, got {homogeneous!r}")
    m, d = X.shape
    Z = np.ascontiguousarray(y[:, None] * X)
    pos = y > 0
    if not homogeneous and not _FORCE_NEAREST_POINTS:
        # 1) libsvm's own problem: the dual (15.11) with sum_i alpha_i y_i = 0, C = inf,
        #    started at alpha = 0 with the first label as +1 (libsvm's convention, so
        #    the iterations follow SVC's). It converges when the sample is separable;
        #    the result is accepted only with a separation certificate.
        #    If no iterate separates the sample within `budget` iterations (checked
        #    every 1000), we fall through to the bounded form below.
        budget = float(max(100_000, 50 * m))
        alpha, _, n_iter, status = _S._smo_kernel(Z, -np.ones(m), y * y[0], np.inf, np.zeros(m),
                                                  0, 1e-9, budget, 100_000_000)
        if status == 0 and np.all(np.isfinite(alpha)):
            w = X.T @ (alpha * y)
            sc = X @ w
            b = -0.5 * (float(sc[pos].min()) + float(sc[~pos].max()))
            fm = y * (sc + b)
            if fm.min() >= 1.0 - 1e-6:
                return _hard_result(X, y, w, b, alpha, fm, n_iter, False)
    # 2) the nearest-points form: bounded even when the sample is not separable
    if homogeneous:
        s = np.ones(m)
        beta0 = np.full(m, 1.0 / m)
        R = float(np.max(np.linalg.norm(X, axis=1)))
    else:
        s = y.copy()
        beta0 = np.where(pos, 1.0 / pos.sum(), 1.0 / (~pos).sum())
        R = float(np.max(np.linalg.norm(X - X.mean(axis=0), axis=1)))
    if R == 0.0:
        raise _not_separable(homogeneous, " (all points coincide)" if not homogeneous
                             else " (all points are at the origin)")
    small = (1e-9 * R) ** 2
    max_iter = max(2_000_000, 200 * m)
    beta, u, n_iter, status = _S._smo_kernel(Z, np.zeros(m), s, np.inf, beta0, 1, 1e-10, small,
                                             max_iter)
    if status == 2:
        raise _not_separable(homogeneous, " (the convex hulls of the two classes intersect)"
                             if not homogeneous else
                             " (the origin lies in the convex hull of the points y_i x_i)")
    delta2 = float(u @ u)
    alpha = (1.0 if homogeneous else 2.0) * beta / delta2
    w = X.T @ (alpha * y)
    sc = X @ w
    if homogeneous:
        b = 0.0
    else:
        b = -0.5 * (float(sc[pos].min()) + float(sc[~pos].max()))
    fm = y * (sc + b)
    if not np.all(fm > 0) or not np.any(w):
        raise _not_separable(homogeneous, " (no separating hyperplane was found)")
    if status == 1:
        warnings.warn(f"hard_svm: SMO stopped after {n_iter} iterations before reaching its "
                      "tolerance; the returned hyperplane separates the sample but its margin "
                      "may be slightly below the maximum", RuntimeWarning, stacklevel=2)
    return _hard_result(X, y, w, b, alpha, fm, n_iter, homogeneous)


def _hard_result(X, y, w, b, alpha, fm, n_iter, homogeneous) -> HardSVMResult:
    nw = float(np.linalg.norm(w))
    support = np.flatnonzero(alpha > 1e-8 * alpha.max()).astype(np.int64)
    margin = float(fm.min()) / nw
    return HardSVMResult(w=w, b=float(b), alpha=alpha, support=support, margin=margin,
                         w_unit=w / nw, b_unit=float(b) / nw, n_iter=int(n_iter),
                         homogeneous=bool(homogeneous))


# --------------------------------------------------------------------------------------
# Soft-SVM (UML §15.2, (15.4)-(15.6) and (15.12))
# --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class SoftSVMResult:
    """Output of :func:`soft_svm`.

    Attributes
    ----------
    w : ndarray (d,); b : float (0 when homogeneous)
    objective : float   (λ/2)||w||² + (1/m) Σ hinge, UML (15.12) (with b inside the hinge)
    alpha : ndarray (m,)  dual variables in [0, 1/(λm)], ``w = Σ α_i y_i x_i``
    duality_gap : float   primal minus dual objective, in the units of (15.12)
    relative_gap : float  duality_gap / objective (below 1e-8 on return)
    n_iter : int          epochs (homogeneous) or SMO iterations (with bias)
    """

    w: np.ndarray
    b: float
    objective: float
    alpha: np.ndarray
    duality_gap: float
    relative_gap: float
    n_iter: int


def soft_svm(X, y, lam, homogeneous=True, seed=0, tol=1e-8):
    """Soft-SVM, solved exactly: the minimiser of UML (15.12)

        F(w) = (λ/2) ||w||² + (1/m) Σ_i max(0, 1 - y_i <w, x_i>)

    (with ``homogeneous=False``, ``<w, x_i> + b`` inside the hinge and b not
    regularised, as in (15.5)). This is the objective that :func:`sgd_soft_svm`
    optimises. **Convention:** UML (15.4)–(15.6) write ``λ||w||²`` without the 1/2, so
    their λ is half of ours. In scikit-learn terms the homogeneous problem is
    ``LinearSVC(loss="hinge", fit_intercept=False, C=1/(λm))`` and the one with bias is
    ``SVC(kernel="linear", C=1/(λm))``; both minimise ``½||w||² + C Σ hinge = F/λ``.

    Solvers: without bias, dual coordinate descent (Hsieh et al. 2008, as in
    liblinear: random permutation per epoch, shrinking) on
    ``max Σα_i - ½||Σ α_i y_i x_i||², 0 <= α_i <= 1/(λm)``; with bias, SMO (libsvm's
    algorithm) on the same dual plus ``Σ α_i y_i = 0``. Both run until the relative
    duality gap (primal - dual)/primal is below ``tol`` (checked exactly).

    Parameters
    ----------
    X : array_like (m, d); y : array_like (m,) in {-1, +1}
    lam : float > 0
    homogeneous : bool, default=True
    seed : int, default=0   seeds the coordinate order (the optimum does not depend on it)
    tol : float, default=1e-8  relative duality gap at which to stop

    Returns
    -------
    SoftSVMResult  (``.w``, ``.b``, ``.objective``, ``.alpha``, ``.duality_gap``, ...)
    """
    X, y = check_Xy(X, y)
    lam = check_positive(lam, "lam")
    tol = check_positive(tol, "tol")
    if not isinstance(homogeneous, (bool, np.bool_)):
        raise TypeError(f"homogeneous must be True or False, got {homogeneous!r}")
    rng_seed = int(check_rng(seed).integers(0, 2**31 - 1))
    m = X.shape[0]
    C = 1.0 / (lam * m)
    if homogeneous:
        alpha, _, n_iter, _, status = _S._dcd_kernel(X, y, C, tol, rng_seed, 1_000_000)
        b = 0.0
        w = X.T @ (alpha * y)
    else:
        alpha = np.zeros(m)
        Z = np.ascontiguousarray(y[:, None] * X)
        p = -np.ones(m)
        eps = 1e-6
        n_iter = 0
        status = 1
        for _ in range(12):
            alpha, _, it, st = _S._smo_kernel(Z, p, y, C, alpha, 0, eps, -1.0, 50_000_000)
            n_iter += int(it)
            w = X.T @ (alpha * y)
            b = _svc_bias(alpha, y, X @ w, C)
            P = _objective(w, b, X, y, lam) / lam
            D = float(alpha.sum() - 0.5 * (w @ w))
            if (P - D) <= tol * abs(P):
                status = 0
                break
            eps *= 0.1
    obj = _objective(w, b, X, y, lam)
    dual = lam * float(alpha.sum() - 0.5 * (w @ w))
    gap = max(obj - dual, 0.0)
    rel = gap / obj if obj > 0 else 0.0
    if status != 0 and rel > tol:
        warnings.warn(f"soft_svm: relative duality gap {rel:.2e} is above tol={tol:g}",
                      RuntimeWarning, stacklevel=2)
    return SoftSVMResult(w=w, b=float(b), objective=obj, alpha=alpha, duality_gap=gap,
                         relative_gap=rel, n_iter=int(n_iter))


def _svc_bias(alpha, y, scores, C) -> float:
    """libsvm's b = -rho: the mean of y_i - <w, x_i> over free α_i, else the midpoint
    of the feasible interval."""
    yG = y * (y * scores - 1.0)          # y_i * gradient_i
    free = (alpha > 0) & (alpha < C)
    if np.any(free):
        rho = float(np.mean(yG[free]))
    else:
        at_up = alpha >= C
        ub_mask = (at_up & (y < 0)) | (~at_up & (y > 0))
        lb_mask = (at_up & (y > 0)) | (~at_up & (y < 0))
        ub = float(yG[ub_mask].min()) if np.any(ub_mask) else np.inf
        lb = float(yG[lb_mask].max()) if np.any(lb_mask) else -np.inf
        rho = 0.5 * (ub + lb) if np.isfinite(ub + lb) else (ub if np.isfinite(ub) else lb)
    return -rho


# --------------------------------------------------------------------------------------
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
    return SGDSoftSVMResult(w=w, w_last=w_last, objective=_objective(w, 0.0, X, y, lam),
                            n_updates=int(n_upd), checkpoints=cps, w_checkpoints=W_cp)


def _sgd_example():
    X = np.array([[1.0, 0.2], [-1.0, 0.5], [0.3, 1.0]])
    return (X, np.array([1.0, -1.0, 1.0]), 0.1, np.array([0, 1, 2, 0], dtype=np.int64),
            np.array([2], dtype=np.int64))


@jit(warmup=_sgd_example)
def _sgd_soft_svm_kernel(X, y, lam, idx, checkpoints):
    m, d = X.shape
    T = idx.shape[0]
    theta = np.zeros(d)
    S = np.zeros(d)      # Σ θ⁽ˢ⁾/s over the steps s whose θ has since changed
    h = 0.0              # Σ 1/s over the steps since θ last changed
    w_last = np.zeros(d)
    ncp = checkpoints.shape[0]
    W_cp = np.zeros((ncp, d))
    c = 0
    n_updates = 0
    for t in range(1, T + 1):
        i = idx[t - 1]
        if t + 7 < T:                                 # ask for the row needed 8 steps ahead
            for q in range(0, d, 8):                  # (rows of a large X are cache misses)
                _S.prefetch(X, idx[t + 7], q)
        h += 1.0 / t                                  # w⁽ᵗ⁾ = θ⁽ᵗ⁾/(λt) joins the average
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
        if y[i] * s / (lam * t) < 1.0:                # y_i <w⁽ᵗ⁾, x_i> < 1
            for q in range(d):
                S[q] += h * theta[q]
                theta[q] += y[i] * X[i, q]
            h = 0.0
            n_updates += 1
    wbar = np.empty(d)
    for q in range(d):
        wbar[q] = (S[q] + h * theta[q]) / (lam * T)
    return wbar, w_last, n_updates, W_cp


# the estimators are defined in their own module (they need hard_svm / soft_svm above)
def __getattr__(name):
    # The estimators pull in scikit-learn (seconds to import, and not a runtime
    # dependency of the course), so they are loaded on first use only.
    if name in ("HardSVM", "SoftSVM"):
        from . import _svm_estimators

        return getattr(_svm_estimators, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
from kmlteach._svm_nu import nu_svm, one_class_svm  # noqa: E402
__all__ += ["nu_svm", "one_class_svm"]
