"""Decoding a chain (UML §17.3): the Viterbi recursion (tables M and backpointers I),
loss-augmented decoding (UML ex. 17.3) and a brute-force argmax for the tests.

Speed notes (issue 26 point 4, 2026-11-28, 2-core AMD EPYC Zen 4 shared with ~7 jobs,
load 3-5). 10 000 x 26 chain, public call vs hmmlearn's ``_hmmc.viterbi`` (4.6 ms),
interleaved best of 150. :func:`viterbi` used to keep a running argmax beside the
running max (``_viterbi_fill``: two compare-and-selects per candidate, the kernel's
bound) and store int64 backpointers: 1.52-1.71 ms on the AVX-512 build (2.7-3.0x),
1.52-1.55 ms on AVX2 (haswell) (3.0x). It now computes the max only
(``_viterbi_max_kernel``), traces the path back by recomputing one argmax per position
(as hmmlearn does) and recomputes the backpointers from M when they are first read
(the widget reads them; ``M`` is read-only so that they cannot go stale): 1.22-1.28 ms
(3.6-3.75x) and 1.15-1.19 ms (3.9-3.95x). Tried and dropped: backpointers in one byte
(8 % faster, now moot; slower in :func:`hmm_viterbi`), the argmax buffer as int32,
eight predecessors per group (linear or as a tree: same on AVX-512, up to 1.6x slower
on AVX2, register spills), padding beyond the vector width, a 4 MiB block for huge pages
(no change once the tables are 2.3 MB). :func:`hmm_viterbi` and the learners keep
``_viterbi_fill`` (one column of M, backpointers kept): its row vs ``decode`` is 4x.
"""

from __future__ import annotations

import itertools

import numpy as np

from kmlteach._jit import jit, vector_bytes
from kmlteach._validation import (
    as_matrix,
    as_vector,
    check_chain_scores,
    check_int,
    check_labelling,
    check_stochastic,
)
from kmlteach.structured.chain import ViterbiResult

__all__ = ["viterbi", "hmm_viterbi", "brute_force_argmax", "loss_augmented_viterbi"]


# ----------------------------------------------------------------------------- Viterbi
def _fill_warmup():
    return (
        np.zeros((3, 2)),
        np.arange(3),
        np.zeros((2, 2)),
        np.zeros(2),
        np.zeros((3, 2)),
        np.zeros((3, 2), dtype=np.int64),
        np.zeros(3, dtype=np.int64),
        4,
    )


@jit(warmup=_fill_warmup)
def _viterbi_fill(table, rows, pairwise, initial, Mt, It, labels, pad=4):
    """UML §17.3 dynamic programme on the transposed layout, with the unary scores
    ``unary[τ, s] = table[rows[τ], s]`` (``rows = arange(r)`` for a plain table; an
    HMM's log emission table and its observations otherwise). Fills It[τ, s] = I[s, τ],
    labels (r,) and Mt[τ, s] = M[s, τ] — or, when Mt has a single row, only the last
    column of M. Returns the max.

    For each τ the max over s' runs four predecessors s' at a time (outer loop) over all
    labels s (inner loop, which the compiler vectorises): the running max and argmax
    are read once, updated four times in registers by branch-free compare-and-select,
    and written once to the other of two buffers (writing back to the same buffer makes
    LLVM emit masked stores, which are slow). Visiting s' in increasing order with a
    strict ``>`` keeps the smallest index on ties. ``pairwise`` is padded with -inf,
    which never wins: to a multiple of 4 predecessors and of ``pad`` labels s (the
    vector width: 8 doubles with AVX-512, where a loop of 28 runs in scalar code, 4
    otherwise). Same additions and comparisons as the recursion, so the same bits."""
    r = rows.shape[0]
    q = table.shape[1]
    full = Mt.shape[0] == r
    qg = (q + 3) // 4 * 4
    qp = (q + pad - 1) // pad * pad
    Pp = np.full((qg, qp), -np.inf)
    Pp[:q, :q] = pairwise
    B = np.empty((2, qp))
    A = np.empty((2, qp), dtype=np.int64)
    prev = np.full(qg, -np.inf)
    for s in range(q):
        Mt[0, s] = initial[s] + table[rows[0], s]
        It[0, s] = -1
    for tau in range(1, r):
        t_prev = tau - 1 if full else 0
        for s in range(q):
            prev[s] = Mt[t_prev, s]
        src = 1
        for g in range(0, qg, 4):
            m0 = prev[g]
            m1 = prev[g + 1]
            m2 = prev[g + 2]
            m3 = prev[g + 3]
            dst = 1 - src
            for s in range(qp):
                if g == 0:
                    b = m0 + Pp[0, s]
                    a = 0
                else:
                    b = B[src, s]
                    a = A[src, s]
                    v = m0 + Pp[g, s]
                    a = g if v > b else a
                    b = v if v > b else b
                v = m1 + Pp[g + 1, s]
                a = g + 1 if v > b else a
                b = v if v > b else b
                v = m2 + Pp[g + 2, s]
                a = g + 2 if v > b else a
                b = v if v > b else b
                v = m3 + Pp[g + 3, s]
                a = g + 3 if v > b else a
                b = v if v > b else b
                B[dst, s] = b
                A[dst, s] = a
            src = dst
        t_cur = tau if full else 0
        row = rows[tau]
        for s in range(q):
            Mt[t_cur, s] = B[src, s] + table[row, s]
            It[tau, s] = A[src, s]
    t_last = r - 1 if full else 0
    last = 0
    for s in range(1, q):
        if Mt[t_last, s] > Mt[t_last, last]:
            last = s
    labels[r - 1] = last
    for tau in range(r - 1, 0, -1):
        labels[tau - 1] = It[tau, labels[tau]]
    return Mt[t_last, last]


