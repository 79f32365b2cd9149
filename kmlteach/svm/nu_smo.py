"""The SMO kernel behind :func:`kmlteach.svm.nu_svm` and :func:`kmlteach.svm.one_class_svm`.

Solves ``min ½ αᵀQα``, ``Q_ij = s_i s_j K_ij``, ``0 ≤ α ≤ 1``, with the sum of α over
each group (at most two groups) fixed — libsvm's ν-solver (Chang & Lin 2001, 2011):

* a step moves one pair (i, j) of the same group along α_i + t, α_j − t;
* i = argmax of −∂ over the group's variables that can grow (α < 1); j by the
  second-order rule, the largest decrease b²/a with b = ∂_j − ∂_i > 0 and
  a = K_ii + K_jj − 2K_ij, over the variables that can shrink (α > 0); t = b/a clipped.
  For a group with s = −1 (the class y = −1 of ν-SVM) the roles are mirrored as in
  libsvm's y-scaled variables: j = argmin of −∂ over α > 0 first, then i by the
  second-order rule;
* ∂ = Qα is updated in the pass that selects the next i (two kernel rows per step);
* stop when every group has ``max_{α<1} −∂ − min_{α>0} −∂ ≤ tol`` (libsvm's test);
* shrinking: every min(n, 1000) steps a variable at a bound that cannot join a
  violating pair of its group leaves the group's active list; before convergence is
  declared ∂ is recomputed exactly and every variable is active again;
* kernel rows are computed when first needed (``kernel_value``) into an n × n buffer,
  or read from a Gram matrix filled by :func:`kmlteach.kernels.gram` (``code < 0``);
  once shrinking leaves at most half of the variables active, the active block is
  copied into contiguous arrays (as libsvm's cache holds active rows only), which
  made the late, tight-tolerance phase 15–40 % faster here.
"""

from __future__ import annotations

import numpy as np

from kmlteach._jit import jit
from kmlteach.kernels.evaluation import kernel_value

_TAU = 1e-12


def _rows_example():
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    return (
        np.empty((4, 4)),
        np.zeros(4, dtype=np.bool_),
        X,
        np.einsum("ij,ij->i", X, X),
        2,
        0.5,
        0.0,
        np.ones(4),
        np.array([1.0, 1.0, -1.0, -1.0]),
        np.array([0, 0, 1, 1], dtype=np.int64),
        np.full(4, 0.5),
        1e-8,
        1000,
    )


@jit(warmup=lambda: _rows_example()[2:7])
def _diag(X, sq, code, p1, p2):
    out = np.empty(X.shape[0])
    for i in range(X.shape[0]):
        out[i] = kernel_value(X[i], X[i], sq[i], sq[i], code, p1, p2)
    return out


@jit(warmup=lambda: (1,) + _rows_example()[:7])
def _ensure_row(i, K, have, X, sq, code, p1, p2):
    """Compute row i of the Gram matrix into K (once)."""
    if have[i]:
        return
    xi = X[i]
    for k in range(K.shape[1]):
        K[i, k] = kernel_value(xi, X[k], sq[i], sq[k], code, p1, p2)
    have[i] = True


@jit(warmup=lambda: _rows_example()[:7] + _rows_example()[8:11:2] + (np.zeros(4),))
def _exact_gradient(K, have, X, sq, code, p1, p2, s, al, G):
    """G = Qα with Q_ij = s_i s_j K_ij, summed over the nonzero α."""
    G[:] = 0.0
    n = K.shape[0]
    for j in range(n):
        if al[j] != 0.0:
            _ensure_row(j, K, have, X, sq, code, p1, p2)
            c = al[j] * s[j]
            for k in range(n):
                G[k] += c * K[j, k]
    for k in range(n):
        G[k] *= s[k]


def _group_example():
    K = np.array([[1.0, 0.2], [0.2, 1.0]])
    return (np.array([-0.5, 0.3]), K, np.array([0.5, 0.5]), np.ones(2), np.arange(2, dtype=np.int64), 2)


