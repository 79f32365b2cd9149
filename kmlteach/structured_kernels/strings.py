"""String kernels: the substring-count kernel of UML §16.2.1 (a suffix automaton in
Numba) and the n-gram kernel of HSS1 Eq. (1.34), each with its explicit feature map.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np

from kmlteach._jit import jit
from kmlteach._validation import check_int, check_string, check_strings

__all__ = ["substring_kernel", "substring_features", "ngram_counts", "ngram_kernel", "ngram_features"]


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
    for i in range(n):  # build the suffix automaton of s
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


def substring_features(strings: Sequence[str], max_len: int | None = None):
    """Explicit 0/1 substring indicators ψ(x) of UML §16.2.1, on the strings' substrings.

    Returns ``(Phi, vocabulary)``: ``Phi[i, j] = 1`` iff ``vocabulary[j]`` is a
    substring of ``strings[i]``. Only substrings of the given strings get a column (all
    other coordinates are zero for every string), so ``Phi @ Phi.T`` equals the Gram
    matrix of :func:`substring_kernel`.
    """
    strings = check_strings(strings, "strings")
    limit = None if max_len is None else check_int(max_len, "max_len", minimum=0)
    subs = []
    for x in strings:
        top = len(x) if limit is None else min(limit, len(x))
        subs.append({x[i : i + L] for L in range(1, top + 1) for i in range(len(x) - L + 1)})
    vocabulary = sorted(set().union(*subs), key=lambda v: (len(v), v))
    col = {v: j for j, v in enumerate(vocabulary)}
    Phi = np.zeros((len(strings), len(vocabulary)))
    for i, sub in enumerate(subs):
        Phi[i, [col[v] for v in sub]] = 1.0
    return Phi, vocabulary


def ngram_counts(x: str, n: int) -> Counter:
    """``#(s ∈ x)`` for every n-gram s of ``x`` (overlapping occurrences count).

    Source: HSS1 Eq. (1.34).
    """
    x = check_string(x, "x")
    n = check_int(n, "n", minimum=1)
    return Counter(x[i : i + n] for i in range(len(x) - n + 1))


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
    """Count vectors of the n-grams: ``(Phi, vocabulary)`` with ``Phi @ Phi.T`` = Gram of (1.34).

    Source: HSS1 Eq. (1.34).
    """
    strings = check_strings(strings, "strings")
    n = check_int(n, "n", minimum=1)
    counts = [ngram_counts(x, n) for x in strings]
    vocabulary = sorted(set().union(*counts))
    col = {v: j for j, v in enumerate(vocabulary)}
    Phi = np.zeros((len(strings), len(vocabulary)))
    for i, c in enumerate(counts):
        for v, k in c.items():
            Phi[i, col[v]] = k
    return Phi, vocabulary
