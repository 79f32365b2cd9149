"""Hard-SVM: the maximum-margin separating hyperplane (UML §15.1, (15.2)/(15.3),
its dual (15.11), support vectors and Theorem 15.8), solved exactly by SMO.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from kmlteach._validation import check_bool, check_Xy
from kmlteach.svm.min_norm import _min_norm_alpha
from kmlteach.svm.smo import _smo_kernel

__all__ = ["HardSVMResult", "hard_svm"]


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
    n_iter : int  iterations: Wolfe's minor steps, or SMO's two-variable steps when
        SMO solved it.
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
#: tests set this to False to exercise the SMO solvers (Wolfe's algorithm runs first)
_USE_WOLFE = True


_HULLS_MEET = {
    False: " (the convex hulls of the two classes intersect)",
    True: " (the origin lies in the convex hull of the points y_i x_i)",
}


def _not_separable(homogeneous: bool, detail: str = "") -> ValueError:
    what = "by a homogeneous halfspace (through the origin)" if homogeneous else "by any halfspace"
    return ValueError(
        f"the sample (X, y) is not linearly separable {what}{detail}; hard-SVM has "
        "no solution — use soft_svm instead"
    )


def hard_svm(X, y, homogeneous=False):
    """Hard-SVM: the separating hyperplane with the largest margin, solved exactly.

    Solves UML (15.2) ``min ||w||² s.t. y_i(<w, x_i> + b) >= 1`` (or (15.3) with b = 0
    when ``homogeneous=True``) through its dual (15.11),
    ``max Σα_i - ½||Σ α_i y_i x_i||²`` over α >= 0 (plus ``Σ α_i y_i = 0`` with a bias),
    then ``w = Σ α_i y_i x_i``. The solver is Wolfe's minimum-norm-point algorithm
    (:mod:`kmlteach.svm.min_norm`) on the nearest-points form described in 2. below:
    an exact active-set method whose corral holds at most d + 1 differences
    ``x_p - x_n`` of support vectors (``y_i x_i`` without bias), each step one pass over the m points plus a Cholesky factorisation of
    the corral's Gram matrix. Its result is accepted with the duality-gap certificate
    ``min_i y_i(<w, x_i> + b) >= 1 - 1e-9``, which bounds the margin's shortfall from
    the maximum by the same 1e-9 (relative). Should it stall numerically, SMO
    (sequential minimal optimisation) takes over, with
    libsvm's second-order working-set selection, incrementally updated gradients,
    cached rows ``<x_i, x_k>`` computed on demand and shrinking, in two forms:

    1. with a bias, first libsvm's own form (C = ∞, α = 0 at the start, so the
       iterations follow ``SVC(kernel="linear", C=1e10)``). Its dual is unbounded
       when the sample is not separable, so this run is only trusted once some iterate
       w separates the two classes (checked every min(m, 200) iterations, at each
       shrinking step, for at most max(10⁵, 50 m) iterations);
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
    homogeneous = check_bool(homogeneous, "homogeneous")
    return _hard_svm(X, y, homogeneous)


def _hard_svm(X: np.ndarray, y: np.ndarray, homogeneous: bool) -> HardSVMResult:
    """:func:`hard_svm` on checked arguments (the estimator's fit validated them once)."""
    m, d = X.shape
    pos = y > 0
    # the problem with a bias is translation invariant: solve and certify it on the
    # centred sample (no cancellation when the data sit far from the origin)
    mean = np.zeros(d) if homogeneous else X.mean(axis=0)
    Xc = X if homogeneous else np.ascontiguousarray(X - mean)
    R = float(np.max(np.linalg.norm(Xc, axis=1)))
    if R == 0.0:
        raise _not_separable(
            homogeneous, " (all points coincide)" if not homogeneous else " (all points are at the origin)"
        )
    small = (1e-9 * R) ** 2
    if _USE_WOLFE and not _FORCE_NEAREST_POINTS:
        # 0) Wolfe's minimum-norm point (kmlteach.svm.min_norm): exact, with the
        #    duality-gap certificate min_i y_i(<w, x_i> + b) >= 1 - 1e-9 on every point
        alpha, n_iter, status = _min_norm_alpha(Xc, y, homogeneous, small)
        if status == 2:
            raise _not_separable(homogeneous, _HULLS_MEET[bool(homogeneous)])
        if alpha is not None and np.all(np.isfinite(alpha)):
            w = Xc.T @ (alpha * y)  # = X.T @ (alpha * y), as sum_i alpha_i y_i = 0
            sc = Xc @ w
            bc = 0.0 if homogeneous else -0.5 * (float(sc[pos].min()) + float(sc[~pos].max()))
            fm = y * (sc + bc)
            if fm.min() >= 1.0 - 1e-9:
                return _hard_result(X, y, w, bc - float(mean @ w), alpha, fm, n_iter, homogeneous)
    Z = np.ascontiguousarray(y[:, None] * X)
    if not homogeneous and not _FORCE_NEAREST_POINTS:
        # 1) libsvm's own problem: the dual (15.11) with sum_i alpha_i y_i = 0, C = inf,
        #    started at alpha = 0 with the first label as +1 (libsvm's convention, so
        #    the iterations follow SVC's). It converges when the sample is separable;
        #    the result is accepted only with a separation certificate.
        #    If no iterate separates the sample within `budget` iterations (checked
        #    every min(m, 200), at each shrinking step), we fall through to the bounded
        #    form below.
        budget = float(max(100_000, 50 * m))
        alpha, _, n_iter, status = _smo_kernel(
            Z, -np.ones(m), y * y[0], np.inf, np.zeros(m), 0, 1e-9, budget, 100_000_000
        )
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
    else:
        s = y.copy()
        beta0 = np.where(pos, 1.0 / pos.sum(), 1.0 / (~pos).sum())
    max_iter = max(2_000_000, 200 * m)
    beta, u, n_iter, status = _smo_kernel(Z, np.zeros(m), s, np.inf, beta0, 1, 1e-10, small, max_iter)
    if status == 2:
        raise _not_separable(homogeneous, _HULLS_MEET[bool(homogeneous)])
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
        warnings.warn(
            f"hard_svm: SMO stopped after {n_iter} iterations before reaching its "
            "tolerance; the returned hyperplane separates the sample but its margin "
            "may be slightly below the maximum",
            RuntimeWarning,
            stacklevel=2,
        )
    return _hard_result(X, y, w, b, alpha, fm, n_iter, homogeneous)


def _hard_result(X, y, w, b, alpha, fm, n_iter, homogeneous) -> HardSVMResult:
    nw = float(np.linalg.norm(w))
    support = np.flatnonzero(alpha > 1e-8 * alpha.max()).astype(np.int64)
    margin = float(fm.min()) / nw
    return HardSVMResult(
        w=w,
        b=float(b),
        alpha=alpha,
        support=support,
        margin=margin,
        w_unit=w / nw,
        b_unit=float(b) / nw,
        n_iter=int(n_iter),
        homogeneous=bool(homogeneous),
    )
