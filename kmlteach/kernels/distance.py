"""Gram matrices of the kernels that depend on x − y only (the engine behind
:func:`kmlteach.kernels.gram`): the Gaussian exp(−γ ||x − y||²) (UML Example 16.2, HSS1
§1.2.3.2) and the negative distance −||x − y|| of the PSD lab (HSS1 §1.2).

Speed notes (issue 26 point 4). The Gaussian matrix is computed in tiles of a few rows
that stay in cache from the squared distances to the exponential and, for ``Y = X``, to
their transposed copy below the diagonal, where scikit-learn's ``rbf_kernel`` makes about
seven whole-matrix passes (products, norms, clipping, scaling, exp). The exponential is
:func:`kmlteach._linalg.exp_nonpositive`, which LLVM vectorises inside the tile kernel
for the CPU at hand: NumPy's float64 ``exp`` is vectorised only with AVX-512 (16 M
entries: 14 ms) and is a libm call per entry on AVX2 (71 ms), so an AVX2 machine lost most
of the lead; on AVX-512 the in-kernel exp and NumPy's on the cached tile measured the
same. Numbers (before/after, AVX-512 and AVX2 builds) in ``benchmarks/bench_ch02.py``.
"""

from __future__ import annotations

import math

import numpy as np

from kmlteach._jit import jit, num_threads, prange, thread_map
from kmlteach._linalg import exp_nonpositive

# Nothing here is published; gaussian_row_data and gaussian_direct_kernel (no underscore)
# are shared with kmlteach.kernel_methods, whose kernel SGD computes Gram rows on demand.
__all__: list[str] = []


