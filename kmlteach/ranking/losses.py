"""π(y) and the ranking losses of UML §17.4: the 0–1 ranking loss, the Kendall-tau
loss, the discount D(i) with top-k truncation, DCG and the NDCG loss.

Positions are 1-based as in the book: π(y)_i = r is the top item (largest y_i).
**Tie rule**: items with equal scores are ordered by index, the smaller index getting
the smaller position (a stable ascending sort), so ``permutation([1, 1])`` is (1, 2).
"""

from __future__ import annotations

import numpy as np

from kmlteach._jit import jit
from kmlteach._validation import as_vector, check_cutoff, check_int, check_relevance, check_scores

__all__ = ["permutation", "zero_one_ranking_loss", "kendall_tau_loss", "discount", "dcg", "ndcg_loss"]


# ----------------------------------------------------------------------------------
# π(y) and the ranking losses of §17.4
# ----------------------------------------------------------------------------------


def permutation(y) -> np.ndarray:
    """The permutation π(y) induced by a score vector (UML §17.4).

    π(y)_i is the 1-based position of y_i in y sorted in ascending order, so the item
    with the largest score gets position r ("top-ranked"). Ties: equal scores are
    ordered by index (the smaller index gets the smaller position).

    Parameters
    ----------
    y : array-like of shape (r,)

    Returns
    -------
    ndarray of shape (r,), int64, a permutation of 1..r

    Examples
    --------
    >>> permutation([2, 1, 6, -1, 0.5])   # the book's example
    array([4, 3, 5, 1, 2])
    """
    y = as_vector(y, "y")
    return _permutation(y)


def _permutation(y: np.ndarray) -> np.ndarray:
    order = np.argsort(y, kind="stable")
    pi = np.empty(y.shape[0], dtype=np.int64)
    pi[order] = np.arange(1, y.shape[0] + 1)
    return pi


def zero_one_ranking_loss(y_pred, y_true) -> float:
    """0–1 ranking loss 1[π(y') ≠ π(y)] (UML §17.4), with the module's tie rule."""
    y_pred, y_true = check_scores(y_pred, y_true, "y_pred", binary=False)
    return float(not np.array_equal(_permutation(y_pred), _permutation(y_true)))


def kendall_tau_loss(y_pred, y_true) -> float:
    """Kendall-tau loss: the fraction of pairs ordered differently (UML §17.4).

    Δ(y', y) = 2/(r(r−1)) Σ_{i<j} 1[sign(y'_i − y'_j) ≠ sign(y_i − y_j)].

    Ties follow the book's sign definition: sign(0) = 0, so a pair tied in one
    vector and not in the other counts as a disagreement, and a pair tied in both
    agrees. Without ties Δ = (1 − τ)/2 with Kendall's τ.

    Parameters
    ----------
    y_pred, y_true : array-like of shape (r,), r ≥ 2

    Returns
    -------
    float in [0, 1]
    """
    y_pred, y_true = check_scores(y_pred, y_true, "y_pred", binary=False, min_length=2)
    r = y_true.shape[0]
    return 2.0 * _kendall_kernel(y_pred, y_true) / (r * (r - 1))


@jit(warmup=lambda: (np.array([2.0, 1.0, 6.0]), np.array([1.0, 2.0, 3.0])))
def _kendall_kernel(yp, y):
    r = y.shape[0]
    count = 0
    for i in range(r - 1):
        for j in range(i + 1, r):
            if np.sign(yp[i] - yp[j]) != np.sign(y[i] - y[j]):
                count += 1
    return count


def discount(positions, r: int, k=None) -> np.ndarray:
    """The discount D(i) = 1/log₂(r − i + 2) for i ∈ {r−k+1, …, r}, else 0 (UML §17.4).

    ``positions`` are 1-based positions in π (r = top item, whose discount is 1).
    ``k=None`` keeps every position (k = r); a k larger than r is treated as r.
    Written with the rank from the top ρ = r − i + 1 this is 1/log₂(ρ + 1), the
    discount of scikit-learn's ``ndcg_score``.
    """
    r = check_int(r, "r", minimum=1)
    k = check_cutoff(k, r)
    pos = np.asarray(positions)
    if pos.dtype.kind not in "iu" or np.any(pos < 1) or np.any(pos > r):
        raise ValueError(f"positions must be integers in 1..r = 1..{r}, got {positions!r}")
    return _discount(pos.astype(np.float64), r, k)


def _discount(pos: np.ndarray, r: int, k: int) -> np.ndarray:
    rank_from_top = r - pos + 1.0
    return np.where(rank_from_top <= k, 1.0 / np.log2(rank_from_top + 1.0), 0.0)


def dcg(y_pred, y_true, k=None) -> float:
    """Discounted cumulative gain G(y', y) = Σ_i D(π(y')_i) y_i (UML §17.4)."""
    y_pred, y_true = check_scores(y_pred, y_true, "y_pred", binary=False)
    r = y_true.shape[0]
    return float(_discount(_permutation(y_pred).astype(float), r, check_cutoff(k, r)) @ y_true)


def ndcg_loss(y_pred, y_true, k=None) -> float:
    """NDCG loss Δ(y', y) = 1 − G(y', y)/G(y, y) (UML §17.4) with top-k discount.

    Parameters
    ----------
    y_pred : array-like of shape (r,)
        Predicted scores y'; ties are broken by the module's tie rule (by index).
    y_true : array-like of shape (r,)
        Non-negative true relevances y (the gains).
    k : int, optional
        Only the top-k positions count (default: all of them).

    Returns
    -------
    float in [0, 1]. When G(y, y) = 0 (no relevant item in the top k of the ideal
    ranking, e.g. all relevances zero) every ranking is as good as the ideal one and
    the loss is defined as 0.

    Notes
    -----
    scikit-learn's ``1 - ndcg_score([y_true], [y_pred], k=k)`` uses the same gains
    (the relevances themselves) and the same discount, and agrees whenever y_pred has
    no ties. It differs (i) on ties in y_pred, where it averages the gains of the tied
    items instead of breaking the tie by index, and (ii) when G(y, y) = 0, where its
    score is 0 (loss 1) instead of our loss 0.
    """
    y_pred, y_true = check_scores(y_pred, y_true, "y_pred", binary=False)
    check_relevance(y_true)
    r = y_true.shape[0]
    k = check_cutoff(k, r)
    ideal = float(_discount(_permutation(y_true).astype(float), r, k) @ y_true)
    if ideal == 0.0:
        return 0.0
    got = float(_discount(_permutation(y_pred).astype(float), r, k) @ y_true)
    return 1.0 - got / ideal
