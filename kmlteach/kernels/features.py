"""Explicit feature maps whose inner products are kernels (UML §16.1–16.2):
the polynomial map, the min-kernel map (UML ex. 16.4) and the line example's ψ(x) = (x, x²).
"""

from __future__ import annotations

import math
from itertools import combinations_with_replacement

import numpy as np

from kmlteach._validation import as_vector, check_finite_output, check_int, check_nonnegative, check_X

__all__ = ["polynomial_features", "polynomial_feature_names", "min_features", "line_embedding"]


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
    Xa = check_X(X, "X")
    degree = check_int(degree, "degree", minimum=1, maximum=10)
    c = check_nonnegative(c, "c")
    d = Xa.shape[1]
    if math.comb(d + degree, degree) > 200_000:
        raise ValueError(
            f"degree={degree} with d={d} features gives "
            f"{math.comb(d + degree, degree)} monomials; use the kernel instead"
        )
    cols = []
    for a in _monomials(d, degree):
        a0 = degree - sum(a)
        coef = math.factorial(degree) / (math.factorial(a0) * math.prod(math.factorial(v) for v in a))
        coef *= math.exp(min(a0 * math.log(c), 700.0)) if c > 0 else float(a0 == 0)
        if coef > 1e300:
            raise ValueError(f"c = {c:g} is too large for degree {degree}: the coefficients overflow")
        col = np.full(Xa.shape[0], math.sqrt(coef))
        for j, e in enumerate(a):
            if e:
                col = col * Xa[:, j] ** e
        cols.append(col)
    Phi = np.ascontiguousarray(np.column_stack(cols))
    check_finite_output("X or c", Phi)
    return Phi


def polynomial_feature_names(d: int, degree: int) -> list[str]:
    """Names ``1, x1, x2, x1^2, x1 x2, ...`` of the columns of :func:`polynomial_features`.

    Source: UML §16.1–16.2.
    """
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
    if xa.size and np.max(np.abs(xa)) > 1e150:
        raise ValueError(f"x has entries up to {np.max(np.abs(xa)):.3g}: x**2 would overflow; rescale x")
    return np.column_stack([xa, xa**2])
