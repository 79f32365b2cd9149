"""The assignment problem (UML §17.4.1, Eq. (17.9)) solved by the Hungarian method.

Given a cost matrix A (r × r), find the permutation v of {0, …, r−1} that minimises
Σ_i A[i, v_i]: task i goes to worker v_i, every worker gets exactly one task.
UML §17.4.1 needs it to compute a subgradient of the NDCG surrogate (17.8); Kuhn's
Hungarian method solves it exactly in O(r³) time.

**The search.** The kernel is the shortest-augmenting-path form of the Hungarian method
(Jonker & Volgenant 1987; the search of SciPy's ``linear_sum_assignment``, Crouse 2016):
for each row left free, a Dijkstra-like search over the reduced costs
A[i, j] − u_i − v_j finds the cheapest way to re-route the current assignment, and the
dual potentials (u, v) are updated on the visited rows and columns so that every reduced
cost stays non-negative and the assigned ones are zero. At the end (u, v) is a feasible
solution of the dual LP with the same value as the assignment, which is the certificate
of optimality (LP duality, cf. Lemma 17.4).

**Where the time goes, and what helps.** The work is the number of rows a search visits
times the columns it scans per visit.

* JV's *column reduction* (v_j = min_i A[i, j], each column handed to its cheapest row
  when that row is still free) settles about 1 − 1/e ≈ 63 % of the rows of a random
  matrix at O(r²) cost and halves the visits. On the NDCG matrix of (17.9),
  A = −μ pᵀ + β Dᵀ (rank 2, positions p = 1..r), every row's cheapest columns are the
  same two ends of the ranking: column reduction settles a handful of rows, and its
  potentials then make every later search cross *all* assigned columns (r(r−1)/2 visits,
  against about r²/4 from zero potentials). So it is kept only when it settles at least
  half of the rows, a test that separates the two cases by a wide margin.
* JV's *augmenting row reduction* (an auction: a free row takes its cheapest column and
  raises that column's price to its second-cheapest reduced cost, evicting the owner)
  works on random matrices, but on the NDCG matrix all rows bid for the same columns and
  each bid moves the contest by one price step: measured 3× slower than no
  initialisation at r = 100. It is not used.
* On the NDCG matrix the visit count from zero potentials does not depend on the order
  in which rows are processed (measured: identical counts for natural, sorted and
  random orders, ≈ r²/4): a new row that prefers the same end as the rows already placed
  always re-routes the whole block of them. What is left to gain there is the cost of a
  visit: the scan below is one branch-free pass over *all* columns that LLVM vectorises
  (a column already reached carries distance NaN, which no comparison lets through, so
  no mask is loaded; the distances are ≥ the current minimum, exactly so once a rounding
  below it is clamped, and the minimum is taken on their IEEE bit patterns as int64,
  which have the order of non-negative numbers, because a floating-point min reduction
  is only vectorised under fast-math, which this package does not use), then a second
  vectorised pass finds its position (a free column preferred on a tie, which ends the
  search). Scanning all columns does
  more work than scanning the remaining ones (SciPy's way, with an index list that
  defeats vectorisation) but 4–8 per instruction.
* What does change the count is a good *starting point*: :func:`solve_from_order` starts
  from a guessed permutation with the potentials that certify it when the matrix, rows in
  the guessed order, is a Monge matrix, and repairs only the rows where it is not (see
  its docstring). :func:`kmlteach.ranking.ndcg_hinge` uses it with the rows ordered by
  score, which the rearrangement inequality makes (nearly) optimal.
"""

from __future__ import annotations

import numpy as np

from kmlteach._jit import jit
from kmlteach._validation import check_square

__all__ = ["assignment", "assignment_cost"]

_IMAX = 0x7FFFFFFFFFFFFFFF


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


