"""Hidden cases of chapter 07 (bipartite ranking measures, the bins of a reliability diagram)."""

from __future__ import annotations

import numpy as np

from .model import ChapterCases
from .model import HiddenCase as H

# the library functions that compute each exercise's answer, blocked while it is graded
# (paths below kmlteach: module.function or module.Class.method; guards audit, issue 24)
GUARDS = """
07.confusion       metrics.confusion_counts ranking.bipartite_loss metrics.roc_curve metrics.precision metrics.recall metrics.specificity metrics.balanced_accuracy metrics.f_beta metrics.f1 metrics.zero_one_loss metrics.precision_at_k ranking.bipartite_most_violating ranking.bipartite_sgd metrics.recall_at_k metrics.reliability_curve metrics.auc metrics.average_precision
07.fbeta           metrics.f_beta ranking.bipartite_loss metrics.roc_curve metrics.f1 ranking.bipartite_most_violating ranking.bipartite_sgd !metrics.confusion_counts !metrics._counts
07.precision_at_k  metrics.precision_at_k ranking.bipartite_loss metrics.roc_curve metrics.recall_at_k ranking.bipartite_most_violating ranking.bipartite_sgd !metrics.confusion_counts !metrics._counts
07.fixed_ab        ranking.bipartite_most_violating ranking.bipartite_sgd ranking.zero_one_ranking_loss ranking.dcg ranking.ndcg_loss ranking.ranking_sgd ranking.mean_loss ranking.ndcg_most_violating ranking.ndcg_hinge !ranking.losses._discount !ranking.losses._permutation
07.reliability     metrics.reliability_curve metrics.confusion_counts metrics._counts metrics.precision metrics.recall metrics.specificity metrics.balanced_accuracy metrics.f_beta metrics.f1 metrics.zero_one_loss metrics.precision_at_k metrics.recall_at_k
"""
CASES = ChapterCases(GUARDS)


def _sample(r, n):
    y = np.where(r.random(n) < 0.4, 1.0, -1.0)
    y[0], y[1] = 1.0, -1.0
    return np.round(r.normal(size=n) + y, 1), y


@CASES.hidden("07.confusion")
def _confusion(seed=701):
    r = np.random.default_rng(seed)
    s, y = _sample(r, 60)
    return [
        H("θ below every score", (s, y, -100.0)),
        H("ties at θ", (np.array([0.5, 0.5, 0.5]), np.array([1.0, -1.0, 1.0]), 0.5)),
        H("long list", (s, y, 0.2)),
        H("all negatives", (np.array([0.3, -0.2]), np.array([-1.0, -1.0]), 0.0)),
    ]


@CASES.hidden("07.fbeta")
def _fbeta(seed=702):
    r = np.random.default_rng(seed)
    s, y = _sample(r, 40)
    return [
        H("perfect ranking", (np.array([2.0, 1.0, -1.0]), np.array([1.0, 1.0, -1.0]), 0.0, 1.0)),
        H("large β", (s, y, 0.0, 10.0)),
        H("small β", (s, y, 0.5, 0.1)),
    ]


@CASES.hidden("07.precision_at_k")
def _patk(seed=703):
    r = np.random.default_rng(seed)
    s, y = _sample(r, 50)
    return [
        H("k = r", (s, y, 50)),
        H(
            "ties at the k-th score",
            (np.array([0.9, 0.5, 0.5, 0.5, 0.1]), np.array([1.0, -1.0, 1.0, -1.0, 1.0]), 2),
        ),
        H("long list, k = 7", (s, y, 7)),
    ]


@CASES.hidden("07.fixed_ab")
def _fixed_ab(seed=704):
    r = np.random.default_rng(seed)
    n = 60
    y = np.where(r.random(n) < 0.3, 1, -1)
    y[0], y[1] = 1, -1
    P, N = int(np.sum(y > 0)), int(np.sum(y < 0))
    return [
        H("a = P, b = N: all +1", (np.array([0.2, -0.4, 1.1, 0.0]), np.array([-1, 1, 1, -1]), 2, 2)),
        H(
            "ties among the negatives",
            (np.array([0.7, 0.2, 0.2, 0.9, 0.2]), np.array([1, -1, -1, 1, -1]), 1, 2),
        ),
        H("only positives", (np.array([0.1, 0.4, -0.3, 0.4]), np.array([1, 1, 1, 1]), 3, 0)),
        H(
            "float labels ±1.0",
            (np.array([-0.5, 0.3, 0.8, -0.1, 0.6]), np.array([1.0, -1.0, 1.0, -1.0, -1.0]), 1, 1),
        ),
        H("a = 0, b = N", (np.array([0.3, -0.2, 0.5, 0.1]), np.array([1, -1, -1, 1]), 0, 2)),
        H(
            "long list, r = 60",
            (np.round(r.normal(size=n), 1), y, int(r.integers(1, P)), int(r.integers(1, N))),
        ),
    ]


@CASES.hidden("07.reliability")
def _reliability(seed=705):
    r = np.random.default_rng(seed)
    p = np.round(r.beta(2.0, 2.0, size=120), 3)
    p = np.where(np.isclose((p * 10) % 1.0, 0.0), p + 0.001, p)  # no item on an edge of 10 bins
    y = np.where(r.random(120) < p, 1, -1)
    q = np.round(r.random(30), 2)
    q = np.where(np.isclose((q * 20) % 1.0, 0.0), q + 0.005, q)  # none on an edge of 20 bins
    return [
        H("every probability 1: the last bin", (np.ones(4), np.array([1, -1, 1, 1]), 5)),
        H("every probability 0: the first bin", (np.zeros(3), np.array([-1, -1, 1]), 3)),
        H(
            "edges of 8 bins: 0.125, 0.5, 0.875 (lower bin)",
            (np.array([0.125, 0.5, 0.875, 0.3, 0.99]), np.array([1, -1, 1, 1, -1]), 8),
        ),
        H("only negatives", (np.array([0.2, 0.45, 0.7]), np.array([-1, -1, -1]), 4)),
        H("one item", (np.array([0.42]), np.array([1]), 10)),
        H("120 items, 10 bins", (p, y, 10)),
        H("30 items, 20 bins, four of them empty", (q, np.where(q > 0.5, 1, -1), 20)),
    ]
