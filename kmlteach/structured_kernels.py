"""Kernels for structured data: strings, sets, graphs and generative models.

HSS1 §1.4 and UML §16.2.1. Every kernel here is an inner product of an explicit
(possibly huge) feature vector; where the feature map is small enough it is exposed
too (``*_features``), so the tests and the notebook can check ``Φ Φᵀ = K``.

Contents
--------
* strings: :func:`substring_kernel` (UML §16.2.1, suffix automaton in Numba),
  :func:`substring_features`, :func:`ngram_kernel` (HSS1 Eq. (1.34)),
  :func:`ngram_features`;
* sets: :func:`set_kernel` ``|A ∩ B|`` and :func:`set_features` (HSS1 §1.4.1);
* R-convolution: :func:`convolution_kernel` (HSS1 Eq. (1.36)) with the example
  relation :func:`prefix_suffix_splits`;
* graphs: :func:`graph_laplacian`, :func:`diffusion_kernel` and
  :func:`diffusion_kernel_limit` (HSS1 §1.4.4), :func:`shortest_paths` (Floyd–Warshall)
  and :func:`shortest_path_kernel` (Eq. (1.38)), :func:`random_walk_kernel`
  (product-graph form of the walk kernels (1.37)/(1.39));
* Fisher kernels of exponential families (HSS1 §1.4.6, Eqs. (1.40)–(1.43)):
  :func:`fisher_score`, :func:`fisher_information`, :func:`fisher_kernel`,
  :func:`exp_family_mle`;
* :func:`structured_gram` builds the Gram matrix of any of them over a list of items.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Callable, Sequence

import numpy as np

from ._jit import jit
from ._validation import (_describe, as_matrix, as_vector, check_choice, check_int,
                          check_nonnegative, check_positive, check_string)

__all__ = [
    "substring_kernel", "substring_features", "ngram_kernel", "ngram_counts", "ngram_features",
    "set_kernel", "set_features", "convolution_kernel", "prefix_suffix_splits",
    "adjacency_matrix", "graph_laplacian", "diffusion_kernel", "diffusion_kernel_limit", "shortest_paths",
    "shortest_path_kernel", "random_walk_kernel", "fisher_score", "fisher_information",
    "fisher_kernel", "exp_family_mle", "structured_gram",
]

# ---------------------------------------------------------------------------------------
# strings


def _encode_pair(s: str, t: str) -> tuple[np.ndarray, np.ndarray, int]:
    """Characters of ``s`` as dense codes 0..σ-1; those of ``t`` likewise, -1 if not in s."""
    alphabet = {c: i for i, c in enumerate(sorted(set(s)))}
    a = np.array([alphabet[c] for c in s], dtype=np.int64)
    b = np.array([alphabet.get(c, -1) for c in t], dtype=np.int64)
    return a, b, len(alphabet)


def substring_kernel(s: str, t: str, max_len: int | None = None) -> int:
    """Number of distinct non-empty strings of length <= ``max_len`` occurring in both.

    UML §16.2.1: with ψ(x) the 0/1 vector indexed by strings v (|v| <= max_len) that
    says whether v is a substring of x, ``K(s, t) = <ψ(s), ψ(t)>`` counts the common
    substrings. The empty string is not counted (add 1 for the book's variant that
    includes it). Computed in O(|s| σ + |t|) with a suffix automaton of ``s``: each
    state stands for a set of substrings with lengths in (len(link), len]; walking
    ``t`` through it marks, per state, the longest length matched.

    Parameters
    ----------
    s, t : str
    max_len : int >= 0 or None, default=None
        Longest substring length counted (None: no limit).

    Returns
    -------
    int

    Examples
    --------
    >>> substring_kernel("abab", "bab")   # a, b, ab, ba, bab
    5
    """
    s = check_string(s, "s")
    t = check_string(t, "t")
    limit = len(s) if max_len is None else check_int(max_len, "max_len", minimum=0)
    if not s or not t or limit == 0:
        return 0
    a, b, sigma = _encode_pair(s, t)
    return int(_substring_kernel_kernel(a, b, sigma, min(limit, len(s))))


@jit(warmup=lambda: (np.array([0, 1, 0, 1], dtype=np.int64), np.array([1, 0, 1], dtype=np.int64), 2, 4))
def _substring_kernel_kernel(s, t, sigma, max_len):
    n = s.shape[0]
    size = 2 * n + 2
    nxt = np.full((size, sigma), -1, dtype=np.int64)
    link = np.full(size, -1, dtype=np.int64)
    length = np.zeros(size, dtype=np.int64)
    last = 0
    cnt = 1
    for i in range(n):                      # build the suffix automaton of s
        c = s[i]
        cur = cnt
        cnt += 1
        length[cur] = length[last] + 1
        p = last
        while p != -1 and nxt[p, c] == -1:
            nxt[p, c] = cur
            p = link[p]
        if p == -1:
            link[cur] = 0
        else:
            q = nxt[p, c]
            if length[p] + 1 == length[q]:
                link[cur] = q
            else:
                clone = cnt
                cnt += 1
                length[clone] = length[p] + 1
                nxt[clone, :] = nxt[q, :]
                link[clone] = link[q]
                while p != -1 and nxt[p, c] == q:
                    nxt[p, c] = clone
                    p = link[p]
                link[q] = clone
                link[cur] = clone
        last = cur
    matched = np.zeros(cnt, dtype=np.int64)  # longest match of t ending in each state
    v = 0
    ell = 0
    for j in range(t.shape[0]):
        c = t[j]
        if c < 0:
            v = 0
            ell = 0
            continue
        while v != 0 and nxt[v, c] == -1:
            v = link[v]
            ell = length[v]
        if nxt[v, c] != -1:
            v = nxt[v, c]
            ell += 1
        else:
            v = 0
            ell = 0
        if ell > matched[v]:
            matched[v] = ell
    # states by decreasing length (counting sort); a matched state matches its whole
    # suffix-link chain completely
    bucket = np.zeros(n + 2, dtype=np.int64)
    for v in range(cnt):
        bucket[length[v]] += 1
    for k in range(1, n + 2):
        bucket[k] += bucket[k - 1]
    order = np.empty(cnt, dtype=np.int64)
    for v in range(cnt - 1, -1, -1):
        bucket[length[v]] -= 1
        order[bucket[length[v]]] = v
    for k in range(cnt - 1, 0, -1):
        v = order[k]
        p = link[v]
        if matched[v] > 0 and p > 0:
            matched[p] = length[p]
    total = 0
    for v in range(1, cnt):
        top = min(matched[v], max_len)
        low = length[link[v]]
        if top > low:
            total += top - low
    return total


def _check_strings(strings: Any, name: str) -> list[str]:
    if isinstance(strings, str) or not isinstance(strings, (list, tuple, np.ndarray)):
        raise TypeError(f"{name} must be a list of strings, got {_describe(strings)}")
    out = [check_string(x, f"{name}[{i}]") for i, x in enumerate(strings)]
    if not out:
        raise ValueError(f"{name} is empty; give at least one string")
    return out


def substring_features(strings: Sequence[str], max_len: int | None = None):
    """Explicit 0/1 substring indicators ψ(x) of UML §16.2.1, on the strings' substrings.

    Returns ``(Phi, vocabulary)``: ``Phi[i, j] = 1`` iff ``vocabulary[j]`` is a
    substring of ``strings[i]``. Only substrings of the given strings get a column (all
    other coordinates are zero for every string), so ``Phi @ Phi.T`` equals the Gram
    matrix of :func:`substring_kernel`.
    """
    strings = _check_strings(strings, "strings")
    limit = None if max_len is None else check_int(max_len, "max_len", minimum=0)
    subs = []
    for x in strings:
        top = len(x) if limit is None else min(limit, len(x))
        subs.append({x[i:i + L] for L in range(1, top + 1) for i in range(len(x) - L + 1)})
    vocabulary = sorted(set().union(*subs), key=lambda v: (len(v), v))
    col = {v: j for j, v in enumerate(vocabulary)}
    Phi = np.zeros((len(strings), len(vocabulary)))
    for i, sub in enumerate(subs):
        Phi[i, [col[v] for v in sub]] = 1.0
    return Phi, vocabulary


def ngram_counts(x: str, n: int) -> Counter:
    """``#(s ∈ x)`` for every n-gram s of ``x`` (overlapping occurrences count)."""
    x = check_string(x, "x")
    n = check_int(n, "n", minimum=1)
    return Counter(x[i:i + n] for i in range(len(x) - n + 1))