def _max_warmup():
    return np.zeros((3, 2)), np.zeros((2, 2)), np.zeros(2), np.zeros((3, 2)), np.zeros(3, dtype=np.int64), 4


@jit(warmup=_max_warmup)
def _viterbi_max_kernel(unary, pairwise, initial, Mt, labels, pad=4):
    """The table Mt[τ, s] = M[s, τ] and the labels, without backpointers: the max over
    s' as in :func:`_viterbi_fill` (predecessors four at a time, labels padded with
    -inf to the vector width, strict ``>``) but no running argmax, which was half of the
    compare-and-selects; the path is traced back by recomputing, at each τ, the argmax
    for the one label on the path (q additions: how hmmlearn does it). Same additions
    and comparisons, so the same bits and the same ties (smallest index). Returns the max."""
    r, q = unary.shape
    qg = (q + 3) // 4 * 4
    qp = (q + pad - 1) // pad * pad
    Pp = np.full((qg, qp), -np.inf)
    Pp[:q, :q] = pairwise
    B = np.empty((2, qp))
    prev = np.full(qg, -np.inf)
    for s in range(q):
        Mt[0, s] = initial[s] + unary[0, s]
    for tau in range(1, r):
        for s in range(q):
            prev[s] = Mt[tau - 1, s]
        src = 1
        for g in range(0, qg, 4):
            m0, m1, m2, m3 = prev[g], prev[g + 1], prev[g + 2], prev[g + 3]
            dst = 1 - src
            for s in range(qp):
                b = m0 + Pp[g, s]
                if g > 0:  # the earlier groups' max wins ties (smaller indices)
                    o = B[src, s]
                    b = b if b > o else o
                v = m1 + Pp[g + 1, s]
                b = v if v > b else b
                v = m2 + Pp[g + 2, s]
                b = v if v > b else b
                v = m3 + Pp[g + 3, s]
                b = v if v > b else b
                B[dst, s] = b
            src = dst
        for s in range(q):
            Mt[tau, s] = B[src, s] + unary[tau, s]
    last = 0
    for s in range(1, q):
        if Mt[r - 1, s] > Mt[r - 1, last]:
            last = s
    labels[r - 1] = last
    for tau in range(r - 1, 0, -1):
        labels[tau - 1] = _best_predecessor(Mt, pairwise, tau, labels[tau])
    return Mt[r - 1, last]


@jit(warmup=lambda: (np.zeros((3, 2)), np.zeros((2, 2)), 1, 0))
def _best_predecessor(Mt, pairwise, tau, s):
    """argmax_s' Mt[τ-1, s'] + pairwise[s', s], the smallest s' on ties: I[s, τ]."""
    best = Mt[tau - 1, 0] + pairwise[0, s]
    arg = 0
    for sp in range(1, Mt.shape[1]):
        v = Mt[tau - 1, sp] + pairwise[sp, s]
        if v > best:
            best = v
            arg = sp
    return arg


