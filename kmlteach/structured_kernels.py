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
* graphs (implemented in ``kmlteach._graph_kernels``, re-exported here):
  :func:`adjacency_matrix`, :func:`graph_laplacian`, :func:`diffusion_kernel` and
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

from ._graph_kernels import (adjacency_matrix, diffusion_kernel, diffusion_kernel_limit,
                             graph_laplacian, random_walk_kernel, shortest_path_kernel,
                             shortest_paths)
from ._jit import jit
from ._validation import (_describe, as_matrix, as_vector, check_choice, check_int,
                          check_positive, check_string)

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
    try:
        dx = [tuple(z) for z in relation(x)]
        dy = [tuple(z) for z in relation(y)]
    except TypeError as exc:
        raise TypeError(f"relation must return a list of decompositions (tuples of parts): {exc}") from None
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
