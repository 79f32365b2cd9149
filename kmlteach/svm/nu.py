"""ν-SV classification (HSS2 (2.5)/(2.6)) and one-class SVM (HSS2 (2.7)/(2.8)), solved exactly.

Both duals have the form

    minimise  ½ αᵀQα     s.t.  0 ≤ α_i ≤ 1,   Σ_{i ∈ g} α_i = c_g  for each group g,

with ``Q_ij = y_i y_j k(x_i, x_j)`` and the two groups {y = +1}, {y = −1} for ν-SVM
(``Σ α = nν`` and ``αᵀy = 0`` together say that each class carries nν/2), and
``Q = K`` with a single group (``Σ α = νn``) for the one-class SVM.

Solver: sequential minimal optimisation in the form of libsvm's ν-solver (Chang & Lin
2001, 2011). A step changes one pair (i, j) **of the same group** along
α_i + t, α_j − t, which keeps every group sum; i maximises −∂_i over the variables that
can grow, j is chosen by libsvm's second-order rule (largest decrease b²/a with
b = ∂_j − ∂_i > 0, a = K_ii + K_jj − 2K_ij), t = b/a clipped to the box. The
gradient ∂ = Qα is updated incrementally in the same pass that selects the next i
(two kernel rows per step, read from a float32 copy as libsvm's cache holds them). It
stops when, in every group, ``max_{α_i<1} −∂_i − min_{α_j>0} −∂_j ≤ tol`` (libsvm's
criterion, so ``tol`` means the same as scikit-learn's ``tol``), tested on the gradient
recomputed exactly in float64 (:mod:`kmlteach.svm.nu_smo`). ν-SVM orders the classes as
scikit-learn's libsvm does (y = −1 first, as its "+1"), so the steps are ``NuSVC``'s
up to rounding: the same number of them, give or take a few percent.

Offsets (KKT of the primal): for ν-SVM a free α_i (0 < α_i < 1) has
``y_i f(x_i) = ρ``, so with ``r_± = ρ ∓ b`` each class gives ``∂_i = r_±`` on its free
variables; r_± is their average, and if a class has no free variable, the midpoint of
its KKT interval ``[max_{α_i=1} ∂_i, min_{α_i=0} ∂_i]``. When that interval is
unbounded (every α_i of the class equals 1, e.g. ν = 1) its finite end is used, so b
and ρ are always finite. Then ``ρ = (r_+ + r_−)/2`` and ``b = (r_− − r_+)/2``. The
one-class ρ is obtained the same way from ``∂ = Kα`` (``f(x_i) = ρ`` on free α_i).

The Gram matrix is computed once with :func:`kmlteach.kernels.gram` (memory n²
float64 and about 1.8 n² float32 numbers), so every kernel of :mod:`kmlteach.kernels` works.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np

from kmlteach._validation import check_binary_labels, check_int, check_positive, check_probability, check_X
from kmlteach.kernels.gram import gram, kernel_params
from kmlteach.svm.nu_smo import _nu_smo_kernel, _work_size

__all__ = ["NuSVMResult", "OneClassSVMResult", "nu_svm", "one_class_svm"]


@dataclass(frozen=True, kw_only=True)
class _KernelModel:
    X: np.ndarray = field(repr=False)
    kernel: str
    kernel_params: dict = field(repr=False)

    def _scores(self, Z, weights):
        Za = check_X(Z, "Z", n_cols=self.X.shape[1])
        sv = np.flatnonzero(weights)
        if sv.size == 0:
            return np.zeros(Za.shape[0])
        return gram(self.kernel, Za, self.X[sv], **self.kernel_params) @ weights[sv]


@dataclass(frozen=True, kw_only=True)
class NuSVMResult(_KernelModel):
    """Output of :func:`nu_svm`.

    Attributes
    ----------
    alpha : ndarray (n,)  the solution of (2.6): 0 ≤ α ≤ 1, Σα = nν, αᵀy = 0.
    b, rho : float  offset and margin parameter of (2.5); f(x) = Σ α_i y_i k(x_i, x) + b.
    support : ndarray of int64  indices with α_i > 0 (the support vectors).
    margin_errors : ndarray of int64  indices with y_i f(x_i) < ρ (slack ξ_i > 0), up to
        the solver tolerance ``tol``.
    n_iter : int  SMO steps; ``tol`` the stopping tolerance used.
    """

    alpha: np.ndarray
    b: float
    rho: float
    support: np.ndarray
    margin_errors: np.ndarray
    y: np.ndarray = field(repr=False)
    nu: float
    n_iter: int
    tol: float

    def decision_function(self, Z) -> np.ndarray:
        """``f(z) = Σ_i α_i y_i k(x_i, z) + b`` (scikit-learn's NuSVC reports f/ρ)."""
        return self._scores(Z, self.alpha * self.y) + self.b


@dataclass(frozen=True, kw_only=True)
class OneClassSVMResult(_KernelModel):
    """Output of :func:`one_class_svm`.

    Attributes
    ----------
    alpha : ndarray (n,)  the solution of (2.8): 0 ≤ α ≤ 1, Σα = νn.
    rho : float  f(x) = Σ α_i k(x_i, x) − ρ; the estimated support is {f ≥ 0}.
    support : ndarray of int64  indices with α_i > 0.
    outliers : ndarray of int64  indices with f(x_i) < 0 (ξ_i > 0), up to ``tol``.
    n_iter, tol : as for :class:`NuSVMResult`.
    """

    alpha: np.ndarray
    rho: float
    support: np.ndarray
    outliers: np.ndarray
    nu: float
    n_iter: int
    tol: float

    def decision_function(self, Z) -> np.ndarray:
        """``f(z) = Σ_i α_i k(x_i, z) − ρ`` (equals scikit-learn's OneClassSVM)."""
        return self._scores(Z, self.alpha) - self.rho


def _gram_params(kernel, params):
    full = kernel_params(kernel, **params)
    return {"sigma": full["sigma"]} if kernel == "gaussian" else full


def _offset(grad, alpha, mask):
    """Average of ∂ over the free α of ``mask``, else the (finite) KKT-interval midpoint."""
    a, g = alpha[mask], grad[mask]
    free = (a > 0.0) & (a < 1.0)
    if np.any(free):
        return float(np.mean(g[free]))
    lb = float(np.max(g[a == 1.0])) if np.any(a == 1.0) else -np.inf
    ub = float(np.min(g[a == 0.0])) if np.any(a == 0.0) else np.inf
    if np.isinf(lb):
        return ub
    if np.isinf(ub):
        return lb
    return 0.5 * (lb + ub)


def nu_svm(X, y, nu, kernel="linear", *, tol=1e-8, max_iter=None, **kernel_params_):
    """ν-SV classification: the dual (2.6) of HSS2 §2.3.1 solved exactly by SMO.

    ``min_α ½ αᵀQα`` s.t. ``αᵀy = 0``, ``αᵀ1 = nν``, ``α_i ∈ [0, 1]``, with
    ``Q_ij = y_i y_j k(x_i, x_j)``, the dual of the primal (2.5)
    ``min ½||w||² + Σξ_i − nνρ`` s.t. ``y_i(⟨w, x_i⟩ + b) ≥ ρ − ξ_i``, ``ξ_i ≥ 0``.
    When ρ > 0, ν bounds the fraction of margin errors from above and the fraction of
    support vectors from below (the ν-property); ν = 1 gives every α_i = 1.

    Parameters
    ----------
    X : array (n, d)
    y : array (n,) of −1/+1 (both classes present)
    nu : float in (0, 1], at most ``2 min(n_+, n_−)/n`` (else (2.6) is infeasible).
    kernel : str, default="linear"
        A kernel of :func:`kmlteach.kernels.gram`, its parameters as keywords (Gaussian:
        ``sigma``, exp(−||x − x'||²/(2σ)), i.e. scikit-learn's ``gamma = 1/(2σ)``).
    tol : float, default=1e-8
        Stopping tolerance on the maximal KKT violation (scikit-learn's ``tol``).
    max_iter : int, optional
        Cap on SMO steps (default max(10⁷, 100 n)).

    Returns
    -------
    NuSVMResult
        ``.alpha``, ``.b``, ``.rho``, ``.support``, ``.margin_errors``,
        ``.decision_function(Z)`` = Σ α_i y_i k(x_i, z) + b. scikit-learn's
        ``NuSVC(nu).decision_function`` equals f/ρ.
    """
    Xa = check_X(X, "X")
    ya = check_binary_labels(y, "y", n=Xa.shape[0], of="one per row of X")
    n = Xa.shape[0]
    v = check_probability(nu, "nu", open_left=True)
    n_pos, n_neg = int(np.sum(ya > 0)), int(np.sum(ya < 0))
    if v > 2.0 * min(n_pos, n_neg) / n + 1e-12:
        raise ValueError(
            f"nu = {v:g} is infeasible for this sample: (2.6) needs nu <= "
            f"2 min(n+, n-)/n = {2.0 * min(n_pos, n_neg) / n:.6g} "
            f"(n+ = {n_pos}, n- = {n_neg})"
        )
    params = _gram_params(kernel, kernel_params_)
    tol_ = check_positive(tol, "tol")
    # libsvm's convention in scikit-learn (classes sorted, the first one is libsvm's +1):
    # the class y = −1 first, with sign s = −y (Q = s sᵀ ∘ K is the same matrix), so that
    # the SMO steps are NuSVC's, step for step up to rounding
    group = (ya > 0).astype(np.int64)
    alpha0 = np.empty(n)
    for g in (0, 1):  # libsvm's start: fill each class up to nν/2, in data order
        members = np.flatnonzero(group == g)  # (nν/2 − k: exact, as libsvm's running sum)
        alpha0[members] = np.clip(0.5 * v * n - np.arange(members.size), 0.0, 1.0)
    alpha, grad, it = _solve(Xa, kernel, params, -ya, group, alpha0, tol_, max_iter)
    r_pos = _offset(grad, alpha, ya > 0)
    r_neg = _offset(grad, alpha, ya < 0)
    rho, b = 0.5 * (r_pos + r_neg), 0.5 * (r_neg - r_pos)
    yf = grad + ya * b  # y_i f(x_i)
    return NuSVMResult(
        **_solution(Xa, kernel, params, alpha, v, it, tol_),
        b=b,
        rho=rho,
        margin_errors=np.flatnonzero(yf < rho - tol_),
        y=ya,
    )


def one_class_svm(X, nu, kernel="gaussian", *, tol=1e-8, max_iter=None, **kernel_params_):
    """One-class SVM (support estimation): the dual (2.8) of HSS2 §2.3.2 solved exactly.

    ``min_α ½ αᵀKα`` s.t. ``αᵀ1 = νn``, ``α_i ∈ [0, 1]``, the dual of (2.7)
    ``min ½||w||² + Σξ_i − nνρ`` s.t. ``⟨w, φ(x_i)⟩ ≥ ρ − ξ_i``, ``ξ_i ≥ 0``. The
    estimated support is ``{x : f(x) ≥ 0}`` with ``f(x) = Σ α_i k(x_i, x) − ρ``; at most a
    fraction ν of the sample falls outside, at least a fraction ν are support vectors.
    ν = 1 forces every α_i = 1: f + ρ is then a Parzen-window density estimate (up to
    the kernel's normalisation; HSS1 (1.6)), and ρ is the finite end of its KKT interval,
    ``max_i Σ_j k(x_j, x_i)``.

    Parameters
    ----------
    X : array (n, d)
    nu : float in (0, 1]
    kernel : str, default="gaussian"
        As in :func:`nu_svm` (``sigma`` for the Gaussian; scikit-learn's
        ``OneClassSVM(nu, gamma=1/(2σ))`` solves the same problem).
    tol, max_iter : as in :func:`nu_svm`.

    Returns
    -------
    OneClassSVMResult
        ``.alpha``, ``.rho``, ``.support``, ``.outliers``, ``.decision_function(Z)``.
    """
    Xa = check_X(X, "X")
    n = Xa.shape[0]
    v = check_probability(nu, "nu", open_left=True)
    params = _gram_params(kernel, kernel_params_)
    tol_ = check_positive(tol, "tol")
    alpha0 = np.zeros(n)
    full = int(v * n)  # libsvm's start: ⌊νn⌋ ones, then the remainder
    alpha0[:full] = 1.0
    if full < n:
        alpha0[full] = v * n - full
    alpha, grad, it = _solve(
        Xa, kernel, params, np.ones(n), np.zeros(n, dtype=np.int64), alpha0, tol_, max_iter
    )
    rho = _offset(grad, alpha, np.ones(n, dtype=bool))
    return OneClassSVMResult(
        **_solution(Xa, kernel, params, alpha, v, it, tol_),
        rho=rho,
        outliers=np.flatnonzero(grad - rho < -tol_),
    )


def _solution(X, kernel, params, alpha, nu, n_iter, tol) -> dict:
    """The fields both results share: the kernel expansion (its points, kernel and α,
    support vectors where α > 0) and the run (ν, iterations, tolerance)."""
    return dict(
        X=X,
        kernel=kernel,
        kernel_params=params,
        alpha=alpha,
        support=np.flatnonzero(alpha > 0.0),
        nu=nu,
        n_iter=n_iter,
        tol=tol,
    )


def _solve(X, kernel, params, s, group, alpha0, tol, max_iter):
    """Run the SMO kernel on the whole Gram matrix (n × n floats, computed once by
    :func:`kmlteach.kernels.gram`), the variables sorted by group (the kernel's layout),
    with a float32 buffer for its working copies (the whole matrix and the active block:
    about 1.8 n² entries)."""
    n = X.shape[0]
    cap = max(10_000_000, 100 * n) if max_iter is None else check_int(max_iter, "max_iter")
    order = np.argsort(group, kind="stable")
    K = gram(kernel, X[order], **params)
    diag = np.diagonal(K).copy()
    W = np.empty(_work_size(n), dtype=np.float32)  # the solver's float32 copies (huge pages)
    a, g, it, status = _nu_smo_kernel(
        K, W, diag, np.ascontiguousarray(s[order]), group[order], alpha0[order], tol, cap
    )
    alpha, grad = np.empty(n), np.empty(n)
    alpha[order], grad[order] = a, g
    if status != 0:
        warnings.warn(
            f"SMO stopped after max_iter = {cap} steps before reaching tol = {tol:g}",
            RuntimeWarning,
            stacklevel=3,
        )
    return alpha, grad, it
