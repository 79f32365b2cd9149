"""The SMO kernel behind :func:`kmlteach.svm.nu_svm` and :func:`kmlteach.svm.one_class_svm`.

Solves ``min ½ αᵀQα``, ``Q_ij = s_i s_j K_ij``, ``0 ≤ α ≤ 1``, with the sum of α over
each group (at most two groups) fixed — libsvm's ν-solver (Chang & Lin 2001, 2011):

* a step moves one pair (i, j) of the same group along α_i + t, α_j − t;
* i = argmax of −∂ over the group's variables that can grow (α < 1); j by the
  second-order rule, the largest decrease b²/a with b = ∂_j − ∂_i > 0 and
  a = K_ii + K_jj − 2K_ij, over the variables that can shrink (α > 0); t = b/a clipped.
  For a group with s = −1 (the class y = −1 of ν-SVM) the roles are mirrored as in
  libsvm's y-scaled variables: j = argmin of −∂ over α > 0 first, then i by the
  second-order rule; ties go to the first variable (first-order choice) and to the
  last (second-order choice), in the order of the variables;
* ∂ = Qα is updated with the two kernel rows of the step;
* stop when every group has ``max_{α<1} −∂ − min_{α>0} −∂ ≤ tol`` (libsvm's test);
* shrinking: every min(n, 1000) steps a variable at a bound that cannot join a
  violating pair of its group leaves the active set; before convergence is declared
  ∂ is recomputed exactly and every variable is active again.

Layout (for speed only; the steps are those above): the caller passes the whole Gram
matrix with the variables **sorted by group** (group 0 first, each group in its
original order), so a group is a contiguous range. When shrinking removes variables,
the active block of K is copied into a smaller contiguous matrix ("positions"), as
libsvm's cache keeps rows of the active set only. Every pass is then a contiguous,
branch-free loop over one group's range; the maxima and minima are found with four
independent running values (exact: a maximum does not depend on the order), then
the first (or last) position attaining them, so the choice is the same as a single
ordered scan's.
"""

from __future__ import annotations

import numpy as np

from kmlteach._jit import jit

_TAU = 1e-12


def _example():
    K = np.array([[1.0, 0.5, 0.2, 0.1], [0.5, 1.0, 0.1, 0.2], [0.2, 0.1, 1.0, 0.5], [0.1, 0.2, 0.5, 1.0]])
    return (
        K,
        np.ones(4),
        np.array([1.0, 1.0, -1.0, -1.0]),
        np.array([0, 0, 1, 1], dtype=np.int64),
        np.full(4, 0.5),
        1e-8,
        1000,
    )


@jit(warmup=lambda: (_example()[0], _example()[2], _example()[4], np.zeros(4)))
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


@jit(warmup=lambda: (np.zeros(4), _example()[0], 0.5, 0, 1, 0, 4))
def _update(G, K, c, pi, pj, lo, hi):
    """∂_k += c (K_{pi,k} − K_{pj,k}) on lo..hi−1 (c = t s_i s_k, the group's sign)."""
    Gs = G[lo:hi]  # slices: non-negative indices, so LLVM vectorises the loop
    a = K[pi, lo:hi]
    b = K[pj, lo:hi]
    for k in range(Gs.shape[0]):
        Gs[k] += c * (a[k] - b[k])


@jit(warmup=lambda: (np.array([0.5, -0.3, 0.1, 0.2, 0.7]), 1.0))
def _max4(x, sign):
    """max of sign·x (sign = ±1) times sign, i.e. the max (sign 1) or the min (sign −1) of x,
    over four independent running values (exact: order-free)."""
    m0 = m1 = m2 = m3 = -np.inf
    n = x.shape[0]
    k = 0
    while k + 4 <= n:
        m0 = max(m0, sign * x[k])
        m1 = max(m1, sign * x[k + 1])
        m2 = max(m2, sign * x[k + 2])
        m3 = max(m3, sign * x[k + 3])
        k += 4
    while k < n:
        m0 = max(m0, sign * x[k])
        k += 1
    return sign * max(max(m0, m1), max(m2, m3))