def _distance_gram(Xa, Ya, sym, code, gamma):
    """Gaussian (code 2) or negative-distance (code 6) Gram matrix through
    ||x - y||² = ||x||² − 2⟨x, y⟩ + ||y||², computed on **centred** data.

    The expansion cancels catastrophically when the points sit far from the origin (data
    offset by 10⁸ lose every digit); both kernels depend on x − y only, so we subtract the
    mean of X from X and Y first. The entries are then as accurate as the coordinates
    themselves, at the cost of one pass over the data. With Y = X the matrix is computed
    on the upper triangle only (half the exponentials) and mirrored, so it is exactly
    symmetric with an exact unit diagonal.
    """
    Xc, Yc, YcT = _centred(Xa, Ya, sym)
    if code == 2 and Xc.shape[1] <= _DIRECT_COLUMNS:  # d² summed coordinate by coordinate
        G = np.empty((Xc.shape[0], YcT.shape[1]))
        return _gaussian_tiles(G, Xc, YcT, gamma, sym, direct=True)
    # a fresh array, transformed in place below; Yc.T copied so that NumPy calls gemm
    # (X @ X.T goes to syrk, 2-7x slower here for few columns). With Y = X only the
    # blocks on and above the diagonal (at most 4 BLAS calls): about 60 % of the products.
    if not sym:
        G = Xc @ YcT
    else:
        n = Xc.shape[0]
        G = np.empty((n, n))
        step = max(256, -(-n // 4))
        for i0 in range(0, n, step):
            np.matmul(Xc[i0 : i0 + step], YcT[:, i0:], out=G[i0 : i0 + step, i0:])
    xx = np.einsum("ij,ij->i", Xc, Xc)
    yy = xx if sym else np.einsum("ij,ij->i", Yc, Yc)
    if code == 2:
        return _gaussian_tiles(G, xx, yy, gamma, sym)
    return _distance_gram_kernel(G, xx, yy, sym)


def _centred(Xa, Ya, sym):
    """``X − mean(X)``, ``Y − mean(X)`` and the latter's transpose (contiguous): what every
    entry of :func:`_distance_gram` is computed from (also for single rows,
    :func:`gaussian_row_data`, whose bits must equal the matrix's)."""
    mu = Xa.mean(axis=0)
    Xc = Xa - mu
    Yc = Xc if sym else Ya - mu
    return Xc, Yc, np.ascontiguousarray(Yc.T)


def gaussian_row_data(Xa, gamma):
    """``(Xc, XcT, gamma)`` for computing rows of the Gaussian ``gram(X)`` one at a time
    with the same arithmetic (and so the same bits) as :func:`_distance_gram`, or ``None``
    when that matrix is not computed entry by entry (more than ``_DIRECT_COLUMNS``
    columns: BLAS).

    Row i of exp(−γ d²) is ``gaussian_direct_kernel(out, Xc[i:i+1], XcT, gamma, False, 0, 1)``:
    d² summed over the coordinates in the same order as in the matrix's tiles, where
    entries below the diagonal are mirrored from (x_j − x_i)², the same square as
    (x_i − x_j)², and the diagonal is exp(−0) = 1 exactly. Used by kernel SGD, which
    reads only the rows of the points it updates (:class:`kmlteach.kernel_methods.KernelSVM`).
    """
    if Xa.shape[1] > _DIRECT_COLUMNS:
        return None
    Xc, _, XcT = _centred(Xa, Xa, True)
    return Xc, XcT, float(gamma)


_TILE_BYTES = 1 << 18  # a tile of rows (256 KiB) is still in L2 when it is mirrored
# up to this many columns d² is summed over the coordinates in the tiles: no BLAS call
# (whose threads, spinning after a call, slowed the threads that follow on 2 busy cores)
_DIRECT_COLUMNS = 16


def _gaussian_tiles(G, xx, yy, gamma, sym, direct=False):
    """exp(−γ d²) in place, tile by tile: a Numba kernel computes a few rows of −γ d² and
    their exponentials with :func:`kmlteach._linalg.exp_nonpositive`, which LLVM
    vectorises for the CPU at hand (Numba's ``exp`` is a scalar call per entry, and so is
    NumPy's on CPUs without AVX-512; where NumPy's is vectorised, handing it the tile
    instead measured the same). Threads share the tiles (the kernels release the GIL;
    each entry is computed by one thread, whatever the thread count).
    With ``sym`` only the part on and above the diagonal, whose transpose is then
    written below it while the tile is still in cache (a separate mirror pass read G
    column-wise from memory: a quarter of the time). ``direct``: ``xx``, ``yy`` are the
    centred X and Yᵀ, and G is only written."""
    n, m = G.shape
    # at least 8 rows, so that the mirror writes whole 64-byte lines
    rows = max(min(8, n), min(n, _TILE_BYTES // (8 * m)))
    starts = range(0, n, rows)
    threads = min(num_threads(), len(starts))
    kernel = gaussian_direct_kernel if direct else _gaussian_exponent_kernel

    def work(part):
        for i0 in starts[part::threads]:
            i1 = min(i0 + rows, n)
            kernel(G, xx, yy, gamma, sym, i0, i1)
            if sym:
                _mirror_rows_kernel(G, i0, i1)

    thread_map(work, range(threads))
    return G


@jit(nogil=True, warmup=lambda: (np.eye(3), 0, 2))
def _mirror_rows_kernel(G, i0, i1):
    """G[j, i] = G[i, j] for the rows i0 ≤ i < i1 and every j > i: the transpose of a
    tile of rows, written one short contiguous run G[j, i0:i1] per j. Threads mirroring
    disjoint row ranges write disjoint columns, below every other tile's part."""
    n = G.shape[0]
    for j in range(i0 + 1, n):
        for i in range(i0, min(i1, j)):
            G[j, i] = G[i, j]


def _exponent_warmup():
    return np.eye(3), np.ones(3), np.ones(3), 0.5, True, 0, 3


@jit(nogil=True, warmup=_exponent_warmup)
def _gaussian_exponent_kernel(G, xx, yy, gamma, sym, i0, i1):
    """Rows i0..i1-1 of −γ d² in place, d² = xx_i + yy_j − 2 G[i, j] clipped at 0
    (rounding), exponentiated: K[i, j] = exp(−γ d²). With ``sym`` only columns j ≥ i0
    are touched: j > i, the diagonal exactly 1 and the few j < i inside the tile 1 too
    (overwritten by the mirror)."""
    m = G.shape[1]
    for i in range(i0, i1):
        xi = xx[i]
        j0 = 0
        if sym:
            for j in range(i0, i + 1):
                G[i, j] = 1.0
            j0 = i + 1
        row = G[i, j0:]  # slices: non-negative indices, so LLVM vectorises the loop
        yr = yy[j0:]
        for j in range(m - j0):
            d2 = xi + yr[j] - 2.0 * row[j]
            row[j] = exp_nonpositive(-gamma * (d2 if d2 > 0.0 else 0.0))


@jit(nogil=True, warmup=lambda: (np.eye(3), np.eye(3), np.eye(3), 0.5, True, 0, 3))
def gaussian_direct_kernel(G, X, YT, gamma, sym, i0, i1):
    """Rows i0..i1-1 of exp(−γ d²), d² = Σ_k (x_ik − y_jk)² (YT = Yᵀ),
    laid out as :func:`_gaussian_exponent_kernel` does; the loops over j are vectorised."""
    m = G.shape[1]
    for i in range(i0, i1):
        j0 = 0
        if sym:
            for j in range(i0, i + 1):
                G[i, j] = 1.0
            j0 = i + 1
        row = G[i, j0:]
        row[:] = 0.0
        for k in range(X.shape[1]):
            xk = X[i, k]
            yk = YT[k, j0:]
            for j in range(m - j0):
                t = yk[j] - xk
                row[j] += t * t
        for j in range(m - j0):
            row[j] = exp_nonpositive(-gamma * row[j])


@jit(parallel=True, warmup=lambda: (np.eye(3),))
def _mirror_upper_kernel(G):
    """G[i, j] = G[j, i] for j < i, 64 × 64 blocks at a time (order-free)."""
    n = G.shape[0]
    B = 64
    for bi in prange((n + B - 1) // B):
        i0 = bi * B
        i1 = min(i0 + B, n)
        for j0 in range(0, i1, B):
            for i in range(i0, i1):
                for j in range(j0, min(j0 + B, i)):
                    G[i, j] = G[j, i]
    return G


@jit(parallel=True, warmup=lambda: (np.eye(3), np.ones(3), np.ones(3), True))
def _distance_gram_kernel(G, xx, yy, sym):
    """−d in place from G[i, j] = <x_i, y_j> and the squared norms, d² = xx_i + yy_j −
    2 G[i, j] clipped at 0 (rounding); rows in parallel. With ``sym`` only j > i (the
    diagonal is exactly 0), then mirrored."""
    n, m = G.shape
    for i in prange(n):
        xi = xx[i]
        if sym:
            G[i, i] = 0.0
        for j in range(i + 1 if sym else 0, m):
            G[i, j] = -math.sqrt(max(xi + yy[j] - 2.0 * G[i, j], 0.0))
    if sym:
        _mirror_upper_kernel(G)
    return G
