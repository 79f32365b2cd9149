"""The SMO kernel behind :func:`kmlteach.svm.nu_svm` and :func:`kmlteach.svm.one_class_svm`.

Solves ``min ½ αᵀQα``, ``Q_ij = s_i s_j K_ij``, ``0 ≤ α ≤ 1``, with the sum of α over
each group (at most two groups) fixed — libsvm's ν-solver (Chang & Lin 2001, 2011;
``Solver_NU`` in libsvm's ``svm.cpp``):

* a step moves one pair (i, j) of the same group along α_i + t, α_j − t;
* i = argmax of −∂ over the group's variables that can grow (α < 1); j by the
  second-order rule, the largest decrease b²/a with b = ∂_j − ∂_i > 0 and
  a = K_ii + K_jj − 2K_ij (τ = 10⁻¹² when a ≤ 0), over the variables that can shrink
  (α > 0); t = b/a clipped. For a group with s = −1 the roles are mirrored as in
  libsvm's y-scaled variables: j = argmin of −∂ over α > 0 first, then i by the
  second-order rule. Ties as in libsvm: the last variable attaining the first-order
  extreme, the last of largest decrease, the second group's on a tie between groups (in
  the order of the variables);
* ∂ = Qα is updated with the two kernel rows of the step;
* stop when every group has ``max_{α<1} −∂ − min_{α>0} −∂ ≤ tol`` (libsvm's test);
* shrinking: every min(n, 1000) steps a variable at a bound that cannot join a
  violating pair of its group leaves the active set; once the violation is below
  10 tol every variable is active again.

**Exactness.** The steps read a float32 copy of the kernel matrix, as libsvm's kernel
cache does (its ``Qfloat``), which halves the memory the steps stream through. Convergence
is only ever declared on the gradient recomputed in float64 from the float64 matrix, with
every variable active: when the updated gradient says "converged", ∂ = Qα is recomputed
exactly and the test repeated; if it fails (the float32 rounding drifted ∂), the steps go
on from the exact gradient. float32 holds a kernel value to 2⁻²⁴ max_i K_ii, so a step's
update of ∂ is good to about 2⁻²³ max_i K_ii: when ``tol`` is finer than that, or when
the float32 steps have not converged after 100 n + 10⁵ steps (a degenerate matrix, such
as a linear kernel of rank d < n, may never let them), the remaining steps are made on the
float64 matrix itself, without shrinking. So the returned α meets ``tol`` in float64;
only the path may differ from an all-float64 one (by rounding).

**Layout** (for speed only; the steps are those above). The caller passes the whole
float64 Gram matrix with the variables **sorted by group** (group 0 first, each group in
its original order), so a group is a contiguous range, and a float32 buffer of
:func:`_work_size` (n) entries, about 1.8 n² (allocated by NumPy, which asks the kernel for
huge pages: 4 KiB page faults on a fresh 16 MB buffer took about 6 ms here, a few thousand
SMO steps). Its first n² entries receive the float32 matrix once, and are never written
again, so that reactivating every variable (libsvm's unshrinking, and each confirmation
on the exact gradient) costs nothing: an earlier version compacted the only copy in place
and converted the float64 matrix again at each of them, 1-3 times a run (0.9 ms each at
n = 2 000). The active block is kept contiguous (N × N, row-major) in the rest of the
buffer: shrinking copies it there from the whole matrix, and afterwards compacts it **in
place** (every entry moves to a lower address, in increasing order, so nothing is
overwritten before it is read), and only when at least 1/8 of the active variables leave
— a compaction reads the whole block, and a few variables fewer do not pay for it (the
others, merely shrinkable, stay active: they only cost their share of each pass). So the
first compacted block has at most (n − ⌈n/8⌉)² entries.

**Passes.** A step makes two passes over the active variables: the gradient update
fused with the first-order extremes of both signs, then the second-order scores. Both
are branch-free loops LLVM vectorises: maxima and minima are taken on int64 *keys* with
the order of the float64 values (the IEEE bit pattern, negatives' magnitude bits
flipped; for the decreases b²/a ≥ 0 the bit pattern itself), because a floating-point
max reduction is only vectorised under fast-math, which this package does not use; the
extreme's value is its key mapped back, and the position of a group's first-order choice
(the argmax, or for a mirrored group the argmin; the other extreme's position is never
used) is found by a second, also vectorised, pass over the stored keys. The division of
the second-order score is in the loop (its divisor is clamped away from 0 first, which
lets LLVM drop Numba's zero-division check). Measured on the 2 000 × 10 grid of
``benchmarks/bench_ch09.py`` (thread CPU time, AVX-512): 0.9–3.2 µs per step, against
1.3–9.5 µs for the previous all-float64 version, which copied the active block into a
fresh array at every shrink; the intact whole matrix and the single position pass then
took another 11 % off the SMO time of the whole grid, 5–30 % in its σ = 5 cells (the same
steps, bit for bit).
Tried and dropped: keeping only each block of 128 variables' extreme in the passes (no
stored keys; the last block attaining the extreme scanned again) was 1.2–1.8 times
slower; indexing the rows by offset instead of slicing them changed nothing.
"""

