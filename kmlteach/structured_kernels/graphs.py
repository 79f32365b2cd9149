"""Graph kernels of HSS1 §1.4.4–1.4.5 (re-exported by :mod:`kmlteach.structured_kernels`).

The diffusion (heat) kernel with its two sign conventions, Floyd–Warshall and the
shortest-path kernel (1.38), and the geometric random-walk kernel on the product graph.
Graphs are given by adjacency matrices; node labels by sequences of hashables.
"""

from __future__ import annotations

import numpy as np

from kmlteach._jit import jit
from kmlteach._validation import (
    _describe,
    check_choice,
    check_graph,
    check_int,
    check_node_labels,
    check_overflow,
    check_positive,
)

__all__ = [
    "adjacency_matrix",
    "graph_laplacian",
    "diffusion_kernel",
    "diffusion_kernel_limit",
    "shortest_paths",
    "shortest_path_kernel",
    "random_walk_kernel",
]


def adjacency_matrix(edges, n_nodes: int, directed: bool = False) -> np.ndarray:
    """0/1 adjacency matrix of a graph on nodes 0..n_nodes-1 from a list of (i, j) edges.

    >>> adjacency_matrix([(0, 1), (1, 2)], 3)[1]
    array([1., 0., 1.])

    Source: HSS1 §1.4.4.
    """
    n_nodes = check_int(n_nodes, "n_nodes", minimum=1)
    if isinstance(edges, (str, bytes)) or not hasattr(edges, "__iter__"):
        raise TypeError(f"edges must be a list of (i, j) pairs, got {_describe(edges)}")
    A = np.zeros((n_nodes, n_nodes))
    for e in edges:
        if not (hasattr(e, "__len__") and len(e) == 2):
            raise ValueError(f"edges must hold (i, j) pairs, got {e!r}")
        i = check_int(e[0], "edges", minimum=0, maximum=n_nodes - 1)
        j = check_int(e[1], "edges", minimum=0, maximum=n_nodes - 1)
        A[i, j] = 1.0
        if not directed:
            A[j, i] = 1.0
    return A


def graph_laplacian(A) -> np.ndarray:
    """``L = A − D`` as HSS1 §1.4.4 writes it (negative semidefinite; the usual
    graph Laplacian is ``D − A = −L``). ``A`` is a symmetric 0/1 adjacency matrix."""
    A = check_graph(A, "A")
    return A - np.diag(A.sum(axis=1))


def diffusion_kernel(A, beta: float, sign: str = "heat") -> np.ndarray:
    """Diffusion kernel of a graph, HSS1 §1.4.4 (Kondor & Lafferty 2002).

    With ``L = A − D`` (HSS's sign):

    * ``sign="heat"`` (default): ``K = expm(β L) = expm(−β (D − A))``, the heat
      kernel: entries positive on a connected graph, decaying with graph distance;
    * ``sign="printed"``: ``K = expm(−β L) = lim_n (1 − (β/n) L)ⁿ``, the formula as
      displayed in HSS1. It is positive definite too, but its rows alternate in sign
      (not a diffusion); kept to show the difference.

    Computed from the eigendecomposition ``L = V diag(λ) Vᵀ`` as ``V diag(e^{±βλ}) Vᵀ``.

    Parameters
    ----------
    A : (n, n) symmetric 0/1 adjacency matrix
    beta : float > 0
    sign : {"heat", "printed"}, default="heat"

    Examples
    --------
    5-node path, β = 0.5: the first row of the heat kernel is about
    (0.674, 0.258, 0.058, 0.009, 0.001); with ``sign="printed"`` it is about
    (1.905, −1.167, 0.309, −0.053, 0.006).
    """
    L = graph_laplacian(A)
    beta = check_positive(beta, "beta")
    s = 1.0 if check_choice(sign, "sign", ("heat", "printed")) == "heat" else -1.0
    lam, V = np.linalg.eigh(L)
    lam = np.minimum(lam, 0.0)  # L = A − D is negative semi-definite; a +1e-16 rounding must not blow up
    with np.errstate(over="ignore", invalid="ignore"):
        K = (V * np.exp(s * beta * lam)) @ V.T
    check_overflow(K, f"beta = {beta:g} is too large for sign='printed': expm(-beta L) overflowed")
    return (K + K.T) / 2


