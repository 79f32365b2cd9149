"""Kernel values inside Numba loops, for the kernels with a closed form in ⟨x, x'⟩.

The solvers that need only a few kernel values (NORMA's window, SMO's rows on demand)
evaluate them in their own loops instead of building a Gram matrix with
:func:`kmlteach.kernels.gram`. Same formulas and parameter conventions as ``gram``
(Gaussian: exp(−||x − x'||²/(2σ)) = exp(−γ||x − x'||²), computed as
exp(−γ(||x||² + ||x'||² − 2⟨x, x'⟩)) like ``gram``), so values agree to rounding.
Other kernels (``min``, ``bspline``) go through ``gram``.
"""

from __future__ import annotations

import numpy as np

from kmlteach._jit import jit
from kmlteach.kernels.gram import kernel_params

__all__ = ["kernel_value", "native_kernel"]

_NATIVE = {"linear": 0, "polynomial": 1, "gaussian": 2, "exponential": 3}


def native_kernel(kernel: str, params: dict):
    """``(code, p1, p2)`` for :func:`kernel_value`, or None for kernels left to ``gram``.

    ``params`` are checked by :func:`kmlteach.kernels.kernel_params`.
    """
    code = _NATIVE.get(kernel, -1)
    if code < 0:
        return None
    full = kernel_params(kernel, **params)
    return code, float(full.get("degree", full.get("gamma", 0.0))), float(full.get("c", 0.0))


@jit(warmup=lambda: (np.ones(2), np.ones(2), 2.0, 2.0, 2, 0.5, 0.0))
def kernel_value(u, v, nu, nv, code, p1, p2):
    """k(u, v) given the squared norms ``nu``, ``nv`` (codes of :func:`native_kernel`)."""
    ip = 0.0
    for q in range(u.shape[0]):
        ip += u[q] * v[q]
    if code == 0:
        return ip
    if code == 1:
        return (p2 + ip) ** p1
    if code == 2:
        d2 = nu + nv - 2.0 * ip
        return np.exp(-p1 * d2) if d2 > 0.0 else 1.0
    return np.exp(p1 * ip)