@jit(warmup=lambda: (np.array([-0.5, 0.3, 0.1, 0.2]), np.full(4, 0.5), 0, 4, np.empty(4), np.empty(4)))
def _extremes(G, al, lo, hi, up, dn):
    """(max −∂ over α < 1, min −∂ over α > 0, first argmax, first argmin) on lo..hi−1;
    ``up`` and ``dn`` are scratch arrays (at least hi − lo long)."""
    L = hi - lo
    Gs = G[lo:hi]
    a = al[lo:hi]
    for k in range(L):  # branch-free, vectorised
        v = -Gs[k]
        up[k] = v if a[k] < 1.0 else -np.inf
        dn[k] = v if a[k] > 0.0 else np.inf
    m = _max4(up[:L], 1.0)
    M = _max4(dn[:L], -1.0)
    i = -1
    j = -1
    if m > -np.inf:
        for k in range(L):
            if up[k] == m:
                i = lo + k
                break
    if M < np.inf:
        for k in range(L):
            if dn[k] == M:
                j = lo + k
                break
    return m, M, i, j


def _pick_example():
    e = _example()
    return (np.array([-0.5, 0.3, 0.1, 0.2]), e[0], np.full(4, 0.5), np.ones(4), 0, 4, 0, 0.5, False) + (
        np.empty(4),
        np.empty(4),
    )


@jit(warmup=_pick_example)
def _pick(G, K, al, diag, lo, hi, fixed, val, mirror, num, den):
    """Second-order choice of the partner of ``fixed`` on lo..hi−1: (score −b²/a, k, b/a),
    the last k of least score; ``num``, ``den`` scratch arrays.

    Not mirrored: ``fixed`` = i grows, k (α_k > 0) shrinks, b = val + ∂_k with
    val = −∂_i. Mirrored (libsvm's order for the class y = −1, whose first-order choice
    is the variable that shrinks): ``fixed`` = j, k (α_k < 1) grows, b = −∂_k − val
    with val = −∂_j. a = K_ii + K_jj − 2K_ij (at least 1e-12) is the curvature along
    e_i − e_j.
    """
    L = hi - lo
    df = diag[fixed]
    Kf = K[fixed, lo:hi]
    Gs = G[lo:hi]
    a_ = al[lo:hi]
    d = diag[lo:hi]
    sg = -1.0 if mirror else 1.0
    sv = -val if mirror else val
    for k in range(L):  # branch-free, vectorised
        b = sg * Gs[k] + sv
        ok = (a_[k] < 1.0) if mirror else (a_[k] > 0.0)
        a = df + d[k] - 2.0 * Kf[k]
        den[k] = a if a > _TAU else _TAU
        num[k] = -b * b if (ok & (b > 0.0)) else np.inf
    sc = num[:L]
    np.divide(sc, den[:L], sc)  # NumPy's division: no zero test per entry, vectorised
    best = _max4(sc, -1.0)
    if best == np.inf:
        return best, -1, 0.0
    for k in range(L - 1, -1, -1):
        if sc[k] == best:
            return best, lo + k, (sg * Gs[k] + sv) / den[k]
    return best, -1, 0.0


@jit(warmup=lambda: (_example()[0], np.arange(2, dtype=np.int64)))
def _block(K, P):
    """K[P][:, P] as a new contiguous matrix."""
    na = P.shape[0]
    out = np.empty((na, na))
    for a in range(na):
        Ka = K[P[a]]
        for b in range(na):
            out[a, b] = Ka[P[b]]
    return out


