"""SGD for multiclass learning (UML §17.2.5) over a list of (x̄, y) queries.

:func:`structured_sgd` is the loop shared by :func:`ranking_sgd` (§17.4.1) and
:func:`kmlteach.ranking.bipartite_sgd` (§17.5.1): they differ only in the
subgradient oracle, i.e. in how the maximiser of the generalized hinge is found (an
assignment problem, or the procedure "Solving Equation (17.14)").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from kmlteach._validation import (
    as_matrix,
    as_vector,
    check_binary_labels,
    check_choice,
    check_cutoff,
    check_finite_result,
    check_int,
    check_positive,
    check_rng,
)
from kmlteach.ranking.losses import _permutation, kendall_tau_loss, ndcg_loss
from kmlteach.ranking.surrogates import (
    _assignment_from_validated,
    _kendall_hinge_kernel,
    _ndcg_cost_matrix,
)

__all__ = ["SGDResult", "ranking_sgd", "mean_loss"]


@dataclass(frozen=True)
class SGDResult:
    """Output of SGD: ``w`` = w̄ = (1/T) Σ_{t=1..T} w⁽ᵗ⁾ (w⁽¹⁾ = 0 included),
    ``w_last`` = w⁽ᵀ⁾, ``indices`` = the queries drawn, and the running averages
    ``path`` (n_records, d) after ``path_t`` steps (empty unless ``record_every``).

    Source: UML §17.2.5.
    """

    w: np.ndarray
    w_last: np.ndarray
    indices: np.ndarray
    path: np.ndarray
    path_t: np.ndarray


def check_queries(
    queries, name: str = "queries", *, binary: bool = False, nonnegative: bool = False, min_items: int = 2
) -> list[tuple[np.ndarray, np.ndarray]]:
    """A non-empty list of (X, y) pairs with a common number of features."""
    if (
        isinstance(queries, tuple)
        and len(queries) == 2
        and isinstance(queries[0], np.ndarray)
        and queries[0].ndim == 2
    ):
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
        total += w  # accumulates w⁽ᵗ⁾
        if record_every is not None and t % record_every == 0:
            path.append(total / t)
            path_t.append(t)
        if t < T:  # w⁽ᵀ⁺¹⁾ is never used
            X, y = queries[indices[t - 1]]
            w = w - eta * oracle(w, X, y)
    check_finite_result("eta", total, w)
    return SGDResult(
        w=total / T,
        w_last=w,
        indices=indices,
        path=np.array(path).reshape(len(path), d),
        path_t=np.array(path_t, dtype=np.int64),
    )


# ----------------------------------------------------------------------------------
# SGD (§17.2.5 applied to §17.4.1)
# ----------------------------------------------------------------------------------


def ranking_sgd(
    queries,
    surrogate: str = "kendall",
    eta: float = 0.1,
    T: int = 1000,
    seed=None,
    k=None,
    record_every: int | None = None,
) -> SGDResult:
    """Learn a linear ranking function w by SGD on a convex surrogate (UML §17.4.1).

    "SGD for multiclass learning" (UML §17.2.5): w⁽¹⁾ = 0; at step t draw a query
    (x̄, y) uniformly from ``queries``, take a subgradient v_t of the surrogate at
    w⁽ᵗ⁾ and set w⁽ᵗ⁺¹⁾ = w⁽ᵗ⁾ − η v_t; output w̄ = (1/T) Σ_{t=1..T} w⁽ᵗ⁾.

    Parameters
    ----------
    queries : list of (X, y)
        ``X`` of shape (r_i, d) (one row per item), ``y`` of shape (r_i,) (relevances;
        non-negative for ``surrogate="ndcg"``); r_i ≥ 2.
    surrogate : {"kendall", "ndcg"}, default="kendall"
    eta : float > 0, default=0.1
    T : int ≥ 1, default=1000
    seed : int or None
        Seeds the draw of the T query indices.
    k : int, optional
        Top-k truncation of the NDCG discount (``surrogate="ndcg"`` only).
    record_every : int, optional
        Also store the running average w̄ after every ``record_every`` steps (for
        learning curves) in ``.path`` with the step numbers in ``.path_t``.

    Returns
    -------
    SGDResult with ``.w`` (averaged), ``.w_last`` (= w⁽ᵀ⁾), ``.indices`` (the drawn
    queries), ``.path``, ``.path_t``.
    """
    surrogate = check_choice(surrogate, "surrogate", ("kendall", "ndcg"))
    qs = check_queries(queries, "queries", nonnegative=surrogate == "ndcg")
    if k is not None:
        check_int(k, "k", minimum=1)
    if surrogate == "kendall":

        def oracle(w, X, y):
            _, coef = _kendall_hinge_kernel(X @ w, y)
            return coef @ X
    else:

        def oracle(w, X, y):
            A, _, _ = _ndcg_cost_matrix(X @ w, y, check_cutoff(k, y.shape[0]))
            v = _assignment_from_validated(A) + 1
            return (v - _permutation(y)).astype(float) @ X

    return structured_sgd(qs, oracle, eta, T, seed, record_every)


def mean_loss(w, queries, loss: str = "kendall", k=None) -> float:
    """Average ranking loss of h_w over a list of (X, y) queries ("kendall" or "ndcg").

    Source: UML §17.4.
    """
    loss = check_choice(loss, "loss", ("kendall", "ndcg"))
    qs = check_queries(queries, "queries", nonnegative=loss == "ndcg")
    if k is not None:  # checked even when loss="kendall" makes it unused
        check_int(k, "k", minimum=1)
    w = as_vector(w, "w", length=qs[0][0].shape[1])
    fn = kendall_tau_loss if loss == "kendall" else (lambda p, t: ndcg_loss(p, t, k=k))
    return float(np.mean([fn(X @ w, y) for X, y in qs]))
