"""Dual coordinate descent for the linear soft SVM without bias (Hsieh et al. 2008,
as in liblinear): the engine of :func:`kmlteach.svm.soft_svm`.

A random permutation of the active variables per epoch, liblinear's shrinking rule,
and an exact relative duality-gap check each time the projected-gradient test passes
on all variables (its threshold is lowered 10x while the gap is not yet small enough).

Three things make it cheaper than liblinear on a large X without changing what a
coordinate step: the pass that re-checks every variable after the active set has
converged visits the rows in memory order, keeps the shrinking thresholds (liblinear
resets them and needs a second full pass), and skips the rows of variables whose
stored gradient, minus a bound on how far it can have moved since (||x_i|| times the
path length of w), still proves they would be shrunk; the gap check skips, on the
same bound, rows whose hinge term is provably 0.
"""

from __future__ import annotations

import numpy as np

from kmlteach._jit import jit
from kmlteach._linalg import dot as _dot

__all__ = []


@jit(warmup=lambda: (np.ones(1, dtype=np.uint64), 5))
def _randbelow(state, n):
    """Next xorshift64 number (Marsaglia 2003) reduced to 0..n-1; updates ``state``."""
    x = state[0]
    x ^= x << np.uint64(13)
    x ^= x >> np.uint64(7)
    x ^= x << np.uint64(17)
    state[0] = x
    # Lemire's multiply-shift instead of x % n (a 64-bit division costs ~40 cycles,
    # as much as a whole coordinate step on the small active sets of the last epochs)
    return np.int64(((x >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


def _dcd_example():
    X = np.array([[1.0, 1.0], [2.0, 0.5], [-1.0, -1.5], [-0.5, -2.0]])
    y = np.array([1.0, 1.0, -1.0, -1.0])
    return (X, y, 1.0, 1e-8, 0, 100)


def _gap_example():
    X, y = _dcd_example()[:2]
    return (
        X,
        y,
        1.0,
        np.full(4, 0.5),
        np.zeros(2),
        np.zeros(2),
        np.ones(4),
        np.zeros(4),
        np.full(4, -np.inf),
        0.0,
    )


@jit(warmup=_gap_example)
def _dcd_gap(X, y, C, alpha, w, w_inc, nrm, G_old, L_old, L):
    """Exact relative duality gap (primal - dual) / primal of the current alpha.

    Recomputes ``w = sum_i alpha_i y_i x_i`` in place (``w_inc`` receives the incremental
    w) and returns (gap, ||w - w_inc||). Rows whose hinge provably vanishes -- their stored
    gradient minus its drift bound (path length, the jump to the fresh w, and a rounding
    allowance) is still > 0 -- are not read: their hinge term is 0 either way.
    """
    m, d = X.shape
    w_inc[:] = w
    w[:] = 0.0
    for i in range(m):
        if alpha[i] != 0.0:
            for q in range(d):
                w[q] += alpha[i] * y[i] * X[i, q]
    jump = 0.0
    for q in range(d):
        jump += (w[q] - w_inc[q]) ** 2
    jump = np.sqrt(jump)
    ww = _dot(w, w)
    wn = np.sqrt(ww)
    rnd = 4e-16 * (d + 4)
    hinge_sum = 0.0
    asum = 0.0
    for i in range(m):
        asum += alpha[i]
        drift = L - L_old[i] + jump
        if G_old[i] - nrm[i] * (drift * (1.0 + rnd) + rnd * wn) > 0.0:
            continue
        g = y[i] * _dot(w, X[i]) - 1.0
        G_old[i] = g
        L_old[i] = L + jump
        if g < 0.0:
            hinge_sum -= g
    primal = 0.5 * ww + C * hinge_sum
    dual = asum - 0.5 * ww
    return (primal - dual) / max(abs(primal), 1e-300), jump


@jit(warmup=_dcd_example)
def _dcd_kernel(X, y, C, gap_tol, seed, max_epochs):
    """Dual coordinate descent for min 1/2||w||^2 + C sum hinge(y_i <w,x_i>).

    Returns (alpha, w, n_epochs, relative duality gap, status 0 converged / 1 limit).
    """
    m, d = X.shape
    # a private xorshift64 generator (reseeding Numba's global RNG would affect others)
    state = np.empty(1, dtype=np.uint64)
    state[0] = np.uint64(seed) * np.uint64(2654435761) + np.uint64(88172645463325252)
    alpha = np.zeros(m)
    w = np.zeros(d)
    QD = np.empty(m)
    nrm = np.empty(m)
    for i in range(m):
        QD[i] = _dot(X[i], X[i])
        nrm[i] = np.sqrt(QD[i])
    # G_old[i]: the gradient y_i<w, x_i> - 1 when variable i was last visited, and
    # L_old[i] the path length L = sum |step| ||x_j|| of w at that moment: then
    # |G_i(w) - G_old[i]| <= ||x_i|| (L - L_old[i]), so a re-check pass can shrink a
    # variable again without reading its row when the bound already proves it would be
    G_old = np.zeros(m)
    L_old = np.full(m, -np.inf)
    L = 0.0
    w_inc = np.empty(d)
    index = np.arange(m)
    active = m
    eps = 0.1
    PGmax_old = np.inf
    PGmin_old = -np.inf
    epoch = 0
    status = 1
    gap = np.inf
    recheck = False
    while epoch < max_epochs:
        full = active == m
        bounded = recheck
        if recheck:
            # the pass after unshrinking mostly re-checks variables that are shrunk again
            # at once: visit the rows in memory order (on a large X a random order costs
            # a cache and TLB miss per row, several times slower)
            for s in range(m):
                index[s] = s
            recheck = False
        else:
            for s in range(active):
                r = s + _randbelow(state, active - s)
                index[s], index[r] = index[r], index[s]
        PGmax_new = -np.inf
        PGmin_new = np.inf
        s = 0
        while s < active:
            i = index[s]
            if bounded and (alpha[i] == 0.0 or alpha[i] == C):
                slack = nrm[i] * (L - L_old[i]) + 1e-12 * (1.0 + abs(G_old[i]))
                if (alpha[i] == 0.0 and G_old[i] - slack > PGmax_old) or (
                    alpha[i] == C and G_old[i] + slack < PGmin_old
                ):
                    active -= 1
                    index[s], index[active] = index[active], index[s]
                    continue
            yi = y[i]
            Gi = yi * _dot(w, X[i]) - 1.0
            G_old[i] = Gi
            L_old[i] = L
            PG = 0.0
            if alpha[i] == 0.0:
                if Gi > PGmax_old:
                    active -= 1
                    index[s], index[active] = index[active], index[s]
                    continue
                elif Gi < 0.0:
                    PG = Gi
            elif alpha[i] == C:
                if Gi < PGmin_old:
                    active -= 1
                    index[s], index[active] = index[active], index[s]
                    continue
                elif Gi > 0.0:
                    PG = Gi
            else:
                PG = Gi
            if PG > PGmax_new:
                PGmax_new = PG
            if PG < PGmin_new:
                PGmin_new = PG
            if abs(PG) > 1e-14:
                old = alpha[i]
                if QD[i] > 0.0:
                    new = min(max(old - Gi / QD[i], 0.0), C)
                else:
                    new = C  # x_i = 0: the coordinate objective is linear
                alpha[i] = new
                step = (new - old) * yi
                if step != 0.0:
                    for q in range(d):
                        w[q] += step * X[i, q]
                    L += abs(step) * nrm[i]
            s += 1
        epoch += 1
        # thresholds for the next pass: a variable at a bound whose gradient points
        # outward by more than any violation seen leaves the active set
        PGmax_old = PGmax_new if PGmax_new > 0.0 else np.inf
        PGmin_old = PGmin_new if PGmin_new < 0.0 else -np.inf
        if PGmax_new - PGmin_new <= eps:
            if not full:
                # converged on the active set: re-check every variable. (liblinear also
                # resets the thresholds to +-inf here; keeping them only shrinks variables
                # whose projected gradient is 0, so the test below is unchanged, and it
                # saves a second full pass per round.)
                active = m
                recheck = True
                continue
            gap, jump = _dcd_gap(X, y, C, alpha, w, w_inc, nrm, G_old, L_old, L)
            # the fresh w lies ||w - w_inc|| from the incremental one: the path length
            # absorbs the jump, so every stored bound stays valid
            L += jump
            if gap <= gap_tol:
                status = 0
                break
            eps *= 0.1
    return alpha, w, epoch, gap, status
