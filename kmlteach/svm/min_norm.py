"""Wolfe's minimum-norm-point algorithm, the exact fast path of :func:`kmlteach.svm.hard_svm`.

The hard-SVM (UML §15.1, (15.2)) is the nearest-points problem of the two convex hulls:
with ``P`` the positive and ``N`` the negative points, its solution is ``w = 2u/||u||²``
where ``u`` is the point of smallest norm in ``conv(P) - conv(N) = conv{x_p - x_n}``;
without a bias ((15.3)) ``w = u/||u||²`` for the smallest-norm point ``u`` of
``conv{y_i x_i}`` (Bennett & Bredensteiner 2000; not in the course sources).

Wolfe (1976) finds the minimum-norm point of a polytope exactly, in finitely many steps,
by an active-set method on a *corral* of at most d + 1 affinely independent vertices:

* major step: the vertex ``q`` minimising ``<u, q>`` (one pass over the m points:
  the positive point with the smallest score minus the negative one with the largest);
  stop when ``||u||² - <u, q>`` <= ``eps ||u||²`` — this is exactly the certificate that
  (w, b) has functional margin >= 1 - eps on every point;
* minor steps: the point of smallest norm in the affine hull of the corral
  (``mu ∝ (c 11ᵀ + G)⁻¹ 1`` for the corral's Gram matrix G, by Cholesky); if its
  weights are all positive it is the new ``u``, otherwise move towards it until a
  weight hits 0 and drop that vertex.

The support vectors of the SVM are the points used by the final corral; SMO
(:mod:`kmlteach.svm.smo`) needs 10⁴–10⁶ two-variable steps on the same problem because
the hard-margin dual is badly conditioned, Wolfe about as many steps as there are
support vectors.
"""

from __future__ import annotations

import numpy as np

from kmlteach._jit import jit
from kmlteach._linalg import dot as _dot

__all__ = []


def _wolfe_example():
    X = np.array([[0.0, 0.0], [0.0, 1.0], [2.0, 0.0], [2.0, 1.0]])
    y = np.array([-1.0, -1.0, 1.0, 1.0])
    return (X, y, False, 1e-12, 0.0, 100)


@jit(warmup=lambda: (np.array([[2.0, 1.0], [1.0, 2.0]]), 2, 1.0, np.zeros((2, 2)), np.zeros(2)))
def _affine_min_norm(G, k, c, L, mu):
    """Weights ``mu`` (sum 1) of the smallest-norm point of the affine hull of k vertices
    with Gram matrix ``G[:k, :k]``: ``mu ∝ (c 11ᵀ + G)⁻¹ 1`` (Cholesky into ``L``).
    Returns False when the matrix is not numerically positive definite (the vertices
    are affinely dependent)."""
    if k == 1:
        mu[0] = 1.0
        return True
    for i in range(k):
        for j in range(i + 1):
            s = c + G[i, j]
            for t in range(j):
                s -= L[i, t] * L[j, t]
            if i == j:
                if s <= 1e-13 * (c + G[i, i]):
                    return False
                L[i, i] = np.sqrt(s)
            else:
                L[i, j] = s / L[j, j]
    for i in range(k):  # forward: L z = 1
        s = 1.0
        for t in range(i):
            s -= L[i, t] * mu[t]
        mu[i] = s / L[i, i]
    for i in range(k - 1, -1, -1):  # backward: Lᵀ mu = z
        s = mu[i]
        for t in range(i + 1, k):
            s -= L[t, i] * mu[t]
        mu[i] = s / L[i, i]
    tot = 0.0
    for i in range(k):
        tot += mu[i]
    if not tot > 0.0:
        return False
    for i in range(k):
        mu[i] /= tot
    return True


