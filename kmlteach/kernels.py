"""Kernel functions, Gram matrices, positive semi-definiteness, closure rules, RKHS operations.

Sources: UML §16.1–16.2 (embeddings, polynomial and Gaussian kernels, ex. 16.4) and
HSS1 §1.2–1.3 (positive definite kernels, Prop. 4 and 5, B-splines, operations in the
RKHS). Conventions that differ between the sources:

* Gaussian kernel: UML writes ``exp(-||x - x'||^2 / (2 sigma))`` (sigma not squared),
  HSS writes ``exp(-gamma ||x - x'||^2)``. :func:`gram` accepts either ``sigma`` or
  ``gamma`` (never both); they are related by ``gamma = 1 / (2 sigma)``.
* Polynomial kernel: ``(c + <x, x'>)^degree``; UML uses ``c = 1``, HSS allows any
  ``c >= 0`` and calls ``c = 0`` homogeneous.

All Gram matrices are computed by one parallel Numba kernel per family (the only
``parallel=True`` loops of the course): inner-product kernels reuse the BLAS product
``X Y^T`` and transform it entry by entry; ``min`` and ``bspline`` loop over pairs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import combinations_with_replacement
from typing import Any, Callable, NamedTuple

import numpy as np

from ._jit import jit, prange
from ._validation import (as_matrix, as_vector, check_choice, check_int, check_nonnegative,
                          check_positive, check_square)

__all__ = [
    "KERNELS", "SIMILARITIES", "gram", "similarity", "kernel_params", "bspline", "is_psd",
    "PSDCheck", "cauchy_schwarz_ratio", "polynomial_features", "polynomial_feature_names",
    "min_features", "line_embedding", "Kernel", "make_kernel", "kernel_sum", "kernel_product",
    "tensor_product", "direct_sum", "feature_product", "exponential_taylor_gram",
    "translate", "center", "rkhs_distances", "rkhs_inner", "rkhs_norm", "project", "deflate",
    "gram_schmidt",
]

KERNELS = ("linear", "polynomial", "gaussian", "exponential", "min", "bspline")
"""Names accepted by :func:`gram` (every one a positive definite kernel)."""

SIMILARITIES = KERNELS + ("negative_distance",)
"""Names accepted by :func:`similarity`, which also allows the invalid cases."""

_CODES = {"linear": 0, "polynomial": 1, "gaussian": 2, "exponential": 3,
          "negative_distance": 6, "min": 4, "bspline": 5}
_ALLOWED = {"linear": (), "polynomial": ("degree", "c"), "gaussian": ("sigma", "gamma"),
            "exponential": ("gamma",), "min": (), "bspline": ("order",),
            "negative_distance": ()}


# ----------------------------------------------------------------------------- Gram matrices

def kernel_params(kernel: str, strict: bool = True, **params) -> dict:
    """Check and complete the parameters of a named kernel.

    Defaults: ``degree=2, c=1.0`` (polynomial), ``sigma=1.0`` (Gaussian, UML
    convention), ``gamma=1.0`` (exponential), ``order=3`` (B-spline). With
    ``strict=True`` parameters that do not give a kernel are rejected (``gamma < 0``
    for the exponential, even B-spline orders); :func:`similarity` passes
    ``strict=False`` so that the PSD lab can show why they fail.

    Returns a dict with the key ``gamma`` filled in for the Gaussian
    (``gamma = 1 / (2 sigma)``).
    """
    names = SIMILARITIES if not strict else KERNELS
    if not isinstance(kernel, str):
        raise TypeError(f"kernel must be a string naming a kernel ({', '.join(names)}), "
                        f"got {type(kernel).__name__}")
    check_choice(kernel, "kernel", names)
    unknown = sorted(set(params) - set(_ALLOWED[kernel]))
    if unknown:
        allowed = ", ".join(_ALLOWED[kernel]) or "none"
        raise TypeError(f"unexpected parameter(s) {', '.join(unknown)} for kernel {kernel!r} "
                        f"(allowed: {allowed})")
    out: dict[str, Any] = {}
    if kernel == "polynomial":
        out["degree"] = check_int(params.get("degree", 2), "degree", minimum=1, maximum=50)
        out["c"] = check_nonnegative(params.get("c", 1.0), "c")
    elif kernel == "gaussian":
        if "sigma" in params and "gamma" in params:
            raise ValueError("pass either sigma (UML: exp(-|x-x'|^2/(2 sigma))) or gamma "
                             "(exp(-gamma |x-x'|^2)), not both; gamma = 1/(2 sigma)")
        if "gamma" in params:
            out["gamma"] = check_positive(params["gamma"], "gamma")
            out["sigma"] = 1.0 / (2.0 * out["gamma"])
        else:
            out["sigma"] = check_positive(params.get("sigma", 1.0), "sigma")
            out["gamma"] = 1.0 / (2.0 * out["sigma"])
    elif kernel == "exponential":
        g = params.get("gamma", 1.0)
        out["gamma"] = check_nonnegative(g, "gamma") if strict else _real(g, "gamma")
    elif kernel == "bspline":
        order = check_int(params.get("order", 3), "order", minimum=0, maximum=99)
        if strict and order % 2 == 0:
            raise ValueError(f"order must be odd for a B-spline kernel B_(2p+1) (HSS1 §1.2.3.3); "
                             f"got {order} (even orders are not positive definite: see similarity())")
        out["order"] = order
    return out


def _real(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    v = float(value)
    if not np.isfinite(v):
        raise ValueError(f"{name} must be finite, got {v}")
    return v


def gram(kernel: str, X, Y=None, **params) -> np.ndarray:
    """Gram matrix ``K[i, j] = k(X[i], Y[j])`` of a named kernel (HSS1 Def. 1, Eq. (1.8)).

    Kernels (``x, x'`` rows of ``X`` and ``Y``):

    * ``"linear"``: ``<x, x'>``.
    * ``"polynomial"`` (``degree`` = k >= 1, default 2; ``c`` >= 0, default 1):
      ``(c + <x, x'>)^k`` (UML Example 16.1 with c = 1; HSS1 (1.22); homogeneous for c = 0).
    * ``"gaussian"`` (``sigma`` > 0, default 1, **or** ``gamma`` > 0):
      ``exp(-||x - x'||^2 / (2 sigma))`` (UML Example 16.2) = ``exp(-gamma ||x - x'||^2)``
      with ``gamma = 1/(2 sigma)`` (HSS1 §1.2.3.2).
    * ``"exponential"`` (``gamma`` >= 0, default 1): ``exp(gamma <x, x'>)`` (HSS1 §1.2.3.2;
      not a kernel for gamma < 0, see :func:`similarity`).
    * ``"min"``: ``prod_k min(x_k, x'_k)`` for non-negative inputs (UML ex. 16.4 in 1-D;
      the product over coordinates is the tensor product of HSS1 Prop. 5(iii)).
    * ``"bspline"`` (``order`` = 2p+1 odd, default 3): ``prod_k B_order(x_k - x'_k)``
      (HSS1 (1.23)), see :func:`bspline`.

    Parameters
    ----------
    kernel : str
    X : array of shape (n, d)
    Y : array of shape (m, d), default=None (then ``Y = X`` and K is exactly symmetric)
    **params : kernel parameters as above.

    Returns
    -------
    K : ndarray of shape (n, m)

    Examples
    --------
    >>> gram("polynomial", [[1.0, 2.0]], [[3.0, -1.0]], degree=2, c=1).item()
    4.0
    """
    return _gram(kernel, X, Y, strict=True, **params)


def similarity(kernel: str, X, Y=None, **params) -> np.ndarray:
    """Like :func:`gram`, but also for candidate similarities that are *not* kernels.

    Adds ``"negative_distance"`` (``-||x - x'||``), ``"exponential"`` with
    ``gamma < 0`` and ``"bspline"`` with even ``order``. Use :func:`is_psd` to see which
    candidates give positive semi-definite Gram matrices (the PSD lab of chapter 02).
    """
    return _gram(kernel, X, Y, strict=False, **params)


def _gram(kernel, X, Y, strict, **params):
    p = kernel_params(kernel, strict=strict, **params)
    Xa = as_matrix(X, "X")
    sym = Y is None
    Ya = Xa if sym else as_matrix(Y, "Y", n_cols=Xa.shape[1])
    code = _CODES[kernel]
    if kernel == "min":
        if np.any(Xa < 0) or np.any(Ya < 0):
            raise ValueError("X and Y must be non-negative for the min kernel (UML ex. 16.4 "
                             "uses x in {1, ..., N}); min(x, x) < 0 would be a negative norm")
        return _gram_pairwise_kernel(Xa, Ya, code, 0, sym)
    if kernel == "bspline":
        return _gram_pairwise_kernel(Xa, Ya, code, p["order"], sym)
    G = np.ascontiguousarray(Xa @ Ya.T)  # a fresh array: transformed in place below
    xx = np.einsum("ij,ij->i", Xa, Xa)
    yy = xx if sym else np.einsum("ij,ij->i", Ya, Ya)
    p1 = float(p.get("degree", p.get("gamma", 0.0)))
    p2 = float(p.get("c", 0.0))
    K = _gram_kernel(G, xx, yy, code, p1, p2, sym)
    if code in (2, 3):
        np.exp(K, out=K)
    return K


def _gram_warmup():
    G = np.eye(3)
    return G, np.ones(3), np.ones(3), 2, 0.5, 0.0, True


@jit(parallel=True, warmup=_gram_warmup)
def _gram_kernel(G, xx, yy, code, p1, p2, sym):
    """Transform inner products G[i, j] = <x_i, y_j> **in place** into kernel values.

    Order-free: rows in parallel, one contiguous (vectorisable) inner loop per kernel.
    For the Gaussian (code 2) and exponential (code 3) kernels it leaves the argument of
    exp, which the caller exponentiates with NumPy's vectorised ``np.exp``. With ``sym``
    (Y is X; ``X @ X.T`` from BLAS is exactly symmetric) the distance of each point to
    itself is set to exactly 0.
    """
    n, m = G.shape
    for i in prange(n):
        xi = xx[i]
        if code == 1:
            for j in range(m):
                G[i, j] = (p2 + G[i, j]) ** p1
        elif code == 3:
            for j in range(m):
                G[i, j] = p1 * G[i, j]
        elif code == 2:
            for j in range(m):
                d2 = xi + yy[j] - 2.0 * G[i, j]
                G[i, j] = -p1 * d2 if d2 > 0.0 else 0.0
        elif code == 6:
            for j in range(m):
                d2 = xi + yy[j] - 2.0 * G[i, j]
                G[i, j] = -np.sqrt(d2) if d2 > 0.0 else 0.0
        if sym and (code == 2 or code == 6):
            G[i, i] = 0.0
    return G


def _pairwise_warmup():
    X = np.array([[0.0, 0.5], [0.25, 1.0]])
    return X, X, 5, 3, True


@jit(parallel=True, warmup=_pairwise_warmup)
def _gram_pairwise_kernel(X, Y, code, order, sym):
    """Product over coordinates of min(x_k, y_k) (code 4) or B_order(x_k - y_k) (code 5)."""
    n, d = X.shape
    m = Y.shape[0]
    K = np.empty((n, m))
    for i in prange(n):
        work = np.empty(order + 1)
        j0 = i if sym else 0
        for j in range(j0, m):
            v = 1.0
            for k in range(d):
                if code == 4:
                    v *= min(X[i, k], Y[j, k])
                else:
                    v *= _bspline_value(X[i, k] - Y[j, k], order, work)
            K[i, j] = v
            if sym:
                K[j, i] = v
    return K


@jit(warmup=lambda: (0.3, 3, np.empty(4)))
def _bspline_value(t, n, work):
    """Centred cardinal B-spline B_n(t) by the stable recursion (work: n + 1 floats).

    With x = t + (n+1)/2 and M_k the spline of degree k on [0, k+1]:
    M_0 = 1 on [0, 1), M_k(x) = (x M_{k-1}(x) + (k+1-x) M_{k-1}(x-1)) / k.
    """
    half = 0.5 * (n + 1)
    a = abs(t)
    if a >= half:
        return 0.0
    if n == 0:
        return 1.0 if a < 0.5 else 0.5
    x = a + half  # B_n is even: evaluate at |t| (same value, fewer branches)
    for j in range(n + 1):
        s = x - j
        work[j] = 1.0 if (s >= 0.0 and s < 1.0) else 0.0
    for k in range(1, n + 1):
        for j in range(n + 1 - k):
            s = x - j
            work[j] = (s * work[j] + (k + 1 - s) * work[j + 1]) / k
    return work[0]


def bspline(t, order: int) -> np.ndarray:
    """The B-spline ``B_order`` of HSS1 §1.2.3.3 at the points ``t`` (1-D).

    ``B_0`` is the indicator of [-1/2, 1/2] (value 1/2 at the two jumps) and
    ``B_(i+1) = B_i * B_0`` (convolution), so ``B_n`` is the centred cardinal B-spline
    of degree n, a piecewise polynomial supported on ``[-(n+1)/2, (n+1)/2]`` with
    integral 1. Odd orders give kernels ``B_(2p+1)(x - x')`` (1.23); even orders do not.

    Evaluated with the recursion ``M_k(x) = (x M_(k-1)(x) + (k+1-x) M_(k-1)(x-1)) / k``
    on the shifted variable ``x = t + (n+1)/2``, which is exact up to rounding and
    avoids the cancellation of the truncated-power (Irwin–Hall) sum.
    """
    order = check_int(order, "order", minimum=0, maximum=99)
    shape = np.shape(t)
    ta = as_vector(np.ravel(t) if shape else [t], "t")
    return _bspline_kernel(ta, order).reshape(shape)


@jit(warmup=lambda: (np.linspace(-2.0, 2.0, 5), 3))
def _bspline_kernel(t, order):
    work = np.empty(order + 1)
    out = np.empty(t.shape[0])
    for i in range(t.shape[0]):
        out[i] = _bspline_value(t[i], order, work)
    return out


# ----------------------------------------------------------------------------- PSD checks

class PSDCheck(NamedTuple):
    """Result of :func:`is_psd`: unpacks as ``(psd, smallest_eigenvalue)``."""
    psd: bool
    smallest_eigenvalue: float


def is_psd(K, tol: float = 1e-10) -> PSDCheck:
    """Is ``K`` a positive semi-definite (kernel) matrix? (HSS1 Def. 2, Eq. (1.9))

    ``K`` is declared PSD when it is symmetric and its smallest eigenvalue is at least
    ``-tol * max(1, largest |eigenvalue|)`` (a relative tolerance for rounding).

    Returns
    -------
    (psd, smallest_eigenvalue) : PSDCheck (a named tuple of bool, float)
        ``smallest_eigenvalue`` is that of the symmetric part ``(K + K^T)/2``.
    """
    Ka = check_square(K, "K")
    tol = check_nonnegative(tol, "tol")
    scale_in = max(1.0, float(np.max(np.abs(Ka))))
    symmetric = bool(np.allclose(Ka, Ka.T, rtol=0.0, atol=1e-12 * scale_in))
    lam = np.linalg.eigvalsh(0.5 * (Ka + Ka.T))
    lmin = float(lam[0])
    scale = max(1.0, float(np.max(np.abs(lam))))
    return PSDCheck(bool(symmetric and lmin >= -tol * scale), lmin)


def cauchy_schwarz_ratio(K) -> float:
    """``max_{i,j} |K_ij| / sqrt(K_ii K_jj)``: at most 1 for a kernel (HSS1 Prop. 4, (1.10)).

    Pairs with a zero diagonal entry count as 0 if ``K_ij = 0`` and as infinity
    otherwise; a negative diagonal entry (impossible for a kernel) gives infinity.
    """
    Ka = check_square(K, "K")
    dg = np.diag(Ka)
    if np.any(dg < 0):
        return float("inf")
    root = np.sqrt(dg)
    num = np.abs(Ka)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        r = (num / np.where(root > 0, root, 1.0)[:, None]) / np.where(root > 0, root, 1.0)[None, :]
    zero = (root[:, None] == 0) | (root[None, :] == 0)
    r = np.where(zero, np.where(num > 0, np.inf, 0.0), r)
    return float(np.max(r))


# ----------------------------------------------------------------------------- feature maps

def _monomials(d: int, degree: int) -> list[tuple[int, ...]]:
    """Exponent vectors alpha (length d) with |alpha| <= degree, by degree then lexicographically."""
    out = []
    for r in range(degree + 1):
        for combo in combinations_with_replacement(range(d), r):
            a = [0] * d
            for j in combo:
                a[j] += 1
            out.append(tuple(a))
    return out


def polynomial_features(X, degree: int, c: float = 1.0) -> np.ndarray:
    """Explicit feature map of the polynomial kernel: ``<phi(x), phi(x')> = (c + <x, x'>)^degree``.

    By the multinomial theorem (UML Example 16.1, HSS1 (1.21)-(1.22))
    ``(c + sum_j x_j x'_j)^k = sum_{a_0 + |a| = k} k!/(a_0! a_1! ... a_d!) c^(a_0) prod_j (x_j x'_j)^(a_j)``,
    so the features are the monomials ``prod_j x_j^(a_j)`` with ``|a| <= k``, each scaled
    by ``sqrt(k! c^(k-|a|) / ((k-|a|)! a_1! ... a_d!))``. UML's map lists all
    ``(d+1)^k`` ordered products (with repeats); merging the repeats gives these
    ``C(d+k, k)`` scaled monomials and the same inner products.

    Parameters
    ----------
    X : array of shape (m, d)
    degree : int >= 1
    c : float >= 0, default=1.0 (UML's kernel). With ``c = 0`` only degree-k monomials remain.

    Returns
    -------
    Phi : ndarray of shape (m, C(d + degree, degree)), columns ordered as
        :func:`polynomial_feature_names`. ``Phi @ Phi.T == gram("polynomial", X, degree=degree, c=c)``.
    """
    Xa = as_matrix(X, "X")
    degree = check_int(degree, "degree", minimum=1, maximum=10)
    c = check_nonnegative(c, "c")
    d = Xa.shape[1]
    if math.comb(d + degree, degree) > 200_000:
        raise ValueError(f"degree={degree} with d={d} features gives "
                         f"{math.comb(d + degree, degree)} monomials; use the kernel instead")
    cols = []
    for a in _monomials(d, degree):
        a0 = degree - sum(a)
        coef = math.factorial(degree) / (math.factorial(a0) * math.prod(math.factorial(v) for v in a))
        coef *= c ** a0
        col = np.full(Xa.shape[0], math.sqrt(coef))
        for j, e in enumerate(a):
            if e:
                col = col * Xa[:, j] ** e
        cols.append(col)
    return np.ascontiguousarray(np.column_stack(cols))


def polynomial_feature_names(d: int, degree: int) -> list[str]:
    """Names ``1, x1, x2, x1^2, x1 x2, ...`` of the columns of :func:`polynomial_features`."""
    d = check_int(d, "d", minimum=1)
    degree = check_int(degree, "degree", minimum=1, maximum=10)
    names = []
    for a in _monomials(d, degree):
        parts = [f"x{j + 1}" + (f"^{e}" if e > 1 else "") for j, e in enumerate(a) if e]
        names.append(" ".join(parts) if parts else "1")
    return names


def min_features(x, N: int | None = None) -> np.ndarray:
    """Feature map of the min kernel on {1, ..., N} (UML ex. 16.4).

    ``psi(x) = (1[x >= 1], 1[x >= 2], ..., 1[x >= N])``, so
    ``<psi(x), psi(x')> = #{s : s <= x and s <= x'} = min(x, x')``.

    Parameters
    ----------
    x : 1-D array of positive integers
    N : int, default=max(x)

    Returns
    -------
    Psi : ndarray of shape (len(x), N) with 0/1 entries.
    """
    xa = as_vector(x, "x")
    if np.any(xa < 1) or np.any(xa != np.round(xa)):
        raise ValueError("x must hold positive integers (the domain {1, ..., N} of UML ex. 16.4)")
    N = int(xa.max()) if N is None else check_int(N, "N", minimum=1)
    if xa.max() > N:
        raise ValueError(f"N must be at least max(x) = {int(xa.max())}, got {N}")
    return (xa[:, None] >= np.arange(1, N + 1)[None, :]).astype(np.float64)


def line_embedding(x) -> np.ndarray:
    """The embedding ``psi(x) = (x, x^2)`` of UML §16.1 for 1-D inputs; shape (m, 2)."""
    xa = as_vector(x, "x")
    return np.column_stack([xa, xa ** 2])


# ----------------------------------------------------------------------------- closure rules

@dataclass(frozen=True)
class Kernel:
    """A kernel as a callable: ``k(X, Y=None)`` returns the Gram matrix.

    Built by :func:`make_kernel` from a name in :data:`KERNELS`, or by the closure
    rules (:func:`kernel_sum`, :func:`kernel_product`, :func:`tensor_product`,
    :func:`direct_sum`, :func:`feature_product`) from other kernels.
    """
    fn: Callable
    description: str

    def __call__(self, X, Y=None) -> np.ndarray:
        return self.fn(X, Y)

    def __repr__(self) -> str:
        return f"Kernel({self.description})"


def _check_kernel(k: Any, name: str) -> Kernel:
    if not isinstance(k, Kernel):
        raise TypeError(f"{name} must be a Kernel (from make_kernel or a closure rule), "
                        f"got {type(k).__name__}")
    return k


def make_kernel(kernel: str, **params) -> Kernel:
    """A named kernel with fixed parameters, as a :class:`Kernel` callable."""
    kernel_params(kernel, **params)
    desc = kernel + ("(" + ", ".join(f"{k}={v!r}" for k, v in params.items()) + ")" if params else "")
    return Kernel(lambda X, Y=None: gram(kernel, X, Y, **params), desc)


def kernel_sum(k1: Kernel, k2: Kernel, w1: float = 1.0, w2: float = 1.0) -> Kernel:
    """``w1 k1 + w2 k2`` with ``w1, w2 >= 0``: again a kernel (HSS1 Prop. 5(i), a convex cone)."""
    _check_kernel(k1, "k1"), _check_kernel(k2, "k2")
    w1, w2 = check_nonnegative(w1, "w1"), check_nonnegative(w2, "w2")
    return Kernel(lambda X, Y=None: w1 * k1(X, Y) + w2 * k2(X, Y),
                  f"{w1:g}*{k1.description} + {w2:g}*{k2.description}")


def kernel_product(k1: Kernel, k2: Kernel) -> Kernel:
    """Pointwise product ``k1 k2``: a kernel (HSS1 Prop. 5(ii); Gram matrix = Schur product)."""
    _check_kernel(k1, "k1"), _check_kernel(k2, "k2")
    return Kernel(lambda X, Y=None: k1(X, Y) * k2(X, Y), f"{k1.description} * {k2.description}")


def _split(X, Y, d1, name):
    Xa = as_matrix(X, "X")
    if not 1 <= d1 < Xa.shape[1]:
        raise ValueError(f"{name}: d1 must split the {Xa.shape[1]} columns of X into two "
                         f"non-empty parts, got d1={d1}")
    Ya = None if Y is None else as_matrix(Y, "Y", n_cols=Xa.shape[1])
    return (Xa[:, :d1], None if Ya is None else Ya[:, :d1],
            Xa[:, d1:], None if Ya is None else Ya[:, d1:])


def tensor_product(k1: Kernel, k2: Kernel, d1: int) -> Kernel:
    """Tensor product on a product space (HSS1 Prop. 5(iii)).

    Inputs are rows ``(x1, x2)`` with ``x1`` the first ``d1`` columns;
    ``k((x1, x2), (x1', x2')) = k1(x1, x1') k2(x2, x2')``.
    """
    _check_kernel(k1, "k1"), _check_kernel(k2, "k2")
    d1 = check_int(d1, "d1", minimum=1)

    def fn(X, Y=None):
        X1, Y1, X2, Y2 = _split(X, Y, d1, "tensor_product")
        return k1(X1, Y1) * k2(X2, Y2)
    return Kernel(fn, f"{k1.description} (x) {k2.description}")


def direct_sum(k1: Kernel, k2: Kernel, d1: int) -> Kernel:
    """Direct sum on a product space (HSS1 Prop. 5(iii)):
    ``k((x1, x2), (x1', x2')) = k1(x1, x1') + k2(x2, x2')``."""
    _check_kernel(k1, "k1"), _check_kernel(k2, "k2")
    d1 = check_int(d1, "d1", minimum=1)

    def fn(X, Y=None):
        X1, Y1, X2, Y2 = _split(X, Y, d1, "direct_sum")
        return k1(X1, Y1) + k2(X2, Y2)
    return Kernel(fn, f"{k1.description} (+) {k2.description}")


def feature_product(f: Callable) -> Kernel:
    """``k(x, x') = f(x) f(x')`` for any real function f of a row (HSS1 Prop. 5(v))."""
    if not callable(f):
        raise TypeError(f"f must be a function of one input row, got {type(f).__name__}")

    def values(X, name):
        Xa = as_matrix(X, name)
        v = np.array([float(f(row)) for row in Xa])
        if not np.all(np.isfinite(v)):
            raise ValueError(f"f returned a NaN or infinite value on {name}")
        return v

    def fn(X, Y=None):
        fx = values(X, "X")
        fy = fx if Y is None else values(Y, "Y")
        return np.outer(fx, fy)
    return Kernel(fn, f"f(x)f(x') with f={getattr(f, '__name__', 'f')}")


def exponential_taylor_gram(X, Y=None, gamma: float = 1.0, n_terms: int = 10) -> np.ndarray:
    """Partial sum ``sum_{i=0}^{n_terms-1} (gamma <x, x'>)^i / i!`` (HSS1 §1.2.3.2).

    Each term is a homogeneous polynomial kernel with a non-negative weight when
    ``gamma >= 0``, so every partial sum is a kernel (Prop. 5(i)); as ``n_terms`` grows
    they converge to ``exp(gamma <x, x'>)``, which is therefore a kernel (Prop. 5(iv),
    the limit rule). The sum starts at i = 0 (the source prints i = 1).
    """
    gamma = check_nonnegative(gamma, "gamma")
    n_terms = check_int(n_terms, "n_terms", minimum=1, maximum=500)
    G = gram("linear", X, Y)
    K = np.zeros_like(G)
    term = np.ones_like(G)
    for i in range(n_terms):
        K += term
        term = term * (gamma * G) / (i + 1)
    return K


# ----------------------------------------------------------------------------- RKHS operations

def translate(K, alpha, K_test=None) -> np.ndarray:
    """Gram matrix after translating every feature vector by ``Gamma = sum_i alpha_i Phi(x_i)``.

    HSS1 (1.29): ``<Phi(x) + Gamma, Phi(x') + Gamma> = k(x, x') + sum_i alpha_i k(x_i, x)
    + sum_i alpha_i k(x_i, x') + sum_ij alpha_i alpha_j k(x_i, x_j)``.

    Parameters
    ----------
    K : (m, m) Gram matrix of the points x_1..x_m that define Gamma.
    alpha : (m,) coefficients of Gamma.
    K_test : (n, m), default=None
        ``k(z_a, x_j)`` for further points z; then the result is the (n, m) matrix of
        ``<Phi(z_a) + Gamma, Phi(x_j) + Gamma>``. Without it, the (m, m) matrix on the x's.
    """
    Ka = check_square(K, "K")
    a = as_vector(alpha, "alpha", length=Ka.shape[0])
    Ka_ = Ka @ a
    aKa = float(a @ Ka_)
    if K_test is None:
        return Ka + Ka_[:, None] + Ka_[None, :] + aKa
    Kt = as_matrix(K_test, "K_test", n_cols=Ka.shape[0])
    return Kt + (Kt @ a)[:, None] + Ka_[None, :] + aKa


def center(K, K_test=None) -> np.ndarray:
    """Centre a Gram matrix in feature space (HSS1 §1.3.1.2): translation by minus the mean.

    ``K~ = K - 1_m K - K 1_m + 1_m K 1_m`` with ``1_m`` the (m, m) matrix of entries 1/m.
    With ``K_test`` (n, m) = ``k(z_a, x_j)`` it returns the centred test-vs-train matrix
    ``K_test - 1' K - K_test 1_m + 1' K 1_m`` (``1'`` the (n, m) matrix of 1/m), i.e. the
    inner products of ``Phi(z_a) - mean`` with ``Phi(x_j) - mean``. Both equal
    :func:`translate` with ``alpha = -1/m``.
    """
    Ka = check_square(K, "K")
    if K_test is None:
        return _center_train(Ka, symmetric=bool(np.array_equal(Ka, Ka.T)))
    Kt = as_matrix(K_test, "K_test", n_cols=Ka.shape[0])
    col = Ka.mean(axis=0)
    return Kt - col[None, :] - Kt.mean(axis=1)[:, None] + float(col.mean())


def _center_train(Ka: np.ndarray, symmetric: bool) -> np.ndarray:
    """K - 1K - K1 + 1K1 for a checked square matrix (exactly symmetric if K is)."""
    col = Ka.mean(axis=0)
    row = col if symmetric else Ka.mean(axis=1)
    Kc = Ka - col[None, :]
    Kc -= row[:, None]
    Kc += float(col.mean())
    return Kc


def rkhs_distances(K, diag_test=None, diag_train=None) -> np.ndarray:
    """Feature-space distances ``||Phi(x) - Phi(x')|| = sqrt(k(x,x) + k(x',x') - 2 k(x,x'))`` (HSS1 §1.3.1.3).

    With one square Gram matrix ``K`` the (m, m) matrix of pairwise distances. For a
    rectangular ``K`` (n, m) = ``k(z_a, x_j)`` pass the diagonals ``k(z_a, z_a)``
    (``diag_test``, length n) and ``k(x_j, x_j)`` (``diag_train``, length m).
    Tiny negative squares from rounding are clipped at 0.
    """
    Ka = as_matrix(K, "K")
    if diag_test is None and diag_train is None:
        Ka = check_square(Ka, "K")
        dx = dy = np.diag(Ka)
    else:
        if diag_test is None or diag_train is None:
            raise ValueError("pass both diag_test and diag_train for a rectangular K")
        dx = as_vector(diag_test, "diag_test", length=Ka.shape[0])
        dy = as_vector(diag_train, "diag_train", length=Ka.shape[1])
    D2 = dx[:, None] + dy[None, :] - 2.0 * Ka
    return np.sqrt(np.maximum(D2, 0.0))


def rkhs_inner(a, b, K) -> float:
    """``<f, g>`` for ``f = sum_i a_i k(., x_i)``, ``g = sum_j b_j k(., z_j)``: ``a^T K b`` (HSS1 (1.14)).

    ``K[i, j] = k(x_i, z_j)`` (square when both expansions use the same points).
    """
    Ka = as_matrix(K, "K")
    av = as_vector(a, "a", length=Ka.shape[0])
    bv = as_vector(b, "b", length=Ka.shape[1])
    return float(av @ Ka @ bv)


def rkhs_norm(a, K) -> float:
    """``||f||`` for ``f = sum_i a_i k(., x_i)``: ``sqrt(a^T K a)`` (HSS1 (1.15))."""
    Ka = check_square(K, "K")
    av = as_vector(a, "a", length=Ka.shape[0])
    return float(np.sqrt(max(av @ Ka @ av, 0.0)))


def _proj_coef(a, g, K):
    Ka = check_square(K, "K")
    av = as_vector(a, "a", length=Ka.shape[0])
    gv = as_vector(g, "g", length=Ka.shape[0])
    gg = float(gv @ Ka @ gv)
    if gg <= 1e-14 * max(1.0, float(np.max(np.abs(Ka)))):
        raise ValueError("g must be a non-zero element of the RKHS (g^T K g > 0), got norm 0")
    return av, gv, float(gv @ Ka @ av) / gg


def project(a, g, K) -> np.ndarray:
    """Coefficients of the projection of ``Psi = sum a_i Phi(x_i)`` onto ``span{Gamma}``,
    ``Gamma = sum g_i Phi(x_i)``: ``(<Gamma, Psi> / ||Gamma||^2) g`` (HSS1 (1.30))."""
    _, gv, s = _proj_coef(a, g, K)
    return s * gv


def deflate(a, g, K) -> np.ndarray:
    """Coefficients of ``Psi - (<Gamma, Psi>/||Gamma||^2) Gamma``, orthogonal to Gamma (HSS1 (1.31))."""
    av, gv, s = _proj_coef(a, g, K)
    return av - s * gv


def gram_schmidt(K, A=None, tol: float = 1e-10) -> np.ndarray:
    """Gram–Schmidt orthonormalisation of kernel expansions in the RKHS (HSS1 §1.3.1.4).

    Parameters
    ----------
    K : (m, m) Gram matrix of the expansion points.
    A : (m, r) coefficient matrix, default=identity (the vectors ``Phi(x_1), ..., Phi(x_m)``).
        Column j is the expansion ``sum_i A[i, j] Phi(x_i)``.
    tol : float, default=1e-10
        A vector whose remaining norm is below ``tol * sqrt(max diag K)`` after deflation is
        dependent on the previous ones and dropped.

    Returns
    -------
    Q : (m, q) coefficients with ``Q^T K Q = I`` (q <= r), spanning the same subspace.
    Each column is deflated against the previous ones with (1.31) (twice, for
    numerical stability) and normalised through the kernel.
    """
    Ka = check_square(K, "K")
    m = Ka.shape[0]
    Aa = np.eye(m) if A is None else as_matrix(A, "A")
    if Aa.shape[0] != m:
        raise ValueError(f"A must have {m} rows (one per expansion point), got shape {Aa.shape}")
    tol = check_positive(tol, "tol")
    scale = math.sqrt(max(float(np.max(np.diag(Ka))), 1e-300))
    Q: list[np.ndarray] = []
    for j in range(Aa.shape[1]):
        v = Aa[:, j].copy()
        for _ in range(2):
            for q in Q:
                v = v - float(q @ Ka @ v) * q  # q has unit norm: (1.31) with ||q|| = 1
        nrm = math.sqrt(max(float(v @ Ka @ v), 0.0))
        if nrm > tol * scale:
            Q.append(v / nrm)
    return np.column_stack(Q) if Q else np.zeros((m, 0))