def ngram_kernel(x: str, y: str, n: int) -> int:
    """n-gram kernel, HSS1 Eq. (1.34): ``k(x, y) = Σ_{s ∈ Σⁿ} #(s ∈ x) #(s ∈ y)``.

    The inner product of the n-gram count vectors; hashing the n-grams of each string
    costs O(n(|x| + |y|)).

    >>> ngram_kernel("banana", "ananas", 2)   # an: 2*2, na: 2*2, as: 0 -> 8
    8
    """
    y = check_string(y, "y")
    cx = ngram_counts(x, n)
    cy = ngram_counts(y, n)
    if len(cy) < len(cx):
        cx, cy = cy, cx
    return int(sum(c * cy[s] for s, c in cx.items()))


def ngram_features(strings: Sequence[str], n: int):
    """Count vectors of the n-grams: ``(Phi, vocabulary)`` with ``Phi @ Phi.T`` = Gram of (1.34)."""
    strings = _check_strings(strings, "strings")
    n = check_int(n, "n", minimum=1)
    counts = [ngram_counts(x, n) for x in strings]
    vocabulary = sorted(set().union(*counts))
    col = {v: j for j, v in enumerate(vocabulary)}
    Phi = np.zeros((len(strings), len(vocabulary)))
    for i, c in enumerate(counts):
        for v, k in c.items():
            Phi[i, col[v]] = k
    return Phi, vocabulary


