"""The assignment problem (UML §17.4.1, Eq. (17.9)) solved by the Hungarian method.

Given a cost matrix A (r × r), find the permutation v of {0, …, r−1} that minimises
Σ_i A[i, v_i]: task i goes to worker v_i, every worker gets exactly one task.
UML §17.4.1 needs it to compute a subgradient of the NDCG surrogate (17.8); Kuhn's
Hungarian method solves it exactly in O(r³) time.

The kernel below is the shortest-augmenting-path form of the Hungarian method (Jonker
& Volgenant 1987; the search of SciPy's ``linear_sum_assignment``, Crouse 2016). It
starts from JV's *column reduction* — v_j = min_i A[i, j], each column handed to its
cheapest row when that row is still free, which settles about two rows in three of a
random matrix at O(r²) cost — and then, for each row left free, a Dijkstra-like search
over the reduced costs A[i, j] − u_i − v_j (only over the columns not yet reached)
finds the cheapest way to re-route the current assignment; the dual potentials (u, v)
are updated on the visited rows and columns so that every reduced cost stays
non-negative and the assigned ones are zero. At the end
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
        span = float(A.max()) / 2.0 - lo / 2.0  # halves: no overflow for ±1e308
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
    """Column reduction (Jonker & Volgenant), then one shortest augmenting path per
    row left free. Returns the 0-based column of each row, or all −1 if the search met
    no finite reduced cost (non-finite input)."""
    n = A.shape[0]
    u = np.zeros(n)  # row potentials
    v = np.empty(n)  # column potentials
    col4row = np.full(n, -1, np.int64)
    row4col = np.full(n, -1, np.int64)
    # column reduction: v_j = min_i A[i, j]; the argmin row takes column j if it is free.
    # Every reduced cost A[i, j] − u_i − v_j is then ≥ 0 and 0 on the assigned pairs,
    # a feasible dual to start the augmentations from.
    for j in range(n - 1, -1, -1):
        imin = 0
        best = A[0, j]
        for i in range(1, n):
            if A[i, j] < best:
                best = A[i, j]
                imin = i
        v[j] = best
        if col4row[imin] == -1:
            col4row[imin] = j
            row4col[j] = imin
    path = np.full(n, -1, np.int64)
    dist = np.empty(n)
    remaining = np.empty(n, np.int64)
    SR = np.zeros(n, np.bool_)
    SC = np.zeros(n, np.bool_)
    for cur in range(n):
        if col4row[cur] != -1:
            continue
        # Dijkstra over the reduced costs from row `cur` to a free column
        for it in range(n):
            remaining[it] = n - it - 1
            dist[it] = np.inf
            SR[it] = False
            SC[it] = False
        n_rem = n
        min_val = 0.0
        i = cur
        sink = -1
        while sink == -1:
            SR[i] = True
            index = -1
            lowest = np.inf
            ui = u[i]
            for it in range(n_rem):
                j = remaining[it]
                r = min_val + A[i, j] - ui - v[j]
                if r < dist[j]:
                    path[j] = i
                    dist[j] = r
                dj = dist[j]
                if dj < lowest or (dj == lowest and row4col[j] == -1):
                    lowest = dj
                    index = it
            if index == -1 or not lowest < np.inf:  # NaN or inf: give up, never loop
                return np.full(n, -1, np.int64)
            min_val = lowest
            j = remaining[index]
            if row4col[j] == -1:
                sink = j
            else:
                i = row4col[j]
            SC[j] = True
            n_rem -= 1
            remaining[index] = remaining[n_rem]
        # update the potentials (only on the visited rows and columns)
        u[cur] += min_val
        for i in range(n):
            if SR[i] and i != cur:
                u[i] += min_val - dist[col4row[i]]
        for j in range(n):
            if SC[j]:
                v[j] -= min_val - dist[j]
        # augment along the path
        j = sink
        while True:
            i = path[j]
            row4col[j] = i
            nxt = col4row[i]
            col4row[i] = j
            j = nxt
            if i == cur:
                break
    return col4row
