"""Small jitted linear-algebra helpers shared by several algorithm modules."""

from __future__ import annotations

import sys

import numpy as np

from ._jit import HAVE_NUMBA, jit

__all__ = ["dot", "exp_nonpositive", "one_blas_thread"]

_BLAS_CONTROLLERS: dict = {}


def one_blas_thread():
    """Context manager: BLAS (NumPy's, and SciPy's once SciPy is loaded) on one thread inside
    the block, the previous setting restored after it.

    For loops of many small or memory-bound BLAS calls: on a busy two-core machine
    OpenBLAS's threads wait for each other at every call (ARPACK's 21 products with a
    2000 x 2000 kernel matrix took 40-150 ms on two threads, 29-35 ms on one; a widget's
    small eigendecompositions 100x more CPU). ``threadpoolctl`` finds the loaded BLAS
    libraries once (about 6 ms); the controller is kept, and made again only when SciPy,
    which brings its own OpenBLAS, has been imported since.
    """
    key = "scipy.linalg" in sys.modules
    ctl = _BLAS_CONTROLLERS.get(key)
    if ctl is None:
        from threadpoolctl import ThreadpoolController

        ctl = _BLAS_CONTROLLERS[key] = ThreadpoolController()
    return ctl.limit(limits=1, user_api="blas")


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


# ----------------------------------------------------------------------------- exp(x), x <= 0
# NumPy's float64 ``exp`` is vectorised only where it dispatches AVX-512 code; elsewhere
# (AVX2 machines, most laptops) it calls libm once per entry, and Numba's ``math.exp`` is a
# scalar call everywhere (the PyPI llvmlite has no SVML). ``exp_nonpositive`` is plain
# arithmetic that LLVM vectorises for whatever CPU it compiles for: the Gaussian kernel's
# tiles (``kmlteach.kernels.distance``) use it when NumPy's exp is not vectorised.
_LOG2E = 1.4426950408889634
_SHIFT = 6755399441055744.0  # 1.5 · 2^52: x·log2(e) + _SHIFT rounds to an integer k
_LN2_HI = 6.93147180369123816490e-01  # ln 2 = _LN2_HI + _LN2_LO, k · _LN2_HI exact (fdlibm)
_LN2_LO = 1.90821492927058770002e-10
_EXP_UNDERFLOW = -708.0  # below, exp(x) < 3.3e-308: returned as 0


if HAVE_NUMBA:
    from llvmlite import ir
    from numba.core import types
    from numba.extending import intrinsic

    @intrinsic
    def _float_bits(typingctx, x):
        """The IEEE-754 bits of a float64, as an int64 (an LLVM bitcast: no instruction)."""

        def codegen(context, builder, sig, args):
            return builder.bitcast(args[0], ir.IntType(64))

        return types.int64(types.float64), codegen

    @intrinsic
    def _bits_float(typingctx, b):
        """The float64 whose IEEE-754 bits are the int64 ``b``."""

        def codegen(context, builder, sig, args):
            return builder.bitcast(args[0], ir.DoubleType())

        return types.float64(types.int64), codegen

else:  # pragma: no cover - plain Python (no Numba)

    def _float_bits(x):
        return int(np.array(x, dtype=np.float64).view(np.int64))

    def _bits_float(b):
        return float(np.array(b & 0xFFFFFFFFFFFFFFFF, dtype=np.uint64).view(np.float64))


@jit(warmup=lambda: (-1.5,))
def exp_nonpositive(x):
    """exp(x) for x ≤ 0 (finite), within one unit in the last place of the exact value,
    exp(0) = 1 exactly, 0 below −708; branch-free, so loops calling it vectorise.

    exp(x) = 2^k · exp(r) with k = round(x / ln 2) and r = x − k ln 2 in [−0.35, 0.35]
    (ln 2 in two parts, so r is exact to the last bit); exp(r) by its Taylor polynomial of
    degree 13 (next term < 5e-18), Horner's rule; 2^k built from its bits: k + 1023 in the
    exponent field. k sits in the low bits of x·log2(e) + 1.5·2^52, which also rounds it.
    """
    t = x * _LOG2E + _SHIFT
    k = t - _SHIFT
    r = (x - k * _LN2_HI) - k * _LN2_LO
    p = 1.0 / 6227020800.0  # 1/13!
    p = p * r + 1.0 / 479001600.0
    p = p * r + 1.0 / 39916800.0
    p = p * r + 1.0 / 3628800.0
    p = p * r + 1.0 / 362880.0
    p = p * r + 1.0 / 40320.0
    p = p * r + 1.0 / 5040.0
    p = p * r + 1.0 / 720.0
    p = p * r + 1.0 / 120.0
    p = p * r + 1.0 / 24.0
    p = p * r + 1.0 / 6.0
    p = p * r + 0.5
    p = p * r + 1.0
    p = p * r + 1.0
    scale = _bits_float((_float_bits(t) + 1023) << 52)  # 2^k: the bits of t end in k
    return p * scale if x > _EXP_UNDERFLOW else 0.0
