"""Kernel functions and Gram matrices (UML §16.2, HSS1 §1.2): linear, polynomial
``(c + <x, x'>)^degree``, Gaussian (UML's ``exp(-||x - x'||^2 / (2 sigma))`` or HSS's
``exp(-gamma ||x - x'||^2)``, ``gamma = 1/(2 sigma)``), exponential, min (UML ex. 16.4)
and B-spline kernels (HSS1 §1.2.2), each computed by one parallel Numba kernel.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kmlteach._jit import jit, prange
from kmlteach._validation import (
    check_choice,
    check_finite_output,
    check_int,
    check_nonnegative,
    check_positive,
    check_real,
    check_X,
)
from kmlteach.kernels.bspline import _bspline_value, bspline
from kmlteach.kernels.distance import _distance_gram

__all__ = ["KERNELS", "SIMILARITIES", "kernel_params", "gram", "similarity", "bspline"]


KERNELS = ("linear", "polynomial", "gaussian", "exponential", "min", "bspline")
"""Names accepted by :func:`gram` (every one a positive definite kernel)."""

SIMILARITIES = KERNELS + ("negative_distance",)
"""Names accepted by :func:`similarity`, which also allows the invalid cases."""

_CODES = {
    "linear": 0,
    "polynomial": 1,
    "gaussian": 2,
    "exponential": 3,
    "negative_distance": 6,
    "min": 4,
    "bspline": 5,
}
_ALLOWED = {
    "linear": (),
    "polynomial": ("degree", "c"),
    "gaussian": ("sigma", "gamma"),
    "exponential": ("gamma",),
    "min": (),
    "bspline": ("order",),
    "negative_distance": (),
}


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
        raise TypeError(
            f"kernel must be a string naming a kernel ({', '.join(names)}), got {type(kernel).__name__}"
        )
    check_choice(kernel, "kernel", names)
    unknown = sorted(set(params) - set(_ALLOWED[kernel]))
    if unknown:
        allowed = ", ".join(_ALLOWED[kernel]) or "none"
        raise TypeError(
            f"unexpected parameter(s) {', '.join(unknown)} for kernel {kernel!r} (allowed: {allowed})"
        )
    out: dict[str, Any] = {}
    if kernel == "polynomial":
        out["degree"] = check_int(params.get("degree", 2), "degree", minimum=1, maximum=50)
        out["c"] = check_nonnegative(params.get("c", 1.0), "c")
    elif kernel == "gaussian":
        if "sigma" in params and "gamma" in params:
            raise ValueError(
                "pass either sigma (UML: exp(-|x-x'|^2/(2 sigma))) or gamma "
                "(exp(-gamma |x-x'|^2)), not both; gamma = 1/(2 sigma)"
            )
        if "gamma" in params:
            out["gamma"] = check_positive(params["gamma"], "gamma")
            out["sigma"] = 1.0 / (2.0 * out["gamma"])
        else:
            out["sigma"] = check_positive(params.get("sigma", 1.0), "sigma")
            out["gamma"] = 1.0 / (2.0 * out["sigma"])
    elif kernel == "exponential":
        g = params.get("gamma", 1.0)
        out["gamma"] = check_nonnegative(g, "gamma") if strict else check_real(g, "gamma")
    elif kernel == "bspline":
        order = check_int(params.get("order", 3), "order", minimum=0, maximum=99)
        if strict and order % 2 == 0:
            raise ValueError(
                f"order must be odd for a B-spline kernel B_(2p+1) (HSS1 §1.2.3.3); "
                f"got {order} (even orders are not positive definite: see similarity())"
            )
        out["order"] = order
    return out


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

    Source: HSS1 §1.2 (positive definite kernels) and UML §16.2.
    """
    return _gram(kernel, X, Y, strict=False, **params)


def _gram(kernel, X, Y, strict, **params):
    p = kernel_params(kernel, strict=strict, **params)
    Xa = check_X(X, "X")
    sym = Y is None
    Ya = Xa if sym else check_X(Y, "Y", n_cols=Xa.shape[1])
    return gram_prechecked(kernel, p, Xa, Ya, sym)


def gram_prechecked(kernel, p, Xa, Ya, sym):
    """The Gram matrix of checked arrays and parameters (``p`` from :func:`kernel_params`).

    Shared inside the library, not published (not in ``__all__``): callers that validated
    X, Y and the parameters once (the kernel-method estimators, Nyström) call it to skip
    :func:`gram`'s checks."""
    code = _CODES[kernel]
    if kernel == "min":
        if np.any(Xa < 0) or np.any(Ya < 0):
            raise ValueError(
                "X and Y must be non-negative for the min kernel (UML ex. 16.4 "
                "uses x in {1, ..., N}); min(x, x) < 0 would be a negative norm"
            )
        return _gram_pairwise_kernel(Xa, Ya, code, 0, sym)
    if kernel == "bspline":
        return _gram_pairwise_kernel(Xa, Ya, code, p["order"], sym)
    p1 = float(p.get("degree", p.get("gamma", 0.0)))
    p2 = float(p.get("c", 0.0))
    if code in (2, 6):
        return _distance_gram(Xa, Ya, sym, code, p1)
    G = np.ascontiguousarray(Xa @ Ya.T)  # a fresh array: transformed in place below
    # (linear: |<x, y>| <= ||x|| ||y|| is finite for the bounded X, Y that check_X passes)
    top = np.empty(G.shape[0])
    K = _gram_kernel(G, code, p1, p2, top)
    with np.errstate(over="ignore"):
        if code == 3:
            np.exp(K, out=K)
        peak = np.exp(top.max()) if code == 3 else top.max()  # exp is increasing: no pass over K
    check_finite_output("X, Y or " + (", ".join(sorted(p)) or "the kernel"), peak)
    return K


def _gram_warmup():
    return np.eye(3), 1, 2.0, 1.0, np.empty(3)


@jit(parallel=True, warmup=_gram_warmup)
def _gram_kernel(G, code, p1, p2, top):
    """Transform inner products G[i, j] = <x_i, y_j> **in place** into kernel values:
    polynomial (code 1) or the argument of exp for the exponential kernel (code 3),
    which the caller exponentiates with NumPy's vectorised ``np.exp``. Order-free: rows
    in parallel, one contiguous inner loop per kernel. ``top[i]`` receives row i's
    largest |value| (code 1) or largest exponent (code 3), at least 0: the caller's
    overflow check without a second pass over G (0 for the linear kernel, code 0).
    """
    n, m = G.shape
    for i in prange(n):
        t = 0.0
        if code == 1:
            for j in range(m):
                v = (p2 + G[i, j]) ** p1
                G[i, j] = v
                t = max(t, abs(v))
        elif code == 3:
            for j in range(m):
                v = p1 * G[i, j]
                G[i, j] = v
                t = max(t, v)
        top[i] = t
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
