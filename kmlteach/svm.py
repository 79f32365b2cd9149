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
from dataclasses import dataclass, field

import numpy as np

from . import _svm_solvers as _S
from ._estimator import BaseEstimator, ClassifierMixin, check_is_fitted
from ._jit import jit
from ._validation import (_check_real_scalar, as_vector, check_binary_labels, check_int,
                          check_multiclass_labels, check_positive, check_rng, check_X, check_Xy)

__all__ = [
    "signed_distance", "distance_to_hyperplane", "functional_margins", "geometric_margins",
    "geometric_margin", "support_vectors", "soft_svm_objective", "hinge_objective",
    "perceptron", "subgradient_perceptron", "hard_svm", "soft_svm", "sgd_soft_svm",
    "sgd_indices", "PerceptronResult", "SubgradientPerceptronResult", "HardSVMResult",
    "SoftSVMResult", "SGDSoftSVMResult", "HardSVM", "SoftSVM",
]


# --------------------------------------------------------------------------------------
# validation helpers shared by the functions of this module
# --------------------------------------------------------------------------------------

def _points_and_w(X, w, *, nonzero: bool = True):
    """X as (m, d) (a single point of shape (d,) becomes (1, d)), w of length d."""
    single = np.ndim(X) == 1 if not isinstance(X, (str, bytes)) and X is not None else False
    Xa = check_X(np.atleast_2d(X) if single else X, "X")
    wa = as_vector(w, "w", length=Xa.shape[1])
    if nonzero and not np.any(wa):
        raise ValueError("w must be a non-zero vector: the hyperplane <w, x> + b = 0 is "
                         "undefined for w = 0")
    return Xa, wa, single


def _scalar(b, name: str) -> float:
    return _check_real_scalar(b, name)


# --------------------------------------------------------------------------------------
# geometry: distances and margins (UML §15.1, Claim 15.1; HSS2 §2.3.1)
# --------------------------------------------------------------------------------------

def signed_distance(X, w, b=0.0):
    """Signed distance ``(<w, x> + b) / ||w||`` of points to the hyperplane (w, b).

    UML Claim 15.1 states that for ``||w|| = 1`` the distance of ``x`` to
    ``{v : <w, v> + b = 0}`` is ``|<w, x> + b|``; dividing by ``||w||`` removes the
    normalisation. The sign tells the side: positive where ``<w, x> + b > 0``.

    Parameters
    ----------
    X : array_like, shape (m, d) or (d,)
        Points (one point may be given as a vector).
    w : array_like, shape (d,)
        Normal vector, non-zero.
    b : float, default=0.0
        Offset.

    Returns
    -------
    ndarray of shape (m,), or float for a single point.

    Examples
    --------
    >>> signed_distance([[3.0, 4.0]], [0.0, 2.0], 2.0)
    array([5.])
    """
    Xa, wa, single = _points_and_w(X, w)
    b = _scalar(b, "b")
    out = (Xa @ wa + b) / np.linalg.norm(wa)
    return float(out[0]) if single else out


def distance_to_hyperplane(X, w, b=0.0):
    """Euclidean distance ``|<w, x> + b| / ||w||`` of points to the hyperplane (w, b)
    (UML Claim 15.1). Same arguments as :func:`signed_distance`."""
    out = signed_distance(X, w, b)
    return abs(out) if isinstance(out, float) else np.abs(out)


def functional_margins(X, y, w, b=0.0):
    """Functional margins ``y_i (<w, x_i> + b)``: positive iff x_i is on its correct side.

    Parameters
    ----------
    X : array_like, shape (m, d)
    y : array_like, shape (m,), labels in {-1, +1} (one class is allowed here)
    w : array_like, shape (d,)   (may be zero)
    b : float, default=0.0

    Returns
    -------
    ndarray of shape (m,)
    """
    Xa = check_X(X, "X")
    ya = check_binary_labels(y, "y", n=Xa.shape[0], require_both=False)
    wa = as_vector(w, "w", length=Xa.shape[1])
    b = _scalar(b, "b")
    return ya * (Xa @ wa + b)


def geometric_margins(X, y, w, b=0.0):
    """Geometric margins ``y_i (<w, x_i> + b) / ||w||`` (signed distances, positive on
    the correct side). Their minimum is the margin of (w, b) on the sample."""
    Xa, wa, _ = _points_and_w(X, w)
    ya = check_binary_labels(y, "y", n=Xa.shape[0], require_both=False)
    b = _scalar(b, "b")
    return ya * (Xa @ wa + b) / np.linalg.norm(wa)


