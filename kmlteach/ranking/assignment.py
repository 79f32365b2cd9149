"""The assignment problem (UML §17.4.1, Eq. (17.9)) solved by the Hungarian method.

Given a cost matrix A (r × r), find the permutation v of {0, …, r−1} that minimises
Σ_i A[i, v_i]: task i goes to worker v_i, every worker gets exactly one task.
UML §17.4.1 needs it to compute a subgradient of the NDCG surrogate (17.8); Kuhn's
Hungarian method solves it exactly in O(r³) time.

The kernel below is the shortest-augmenting-path form of the Hungarian method (the
formulation of Jonker & Volgenant, also the one behind SciPy's
``linear_sum_assignment``): rows are inserted one at a time; for each new row a
Dijkstra-like search over the reduced costs A[i, j] − u_i − v_j finds the cheapest
way to re-route the current assignment, and the dual potentials (u, v) are updated so
that every reduced cost stays non-negative and the assigned ones are zero. At the end
(u, v) is a feasible solution of the dual LP with the same value as the assignment,
which is the certificate of optimality (LP duality, cf. Lemma 17.4).
"""

from __future__ import annotations

import numpy as np

from kmlteach._jit import jit
from kmlteach._validation import check_square

__all__ = ["assignment", "assignment_cost"]


def assignment(A) -> np.ndarray:
    """Solve the assignment problem min_v Σ_i A[i, v_i] over permutations v.

    UML §17.4.1, Eq. (17.9): the "Hungarian method" (Kuhn 1955), here in its
    shortest-augmenting-path form, O(r³).

    Parameters
    ----------
    A : array-like of shape (r, r)
        Finite costs; ``A[i, j]`` is the cost of giving task ``i`` to worker ``j``.

    Returns
    -------
    v : ndarray of shape (r,), int64
        A 0-based permutation minimising ``A[np.arange(r), v].sum()``. When several
        permutations are optimal, one of them is returned.

    Examples
    --------
    >>> assignment([[4.0, 1.0, 3.0], [2.0, 0.0, 5.0], [3.0, 2.0, 2.0]])
    array([1, 0, 2])
    """
    A = check_square(A, "A")
    return solve_normalised(A, "A")


def solve_normalised(A, name: str) -> np.ndarray:
    """Run the kernel on a positive affine rescaling of the finite matrix A.

    Σ_i (c A[i, v_i] + d) = c Σ_i A[i, v_i] + r d, so mapping the entries to [0, 1]
    changes no minimiser, and the potentials of the search can then never overflow
    (huge costs such as ±1e308 made the reduced costs inf − inf = NaN and the search
    loop never ended). ``name`` is the argument blamed if the kernel still fails.
    """
    A = np.asarray(A, dtype=np.float64)
    if A.size:
        lo = float(A.min())
        span = float(A.max()) / 2.0 - lo / 2.0       # halves: no overflow for ±1e308
        if not np.isfinite(span):
            raise ValueError(f"{name} must be finite, got entries up to {float(np.max(np.abs(A)))!r}")
        if span > 0.0:
            A = (A / 2.0 - lo / 2.0) / span
        else:
            A = np.zeros_like(A)
    v = _assignment_kernel(np.ascontiguousarray(A))
    if A.size and v[0] < 0:
        raise ValueError(f"{name}: the assignment search met non-finite reduced costs")
    return v


def assignment_cost(A, v) -> float:
    """Σ_i A[i, v_i] for a 0-based permutation ``v`` (a convenience for notebooks).

    Source: UML §17.4.1, Eq. (17.9).
    """
    A = check_square(A, "A")
    v = np.asarray(v)
    r = A.shape[0]
    if v.shape != (r,) or v.dtype.kind not in "iu" or not np.array_equal(np.sort(v), np.arange(r)):
        raise ValueError(f"v must be a permutation of 0..{r - 1} (one column per row of A), got {v!r}")
    return float(A[np.arange(r), v].sum())


@jit(warmup=lambda: (np.array([[4.0, 1.0, 3.0], [2.0, 0.0, 5.0], [3.0, 2.0, 2.0]]),))
def _assignment_kernel(A):
    # 1-based bookkeeping: column 0 is a virtual column holding the row being inserted.
    n = A.shape[0]
    u = np.zeros(n + 1)          # row potentials
    v = np.zeros(n + 1)          # column potentials
    p = np.zeros(n + 1, np.int64)    # p[j] = row assigned to column j (0: none)
    way = np.zeros(n + 1, np.int64)  # previous column on the shortest path
    minv = np.empty(n + 1)
    used = np.zeros(n + 1, np.bool_)
    for i in range(1, n + 1):
        p[0] = i
        j0 = 0
        for j in range(n + 1):
            minv[j] = np.inf
            used[j] = False
        while True:
            used[j0] = True
            i0 = p[j0]
            delta = np.inf
            j1 = 0
            ui0 = u[i0]
            for j in range(1, n + 1):
                if not used[j]:
                    cur = A[i0 - 1, j - 1] - ui0 - v[j]
                    if cur < minv[j]:
                        minv[j] = cur
                        way[j] = j0
                    if minv[j] < delta:
                        delta = minv[j]
                        j1 = j
            if j1 == 0:              # no finite reduced cost (NaN input): give up, never loop
                out = np.full(n, -1, np.int64)
                return out
            for j in range(n + 1):
                if used[j]:
                    u[p[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
            j0 = j1
            if p[j0] == 0:
                break
        while True:  # augment along the path back to the virtual column
            j1 = way[j0]
            p[j0] = p[j1]
            j0 = j1
            if j0 == 0:
                break
    out = np.empty(n, np.int64)
    for j in range(1, n + 1):
        out[p[j] - 1] = j - 1
    return out