def _readonly_table():
    Mt = np.zeros((3, 2))
    Mt.flags.writeable = False
    return Mt, np.zeros((2, 2))


@jit(warmup=_readonly_table)
def _backpointers_kernel(Mt, pairwise):
    """It[τ, s] = I[s, τ] recomputed from the table (-1 at τ = 0), int64."""
    r, q = Mt.shape
    It = np.empty((r, q), dtype=np.int64)
    for s in range(q):
        It[0, s] = -1
    for tau in range(1, r):
        for s in range(q):
            It[tau, s] = _best_predecessor(Mt, pairwise, tau, s)
    return It


def _pad() -> int:
    """Labels per vector in the kernel: 8 doubles when Numba compiles for AVX-512."""
    return 8 if vector_bytes() >= 64 else 4


def viterbi(unary, pairwise, initial=None) -> ViterbiResult:
    """Maximise Σ_t unary[t, y_t] + initial[y_0] + Σ_{t≥1} pairwise[y_{t-1}, y_t].

    The dynamic programme of UML §17.3, Eq. (17.5):
    M[s, 0] = initial[s] + unary[0, s] and
    M[s, τ] = max_{s'} (M[s', τ-1] + pairwise[s', s]) + unary[τ, s], with
    backpointers I[s, τ] = the maximising s'; then y_{r-1} = argmax_s M[s, r-1] and
    y_{τ-1} = I[y_τ, τ]. Ties go to the smallest label index. O(r q²) time.

    Parameters
    ----------
    unary : array (r, q)
        ``unary[t, s]`` scores label s at position t (for the chain model:
        ⟨W_unary[s], x_t⟩, see :func:`unary_scores`).
    pairwise : array (q, q)
        ``pairwise[a, b]`` scores label b right after label a.
    initial : array (q,), optional
        Score of the first label (default 0, as in UML where y_0 is a dummy).

    Returns
    -------
    ViterbiResult
        ``labels`` (r,) int64, ``score``, ``M`` (q, r) (read-only), ``backpointers``
        (q, r), computed from M on first access.

    Examples
    --------
    >>> viterbi([[1.0, 0.0], [0.0, 0.5]], [[0.0, 1.0], [0.0, 0.0]]).labels.tolist()
    [0, 1]
    """
    U, P, init = check_chain_scores(unary, pairwise, initial)
    r, q = U.shape
    Mt = np.empty((r, q))
    labels = np.empty(r, dtype=np.int64)
    score = _viterbi_max_kernel(U, P, init, Mt, labels, _pad())
    # the backpointers are recomputed from M and the pairwise scores on first access: M
    # is made read-only and the (q, q) scores copied, so that nothing can change under them
    Mt.flags.writeable = False
    Pc = P.copy()
    return ViterbiResult(labels, float(score), Mt.T, lambda: _backpointers_kernel(Mt, Pc).T)