def geometric_margin(X, y, w, b=0.0) -> float:
    """Margin of the hyperplane (w, b) on the sample: ``min_i y_i(<w,x_i> + b)/||w||``
    (UML (15.1)). Negative when (w, b) misclassifies some point."""
    return float(np.min(geometric_margins(X, y, w, b)))


def support_vectors(X, y, w, b=0.0, rtol=1e-6):
    """Indices of the points that attain the margin of (w, b) on the sample.

    For the hard-SVM solution (w0, b0) these are the points with
    ``y_i(<w0, x_i> + b0) = 1`` (UML Theorem 15.8). A point counts when its geometric
    margin is within ``rtol * max(|margin|, max_i ||x_i||)`` of the minimum.

    Returns
    -------
    ndarray of int64, sorted.
    """
    gm = geometric_margins(X, y, w, b)
    rtol = check_positive(rtol, "rtol")
    Xa = np.asarray(X, dtype=np.float64)
    scale = max(abs(float(gm.min())), float(np.max(np.linalg.norm(Xa, axis=1))), 1e-300)
    return np.flatnonzero(gm <= gm.min() + rtol * scale).astype(np.int64)


def hinge_objective(w, X, y, lam, b=0.0) -> float:
    """Alias of :func:`soft_svm_objective`."""
    return soft_svm_objective(w, X, y, lam, b)


def soft_svm_objective(w, X, y, lam, b=0.0) -> float:
    """The soft-SVM objective of UML (15.12): ``(λ/2)||w||² + (1/m) Σ max(0, 1 - y_i(<w,x_i> + b))``.

    Note the argument order (w first), so that ``soft_svm_objective(res.w, X, y, lam)``
    reads like F(w).
    """
    Xa = check_X(X, "X")
    ya = check_binary_labels(y, "y", n=Xa.shape[0], require_both=False)
    wa = as_vector(w, "w", length=Xa.shape[1])
    lam = check_positive(lam, "lam")
    b = _scalar(b, "b")
    return _objective(wa, b, Xa, ya, lam)


def _objective(w, b, X, y, lam) -> float:
    return float(0.5 * lam * (w @ w) + np.mean(np.maximum(0.0, 1.0 - y * (X @ w + b))))


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
    return SubgradientPerceptronResult(w=w, n_iter=int(hist.shape[0]), converged=bool(converged),
                                       history=hist, objective=fvals)


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
    return w, hist[:n].copy(), fvals[:n + 1].copy(), converged


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
    when ``homogeneous=True``) through its dual (15.11). The solver is SMO with
    libsvm's second-order working-set selection and shrinking, applied to the dual in
    its *nearest-points* scaling: with ``β = α / Σ_{y_i = +1} α_i`` the dual becomes
    "find the closest points of the convex hulls of the two classes" (of the points
    ``y_i x_i`` and the origin when homogeneous; Bennett & Bredensteiner 2000 — not in
    the course sources). That problem is bounded even when the sample is *not*
    separable — its value is then 0 — so non-separability is detected reliably instead
    of α diverging. From its solution ``u`` (length δ): ``γ = δ/2`` (``δ``
    homogeneous), ``α = 2β/δ²`` (``β/δ²``), ``w = Σ α_i y_i x_i`` and ``b`` is the
    midpoint of the gap between the classes along w.

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
        If the sample is not linearly separable (message "not linearly separable"),
        including when the margin is below 1e-9 of the data's radius.

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


# --------------------------------------------------------------------------------------
# estimators
# --------------------------------------------------------------------------------------

