"""Soft-SVM solved exactly (UML §15.2, (15.4)-(15.6) and (15.12)): the minimiser of
(λ/2)||w||² + (1/m) Σ hinge, the reference that SGD (UML §15.5) is measured against.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from kmlteach._validation import check_bool, check_positive, check_rng, check_Xy
from kmlteach.svm.conventions import lam_to_C
from kmlteach.svm.dcd import _dcd_kernel
from kmlteach.svm.margins import _objective
from kmlteach.svm.smo import _smo_kernel

__all__ = ["SoftSVMResult", "soft_svm"]


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
    homogeneous = check_bool(homogeneous, "homogeneous")
    return _soft_svm(X, y, lam, homogeneous, check_rng(seed), tol)


def _soft_svm(
    X: np.ndarray, y: np.ndarray, lam: float, homogeneous: bool, rng: np.random.Generator, tol: float = 1e-8
) -> SoftSVMResult:
    """:func:`soft_svm` on checked arguments (the estimator's fit validated them once)."""
    rng_seed = int(rng.integers(0, 2**31 - 1))
    m = X.shape[0]
    C = lam_to_C(lam, m)
    if homogeneous:
        alpha, _, n_iter, _, status = _dcd_kernel(X, y, C, tol, rng_seed, 1_000_000)
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
            alpha, _, it, st = _smo_kernel(Z, p, y, C, alpha, 0, eps, -1.0, 50_000_000)
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
        warnings.warn(
            f"soft_svm: relative duality gap {rel:.2e} is above tol={tol:g}", RuntimeWarning, stacklevel=2
        )
    return SoftSVMResult(
        w=w, b=float(b), objective=obj, alpha=alpha, duality_gap=gap, relative_gap=rel, n_iter=int(n_iter)
    )


def _svc_bias(alpha, y, scores, C) -> float:
    """libsvm's b = -rho: the mean of y_i - <w, x_i> over free α_i, else the midpoint
    of the feasible interval."""
    yG = y * (y * scores - 1.0)  # y_i * gradient_i
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
