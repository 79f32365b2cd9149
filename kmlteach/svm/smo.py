"""Sequential minimal optimisation for the linear SVM duals (the engine of
:func:`kmlteach.svm.hard_svm` and of :func:`kmlteach.svm.soft_svm` with a bias).

``_smo_kernel`` is SMO (Platt 1998) in the form of libsvm (Fan, Chen & Lin 2005;
Chang & Lin 2011):

    minimise  1/2 ||sum_i alpha_i z_i||^2 + sum_i p_i alpha_i
    s.t.      sum_i s_i alpha_i = const,   0 <= alpha_i <= C,   s_i in {-1, +1}

on ``z_i = y_i x_i``, keeping ``w = sum_i alpha_i z_i`` up to date so that a gradient
entry costs one dot product and no Gram matrix is formed; libsvm's second-order
working-set selection, an incrementally updated gradient, and shrinking (variables
stuck at a bound leave the active block every ``min(m, 200)`` iterations and are all
reactivated before convergence is declared). ``mode=0`` is the C-SVC dual
(``p = -1``, ``s = y``); ``mode=1`` pairs only variables with the same ``s`` (the
nearest points of two convex hulls, used for the hard SVM; libsvm's nu-solver does the
same), stops relative to ``||w||^2`` and returns status 2 when ``||w||^2`` falls below
``small`` (the hulls touch: the sample is not separable).
"""

from __future__ import annotations

import numpy as np

from kmlteach._jit import HAVE_NUMBA, jit
from kmlteach._linalg import dot as _dot

__all__ = []


_TAU = 1e-12


if HAVE_NUMBA:
    from llvmlite import ir
    from numba import types
    from numba.extending import intrinsic

    @intrinsic
    def prefetch(typingctx, X, i, q):
        """Hint the CPU to load the cache line holding ``X[i, q]`` (2-D C array) soon
        (``llvm.prefetch``: never faults, has no effect on results)."""
        sig = types.void(X, i, q)

        def codegen(context, builder, signature, args):
            ary = context.make_array(signature.args[0])(context, builder, args[0])
            stride0 = builder.extract_value(ary.strides, 0)
            off = builder.add(
                builder.mul(args[1], stride0), builder.mul(args[2], ir.Constant(stride0.type, 8))
            )
            i8p = ir.IntType(8).as_pointer()
            ptr = builder.gep(builder.bitcast(ary.data, i8p), [off])
            i32 = ir.IntType(32)
            fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
            fn = builder.module.declare_intrinsic("llvm.prefetch", fnty=fnty)
            builder.call(fn, [ptr, ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])
            return context.get_dummy_value()

        return sig, codegen
else:  # pragma: no cover - plain Python fallback

    def prefetch(X, i, q):
        return None


def _smo_example():
    Z = np.array([[1.0, 1.0], [2.0, 0.5], [1.0, 1.5], [0.5, 2.0]])
    s = np.array([1.0, 1.0, -1.0, -1.0])
    return (Z, -np.ones(4), s, 10.0, np.zeros(4), 0, 1e-6, -1.0, 1000)


def _fetch_row_example():
    return (
        1,
        np.ones((3, 2)),
        3,
        np.zeros((2, 3)),
        np.full(3, -1, dtype=np.int64),
        np.full(2, -1, dtype=np.int64),
        np.zeros(1, dtype=np.int64),
        -1,
    )


@jit(warmup=_fetch_row_example)
def _fetch_row(i, Z, n_active, cache, slot_of, owner, clock, keep):
    """Slot of the cached row Q[i, k] = <z_i, z_k>, k < n_active (positions); the
    slot ``keep`` (the row of the other working variable) is never evicted."""
    sl = slot_of[i]
    if sl >= 0:
        return sl
    sl = clock[0]
    if sl == keep:
        sl = (sl + 1) % cache.shape[0]
    clock[0] = (sl + 1) % cache.shape[0]
    if owner[sl] >= 0:
        slot_of[owner[sl]] = -1
    owner[sl] = i
    slot_of[i] = sl
    zi = Z[i]
    for k in range(n_active):
        cache[sl, k] = _dot(zi, Z[k])
    return sl


