"""Structured arguments of the later chapters: Gram matrices, distributions, ECOC codes,
graphs, stochastic matrices, strings, label chains and their weights, bootstrap counts
(see :mod:`kmlteach._validation`; each check cites the chapter that uses it)."""

from __future__ import annotations

from typing import Any

import numpy as np

from kmlteach._jit import jit, prange

from .arrays import _describe, as_matrix, as_vector
from .labels import check_labelling
from .scalars import check_choice, check_int, check_positive, check_string

# a Gram matrix beyond this makes a^T K a overflow for any reasonable coefficients
MAX_GRAM = 1e150


def check_gram(K: Any, name: str = "K") -> np.ndarray:
    """A finite, square, symmetric (to 1e-8 relative) Gram matrix (HSS1 Def. 1); one pass over K."""
    Ka = as_matrix(K, name, finite=False)
    if Ka.shape[0] != Ka.shape[1]:
        raise ValueError(f"{name} must be square, got shape {Ka.shape}")
    n_bad, biggest, gap = _check_gram_kernel(Ka)
    if n_bad:
        raise ValueError(f"{name} contains {n_bad} NaN or infinite value(s); all entries must be finite")
    if biggest > MAX_GRAM:
        raise ValueError(
            f"{name} has entries up to {biggest:.3g}: its quadratic forms would overflow; rescale {name}"
        )
    if gap > 1e-8 * max(1.0, biggest):
        raise ValueError(f"{name} must be symmetric (a Gram matrix), got max |{name} - {name}.T| = {gap:.3g}")
    return Ka


_BIG = 1.7976931348623157e308  # the largest finite double: |x| <= _BIG is False for NaN and inf
_TILE = 128  # 128 x 128 tiles: the transposed reads K[j, i] of a tile stay in cache


_PARALLEL_FROM = 2048 * 2048  # entries: below, one thread (see _check_gram_kernel)


def _check_gram_kernel(K):
    """(number of non-finite entries, max |K_ij|, max |K_ij - K_ji|) over the tiles on and
    above the diagonal, each compared with its transposed tile.

    Matrices of 2048² entries and more are scanned by row bands in parallel (issue 26's
    kernel SVM row: 13 ms serially with 32 x 32 tiles, 5.5 ms on two threads for
    3000 x 3000); smaller ones on one thread: a pass over 455 x 455 takes 0.6 ms alone,
    but a parallel region waits for a free core, 40-130 ms per call on a busy two-core
    machine (a hub's cores are always busy), which made chapter 02's cross-validation
    (240 fits) take 47 s instead of 2.5 s. Counts and maxima do not depend on the order
    in which the entries are visited: both give the same result.
    """
    if K.shape[0] * K.shape[0] >= _PARALLEL_FROM:
        return _check_gram_parallel(K)
    return _check_gram_serial(K)


@jit(warmup=lambda: (np.eye(3), 0))
def _gram_band(K, bi):
    """Band bi of tiles (rows bi·_TILE onwards, the tiles on and right of the diagonal)."""
    n = K.shape[0]
    i0 = bi * _TILE
    i1 = min(n, i0 + _TILE)
    count = 0
    top = 0.0
    diff = 0.0
    for j0 in range(i0, n, _TILE):
        j1 = min(n, j0 + _TILE)
        for i in range(i0, i1):
            for j in range(max(j0, i), j1):
                a = K[i, j]
                b = K[j, i]
                fine_a = abs(a) <= _BIG
                fine_b = abs(b) <= _BIG
                if fine_a and fine_b:
                    top = max(top, max(abs(a), abs(b)))
                    diff = max(diff, abs(a - b))
                elif i == j:
                    count += 1
                else:
                    count += int(not fine_a) + int(not fine_b)
    return count, top, diff


@jit(warmup=lambda: (np.eye(3),))
def _check_gram_serial(K):
    """:func:`_check_gram_kernel` on one thread."""
    nb = (K.shape[0] + _TILE - 1) // _TILE
    count = 0
    top = 0.0
    diff = 0.0
    for bi in range(nb):
        c, t, d = _gram_band(K, bi)
        count += c
        top = max(top, t)
        diff = max(diff, d)
    return count, top, diff


