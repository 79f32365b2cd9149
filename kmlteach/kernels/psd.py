"""Positive semi-definiteness (HSS1 Def. 3) and the Cauchy–Schwarz inequality for
kernels (HSS1 Prop. 4).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from kmlteach._validation import check_nonnegative, check_square

__all__ = ["PSDCheck", "is_psd", "cauchy_schwarz_ratio"]


# ----------------------------------------------------------------------------- PSD checks


class PSDCheck(NamedTuple):
    """Result of :func:`is_psd`: unpacks as ``(psd, smallest_eigenvalue)``.

    Source: HSS1 §1.2, Def. 3.
    """

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