@jit(warmup=lambda: (np.ones((3, 2)), 0, 2))
def _swap_rows(A, a, b):
    for q in range(A.shape[1]):
        tmp = A[a, q]
        A[a, q] = A[b, q]
        A[b, q] = tmp


@jit(warmup=_smo_example)
def _smo_kernel(Z, p, s, C, alpha0, mode, eps, small, max_iter):
    """SMO on the linear dual; returns (alpha, w, n_iter, status).

    status: 0 converged, 1 iteration limit reached, 2 ||w||^2 <= small (mode 1),
    3 (mode 0 with small > 0, used for hard SVM with C = inf) no w separating the
    two groups was seen within ``small`` iterations.

    The variables are kept in permuted working copies whose first ``n_active`` rows
    are the active set (contiguous in memory); rows Q[i, :n_active] of the working
    variables are cached and the cache is emptied whenever the active set changes.
    """
    m, d = Z.shape
    Za = Z.copy()
    pa = p.copy()
    ya = s.copy()
    al = alpha0.copy()
    idx = np.arange(m)
    diag = np.empty(m)
    for k in range(m):
        diag[k] = _dot(Za[k], Za[k])
    n_slots = max(2, min(m, 4_000_000 // m))
    cache = np.empty((n_slots, m))
    slot_of = np.full(m, -1, dtype=np.int64)
    owner = np.full(n_slots, -1, dtype=np.int64)
    clock = np.zeros(1, dtype=np.int64)
    w = np.zeros(d)
    G = np.empty(m)
    n_active = m
    shrink_every = min(m, 200)
    counter = shrink_every
    fresh = False  # G and w were recomputed exactly since the last step
    pending = False  # the last step still has to be applied to G
    sl_i = 0
    sl_j = 0
    di = 0.0
    dj = 0.0
    it = 0
    status = 1
    need_exact = True
    certified = False
    gup = np.empty(2)
    glow = np.empty(2)
    iup = np.empty(2, dtype=np.int64)
    while True:
        if need_exact:
            # exact w and gradient over all variables (start, unshrinking, final check)
            w[:] = 0.0
            for k in range(m):
                if al[k] != 0.0:
                    for q in range(d):
                        w[q] += al[k] * Za[k, q]
            for k in range(m):
                G[k] = _dot(Za[k], w) + pa[k]
            n_active = m
            slot_of[:] = -1
            owner[:] = -1
            need_exact = False
            fresh = True
            pending = False
        # ---- pass 1: apply the last step to G, find m_c, M_c and the candidate i
        #      (class c = 0 for s_k > 0 or in mode 0, else 1; scalars keep the loop in registers)
        gup0 = -np.inf
        gup1 = -np.inf
        glow0 = np.inf
        glow1 = np.inf
        iup0 = -1
        iup1 = -1
        for k in range(n_active):
            if pending:
                G[k] += di * cache[sl_i, k] + dj * cache[sl_j, k]
            yk = ya[k]
            ak = al[k]
            v = -yk * G[k]
            if yk > 0:
                up = ak < C
                low = ak > 0.0
            else:
                up = ak > 0.0
                low = ak < C
            if mode == 0 or yk > 0:
                if up and v >= gup0:
                    gup0 = v
                    iup0 = k
                if low and v < glow0:
                    glow0 = v
            else:
                if up and v >= gup1:
                    gup1 = v
                    iup1 = k
                if low and v < glow1:
                    glow1 = v
        gup[0] = gup0
        gup[1] = gup1
        glow[0] = glow0
        glow[1] = glow1
        iup[0] = iup0
        iup[1] = iup1
        pending = False
        # ---- stopping test (per class in mode 1)
        thresh = eps
        if mode == 1:
            ww = _dot(w, w)
            thresh = eps * ww
            if ww <= small:
                if not fresh:
                    need_exact = True
                    continue
                status = 2
                break
        ci = -1
        best_viol = thresh
        for c in range(2):
            if iup[c] >= 0 and glow[c] < np.inf:
                viol = gup[c] - glow[c]
                if viol > best_viol:
                    best_viol = viol
                    ci = c
        if ci < 0:
            if n_active < m or not fresh:
                need_exact = True  # reactivate everything / purge drift, then re-check
                continue
            status = 0
            break
        if it >= max_iter:
            status = 1
            break
        # ---- shrinking: drop variables stuck at a bound that cannot be selected
        counter -= 1
        if counter == 0:
            counter = shrink_every
            if mode == 0 and small > 0.0 and not certified:
                # does the current w separate the two groups (min over each > 0)?
                lo0 = np.inf
                lo1 = np.inf
                for k in range(m):
                    v = _dot(Za[k], w)
                    if ya[k] > 0:
                        lo0 = min(lo0, v)
                    else:
                        lo1 = min(lo1, v)
                if lo0 + lo1 > 0.0:
                    certified = True
                elif it >= small:
                    status = 3
                    break
            before = n_active
            k = 0
            while k < n_active:
                yk = ya[k]
                c = 0 if (mode == 0 or yk > 0) else 1
                v = -yk * G[k]
                in_up = (yk > 0 and al[k] < C) or (yk < 0 and al[k] > 0.0)
                in_low = (yk > 0 and al[k] > 0.0) or (yk < 0 and al[k] < C)
                if (in_up and not in_low and v < glow[c]) or (in_low and not in_up and v > gup[c]):
                    n_active -= 1
                    last = n_active
                    _swap_rows(Za, k, last)
                    pa[k], pa[last] = pa[last], pa[k]
                    ya[k], ya[last] = ya[last], ya[k]
                    al[k], al[last] = al[last], al[k]
                    idx[k], idx[last] = idx[last], idx[k]
                    diag[k], diag[last] = diag[last], diag[k]
                    G[k], G[last] = G[last], G[k]
                else:
                    k += 1
            if n_active < before:
                slot_of[:] = -1
                owner[:] = -1
            continue
        # ---- pass 2: second-order choice of j on the (cached) row of i
        i = iup[ci]
        yi = ya[i]
        vi = -yi * G[i]
        sl_i = _fetch_row(i, Za, n_active, cache, slot_of, owner, clock, -1)
        j = -1
        best = np.inf
        a_best = 1.0
        b_best = 0.0
        for k in range(n_active):
            yk = ya[k]
            if mode == 1 and yk != yi:
                continue
            if not ((yk > 0 and al[k] > 0.0) or (yk < 0 and al[k] < C)):
                continue
            bk = vi + yk * G[k]
            if bk > 0.0:
                a = diag[i] + diag[k] - 2.0 * yi * yk * cache[sl_i, k]
                if a <= 0.0:
                    a = _TAU
                score = -bk * bk / a
                if score <= best:
                    best = score
                    j = k
                    a_best = a
                    b_best = bk
        if j < 0:  # cannot happen when the violation is positive; be safe
            if not fresh:
                need_exact = True
                continue
            status = 0
            break
        sl_j = _fetch_row(j, Za, n_active, cache, slot_of, owner, clock, sl_i)
        # ---- the two-variable step along d_i = y_i, d_j = -y_j
        t = b_best / a_best
        yj = ya[j]
        lim_i = (C - al[i]) if yi > 0 else al[i]
        lim_j = al[j] if yj > 0 else (C - al[j])
        old_i = al[i]
        old_j = al[j]
        if lim_j <= t and lim_j <= lim_i:
            t = lim_j
            al[j] = 0.0 if yj > 0 else C
            al[i] = old_i + yi * t
        elif lim_i <= t:
            t = lim_i
            al[i] = C if yi > 0 else 0.0
            al[j] = old_j - yj * t
        else:
            al[i] = old_i + yi * t
            al[j] = old_j - yj * t
        di = al[i] - old_i
        dj = al[j] - old_j
        for q in range(d):
            w[q] += di * Za[i, q] + dj * Za[j, q]
        pending = True
        fresh = False
        it += 1
    alpha = np.empty(m)
    for k in range(m):
        alpha[idx[k]] = al[k]
    return alpha, w, it, status