def diffusion_kernel_limit(A, beta: float, n: int = 10_000, sign: str = "heat") -> np.ndarray:
    """The limit form ``(1 ± (β/n) L)ⁿ`` at a finite ``n`` (HSS1 §1.4.4), L = A − D.

    The default ``sign="heat"`` matches :func:`diffusion_kernel`:
    ``(1 + (β/n) L)ⁿ → expm(βL)``, the heat kernel. ``sign="printed"`` gives the
    displayed ``(1 − (β/n) L)ⁿ → expm(−βL)``. Uses repeated squaring (``matrix_power``).
    """
    L = graph_laplacian(A)
    beta = check_positive(beta, "beta")
    n = check_int(n, "n", minimum=1)
    s = 1.0 if check_choice(sign, "sign", ("heat", "printed")) == "heat" else -1.0
    with np.errstate(over="ignore", invalid="ignore"):
        K = np.linalg.matrix_power(np.eye(L.shape[0]) + (s * beta / n) * L, n)
    check_overflow(
        K,
        f"beta = {beta:g} is too large for n = {n}: (1 ± (beta/n) L)^n overflowed; "
        "use a smaller beta or a larger n",
    )
    return K


def shortest_paths(W) -> np.ndarray:
    """All-pairs shortest-path lengths by Floyd–Warshall, O(|V|³) (HSS1 §1.4.5).

    ``W[i, j] > 0`` is the cost of the edge i → j, ``0`` means no edge (the diagonal is
    ignored); directed graphs are allowed. Unreachable pairs get ``inf``.
    """
    return _shortest_paths(W, "W")


def _shortest_paths(W, name: str) -> np.ndarray:
    W = check_graph(W, name, binary=False, symmetric=False)
    D = np.where(W > 0, W, np.inf)
    np.fill_diagonal(D, 0.0)
    return _shortest_paths_kernel(np.ascontiguousarray(D))


@jit(warmup=lambda: (np.array([[0.0, 1.0], [np.inf, 0.0]]),))
def _shortest_paths_kernel(D):
    D = D.copy()
    n = D.shape[0]
    for k in range(n):
        for i in range(n):
            dik = D[i, k]
            if dik == np.inf:
                continue
            for j in range(n):
                if dik + D[k, j] < D[i, j]:
                    D[i, j] = dik + D[k, j]
    return D


def shortest_path_kernel(
    A1, A2, labels1=None, labels2=None, length_kernel: str = "delta", c: float = 1.0
) -> float:
    """Shortest-path graph kernel, HSS1 Eq. (1.38) (Borgwardt & Kriegel 2005).

    Each graph G becomes the complete graph Ĝ whose edge (i, j), i ≠ j, carries the
    shortest-path length d_G(i, j) (pairs with no path are dropped). The kernel sums a
    walk kernel over all pairs of length-1 walks of Ĝ₁ and Ĝ₂::

        k(G₁, G₂) = Σ_{(i,j) ∈ Ĝ₁} Σ_{(k,l) ∈ Ĝ₂}
                    1[ℓ₁(i) = ℓ₂(k)] · 1[ℓ₁(j) = ℓ₂(l)] · k_len(d₁(i,j), d₂(k,l))

    on (start label, end label, length), with ``k_len(d, d') = 1[d = d']``
    (``"delta"``) or the Brownian-bridge kernel ``max(0, c − |d − d'|)`` (``"bridge"``).
    Cost O(|V₁|² |V₂|²) after Floyd–Warshall.

    Parameters
    ----------
    A1, A2 : square non-negative edge-cost matrices (0 = no edge; 0/1 for unweighted)
    labels1, labels2 : sequences of hashable node labels, default all equal
    length_kernel : {"delta", "bridge"}, default="delta"
    c : float > 0, default=1.0
        Width of the bridge kernel.
    """
    D1 = _shortest_paths(A1, "A1")
    D2 = _shortest_paths(A2, "A2")
    codes: dict = {}
    l1 = check_node_labels(labels1, "labels1", D1.shape[0], codes)
    l2 = check_node_labels(labels2, "labels2", D2.shape[0], codes)
    mode = 0 if check_choice(length_kernel, "length_kernel", ("delta", "bridge")) == "delta" else 1
    c = check_positive(c, "c")
    k = float(_shortest_path_kernel_kernel(D1, l1, D2, l2, mode, c))
    check_overflow(k, f"c = {c:g} is too large: the sum of bridge-kernel values overflowed; use a smaller c")
    return k