def hmm_viterbi(startprob, transmat, emissionprob, obs) -> ViterbiResult:
    """Most likely state sequence of a discrete HMM given its observations.

    The chain of UML §17.3 with log-probability scores: ``initial = log startprob``,
    ``pairwise = log transmat`` and ``unary[t, s] = log emissionprob[s, obs[t]]``, so
    that the score of a labelling is the log joint probability
    ``log P(y_0) + Σ_t log P(x_t | y_t) + Σ_{t≥1} log P(y_t | y_{t-1})`` and
    :func:`viterbi`'s recursion maximises it. The logs of the q × q and q × k tables are
    taken once; the kernel reads ``unary`` row by row from the (k, q) table of log
    emissions instead of building the (r, q) matrix, and keeps only the last column of
    M. Same result, bit for bit, as ``viterbi(np.log(emissionprob)[:, obs].T,
    np.log(transmat), np.log(startprob))`` whenever that call is defined — and zero
    probabilities are allowed here (log 0 = -inf: that state or move is never chosen).
    This is what ``hmmlearn``'s ``CategoricalHMM.decode(obs.reshape(-1, 1))`` computes.

    Parameters
    ----------
    startprob : array (q,)
        ``P(y_0 = s)``, sums to 1.
    transmat : array (q, q)
        ``transmat[a, b] = P(y_t = b | y_{t-1} = a)``, rows sum to 1.
    emissionprob : array (q, k)
        ``emissionprob[s, o] = P(x_t = o | y_t = s)``, rows sum to 1.
    obs : array (r,) of int
        Observed symbols in 0..k-1.

    Returns
    -------
    ViterbiResult
        ``labels`` (r,), ``score`` (the log probability of the best path, jointly with
        ``obs``), ``backpointers`` (q, r); ``M`` holds only the last column (q, 1).

    Examples
    --------
    >>> hmm_viterbi([0.5, 0.5], [[0.9, 0.1], [0.1, 0.9]], [[0.8, 0.2], [0.2, 0.8]],
    ...             [0, 0, 1, 1]).labels.tolist()
    [0, 0, 1, 1]
    """
    E = as_matrix(emissionprob, "emissionprob")
    q, k = E.shape
    T = as_matrix(transmat, "transmat")
    if T.shape != (q, q):
        raise ValueError(
            f"transmat must have shape ({q}, {q}) to match emissionprob's {q} states, got {T.shape}"
        )
    p = as_vector(startprob, "startprob", length=q, of="one per row of emissionprob")
    check_stochastic(p, "startprob", "")
    check_stochastic(T, "transmat", "along each row")
    check_stochastic(E, "emissionprob", "along each row")
    o = check_labelling(obs, "obs", None, k)
    r = o.shape[0]
    with np.errstate(divide="ignore"):
        table = np.ascontiguousarray(np.log(E).T)
        lt = np.log(T)
        lp = np.log(p)
    Mt = np.empty((1, q))
    It = np.empty((r, q), dtype=np.int64)
    labels = np.empty(r, dtype=np.int64)
    score = _viterbi_fill(table, o, lt, lp, Mt, It, labels, _pad())
    return ViterbiResult(labels=labels, score=float(score), M=Mt.T, backpointers=It.T)


def _path_score(U, P, init, y):
    """Score of one labelling, summed in the same order as the DP."""
    total = init[y[0]] + U[0, y[0]]
    for t in range(1, len(y)):
        total = total + P[y[t - 1], y[t]] + U[t, y[t]]
    return total


def brute_force_argmax(unary, pairwise, initial=None, max_labellings: int = 2_000_000):
    """Enumerate all q**r labellings (for tests and small demonstrations).

    Same objective and tie rule as :func:`viterbi`: among maximisers, the labelling
    that is smallest when read from the last position backwards. Returns a
    :class:`ViterbiResult` whose ``M`` and ``backpointers`` are empty.

    Source: UML §17.3.
    """
    U, P, init = check_chain_scores(unary, pairwise, initial)
    r, q = U.shape
    max_labellings = check_int(max_labellings, "max_labellings")
    if q**r > max_labellings:
        raise ValueError(
            f"unary: brute force would enumerate q**r = {q}**{r} labellings "
            f"(more than max_labellings={max_labellings}); use viterbi"
        )
    best, best_y = -np.inf, None
    # itertools.product is lexicographic in (y_0, ..., y_{r-1}); enumerating reversed
    # tuples makes the first strict maximum the smallest from the back.
    for rev in itertools.product(range(q), repeat=r):
        y = rev[::-1]
        s = _path_score(U, P, init, y)
        if s > best:
            best, best_y = s, y
    return ViterbiResult(
        labels=np.array(best_y, dtype=np.int64),
        score=float(best),
        M=np.empty((q, 0)),
        backpointers=np.empty((q, 0), dtype=np.int64),
    )


def loss_augmented_viterbi(unary, pairwise, y_true, initial=None, delta=None) -> ViterbiResult:
    """argmax_y Σ_t δ(y_t, y_true_t) + score(y): the oracle of SGD (UML ex. 17.3).

    With Δ(y', y) = Σ_t δ(y'_t, y_t) the loss adds to the unary scores, so the same DP
    solves it: unary'[t, s] = unary[t, s] + δ(s, y_true_t). The default δ is the
    Hamming cost 1[s ≠ y_true_t]; with UML's Δ = (1/r)·Hamming and Ψ carrying the same
    1/r, the factor cancels. ``delta`` may be any (q, q) matrix δ[predicted, true].
    The returned ``score`` includes the loss term.
    """
    U, P, init = check_chain_scores(unary, pairwise, initial)
    r, q = U.shape
    yt = check_labelling(y_true, "y_true", r, q)
    D = 1.0 - np.eye(q) if delta is None else as_matrix(delta, "delta")
    if D.shape != (q, q):
        raise ValueError(f"delta must have shape ({q}, {q}), got {D.shape}")
    return viterbi(U + D[:, yt].T, P, init)