# ---------------------------------------------------------------------------------------
# sets and R-convolution


def _as_set(A: Any, name: str) -> frozenset:
    if isinstance(A, (str, bytes)) or not isinstance(A, (set, frozenset, list, tuple, np.ndarray)):
        raise TypeError(f"{name} must be a set (or list/tuple) of hashable items, got {_describe(A)}"
                        + ("; use set(word) for the set of its letters" if isinstance(A, str) else ""))
    items = A.tolist() if isinstance(A, np.ndarray) else A
    try:
        return frozenset(items)
    except TypeError:
        raise TypeError(f"{name} must hold hashable items (numbers, strings, tuples)") from None


def set_kernel(A, B) -> int:
    """Set kernel of HSS1 §1.4.1: ``k(A, B) = Σ_{x∈A, y∈B} 1[x = y] = |A ∩ B|``.

    Lists and tuples are read as sets (duplicates ignored).
    """
    return len(_as_set(A, "A") & _as_set(B, "B"))


def set_features(sets: Sequence, alphabet: Sequence | None = None):
    """Feature map of the set kernel: ``Φ(A) = Σ_{x ∈ A} e_x``, a **sum** of simplex vertices.

    (HSS1 §1.4.1 calls it an average in the prose, but only the sum gives
    ``<Φ(A), Φ(B)> = |A ∩ B|``.) Returns ``(Phi, alphabet)``; the default alphabet is
    the sorted union of the sets.
    """
    if isinstance(sets, (str, bytes, set, frozenset)) or not isinstance(sets, (list, tuple)):
        raise TypeError(f"sets must be a list of sets, got {_describe(sets)}")
    if not sets:
        raise ValueError("sets is empty; give at least one set")
    S = [_as_set(A, f"sets[{i}]") for i, A in enumerate(sets)]
    if alphabet is None:
        try:
            alphabet = sorted(set().union(*S))
        except TypeError:
            alphabet = sorted(set().union(*S), key=repr)
    else:
        alphabet = list(_as_set(alphabet, "alphabet")) if isinstance(alphabet, (set, frozenset)) \
            else list(alphabet)
        missing = set().union(*S) - set(alphabet)
        if missing:
            raise ValueError(f"alphabet lacks the items {sorted(map(repr, missing))[:5]} of sets")
    col = {v: j for j, v in enumerate(alphabet)}
    Phi = np.zeros((len(S), len(alphabet)))
    for i, A in enumerate(S):
        for v in A:
            Phi[i, col[v]] += 1.0
    return Phi, list(alphabet)


def prefix_suffix_splits(x: str) -> list[tuple[str, str]]:
    """The relation "z = (u, v) with u + v = x": all |x| + 1 splits of a string."""
    x = check_string(x, "x")
    return [(x[:i], x[i:]) for i in range(len(x) + 1)]