@jit(warmup=lambda: _group_example() + (0, 1, 0.1))
def _scan(G, K, al, s, act, cnt, pi, pj, sij):
    """Apply the pending step (pi ≥ 0) to ∂ on act[:cnt]; return (max −∂ over α < 1,
    min −∂ over α > 0, the argmax, the argmin)."""
    m = -np.inf
    M = np.inf
    i = -1
    j = -1
    for q in range(cnt):
        k = act[q]
        if pi >= 0:
            G[k] += sij * s[k] * (K[pi, k] - K[pj, k])
        v = -G[k]
        if al[k] < 1.0 and v > m:
            m = v
            i = k
        if al[k] > 0.0 and v < M:
            M = v
            j = k
    return m, M, i, j


@jit(warmup=lambda: _group_example()[:3] + (np.ones(2),) + _group_example()[4:] + (0, 0.5, False))
def _pick(G, K, al, diag, act, cnt, fixed, val, mirror):
    """Second-order choice of the partner of ``fixed`` in act[:cnt]: (score −b²/a, k, b/a).

    Not mirrored: ``fixed`` = i grows, k (α_k > 0) shrinks, b = val + ∂_k with
    val = −∂_i. Mirrored (libsvm's order for the class y = −1, whose first-order choice
    is the variable that shrinks): ``fixed`` = j, k (α_k < 1) grows, b = −∂_k − val
    with val = −∂_j.
    """
    best = np.inf
    kk = -1
    t = 0.0
    df = diag[fixed]
    for q in range(cnt):
        k = act[q]
        if mirror:
            if al[k] >= 1.0:
                continue
            b = -G[k] - val
        else:
            if al[k] <= 0.0:
                continue
            b = val + G[k]
        if b <= 0.0:
            continue
        a = max(df + diag[k] - 2.0 * K[fixed, k], _TAU)  # curvature along e_i − e_j
        if -b * b / a <= best:
            best, kk, t = -b * b / a, k, b / a
    return best, kk, t


@jit(warmup=lambda: (_group_example()[0], _group_example()[2], np.arange(2, dtype=np.int64), 2, 0.0, 1.0))
def _shrink(G, al, act, cnt, m, M):
    """Move bound variables that cannot join a violating pair to the end; new count."""
    q = 0
    while q < cnt:
        k = act[q]
        v = -G[k]
        if (al[k] == 0.0 and v < M) or (al[k] == 1.0 and v > m):
            cnt -= 1
            act[q] = act[cnt]
            act[cnt] = k
        else:
            q += 1
    return cnt


@jit(
    warmup=lambda: (
        (0, True, np.empty((2, 2)), np.zeros(2, dtype=np.bool_), np.array([1, 3], dtype=np.int64), 2)
        + _rows_example()[:7]
    )
)
def _ensure_pos(p, compact, Kp, haveP, idx, N, K, have, X, sq, code, p1, p2):
    """Row p of the position-space matrix Kp: K itself, or K restricted to the active
    variables ``idx[:N]`` (gathered from the full row, computed once)."""
    if not compact:
        _ensure_row(p, K, have, X, sq, code, p1, p2)
        return
    if haveP[p]:
        return
    v = idx[p]
    _ensure_row(v, K, have, X, sq, code, p1, p2)
    for q in range(N):
        Kp[p, q] = K[v, idx[q]]
    haveP[p] = True