def _normalised(A, name: str) -> np.ndarray:
    """A positive affine rescaling of the finite matrix A onto [0, 1].

    Σ_i (c A[i, v_i] + d) = c Σ_i A[i, v_i] + r d, so mapping the entries to [0, 1]
    changes no minimiser, and the potentials of the search can then never overflow
    (huge costs such as ±1e308 made the reduced costs inf − inf = NaN and the search
    loop never ended). ``name`` is the argument blamed if the entries are not finite.
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
    return np.ascontiguousarray(A)


def _checked(v, name: str) -> np.ndarray:
    if v.size and v[0] < 0:
        raise ValueError(f"{name}: the assignment search met non-finite reduced costs")
    return v


def solve_normalised(A, name: str) -> np.ndarray:
    """Run the kernel on a positive affine rescaling of the finite matrix A (see
    :func:`_normalised`); ``name`` is the argument blamed if the kernel still fails."""
    return _checked(_assignment_kernel(_normalised(A, name)), name)


def solve_from_order(A, order, name: str) -> np.ndarray:
    """The assignment of A, started from the guess "row ``order[k]`` takes column k".

    Exact for every A; fast when the guess is (nearly) optimal in this sense: with the
    rows permuted by ``order``, C = A[order] is close to a **Monge** matrix
    (C[i, j] + C[i', j'] ≤ C[i, j'] + C[i', j] for i < i', j < j'), for which the
    identity is an optimal assignment. Its certificate is explicit: the potentials with
    u_i + v_i = C[i, i] and u_{i+1} + v_i = C[i+1, i] (computed along the chain in O(r))
    leave every reduced cost C[i, j] − u_i − v_j non-negative, by telescoping the Monge
    inequalities. The kernel computes them, checks all r² reduced costs (one vectorised
    pass), and if some row has a negative one, lowers that row's u to its smallest
    reduced cost (the potentials are then feasible), takes its column back and places the
    freed rows by the augmenting-path search above — only those rows, from potentials
    that are already nearly optimal.
    """
    order = np.ascontiguousarray(order, dtype=np.int64)
    return _checked(_ordered_kernel(_normalised(A, name), order), name)


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


def _sap_example():
    A = np.array([[4.0, 1.0, 3.0], [2.0, 0.0, 5.0], [3.0, 2.0, 2.0]])
    return A, np.zeros(3), np.zeros(3), np.full(3, -1, np.int64), np.full(3, -1, np.int64)


@jit(warmup=_sap_example)
def _augment(A, u, v, col4row, row4col):
    """Place every free row (col4row = −1) by a shortest augmenting path, from feasible
    potentials (u, v) under which the assigned pairs have reduced cost 0. Returns the
    column of each row, or all −1 if a search met no finite reduced cost."""
    n = A.shape[0]
    path = np.full(n, -1, np.int64)
    dist = np.empty(n)  # NaN once a column is reached (its distance is then in `final`)
    final = np.empty(n)
    keys = np.empty(n, np.int64)
    rows = np.empty(n, np.int64)  # the rows and columns a search visits, in order
    cols = np.empty(n, np.int64)
    kinf = np.float64(np.inf).view(np.int64)
    for cur in range(n):
        if col4row[cur] != -1:
            continue
        for j in range(n):
            dist[j] = np.inf
        nr = 0
        nc = 0
        min_val = 0.0
        i = cur
        sink = -1
        while sink == -1:
            rows[nr] = i
            nr += 1
            Ai = A[i]
            ui = u[i]
            best = _IMAX
            for j in range(n):  # branch-free, vectorised; NaN never compares less
                r = min_val + Ai[j] - ui - v[j]
                r = r if r > min_val else min_val  # ≥ min_val, as it is without rounding
                dj = dist[j]
                upd = r < dj
                dj = r if upd else dj
                dist[j] = dj
                path[j] = i if upd else path[j]
                k = np.float64(dj).view(np.int64)  # dj ≥ 0: its bits have its order
                keys[j] = k
                best = min(best, k)
            if not best < kinf:  # no finite reduced cost left: give up, never loop
                return np.full(n, -1, np.int64)
            jf = -1
            ja = -1
            for j in range(n):  # the last column at the minimum, a free one if any
                hit = keys[j] == best
                ja = j if hit else ja
                jf = j if (hit & (row4col[j] < 0)) else jf
            j = jf if jf >= 0 else ja
            min_val = dist[j]
            final[j] = min_val
            dist[j] = np.nan
            cols[nc] = j
            nc += 1
            if row4col[j] == -1:
                sink = j
            else:
                i = row4col[j]
        # update the potentials (only on the visited rows and columns)
        u[cur] += min_val
        for t in range(1, nr):
            i = rows[t]
            u[i] += min_val - final[col4row[i]]
        for t in range(nc):
            j = cols[t]
            v[j] -= min_val - final[j]
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


@jit(warmup=lambda: (np.array([[4.0, 1.0, 3.0], [2.0, 0.0, 5.0], [3.0, 2.0, 2.0]]),))
def _assignment_kernel(A):
    """Column reduction (Jonker & Volgenant), kept if it settles at least half of the
    rows, then one shortest augmenting path per row left free. Returns the 0-based
    column of each row, or all −1 if the search met no finite reduced cost."""
    n = A.shape[0]
    u = np.zeros(n)  # row potentials
    v = np.empty(n)  # column potentials
    col4row = np.full(n, -1, np.int64)
    row4col = np.full(n, -1, np.int64)
    # column reduction: v_j = min_i A[i, j]; the argmin row takes column j if it is free.
    # Every reduced cost A[i, j] − u_i − v_j is then ≥ 0 and 0 on the assigned pairs.
    arg = np.zeros(n, np.int64)
    v[:] = A[0]
    for i in range(1, n):
        Ai = A[i]
        for j in range(n):
            lower = Ai[j] < v[j]
            v[j] = Ai[j] if lower else v[j]
            arg[j] = i if lower else arg[j]
    settled = 0
    for j in range(n - 1, -1, -1):
        i = arg[j]
        if col4row[i] == -1:
            col4row[i] = j
            row4col[j] = i
            settled += 1
    if 2 * settled < n:  # few rows settled: start from zero potentials instead
        v[:] = 0.0
        col4row[:] = -1
        row4col[:] = -1
    return _augment(A, u, v, col4row, row4col)


@jit(warmup=lambda: (np.array([[4.0, 1.0, 3.0], [2.0, 0.0, 5.0], [3.0, 2.0, 2.0]]), np.array([1, 0, 2])))
def _ordered_kernel(A, order):
    """:func:`solve_from_order`: start from row order[k] → column k with the chain
    potentials of a Monge matrix, free the rows they do not fit, augment."""
    n = A.shape[0]
    u = np.zeros(n)
    v = np.zeros(n)
    col4row = np.full(n, -1, np.int64)
    row4col = np.full(n, -1, np.int64)
    if n == 0:
        return col4row
    i0 = order[0]
    v[0] = A[i0, 0]
    for k in range(1, n):  # u_k + v_{k−1} = C[k, k−1], u_k + v_k = C[k, k]
        i = order[k]
        u[i] = A[i, k - 1] - v[k - 1]
        v[k] = A[i, k] - u[i]
    for k in range(n):
        i = order[k]
        col4row[i] = k
        row4col[k] = i
    for i in range(n):  # the certificate: every reduced cost ≥ 0, else repair row i
        Ai = A[i]
        ui = u[i]
        low = np.inf
        for j in range(n):
            low = min(low, Ai[j] - v[j])
        if low - ui < 0.0:
            u[i] = low  # feasible again; its own column no longer tight: free both
            row4col[col4row[i]] = -1
            col4row[i] = -1
    return _augment(A, u, v, col4row, row4col)