@jit(parallel=True, warmup=lambda: (np.eye(3),))
def _check_gram_parallel(K):
    """:func:`_check_gram_kernel` by row bands in parallel. Band bi holds nb - bi tiles,
    so each parallel step takes band p and band nb - 1 - p: equal steps, shared evenly by
    the threads."""
    n = K.shape[0]
    nb = (n + _TILE - 1) // _TILE
    bad = np.zeros(nb, dtype=np.int64)
    big = np.zeros(nb)
    gap = np.zeros(nb)
    for p in prange((nb + 1) // 2):
        q = np.int64(p)  # (a parallel loop's index may be unsigned: int64 - uint64 is a float)
        for half in range(2):
            bi = q if half == 0 else nb - 1 - q
            if half == 1 and bi == q:  # the middle band of an odd count: already done
                continue
            bad[bi], big[bi], gap[bi] = _gram_band(K, bi)
    return bad.sum(), big.max() if nb else 0.0, gap.max() if nb else 0.0


def check_kernel_test(K_test: Any, m: int | None, name: str = "K_test") -> np.ndarray:
    """Kernel values k(z_a, x_j) between new points and the m training points: (n, m), finite,
    small enough that products with it cannot overflow."""
    Kt = as_matrix(K_test, name, n_cols=m)
    if Kt.size and float(np.max(np.abs(Kt))) > MAX_GRAM:
        raise ValueError(
            f"{name} has entries up to {float(np.max(np.abs(Kt))):.3g}: products with it "
            f"would overflow; rescale {name}"
        )
    return Kt


def check_distribution(D: Any, m: int, name: str = "D") -> np.ndarray:
    """Weights over the m points of a sample (boosting, UML §10.1): None gives the uniform
    distribution; else non-negative with a positive sum."""
    if D is None:
        return np.full(m, 1.0 / m)
    D = as_vector(D, name, length=m)
    if np.any(D < 0):
        raise ValueError(f"{name} must be non-negative (a distribution over the sample)")
    if not D.sum() > 0:
        raise ValueError(f"{name} must have a positive sum")
    return D


def check_code(code: Any, k: int) -> np.ndarray:
    """An ECOC code matrix (UML §17.1; Dietterich and Bakiri): k rows of -1/+1, no constant
    column, no two identical rows."""
    M = as_matrix(code, "code")
    if M.shape[0] != k:
        raise ValueError(f"code must have one row per class ({k}), got shape {M.shape}")
    if not np.all(np.isin(M, (-1.0, 1.0))):
        raise ValueError("code must contain only -1 and +1")
    const = np.all(M == M[0:1, :], axis=0)
    if np.any(const):
        raise ValueError(
            f"code column {int(np.argmax(const))} is constant: its binary problem would have a single class"
        )
    if np.unique(M, axis=0).shape[0] < k:
        raise ValueError("code has two identical rows: those classes could not be told apart")
    return M


def check_graph(A: Any, name: str, *, binary: bool = True, symmetric: bool = True) -> np.ndarray:
    """An adjacency matrix (HSS1 §1.4.4): square, non-negative, optionally 0/1 and symmetric."""
    A = as_matrix(A, name)
    if A.shape[0] != A.shape[1]:
        raise ValueError(f"{name} must be a square adjacency matrix, got shape {A.shape}")
    if np.any(A < 0):
        raise ValueError(f"{name} must have non-negative entries (edge weights or 0/1)")
    if binary and not np.all((A == 0) | (A == 1)):
        raise ValueError(
            f"{name} must be a 0/1 adjacency matrix, got values "
            f"{sorted(set(np.unique(A).tolist()) - {0.0, 1.0})[:4]}"
        )
    if symmetric and not np.array_equal(A, A.T):
        raise ValueError(f"{name} must be symmetric (an undirected graph)")
    return A


def check_node_labels(labels: Any, name: str, n: int, codes: dict) -> np.ndarray:
    """One hashable label per node (None: all alike) as int64 codes, shared through ``codes``."""
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


def check_stochastic(P: np.ndarray, name: str, axis_text: str) -> None:
    """Probabilities of an HMM (UML §17.3): finite (checked on input), >= 0, each row (or the
    vector) sums to 1."""
    if np.any(P < 0):
        raise ValueError(f"{name} must contain probabilities (>= 0), got a minimum of {P.min():g}")
    sums = P.sum(axis=-1)
    if not np.allclose(sums, 1.0, rtol=0, atol=1e-8 * P.shape[-1]):
        raise ValueError(
            f"{name} must sum to 1 {axis_text}, got sums in [{sums.min():.10g}, {sums.max():.10g}]"
        )


def check_strings(strings: Any, name: str) -> list[str]:
    """A non-empty list (or tuple, array) of strings (string kernels, HSS1 §1.4.2)."""
    if isinstance(strings, str) or not isinstance(strings, (list, tuple, np.ndarray)):
        raise TypeError(f"{name} must be a list of strings, got {_describe(strings)}")
    out = [check_string(x, f"{name}[{i}]") for i, x in enumerate(strings)]
    if not out:
        raise ValueError(f"{name} is empty; give at least one string")
    return out


def check_exp_family(
    X: Any, theta: Any, family: str, sigma: Any, families: tuple, X_name: str = "X"
) -> tuple:
    """Data and parameters of a Fisher-kernel exponential family (HSS1 §1.4.5)."""
    family = check_choice(family, "family", families)
    X = as_matrix(X, X_name)
    theta = as_vector(theta, "theta", length=X.shape[1])
    sigma = check_positive(sigma, "sigma")
    if family == "bernoulli" and not np.all((X == 0) | (X == 1)):
        raise ValueError(f"{X_name} must hold 0/1 values for family='bernoulli'")
    return X, theta, family, sigma


def check_chain_scores(unary: Any, pairwise: Any, initial: Any) -> tuple:
    """Scores of a label chain (UML §17.3): unary (r, q), pairwise (q, q), initial (q,) or None."""
    U = as_matrix(unary, "unary")
    q = U.shape[1]
    P = as_matrix(pairwise, "pairwise")
    if P.shape != (q, q):
        raise ValueError(f"pairwise must have shape ({q}, {q}) to match unary's {q} labels, got {P.shape}")
    init = np.zeros(q) if initial is None else as_vector(initial, "initial", length=q)
    return U, P, init


def check_chain_weights(W_unary: Any, W_pair: Any, n: int | None = None) -> tuple:
    """Weights of a label chain (UML §17.3): W_unary (q, n), W_pair (q, q)."""
    Wu = as_matrix(W_unary, "W_unary", n_cols=n)
    q = Wu.shape[0]
    Wp = as_matrix(W_pair, "W_pair")
    if Wp.shape != (q, q):
        raise ValueError(f"W_pair must have shape ({q}, {q}) to match W_unary's {q} rows, got {Wp.shape}")
    return Wu, Wp


def check_sequences(X: Any, Y: Any, n_labels: Any, name_X: str = "X", name_Y: str = "Y") -> tuple:
    """A sample of label chains (UML §17.3): X a list of (r_i, n) arrays, Y one labelling per
    word; returns (stacked X, stacked labels, word offsets, q)."""
    q = check_int(n_labels, "n_labels", minimum=2)
    if isinstance(X, np.ndarray) and X.ndim == 2:
        raise TypeError(f"{name_X} must be a list of (r_i, n) arrays (one per word), got one 2-D array")
    if not isinstance(X, (list, tuple)) or len(X) == 0:
        raise TypeError(f"{name_X} must be a non-empty list of (r_i, n) arrays, got {type(X).__name__}")
    if not isinstance(Y, (list, tuple)) or len(Y) != len(X):
        raise ValueError(
            f"{name_Y} must be a list with one label array per word of {name_X} "
            f"({len(X)}), got {type(Y).__name__}"
            + (f" of length {len(Y)}" if isinstance(Y, (list, tuple)) else "")
        )
    Xs, Ys = [], []
    n = None
    for i, (x, y) in enumerate(zip(X, Y)):
        xa = as_matrix(x, f"{name_X}[{i}]", n_cols=n)
        n = xa.shape[1]
        Xs.append(xa)
        Ys.append(check_labelling(y, f"{name_Y}[{i}]", xa.shape[0], q, rows=f"{name_X}[{i}]"))
    offsets = np.zeros(len(Xs) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([x.shape[0] for x in Xs])
    return np.ascontiguousarray(np.vstack(Xs)), np.concatenate(Ys), offsets, q


def check_bootstraps(value: Any, name: str, m: int, max_entries: int) -> int:
    """A number of bootstrap samples of m points (bagging, ESL §8.7) whose indices fit in
    ``max_entries``."""
    B = check_int(value, name, minimum=1, maximum=1_000_000)
    if B * m > max_entries:
        raise ValueError(
            f"{name} = {B} bootstrap samples of m = {m} points would store more than "
            f"{max_entries:.0e} indices; choose a smaller {name}"
        )
    return B


def check_measure(measure: Any, k: Any, beta: Any, r: int, measures: dict) -> tuple:
    """A bipartite ranking measure (UML §17.5): its code, the cut-off k (required by the
    measures that need one, at most r) and beta > 0."""
    measure = check_choice(measure, "measure", tuple(measures))
    code, needs_k, _ = measures[measure]
    if needs_k:
        if k is None:
            raise ValueError(f"k is required for measure={measure!r}")
        k = check_int(k, "k", minimum=1, maximum=r)
    else:
        k = 0 if k is None else check_int(k, "k", minimum=1)
    beta = check_positive(beta, "beta")
    return code, k, beta


def check_relevance(y_true: np.ndarray) -> None:
    """Graded relevance scores for NDCG (UML §17.4): non-negative."""
    if np.any(y_true < 0):
        raise ValueError(
            "y_true must hold non-negative relevance scores for the NDCG loss, "
            f"got minimum {float(y_true.min()):g}"
        )