def convolution_kernel(x, y, relation: Callable, part_kernels) -> float:
    """R-convolution kernel, HSS1 Eq. (1.36) (Haussler 1999).

    ``k(x, y) = Σ_{x' ∈ R⁻¹(x)} Σ_{y' ∈ R⁻¹(y)} Π_{i=1..r} k_i(x'_i, y'_i)``.

    Parameters
    ----------
    x, y : objects
    relation : callable
        ``relation(x)`` returns the finite list R⁻¹(x) of decompositions, each a tuple
        of r parts (e.g. :func:`prefix_suffix_splits`).
    part_kernels : callable or sequence of r callables
        ``k_i(part, part')``; one callable is used for every part.

    Each part kernel is evaluated once per pair of distinct parts; the double sum is
    then ``Σ Π_i M_i`` over matrices ``M_i`` of part-kernel values.
    """
    if not callable(relation):
        raise TypeError(f"relation must be a callable returning decompositions, got {_describe(relation)}")
    dx = [tuple(z) for z in relation(x)]
    dy = [tuple(z) for z in relation(y)]
    if not dx or not dy:
        return 0.0
    r = len(dx[0])
    if any(len(z) != r for z in dx + dy):
        raise ValueError("relation must return decompositions with the same number of parts")
    if callable(part_kernels):
        kernels = [part_kernels] * r
    else:
        kernels = list(part_kernels) if isinstance(part_kernels, (list, tuple)) else None
        if kernels is None or len(kernels) != r or not all(callable(k) for k in kernels):
            raise TypeError(f"part_kernels must be a callable or a list of {r} callables "
                            f"(one per part), got {_describe(part_kernels)}")
    total = np.ones((len(dx), len(dy)))
    for i, k in enumerate(kernels):
        px = [z[i] for z in dx]
        py = [z[i] for z in dy]
        ux = {p: a for a, p in enumerate(dict.fromkeys(px))}
        uy = {p: b for b, p in enumerate(dict.fromkeys(py))}
        M = np.array([[float(k(p, q)) for q in uy] for p in ux]).reshape(len(ux), len(uy))
        total *= M[np.ix_([ux[p] for p in px], [uy[q] for q in py])]
    return float(total.sum())


# ---------------------------------------------------------------------------------------
# graphs


def _check_graph(A: Any, name: str, *, binary: bool = True, symmetric: bool = True) -> np.ndarray:
    A = as_matrix(A, name)
    if A.shape[0] != A.shape[1]:
        raise ValueError(f"{name} must be a square adjacency matrix, got shape {A.shape}")
    if np.any(A < 0):
        raise ValueError(f"{name} must have non-negative entries (edge weights or 0/1)")
    if binary and not np.all((A == 0) | (A == 1)):
        raise ValueError(f"{name} must be a 0/1 adjacency matrix, got values "
                         f"{sorted(set(np.unique(A).tolist()) - {0.0, 1.0})[:4]}")
    if symmetric and not np.array_equal(A, A.T):
        raise ValueError(f"{name} must be symmetric (an undirected graph)")
    return A


def _check_labels(labels: Any, name: str, n: int, codes: dict) -> np.ndarray:
    if labels is None:
        return np.zeros(n, dtype=np.int64)
    if isinstance(labels, (str, bytes)) or not hasattr(labels, "__len__"):
        raise TypeError(f"{name} must be a sequence of node labels, got {_describe(labels)}")
    labels = list(labels.tolist() if isinstance(labels, np.ndarray) else labels)
    if len(labels) != n:
        raise ValueError(f"{name} must have one label per node ({n}), got {len(labels)}")
    try:
        return np.array([codes.setdefault(v, len(codes)) for v in labels], dtype=np.int64)
    except TypeError:
        raise TypeError(f"{name} must hold hashable labels") from None


