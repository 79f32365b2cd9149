"""Hidden cases of chapter 06 (ranking)."""

from __future__ import annotations

import numpy as np

from .model import ChapterCases
from .model import HiddenCase as H

# the library functions that compute each exercise's answer, blocked while it is graded
# (paths below kmlteach: module.function or module.Class.method; guards audit, issue 24)
GUARDS = """
06.permutation  ranking.permutation ranking.assignment ranking.zero_one_ranking_loss ranking.dcg ranking.ndcg_loss ranking.ranking_sgd ranking.mean_loss ranking.ndcg_most_violating ranking.ndcg_hinge !ranking.losses._discount
06.kendall      ranking.kendall_tau_loss ranking.mean_loss ranking.kendall_hinge ranking.surrogates._kendall_hinge_kernel ranking.ranking_sgd
06.ndcg         ranking.ndcg_loss ranking.dcg ranking.discount ranking.ranking_sgd ranking.mean_loss ranking.ndcg_most_violating ranking.ndcg_hinge plots.ch06.plot_ranked_list plots.ch06.ranked_list_data !ranking.losses._permutation
06.ndcg_costs   ranking.ndcg_most_violating ranking.dcg ranking.discount ranking.ndcg_loss ranking.ranking_sgd ranking.mean_loss ranking.ndcg_hinge plots.ch06.plot_ranked_list plots.ch06.ranked_list_data !ranking.losses._permutation
"""
CASES = ChapterCases(GUARDS)


def _grades(r, n, top):
    """Relevance grades 0-3 of n items, item ``top`` of the highest grade."""
    y = r.integers(0, 4, n).astype(float)
    y[top] = 3.0
    return y


@CASES.hidden("06.permutation")
def _perm(seed=601):
    r = np.random.default_rng(seed)
    return [
        H("all tied", (np.zeros(5),)),
        H("already sorted", (np.arange(6.0),)),
        H("negative scores", (-np.round(r.random(9), 2),)),
        H("long list", (np.round(r.normal(size=40), 1),)),
    ]


@CASES.hidden("06.kendall")
def _kendall(seed=602):
    r = np.random.default_rng(seed)
    return [
        H("two items", (np.array([2.0, 1.0]), np.array([1.0, 2.0]))),
        H("ties in the prediction", (np.array([1.0, 1.0, 2.0, 2.0]), np.array([1.0, 2.0, 3.0, 4.0]))),
        H("long list", (np.round(r.normal(size=30), 1), r.integers(0, 5, 30).astype(float))),
    ]


@CASES.hidden("06.ndcg")
def _ndcg(seed=603):
    r = np.random.default_rng(seed)
    n = 20
    y = _grades(r, n, 3)
    yp = r.permutation(n).astype(float)
    return [
        H("one relevant item", (np.array([0.1, 0.9, 0.5]), np.array([0.0, 0.0, 2.0]), 2)),
        H("k = r", (yp, y, n)),
        H("k = 1, long list", (yp, y, 1)),
    ]


@CASES.hidden("06.ndcg_costs")
def _costs(seed=604):
    r = np.random.default_rng(seed)
    n = 25
    y = _grades(r, n, 7)
    return [
        H("r = 1", (np.array([0.4]), np.array([2.0]), 1)),
        H("ties in y_true", (np.array([0.1, -0.3, 0.8, 0.2, 0.0]), np.array([2.0, 2.0, 1.0, 1.0, 0.0]), 3)),
        H("ties in y_score", (np.array([0.5, 0.5, 0.5, -1.0]), np.array([0.0, 1.0, 3.0, 2.0]), 2)),
        H("every item equally relevant", (r.normal(size=6), np.ones(6), 4)),
        H("no relevant item, k < r", (r.normal(size=6), np.zeros(6), 3)),
        H("k = 1, one relevant item", (r.normal(size=5), np.array([0.0, 0.0, 0.0, 1.0, 0.0]), 1)),
        H("k = r, long list", (np.round(r.normal(size=n), 2), y, n)),
    ]