@jit(warmup=_example)
def _nu_smo_kernel(K, diag, s, group, alpha0, tol, max_iter):
    """SMO (see the module docstring) on the full Gram matrix K, its variables sorted by
    group (group[i] in {0, 1}, non-decreasing). Returns (alpha, gradient Qα, steps,
    status); status 0 converged, 1 step cap hit."""
    n = K.shape[0]
    n0 = 0
    for k in range(n):
        n0 += group[k] == 0
    al = alpha0.copy()
    G = np.empty(n)
    sgn = np.ones(2)  # the sign s of each group
    for k in range(n):
        sgn[group[k]] = s[k]
    mirror = np.zeros(2, dtype=np.bool_)
    for g in range(2):
        mirror[g] = sgn[g] < 0.0
    # position space: Kp, Gp, alp, dp over the active variables idx[:N], group 0 on
    # [0, c0), group 1 on [c0, N)
    Kp, Gp, alp, dp = K, G, al, diag
    idx = np.arange(n)
    N = n
    c0 = n0
    lo = np.empty(2, dtype=np.int64)
    hi = np.empty(2, dtype=np.int64)
    m = np.empty(2)
    M = np.empty(2)
    iu = np.empty(2, dtype=np.int64)
    jl = np.empty(2, dtype=np.int64)
    w1 = np.empty(n)  # scratch
    w2 = np.empty(n)
    shrink_every = min(n, 1000)
    counter = shrink_every
    need_exact = True
    unshrunk = False
    fresh = False
    it = 0
    status = 1
    t = 0.0
    pi = -1
    pj = -1
    while True:
        if need_exact:
            if N < n:  # back to all variables
                for p in range(N):
                    al[idx[p]] = alp[p]
                Kp, Gp, alp, dp = K, G, al, diag
                idx = np.arange(n)
                N = n
                c0 = n0
            _exact_gradient(K, s, al, G)
            need_exact = False
            fresh = True
            pi = -1
        lo[0], hi[0], lo[1], hi[1] = 0, c0, c0, N
        if pi >= 0:
            sij = t * sgn[0 if pi < c0 else 1]
            for g in range(2):
                _update(Gp, Kp, sij * sgn[g], pi, pj, lo[g], hi[g])
        for g in range(2):
            m[g], M[g], iu[g], jl[g] = _extremes(Gp, alp, lo[g], hi[g], w1, w2)
        pi = -1
        viol = max(m[0] - M[0], m[1] - M[1])
        if not unshrunk and viol <= 10.0 * tol and N < n:
            unshrunk = True  # libsvm: reactivate everything once, near the end
            need_exact = True
            counter = 1
            continue
        if viol <= tol:
            if N < n or not fresh:
                need_exact = True
                counter = 1  # with the exact ∂, shrink again right away
                continue
            status = 0
            break
        if it >= max_iter:
            break
        counter -= 1
        if counter == 0:
            counter = shrink_every
            keep = np.empty(N, dtype=np.bool_)
            for g in range(2):
                for p in range(lo[g], hi[g]):
                    v = -Gp[p]
                    keep[p] = not ((alp[p] == 0.0 and v < M[g]) or (alp[p] == 1.0 and v > m[g]))
            P = np.flatnonzero(keep)
            if P.shape[0] < N:  # copy the active block into contiguous arrays
                c0 = 0
                for p in range(hi[0]):
                    c0 += keep[p]
                if N < n:
                    for p in range(N):
                        al[idx[p]] = alp[p]
                Kp = _block(Kp, P)
                Gp, alp, dp = Gp[P], alp[P], dp[P]
                idx = idx[P]
                N = P.shape[0]
            continue
        best = np.inf
        bi = -1
        bj = -1
        bt = 0.0
        for g in range(2):
            if not (m[g] > M[g] and iu[g] >= 0):
                continue
            fixed = jl[g] if mirror[g] else iu[g]
            val = M[g] if mirror[g] else m[g]
            score, k, tk = _pick(Gp, Kp, alp, dp, lo[g], hi[g], fixed, val, mirror[g], w1, w2)
            if k >= 0 and score <= best:
                best = score
                bi, bj = (k, fixed) if mirror[g] else (fixed, k)
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
    if N < n:  # stopped by max_iter inside a shrunk phase
        for p in range(N):
            al[idx[p]] = alp[p]
        _exact_gradient(K, s, al, G)
    return al, G, it, status
