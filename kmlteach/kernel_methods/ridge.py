"""Kernel ridge regression in closed form (UML ex. 16.3)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kmlteach._validation import as_vector, check_finite_output, check_gram, check_positive

__all__ = ["KernelRidgeResult", "kernel_ridge"]


# ----------------------------------------------------------------------------- kernel ridge


@dataclass(frozen=True)
class KernelRidgeResult:
    """``alpha`` = (K + λ m I)⁻¹ y; ``objective`` = value of the objective at the optimum.

    Source: UML ex. 16.3, Eq. (16.8).
    """

    alpha: np.ndarray
    objective: float


def kernel_ridge(K, y, lam: float) -> KernelRidgeResult:
    """Kernel ridge regression in closed form (UML ex. 16.3).

    Minimises ``(lam/2) ||w||^2 + (1/(2m)) sum_i (<w, psi(x_i)> - y_i)^2`` over
    ``w = sum_j alpha_j psi(x_j)`` (representer theorem). Setting the gradient
    ``lam K alpha + (1/m) K (K alpha - y)`` to zero gives
    ``alpha = (K + lam m I)^{-1} y``.

    Scaling: UML's (16.8) writes ``lam ||w||^2 + (1/(2m)) sum (...)^2``; its minimiser is
    ours with ``lam = 2 lam_UML`` (the same factor 2 as between (15.6) and (15.12)).

    Parameters
    ----------
    K : (m, m) symmetric Gram matrix
    y : (m,) real targets
    lam : float > 0

    Returns
    -------
    KernelRidgeResult; predict with ``kernel_expansion(K_test, result.alpha)``.
    """
    Ka = check_gram(K)
    ya = as_vector(y, "y", length=Ka.shape[0], of="one per row of K")
    lam = check_positive(lam, "lam")
    m = Ka.shape[0]
    alpha = np.linalg.solve(Ka + lam * m * np.eye(m), ya)
    f = Ka @ alpha
    obj = 0.5 * lam * float(alpha @ f) + float(np.sum((f - ya) ** 2)) / (2 * m)
    check_finite_output("y or lam", alpha, obj)
    return KernelRidgeResult(alpha, obj)