from __future__ import annotations

import numpy as np

from kmlteach._jit import jit

_TAU = 1e-12
_COMPACT = 8  # compact the active block when at least 1/_COMPACT of its variables leave
_LOW = 0x7FFFFFFFFFFFFFFF
_IMIN = -0x8000000000000000
_IMAX = 0x7FFFFFFFFFFFFFFF


def _work_size(n: int) -> int:
    """Length of the float32 buffer :func:`_nu_smo_kernel` needs for n variables: the whole
    matrix (n²) and the first compacted block, at most (n − ⌈n/_COMPACT⌉)² entries."""
    m = n - -(-n // _COMPACT)
    return n * n + m * m


def _example():
    K = np.array([[1.0, 0.5, 0.2, 0.1], [0.5, 1.0, 0.1, 0.2], [0.2, 0.1, 1.0, 0.5], [0.1, 0.2, 0.5, 1.0]])
    return (
        K,
        np.zeros(_work_size(4), dtype=np.float32),
        np.ones(4),
        np.array([1.0, 1.0, -1.0, -1.0]),
        np.array([0, 0, 1, 1], dtype=np.int64),
        np.full(4, 0.5),
        1e-8,
        1000,
    )


@jit(warmup=lambda: (_example()[0], _example()[3], _example()[5], np.zeros(4)))
def _exact_gradient(K, s, al, G):
    """G = Qα with Q_ij = s_i s_j K_ij, summed over the nonzero α in index order."""
    n = K.shape[0]
    G[:] = 0.0
    for j in range(n):
        if al[j] != 0.0:
            c = al[j] * s[j]
            Kj = K[j]
            for k in range(n):
                G[k] += c * Kj[k]
    for k in range(n):
        G[k] *= s[k]


@jit(warmup=lambda: (_example()[0], np.empty(16, dtype=np.float32)))
def _to_work(K, W):
    """W[:n²] = float32(K), row-major."""
    n = K.shape[0]
    for i in range(n):
        Ki = K[i]
        Wi = W[i * n : (i + 1) * n]
        for k in range(n):
            Wi[k] = Ki[k]


@jit(warmup=lambda: (np.arange(16, dtype=np.float32), 4, np.array([0, 2, 3]), np.empty(9, dtype=np.float32)))
def _compact(W, N, P, B):
    """B[:|P|²] = the P × P sub-block of the N × N block W[:N²] (row-major, P increasing),
    also in place (B is W): entry (a, b) moves from P[a]·N + P[b] down to a·|P| + b, and
    the moves go in increasing order of address, so no entry is overwritten before it is
    read."""
    M = P.shape[0]
    for a in range(M):
        src = P[a] * N
        dst = a * M
        for b in range(M):
            B[dst + b] = W[src + P[b]]


@jit(warmup=lambda: (-0.5,))
def _key(v):
    """An int64 with the order of the float64 ``v`` (not NaN): its bit pattern, with the
    magnitude bits of negative numbers flipped. Integer maxima vectorise."""
    b = np.float64(v).view(np.int64)
    return b ^ ((b >> 63) & _LOW)


@jit(warmup=lambda: (np.array([3, 1, 3, 2], dtype=np.int64), 3))
def _last_eq(x, v):
    """The last k with x[k] == v (−1 if none): a pass without early exit, which LLVM
    vectorises (a search that stops at the first hit measured 2-3 times slower)."""
    i = -1
    for k in range(x.shape[0]):
        i = k if x[k] == v else i
    return i


def _extremes_example():
    W = np.arange(16, dtype=np.float32) / 16
    G = np.array([-0.5, 0.3, 0.1, 0.2])
    return G, np.full(4, 0.5), W[:4], W[4:8], 0.5, 0, 4, False, np.empty(4, dtype=np.int64)


@jit(warmup=_extremes_example)
def _update_extremes(G, al, Wi, Wj, c, lo, hi, mirror, sc):
    """On lo..hi−1: ∂_k += c (W_ik − W_jk) (nothing changes with c = 0), then (max −∂
    over α < 1, min −∂ over α > 0, f), −inf / inf on empty sets, with f the position of
    the group's first-order choice (−1 if none): the last argmax (the variable that grows),
    or if ``mirror`` the last argmin (the one that shrinks); the position of the other
    extreme is not needed (its partner is chosen by the second-order rule). ``sc`` (int64,
    at least hi − lo long) receives the keys of f's side."""
    L = hi - lo
    Gs = G[lo:hi]  # slices: non-negative indices, so LLVM vectorises the loops
    a = al[lo:hi]
    ri = Wi[lo:hi]
    rj = Wj[lo:hi]
    mu = _IMIN
    md = _IMAX
    for k in range(L):
        g = Gs[k] + c * (np.float64(ri[k]) - np.float64(rj[k]))
        Gs[k] = g
        key = _key(-g)
        u = key if a[k] < 1.0 else _IMIN
        d = key if a[k] > 0.0 else _IMAX
        sc[k] = d if mirror else u
        mu = max(mu, u)
        md = min(md, d)
    m = -np.inf
    M = np.inf
    f = -1
    if mu > _IMIN:
        m = _unkey(mu)
    if md < _IMAX:
        M = _unkey(md)
    if mirror and md < _IMAX:
        f = lo + _last_eq(sc[:L], md)
    if not mirror and mu > _IMIN:
        f = lo + _last_eq(sc[:L], mu)
    return m, M, f


@jit(warmup=lambda: (_key(-0.5),))
def _unkey(b):
    """The float64 whose key (:func:`_key`) is ``b``."""
    return np.int64(b ^ ((b >> 63) & _LOW)).view(np.float64)


def _pick_example():
    W = np.arange(16, dtype=np.float32) / 16
    G = np.array([-0.5, 0.3, 0.1, 0.2])
    return G, W[:4], np.full(4, 0.5), np.ones(4), 0, 4, 1.0, 0.5, False, np.empty(4, dtype=np.int64)


@jit(warmup=_pick_example)
def _pick(G, Wf, al, diag, lo, hi, df, val, mirror, sc):
    """Second-order choice of the partner of the first-order variable f (its kernel row
    ``Wf``, its diagonal entry ``df``) on lo..hi−1: (score −b²/a, k, b/a), the last k of
    least score, or (inf, −1, 0) if no k qualifies; ``sc`` int64 scratch.

    Not mirrored: f = i grows, k (α_k > 0) shrinks, b = val + ∂_k with val = −∂_i.
    Mirrored (libsvm's order for the group with s = −1, whose first-order choice is the
    variable that shrinks): f = j, k (α_k < 1) grows, b = −∂_k − val with val = −∂_j.
    a = K_ff + K_kk − 2K_fk, the curvature along e_i − e_j (τ where a ≤ 0).
    """
    L = hi - lo
    Kf = Wf[lo:hi]
    Gs = G[lo:hi]
    a_ = al[lo:hi]
    d = diag[lo:hi]
    sg = -1.0 if mirror else 1.0
    sv = -val if mirror else val
    best = -1
    for k in range(L):  # branch-free, vectorised (division included: its divisor is > 0)
        b = sg * Gs[k] + sv
        ok = (a_[k] < 1.0) if mirror else (a_[k] > 0.0)
        a = df + d[k] - 2.0 * np.float64(Kf[k])
        den = a if a > 0.0 else _TAU
        # the decrease b²/a >= 0: its bit pattern has its order (−1 below every one)
        q = np.float64(b * b / den).view(np.int64) if (ok & (b > 0.0)) else -1
        sc[k] = q
        best = max(best, q)
    if best < 0:
        return np.inf, -1, 0.0
    k = _last_eq(sc[:L], best)
    b = sg * Gs[k] + sv
    a = df + d[k] - 2.0 * np.float64(Kf[k])
    den = a if a > 0.0 else _TAU
    return -b * b / den, lo + k, b / den


@jit(warmup=_example)
def _nu_smo_kernel(K, W, diag, s, group, alpha0, tol, max_iter):
    """SMO (see the module docstring) on the full float64 Gram matrix K, its variables
    sorted by group (group[i] in {0, 1}, non-decreasing), with W a float32 buffer of at
    least :func:`_work_size` (n) entries (not checked here: the caller allocates it).
    Returns (alpha, gradient Qα in float64, steps, status); status 0 converged, 1 step
    cap hit."""
    n = K.shape[0]
    al = alpha0.copy()
    G = np.empty(n)
    it, status = _smo_loop(K, W, True, diag, s, group, al, G, tol, max_iter, 0)
    if status == 2:  # the float32 steps cannot meet tol: the end in float64, on K itself
        it, status = _smo_loop(K, K.reshape(n * n), False, diag, s, group, al, G, tol, max_iter, it)
    return al, G, it, status


@jit
def _smo_loop(K, W, work32, diag, s, group, al, G, tol, max_iter, it):
    """The steps from α = ``al`` (original order; updated in place, with G = Qα exact at
    the end). ``work32``: W is the float32 buffer (the whole matrix in W[:n²], written
    once and kept intact; the active block, once compacted, in W[n²:]), and status 2 is
    returned when the exact gradient shows a violation above ``tol`` after the float32
    steps had met it (their rounding is then too coarse for this tol); otherwise W is K
    itself (flattened), never compacted. Returns (steps, status), status 0 converged,
    1 step cap hit."""
    n = K.shape[0]
    n0 = 0
    for k in range(n):
        n0 += group[k] == 0
    sgn = np.ones(2)  # the sign s of each group
    for k in range(n):
        sgn[group[k]] = s[k]
    mirror = np.zeros(2, dtype=np.bool_)
    for g in range(2):
        mirror[g] = sgn[g] < 0.0
    # position space: the active variables idx[:N]; group 0 on [0, c0), group 1 on
    # [c0, N); their gradient Gp, α alp, diagonal dp and the block W[:N²]
    Gp = np.empty(n)
    alp = al.copy()
    dp = np.empty(n)
    idx = np.arange(n)
    N = n
    c0 = n0
    lo = np.empty(2, dtype=np.int64)
    hi = np.empty(2, dtype=np.int64)
    m = np.empty(2)
    M = np.empty(2)
    fo = np.empty(2, dtype=np.int64)  # each group's first-order choice
    w1 = np.empty(n, dtype=np.int64)  # scratch (keys)
    keep = np.empty(n, dtype=np.bool_)
    shrink_every = min(n, 1000)
    counter = shrink_every
    need_exact = True
    unshrunk = False
    fresh = False  # Gp is the exact gradient and every variable is active
    filled = False  # W holds the float32 matrix
    status = 1
    # float32 holds a kernel value to 2⁻²⁴ max_i K_ii (|K_ij| <= max K_ii for a kernel),
    # a step's update of ∂ to 2⁻²³ max K_ii: the float32 phase aims at no less, and gives
    # up after 100 n + 10⁵ steps (a degenerate matrix, e.g. a linear kernel of rank d < n)
    full = W[: n * n]  # the float32 matrix (or K itself), and the compacted active block
    blk = W[n * n :]
    big = n - (n + _COMPACT - 1) // _COMPACT  # the largest compacted block (see _work_size)
    compact = work32 and blk.shape[0] >= big * big  # (a smaller buffer: no compaction)
    Wc = full
    tol32 = tol
    budget = it + 100 * n + 100_000
    if work32:
        for k in range(n):
            tol32 = max(tol32, 2.0**-23 * abs(diag[k]))
    t = 0.0
    pi = -1
    pj = -1
    while True:
        if need_exact:
            for p in range(N):
                al[idx[p]] = alp[p]
            if work32 and not filled:  # the whole float32 matrix, once: compaction
                _to_work(K, full)  # writes elsewhere, so it stays intact for every unshrink
                filled = True
            Wc = full
            N = n
            c0 = n0
            idx = np.arange(n)
            for p in range(n):
                alp[p] = al[p]
                dp[p] = diag[p]
            _exact_gradient(K, s, al, G)
            Gp[:n] = G
            need_exact = False
            fresh = True
            pi = -1
        lo[0], hi[0], lo[1], hi[1] = 0, c0, c0, N
        if pi >= 0:
            sij = t * sgn[0 if pi < c0 else 1]
            Wi = Wc[pi * N : (pi + 1) * N]
            Wj = Wc[pj * N : (pj + 1) * N]
            for g in range(2):
                m[g], M[g], fo[g] = _update_extremes(
                    Gp, alp, Wi, Wj, sij * sgn[g], lo[g], hi[g], mirror[g], w1
                )
        else:
            for g in range(2):
                m[g], M[g], fo[g] = _update_extremes(Gp, alp, Wc, Wc, 0.0, lo[g], hi[g], mirror[g], w1)
        pi = -1
        viol = max(m[0] - M[0], m[1] - M[1])
        if fresh and viol <= tol:
            status = 0  # exact gradient, every variable active: converged
            break
        if not unshrunk and viol <= 10.0 * tol32 and N < n:
            unshrunk = True  # libsvm: reactivate everything once, near the end
            need_exact = True
            counter = 1
            continue
        if viol <= tol32:
            if fresh:  # tol < exact violation <= tol32: below float32's resolution
                status = 2
                break
            need_exact = True  # confirm on the exact gradient (if not, go on from it)
            counter = 1  # with the exact ∂, shrink again right away
            continue
        if it >= max_iter:
            break
        if work32 and it >= budget:
            status = 2  # the float32 steps make no headway: finish in float64
            break
        counter -= 1
        if counter == 0:
            counter = shrink_every
            kept = 0
            for g in range(2):
                for p in range(lo[g], hi[g]):
                    v = -Gp[p]
                    keep[p] = not ((alp[p] == 0.0 and v < M[g]) or (alp[p] == 1.0 and v > m[g]))
                    kept += keep[p]
            if compact and _COMPACT * (N - kept) >= N:
                for p in range(N):  # the leaving variables keep their values in al
                    al[idx[p]] = alp[p]
                P = np.flatnonzero(keep[:N])
                c0 = 0
                for p in range(hi[0]):
                    c0 += keep[p]
                _compact(full if N == n else blk, N, P, blk)  # whole matrix intact
                Wc = blk
                N = P.shape[0]
                for a in range(N):
                    Gp[a] = Gp[P[a]]
                    alp[a] = alp[P[a]]
                    dp[a] = dp[P[a]]
                idx = idx[P]
                fresh = False
            continue
        best = np.inf
        bi = -1
        bj = -1
        bt = 0.0
        for g in range(2):
            if not (m[g] > M[g] and fo[g] >= 0):
                continue
            f = fo[g]
            val = M[g] if mirror[g] else m[g]
            score, k, tk = _pick(
                Gp, Wc[f * N : (f + 1) * N], alp, dp, lo[g], hi[g], dp[f], val, mirror[g], w1
            )
            if k >= 0 and score <= best:
                best = score
                bi, bj = (k, f) if mirror[g] else (f, k)
                bt = tk
        if bj < 0:
            need_exact = True  # no descent pair although a violation was seen: purge drift
            if fresh:
                status = 0
                break
            continue
        up_i = 1.0 - alp[bi]
        if bt >= up_i and up_i <= alp[bj]:  # α_i reaches 1
            t = up_i
            alp[bi] = 1.0
            alp[bj] -= t
        elif bt >= alp[bj]:  # α_j reaches 0
            t = alp[bj]
            alp[bi] += t
            alp[bj] = 0.0
        else:
            t = bt
            alp[bi] += t
            alp[bj] -= t
        pi = bi
        pj = bj
        fresh = False
        it += 1
    for p in range(N):
        al[idx[p]] = alp[p]
    if not fresh:  # stopped by max_iter: the exact gradient of the α returned
        _exact_gradient(K, s, al, G)
    return it, status