class _LinearBinary(ClassifierMixin, BaseEstimator):
    """Shared fit/predict plumbing: any two labels are mapped to -1/+1."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False   # binary only
        return tags

    @staticmethod
    def _check_X(X):
        """Our validation gate, plus the exact messages scikit-learn's checks expect for
        complex and empty input."""
        if X is not None and not isinstance(X, (str, bytes)):
            arr = np.asarray(X) if not hasattr(X, "dtype") else X
            if np.iscomplexobj(arr):
                raise ValueError("Complex data not supported: X must be real-valued")
            if getattr(arr, "dtype", None) == object:
                try:
                    arr.astype(np.float64)
                except TypeError as exc:      # e.g. a dict inside X
                    raise TypeError(f"X must hold numbers: {exc}") from None
            shape = np.shape(arr)
            if len(shape) == 1:
                raise ValueError(f"X must be a 2-D array (n_samples, n_features), got shape "
                                 f"{shape}. Reshape your data with X.reshape(-1, 1) (one "
                                 "feature) or X.reshape(1, -1) (one sample).")
            if len(shape) == 2 and shape[0] == 0:
                raise ValueError(f"Found array with 0 sample(s) (shape={shape}) while a minimum "
                                 "of 1 is required (X is empty).")
            if len(shape) == 2 and shape[1] == 0:
                raise ValueError(f"Found array with 0 feature(s) (shape={shape}) while a minimum "
                                 "of 1 is required (X has no columns).")
        return check_X(X, "X")

    def _fit_labels(self, X, y):
        X = self._check_X(X)
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None")
        ya = np.asarray(y)
        if ya.dtype.kind == "f" and ya.ndim == 1 and np.all(np.isfinite(ya)) \
                and np.any(ya != np.round(ya)):
            raise ValueError("Unknown label type: continuous values in y; y must hold class "
                             "labels (any two distinct values)")
        classes, idx = check_multiclass_labels(y, "y", n=X.shape[0], min_classes=1)
        if classes.size < 2:
            raise ValueError(f"y must contain 2 classes for binary classification, got 1 class "
                             f"({classes[0]!r})")
        if classes.size > 2:
            raise ValueError(f"Only binary classification is supported: y must contain exactly "
                             f"2 classes, got {classes.size}")
        self.classes_ = classes
        self.n_features_in_ = X.shape[1]
        return X, np.where(idx == 1, 1.0, -1.0)

    def _set_linear(self, w, b):
        self.coef_ = np.asarray(w, dtype=np.float64).reshape(1, -1)
        self.intercept_ = np.array([float(b)])

    def decision_function(self, X):
        """``<w, x> + b`` for each row of X (positive means ``classes_[1]``)."""
        check_is_fitted(self)
        Xa = self._check_X(X)
        if Xa.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {Xa.shape[1]} features, but {type(self).__name__} is "
                             f"expecting {self.n_features_in_} features as input")
        return Xa @ self.coef_[0] + self.intercept_[0]

    def predict(self, X):
        """``classes_[1]`` where the decision function is > 0, else ``classes_[0]``."""
        scores = self.decision_function(X)
        return self.classes_[(scores > 0).astype(np.int64)]


class HardSVM(_LinearBinary):
    """Hard-margin linear SVM (UML (15.2)/(15.3)) as a scikit-learn style classifier.

    Parameters
    ----------
    homogeneous : bool, default=False   no bias (hyperplanes through the origin)

    Attributes
    ----------
    coef_ (1, d), intercept_ (1,), classes_ (2,), support_ (int indices), margin_,
    dual_coef_ (α, shape (m,)).

    ``fit`` raises ``ValueError`` ("not linearly separable") when no separating
    hyperplane exists.
    """

    def __init__(self, homogeneous=False):
        self.homogeneous = homogeneous

    def fit(self, X, y):
        X, ypm = self._fit_labels(X, y)
        r = hard_svm(X, ypm, homogeneous=bool(self.homogeneous))
        self._set_linear(r.w, r.b)
        self.support_ = r.support
        self.margin_ = r.margin
        self.dual_coef_ = r.alpha
        return self


class SoftSVM(_LinearBinary):
    """Soft-margin linear SVM minimising UML (15.12) ``(λ/2)||w||² + mean hinge``.

    Parameters
    ----------
    lam : float > 0, default=0.01
    homogeneous : bool, default=False   (False: with an unregularised bias b)

    Attributes
    ----------
    coef_ (1, d), intercept_ (1,), classes_ (2,), objective_, dual_coef_ (α, (m,)).
    """

    def __init__(self, lam=0.01, homogeneous=False):
        self.lam = lam
        self.homogeneous = homogeneous

    def fit(self, X, y):
        X, ypm = self._fit_labels(X, y)
        r = soft_svm(X, ypm, self.lam, homogeneous=bool(self.homogeneous))
        self._set_linear(r.w, r.b)
        self.objective_ = r.objective
        self.dual_coef_ = r.alpha
        return self
