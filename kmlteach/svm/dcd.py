"""Dual coordinate descent for the linear soft SVM without bias (Hsieh et al. 2008,
as in liblinear): the engine of :func:`kmlteach.svm.soft_svm`.

A random permutation of the active variables per epoch, liblinear's shrinking rule,
and an exact relative duality-gap check each time the projected-gradient test passes
(its threshold is lowered 10x while the gap is not yet small enough).
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
    return np.int64(x % np.uint64(n))


def _dcd_example():
    X = np.array([[1.0, 1.0], [2.0, 0.5], [-1.0, -1.5], [-0.5, -2.0]])
    y = np.array([1.0, 1.0, -1.0, -1.0])
    return (X, y, 1.0, 1e-8, 0, 100)


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
    for i in range(m):
        QD[i] = _dot(X[i], X[i])
    index = np.arange(m)
    active = m
    eps = 0.1
    PGmax_old = np.inf
    PGmin_old = -np.inf
    epoch = 0
    status = 1
    gap = np.inf
    while epoch < max_epochs:
        for s in range(active):
            r = s + _randbelow(state, active - s)
            index[s], index[r] = index[r], index[s]
        PGmax_new = -np.inf
        PGmin_new = np.inf
        s = 0
        while s < active:
            i = index[s]
            yi = y[i]
            Gi = yi * _dot(w, X[i]) - 1.0
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
                    new = C          # x_i = 0: the coordinate objective is linear
                alpha[i] = new
                step = (new - old) * yi
                if step != 0.0:
                    for q in range(d):
                        w[q] += step * X[i, q]
            s += 1
        epoch += 1
        if PGmax_new - PGmin_new <= eps:
            if active < m:
                active = m
                PGmax_old = np.inf
                PGmin_old = -np.inf
                continue
            # exact duality gap with a freshly recomputed w
            w[:] = 0.0
            for i in range(m):
                if alpha[i] != 0.0:
                    for q in range(d):
                        w[q] += alpha[i] * y[i] * X[i, q]
            ww = _dot(w, w)
            hinge_sum = 0.0
            asum = 0.0
            for i in range(m):
                h = 1.0 - y[i] * _dot(w, X[i])
                if h > 0.0:
                    hinge_sum += h
                asum += alpha[i]
            primal = 0.5 * ww + C * hinge_sum
            dual = asum - 0.5 * ww
            gap = (primal - dual) / max(abs(primal), 1e-300)
            if gap <= gap_tol:
                status = 0
                break
            eps *= 0.1
            PGmax_old = np.inf
            PGmin_old = -np.inf
            continue
        PGmax_old = PGmax_new if PGmax_new > 0.0 else np.inf
        PGmin_old = PGmin_new if PGmin_new < 0.0 else -np.inf
    return alpha, w, epoch, gap, status
