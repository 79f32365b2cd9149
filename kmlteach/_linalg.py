"""Small jitted linear-algebra helpers shared by several algorithm modules."""

from __future__ import annotations

import numpy as np

from ._jit import jit

__all__ = ["dot"]


@jit(warmup=lambda: (np.ones(3), np.ones(3)))
def dot(a, b):
    """Sequential dot product of two 1-D float64 arrays.

    The summation order is fixed (left to right), so the same numbers give the same bits
    in every kernel that uses it — e.g. the general-Ψ and fast paths of multiclass SGD agree
    exactly, and the SMO/DCD solvers do not depend on BLAS's blocking.
    """
    s = 0.0
    for j in range(a.shape[0]):
        s += a[j] * b[j]
    return s
