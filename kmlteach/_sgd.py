"""SGD for multiclass learning (UML §17.2.5) over a list of (x̄, y) queries.

Shared by :func:`kmlteach.ranking.ranking_sgd` (§17.4.1) and
:func:`kmlteach.ranking.bipartite_sgd` (§17.5.1): both are the same loop and differ
only in the subgradient oracle, i.e. in how the maximiser of the generalized hinge is
found (an assignment problem, or the procedure "Solving Equation (17.14)").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ._validation import as_matrix, as_vector, check_binary_labels, check_int, check_positive, check_rng

__all__ = ["SGDResult", "check_queries", "structured_sgd"]


@dataclass(frozen=True)
class SGDResult:
    """Output of SGD: ``w`` = w̄ = (1/T) Σ_{t=1..T} w⁽ᵗ⁾ (w⁽¹⁾ = 0 included),
    ``w_last`` = w⁽ᵀ⁾, ``indices`` = the queries drawn, and the running averages
    ``path`` (n_records, d) after ``path_t`` steps (empty unless ``record_every``)."""
    w: np.ndarray
    w_last: np.ndarray
    indices: np.ndarray
    path: np.ndarray
    path_t: np.ndarray


def check_queries(queries, name: str = "queries", *, binary: bool = False,
                  nonnegative: bool = False, min_items: int = 2) -> list[tuple[np.ndarray, np.ndarray]]:
    """A non-empty list of (X, y) pairs with a common number of features."""
    if isinstance(queries, tuple) and len(queries) == 2 and isinstance(queries[0], np.ndarray) \
            and queries[0].ndim == 2:
        raise TypeError(f"{name} must be a list of (X, y) pairs; wrap a single query as [(X, y)]")
    if not isinstance(queries, (list, tuple)):
        raise TypeError(f"{name} must be a list of (X, y) pairs, got {type(queries).__name__}")
    if len(queries) == 0:
        raise ValueError(f"{name} is empty; give at least one (X, y) pair")
    out = []
    d = None
    for q, item in enumerate(queries):
        if not isinstance(item, (list, tuple)) or len(item) != 2:
            raise TypeError(f"{name}[{q}] must be an (X, y) pair")
        X = as_matrix(item[0], f"{name}[{q}] X", min_rows=min_items)
        if d is None:
            d = X.shape[1]
        elif X.shape[1] != d:
            raise ValueError(f"{name}[{q}] X has {X.shape[1]} features, the first query has {d}")
        if binary:
            y = check_binary_labels(item[1], f"{name}[{q}] y", n=X.shape[0], require_both=False)
        else:
            y = as_vector(item[1], f"{name}[{q}] y", length=X.shape[0])
        if nonnegative and np.any(y < 0):
            raise ValueError(f"{name}[{q}] y must hold non-negative relevances")
        out.append((X, y))
    return out


def structured_sgd(queries, oracle: Callable, eta, T, seed, record_every=None) -> SGDResult:
    """w⁽¹⁾ = 0; w⁽ᵗ⁺¹⁾ = w⁽ᵗ⁾ − η·oracle(w⁽ᵗ⁾, X, y) for a uniformly drawn query."""
    eta = check_positive(eta, "eta")
    T = check_int(T, "T", minimum=1)
    if record_every is not None:
        record_every = check_int(record_every, "record_every", minimum=1)
    rng = check_rng(seed)
    indices = rng.integers(0, len(queries), size=T)
    d = queries[0][0].shape[1]
    w = np.zeros(d)
    total = np.zeros(d)
    path, path_t = [], []
    for t in range(1, T + 1):
        total += w                      # accumulates w⁽ᵗ⁾
        if record_every is not None and t % record_every == 0:
            path.append(total / t)
            path_t.append(t)
        if t < T:                       # w⁽ᵀ⁺¹⁾ is never used
            X, y = queries[indices[t - 1]]
            w = w - eta * oracle(w, X, y)
    return SGDResult(w=total / T, w_last=w, indices=indices,
                     path=np.array(path).reshape(len(path), d), path_t=np.array(path_t, dtype=np.int64))
