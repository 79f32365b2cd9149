"""Centred cardinal B-spline kernels (HSS1 §1.2.2, Eq. (1.23)): ``B_n`` evaluated in one
Numba loop; :func:`kmlteach.kernels.gram` uses it for the ``"bspline"`` kernel."""

from __future__ import annotations

import numpy as np

from kmlteach._jit import jit
from kmlteach._validation import as_vector, check_int

__all__ = ["bspline"]


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