@jit(warmup=_wolfe_example)
def _wolfe_kernel(X, y, homogeneous, eps, small, max_iter):
    """Minimum-norm point of conv{x_p - x_n : y_p = +1, y_n = -1} (or of conv{y_i x_i}
    when ``homogeneous``); returns (beta, u, n_iter, status) with ``beta`` (m,) the
    weight of each point (each class sums to 1; all sum to 1 when homogeneous).

    status: 0 converged (``||u||² - min_q <u, q> <= eps ||u||²``), 1 iteration limit,
    2 ``||u||² <= small`` (the hulls meet: not separable), 4 numerical stall (the new
    vertex did not enter the corral)."""
    m, d = X.shape
    K = d + 2
    cp = np.empty(K, dtype=np.int64)
    cn = np.empty(K, dtype=np.int64)
    lam = np.empty(K)
    mu = np.empty(K)
    V = np.empty((K, d))
    G = np.empty((K, K))
    L = np.empty((K, K))
    u = np.zeros(d)
    q = np.empty(d)
    sc = np.empty(m)
    XT = np.empty((d, m))
    for i in range(m):
        for t in range(d):
            XT[t, i] = X[i, t]
    # a first direction: the difference of the class means (the mean of y_i x_i)
    for i in range(m):
        for t in range(d):
            u[t] += y[i] * X[i, t]
    k = 0
    it = 0
    status = -1  # running
    while status < 0:
        # ---- major step: the vertex minimising <u, q>; the scores <x_i, u> for all i
        #      at once over the transposed copy (same left-to-right sums as a dot product)
        for i in range(m):
            sc[i] = 0.0
        for t in range(d):
            ut = u[t]
            for i in range(m):
                sc[i] += XT[t, i] * ut
        bp = -1
        bn = -1
        sp = np.inf
        sn = -np.inf
        for i in range(m):
            s = sc[i]
            if homogeneous:
                s *= y[i]
                if s < sp:
                    sp = s
                    bp = i
            elif y[i] > 0:
                if s < sp:
                    sp = s
                    bp = i
            elif s > sn:
                sn = s
                bn = i
        for t in range(d):
            q[t] = X[bp, t] if homogeneous else X[bp, t] - X[bn, t]
        if homogeneous:
            for t in range(d):
                q[t] *= y[bp]
            bn = -1
        if k > 0:
            uu = _dot(u, u)
            uq = _dot(u, q)
            if uu <= small:
                status = 2
                break
            if uu - uq <= eps * uu:
                status = 0
                break
            for j in range(k):
                if cp[j] == bp and cn[j] == bn:
                    status = 4
                    break
            if status == 4 or k == K:
                status = 4
                break
        cp[k] = bp
        cn[k] = bn
        lam[k] = 0.0 if k > 0 else 1.0
        for t in range(d):
            V[k, t] = q[t]
        for j in range(k + 1):
            G[k, j] = _dot(V[k], V[j])
            G[j, k] = G[k, j]
        k += 1
        # ---- minor steps: the affine minimum-norm point of the corral
        while True:
            it += 1
            if it > max_iter:
                status = 1
                break
            c = 0.0
            for j in range(k):
                c = max(c, G[j, j])
            if not _affine_min_norm(G, k, c, L, mu):
                status = 4
                break
            ok = True
            for j in range(k):
                if mu[j] <= 0.0:
                    ok = False
            if ok:
                for j in range(k):
                    lam[j] = mu[j]
                break
            theta = 1.0
            for j in range(k):
                if mu[j] <= 0.0:
                    theta = min(theta, lam[j] / (lam[j] - mu[j]))
            if theta <= 0.0:
                status = 4  # the new vertex (weight 0) leaves at once: no progress
                break
            drop = -1
            for j in range(k):
                lam[j] = (1.0 - theta) * lam[j] + theta * mu[j]
                if mu[j] <= 0.0 and (drop < 0 or lam[j] < lam[drop]):
                    drop = j
            # drop every vertex whose weight reached 0 (at least the first to hit it)
            w_ = 0
            for j in range(k):
                if j != drop and lam[j] > 0.0:
                    cp[w_] = cp[j]
                    cn[w_] = cn[j]
                    lam[w_] = lam[j]
                    for t in range(d):
                        V[w_, t] = V[j, t]
                    w_ += 1
            k = w_
            for a in range(k):
                for b in range(a + 1):
                    G[a, b] = _dot(V[a], V[b])
                    G[b, a] = G[a, b]
        if status >= 0:
            break
        u[:] = 0.0
        for j in range(k):
            for t in range(d):
                u[t] += lam[j] * V[j, t]
    beta = np.zeros(m)
    for j in range(k):
        beta[cp[j]] += lam[j]
        if cn[j] >= 0:
            beta[cn[j]] += lam[j]
    return beta, u, it, status


def _min_norm_alpha(X, y, homogeneous, small, eps=1e-12):
    """Hard-SVM dual α from Wolfe's minimum-norm point: ``α = 2β/||u||²`` (``β/||u||²``
    without bias), so that ``w = Σ α_i y_i x_i = 2u/||u||²``. Returns (alpha or None,
    n_iter, status); alpha is None when ``||u||² <= small`` (status 2)."""
    m = X.shape[0]
    max_iter = max(10_000, 10 * m)
    beta, u, n_iter, status = _wolfe_kernel(X, y, bool(homogeneous), eps, small, max_iter)
    delta2 = float(u @ u)
    if status == 2 or not delta2 > 0.0:
        return None, int(n_iter), 2
    return (1.0 if homogeneous else 2.0) * beta / delta2, int(n_iter), int(status)