@jit(
    warmup=lambda: (
        np.array([[0.0, 1.0], [1.0, 0.0]]),
        np.zeros(2, dtype=np.int64),
        np.array([[0.0, 1.0], [1.0, 0.0]]),
        np.zeros(2, dtype=np.int64),
        0,
        1.0,
    )
)
def _shortest_path_kernel_kernel(D1, l1, D2, l2, mode, c):
    n1 = D1.shape[0]
    n2 = D2.shape[0]
    total = 0.0
    for i in range(n1):
        for j in range(n1):
            d = D1[i, j]
            if i == j or d == np.inf:
                continue
            for k in range(n2):
                if l2[k] != l1[i]:
                    continue
                for m in range(n2):
                    e = D2[k, m]
                    if k == m or e == np.inf or l2[m] != l1[j]:
                        continue
                    if mode == 0:
                        if d == e:
                            total += 1.0
                    else:
                        total += max(0.0, c - abs(d - e))
    return total


def random_walk_kernel(
    A1, A2, decay: float, labels1=None, labels2=None, max_length: int | None = None
) -> float:
    """Geometric random-walk graph kernel in product-graph form (HSS1 §1.4.5).

    A walk kernel (1.37) with ``k_h(h, h') = decay^ℓ`` when h and h' are walks of the
    same length ℓ with the same node-label sequence (0 otherwise), summed over all
    ℓ >= 0 (length-0 walks are single nodes). Pairs of such walks are exactly the walks
    of the direct product graph A× = M (A₁ ⊗ A₂) M, M the 0/1 diagonal of label-matching
    node pairs, so with p = diag(M)::

        k(G₁, G₂) = Σ_ℓ decay^ℓ pᵀ A×^ℓ p = pᵀ (I − decay·A×)⁻¹ p,

    a marginalised kernel (1.39) with uniform, unnormalised start/stop weights. The
    series converges iff ``decay < 1/ρ(A×)``; otherwise a ``ValueError`` is raised.
    With ``max_length`` the sum stops at ℓ = max_length (always finite).

    Parameters
    ----------
    A1, A2 : 0/1 adjacency matrices (directed allowed)
    decay : float > 0
    labels1, labels2 : node labels, default all equal
    max_length : int >= 0 or None
    """
    A1 = check_graph(A1, "A1", symmetric=False)
    A2 = check_graph(A2, "A2", symmetric=False)
    decay = check_positive(decay, "decay")
    codes: dict = {}
    l1 = check_node_labels(labels1, "labels1", A1.shape[0], codes)
    l2 = check_node_labels(labels2, "labels2", A2.shape[0], codes)
    p = (l1[:, None] == l2[None, :]).ravel().astype(float)
    Ax = np.kron(A1, A2) * p[:, None] * p[None, :]
    if max_length is not None:
        max_length = check_int(max_length, "max_length", minimum=0)
        total, v = 0.0, p.copy()
        with np.errstate(over="ignore", invalid="ignore"):
            for ell in range(max_length + 1):
                total += np.float64(decay) ** ell * float(p @ v)
                v = Ax @ v
        check_overflow(
            total,
            f"decay = {decay:g} is too large for max_length = {max_length}: the walk "
            "sum overflowed; use a smaller decay or max_length",
        )
        return float(total)
    if not Ax.size:
        rho = 0.0
    elif np.array_equal(Ax, Ax.T):  # undirected graphs: a symmetric product graph
        rho = float(np.max(np.abs(np.linalg.eigvalsh(Ax))))
    else:
        rho = float(np.max(np.abs(np.linalg.eigvals(Ax))))
    if decay * rho >= 1.0 - 1e-12:
        raise ValueError(
            f"decay = {decay:g} is too large: the walk series converges only for "
            f"decay < 1/rho(A_x) = {1 / rho:.6g}; use a smaller decay or max_length"
        )
    return float(p @ np.linalg.solve(np.eye(p.size) - decay * Ax, p))