def adjacency_matrix(edges, n_nodes: int, directed: bool = False) -> np.ndarray:
    """0/1 adjacency matrix of a graph on nodes 0..n_nodes-1 from a list of (i, j) edges.

    >>> adjacency_matrix([(0, 1), (1, 2)], 3)[1]
    array([1., 0., 1.])
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
    A = _check_graph(A, "A")
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
    K = (V * np.exp(s * beta * lam)) @ V.T
    return (K + K.T) / 2


def diffusion_kernel_limit(A, beta: float, n: int = 10_000, sign: str = "printed") -> np.ndarray:
    """The limit form ``(1 ∓ (β/n) L)ⁿ`` at a finite ``n`` (HSS1 §1.4.4, as displayed).

    ``sign="printed"`` gives ``(1 − (β/n) L)ⁿ → expm(−βL)``; ``sign="heat"`` gives
    ``(1 + (β/n) L)ⁿ → expm(βL)``. Uses repeated squaring (``matrix_power``).
    """
    L = graph_laplacian(A)
    beta = check_positive(beta, "beta")
    n = check_int(n, "n", minimum=1)
    s = 1.0 if check_choice(sign, "sign", ("heat", "printed")) == "heat" else -1.0
    return np.linalg.matrix_power(np.eye(L.shape[0]) + (s * beta / n) * L, n)


def shortest_paths(W) -> np.ndarray:
    """All-pairs shortest-path lengths by Floyd–Warshall, O(|V|³) (HSS1 §1.4.5).

    ``W[i, j] > 0`` is the cost of the edge i → j, ``0`` means no edge (the diagonal is
    ignored); directed graphs are allowed. Unreachable pairs get ``inf``.
    """
    return _shortest_paths(W, "W")


def _shortest_paths(W, name: str) -> np.ndarray:
    W = _check_graph(W, name, binary=False, symmetric=False)
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


def shortest_path_kernel(A1, A2, labels1=None, labels2=None, length_kernel: str = "delta",
                         c: float = 1.0) -> float:
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
    l1 = _check_labels(labels1, "labels1", D1.shape[0], codes)
    l2 = _check_labels(labels2, "labels2", D2.shape[0], codes)
    mode = 0 if check_choice(length_kernel, "length_kernel", ("delta", "bridge")) == "delta" else 1
    c = check_positive(c, "c")
    return float(_shortest_path_kernel_kernel(D1, l1, D2, l2, mode, c))


@jit(warmup=lambda: (np.array([[0.0, 1.0], [1.0, 0.0]]), np.zeros(2, dtype=np.int64),
                     np.array([[0.0, 1.0], [1.0, 0.0]]), np.zeros(2, dtype=np.int64), 0, 1.0))
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


def random_walk_kernel(A1, A2, decay: float, labels1=None, labels2=None,
                       max_length: int | None = None) -> float:
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
    A1 = _check_graph(A1, "A1", symmetric=False)
    A2 = _check_graph(A2, "A2", symmetric=False)
    decay = check_positive(decay, "decay")
    codes: dict = {}
    l1 = _check_labels(labels1, "labels1", A1.shape[0], codes)
    l2 = _check_labels(labels2, "labels2", A2.shape[0], codes)
    p = (l1[:, None] == l2[None, :]).ravel().astype(float)
    Ax = np.kron(A1, A2) * p[:, None] * p[None, :]
    if max_length is not None:
        max_length = check_int(max_length, "max_length", minimum=0)
        total, v = 0.0, p.copy()
        for ell in range(max_length + 1):
            total += decay ** ell * float(p @ v)
            v = Ax @ v
        return total
    if not Ax.size:
        rho = 0.0
    elif np.array_equal(Ax, Ax.T):          # undirected graphs: a symmetric product graph
        rho = float(np.max(np.abs(np.linalg.eigvalsh(Ax))))
    else:
        rho = float(np.max(np.abs(np.linalg.eigvals(Ax))))
    if decay * rho >= 1.0 - 1e-12:
        raise ValueError(f"decay = {decay:g} is too large: the walk series converges only for "
                         f"decay < 1/rho(A_x) = {1 / rho:.6g}; use a smaller decay or max_length")
    return float(p @ np.linalg.solve(np.eye(p.size) - decay * Ax, p))


# ---------------------------------------------------------------------------------------
# Fisher kernels of exponential families

_FAMILIES = ("bernoulli", "gaussian")


def _check_family(X, theta, family, sigma, X_name="X"):
    family = check_choice(family, "family", _FAMILIES)
    X = as_matrix(X, X_name)
    theta = as_vector(theta, "theta", length=X.shape[1])
    sigma = check_positive(sigma, "sigma")
    if family == "bernoulli" and not np.all((X == 0) | (X == 1)):
        raise ValueError(f"{X_name} must hold 0/1 values for family='bernoulli'")
    return X, theta, family, sigma


def _grad_g(theta, family, sigma):
    """∂g(θ): the mean of the sufficient statistic φ(x)."""
    return 1.0 / (1.0 + np.exp(-theta)) if family == "bernoulli" else sigma ** 2 * theta


def fisher_score(X, theta, family: str = "bernoulli", sigma: float = 1.0) -> np.ndarray:
    """Fisher scores ``U_θ(x) = ∂_θ(−log p(x|θ)) = ∂g(θ) − φ(x)``, HSS1 Eq. (1.40).

    Exponential families ``p(x|θ) = exp(<φ(x), θ> − g(θ))`` (w.r.t. a base measure),
    with φ(x) = x and natural parameter θ ∈ ℝᵈ:

    * ``"bernoulli"``: d independent coins, x ∈ {0,1}ᵈ, θ the log-odds,
      g(θ) = Σ log(1 + e^θ), ∂g = sigmoid(θ);
    * ``"gaussian"``: N(μ, σ² I) with known σ, θ = μ/σ², g(θ) = σ²‖θ‖²/2, ∂g = μ.

    Returns an (n, d) array, one row per row of ``X``.
    """
    X, theta, family, sigma = _check_family(X, theta, family, sigma)
    return _grad_g(theta, family, sigma)[None, :] - X


def fisher_information(theta, family: str = "bernoulli", sigma: float = 1.0) -> np.ndarray:
    """``I = E[U Uᵀ] = Cov(φ(x)) = ∂²g(θ)``, HSS1 Eq. (1.41): diag(p(1−p)) or σ² I."""
    family = check_choice(family, "family", _FAMILIES)
    theta = as_vector(theta, "theta")
    sigma = check_positive(sigma, "sigma")
    if family == "bernoulli":
        p = _grad_g(theta, family, sigma)
        return np.diag(p * (1 - p))
    return sigma ** 2 * np.eye(theta.size)


def fisher_kernel(X, Y=None, *, theta, family: str = "bernoulli", sigma: float = 1.0,
                  normalized: bool = False) -> np.ndarray:
    """Fisher kernel matrix, HSS1 Eq. (1.42).

    Unnormalised ``k(x, x') = U_θ(x)ᵀ U_θ(x')``, which by (1.43) equals
    ``[φ(x) − ∂g(θ)]ᵀ [φ(x') − ∂g(θ)]``: a linear kernel on centred sufficient
    statistics. ``normalized=True`` gives ``U_θ(x)ᵀ I⁻¹ U_θ(x')``.
    """
    X, theta, family, sigma = _check_family(X, theta, family, sigma)
    if Y is not None:
        Y = _check_family(as_matrix(Y, "Y", n_cols=X.shape[1]), theta, family, sigma, "Y")[0]
    else:
        Y = X
    if not isinstance(normalized, (bool, np.bool_)):
        raise TypeError(f"normalized must be True or False, got {_describe(normalized)}")
    UX = _grad_g(theta, family, sigma)[None, :] - X
    UY = _grad_g(theta, family, sigma)[None, :] - Y
    if normalized:
        info = np.diag(fisher_information(theta, family, sigma))
        if np.any(info <= 0):
            raise ValueError("theta gives a singular Fisher information (|theta| too large)")
        UX = UX / info[None, :]
    return UX @ UY.T


def exp_family_mle(X, family: str = "bernoulli", sigma: float = 1.0, eps: float = 1e-3) -> np.ndarray:
    """Maximum-likelihood natural parameter: ∂g(θ̂) = mean of φ(x) (clipped to [eps, 1−eps]
    for Bernoulli so that θ̂ stays finite). At θ̂ the Fisher scores average to zero."""
    family = check_choice(family, "family", _FAMILIES)
    X = _check_family(X, np.zeros(as_matrix(X, "X").shape[1]), family, sigma)[0]
    mean = X.mean(axis=0)
    if family == "bernoulli":
        eps = check_positive(eps, "eps")
        mean = np.clip(mean, eps, 1 - eps)
        return np.log(mean / (1 - mean))
    return mean / sigma ** 2


# ---------------------------------------------------------------------------------------


def structured_gram(kernel: Callable, items: Sequence, others: Sequence | None = None,
                    **params) -> np.ndarray:
    """Gram matrix ``K[i, j] = kernel(items[i], others[j], **params)`` for any kernel here.

    ``others`` defaults to ``items`` (then only the upper triangle is evaluated).
    """
    if not callable(kernel):
        raise TypeError(f"kernel must be a callable such as ngram_kernel, got {_describe(kernel)}")
    for name, seq in (("items", items), ("others", others)):
        if seq is not None and (isinstance(seq, (str, bytes)) or not hasattr(seq, "__len__")):
            raise TypeError(f"{name} must be a list of objects, got {_describe(seq)}")
    if len(items) == 0 or (others is not None and len(others) == 0):
        raise ValueError("items and others must not be empty")
    if others is None:
        n = len(items)
        K = np.empty((n, n))
        for i in range(n):
            for j in range(i, n):
                K[i, j] = K[j, i] = kernel(items[i], items[j], **params)
        return K
    return np.array([[kernel(a, b, **params) for b in others] for a in items], dtype=float)