@jit(warmup=_rows_example)
def _nu_smo_kernel(K, have, X, sq, code, p1, p2, diag, s, group, alpha0, tol, max_iter):
    """SMO (see the module docstring); group[i] in {0, 1}; ``have[i]`` marks rows of K
    already present. Returns (alpha, gradient Qα, steps, status); status 0 converged,
    1 step cap hit.

    The loop works in "position space": while many variables are active, positions are
    the variables and Kp is K; when shrinking leaves at most half of the positions
    active, those are copied into contiguous arrays (Kp = their block of K, filled row
    by row on demand), as libsvm's cache keeps rows of the active set only.
    """
    n = K.shape[0]
    al = alpha0.copy()
    G = np.empty(n)
    Kp, haveP, Gp, alp, sp, gp, dp = K, have, G, al, s, group, diag
    idx = np.arange(n)
    N = n
    compact = False
    act = np.empty((2, n), dtype=np.int64)
    cnt = np.zeros(2, dtype=np.int64)
    m = np.empty(2)
    M = np.empty(2)
    iu = np.empty(2, dtype=np.int64)
    jl = np.empty(2, dtype=np.int64)
    mirror = np.zeros(2, dtype=np.bool_)
    for k in range(n):
        if s[k] < 0.0:
            mirror[group[k]] = True
    shrink_every = min(n, 1000)
    counter = shrink_every
    need_exact = True
    unshrunk = False
    fresh = False
    it = 0
    status = 1
    sij = 0.0
    pi = -1
    pj = -1
    while True:
        if need_exact:
            if compact:  # back to all variables
                for p in range(N):
                    al[idx[p]] = alp[p]
                Kp, haveP, Gp, alp, sp, gp, dp = K, have, G, al, s, group, diag
                idx = np.arange(n)
                N = n
                compact = False
            _exact_gradient(K, have, X, sq, code, p1, p2, s, al, G)
            cnt[:] = 0
            for k in range(n):
                act[group[k], cnt[group[k]]] = k
                cnt[group[k]] += 1
            need_exact = False
            fresh = True
            pi = -1
        for g in range(2):
            m[g], M[g], iu[g], jl[g] = _scan(Gp, Kp, alp, sp, act[g], cnt[g], pi, pj, sij)
        pi = -1
        viol = max(m[0] - M[0], m[1] - M[1])
        if not unshrunk and viol <= 10.0 * tol and cnt[0] + cnt[1] < n:
            unshrunk = True  # libsvm: reactivate everything once, near the end
            need_exact = True
            counter = 1
            continue
        if viol <= tol:
            if cnt[0] + cnt[1] < n or not fresh:
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
            for g in range(2):
                cnt[g] = _shrink(Gp, alp, act[g], cnt[g], m[g], M[g])
                act[g, : cnt[g]].sort()  # ascending positions: rows are read in order
            na = cnt[0] + cnt[1]
            if 2 * na <= N:  # copy the active block into contiguous arrays
                P = np.concatenate((act[0, : cnt[0]], act[1, : cnt[1]]))
                for p in range(N):
                    al[idx[p]] = alp[p]
                Kn = np.empty((na, na))
                hn = np.zeros(na, dtype=np.bool_)
                for a in range(na):
                    if haveP[P[a]]:
                        for b in range(na):
                            Kn[a, b] = Kp[P[a], P[b]]
                        hn[a] = True
                Kp, haveP = Kn, hn
                Gp, alp, sp, gp, dp = Gp[P], alp[P], sp[P], gp[P], dp[P]
                idx = idx[P]
                N = na
                compact = True
                for a in range(cnt[0]):  # group 0 first in P, then group 1
                    act[0, a] = a
                for a in range(cnt[1]):
                    act[1, a] = cnt[0] + a
            continue
        best = np.inf
        bi = -1
        bj = -1
        bt = 0.0
        for g in range(2):
            if not (m[g] > M[g] and iu[g] >= 0):
                continue
            fixed = jl[g] if mirror[g] else iu[g]
            _ensure_pos(fixed, compact, Kp, haveP, idx, N, K, have, X, sq, code, p1, p2)
            val = M[g] if mirror[g] else m[g]
            score, k, t = _pick(Gp, Kp, alp, dp, act[g], cnt[g], fixed, val, mirror[g])
            if k >= 0 and score <= best:
                best = score
                bi, bj = (k, fixed) if mirror[g] else (fixed, k)
                bt = t
        if bj < 0:
            need_exact = True  # no descent pair although a violation was seen: purge drift
            if fresh:
                status = 0
                break
            continue
        _ensure_pos(bi, compact, Kp, haveP, idx, N, K, have, X, sq, code, p1, p2)
        _ensure_pos(bj, compact, Kp, haveP, idx, N, K, have, X, sq, code, p1, p2)
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
        sij = t * sp[bi]
        pi = bi
        pj = bj
        fresh = False
        it += 1
    if compact:  # stopped by max_iter inside a compact phase
        for p in range(N):
            al[idx[p]] = alp[p]
        _exact_gradient(K, have, X, sq, code, p1, p2, s, al, G)
    return al, G, it, status
