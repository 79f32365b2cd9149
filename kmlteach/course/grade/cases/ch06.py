"""Hidden cases of chapter 06 (ranking)."""

from __future__ import annotations

import numpy as np

from . import HiddenCase as H

GUARDS = {"06.permutation": ["kmlteach.ranking.permutation"],
          "06.kendall": ["kmlteach.ranking.kendall_tau_loss"],
          "06.ndcg": ["kmlteach.ranking.ndcg_loss"]}


def _perm():
    r = np.random.default_rng(601)
    return [H("all tied", (np.zeros(5),)), H("already sorted", (np.arange(6.0),)),
            H("negative scores", (-np.round(r.random(9), 2),)), H("long list", (np.round(r.normal(size=40), 1),))]


def _kendall():
    r = np.random.default_rng(602)
    return [H("two items", (np.array([2.0, 1.0]), np.array([1.0, 2.0]))),
            H("ties in the prediction", (np.array([1.0, 1.0, 2.0, 2.0]), np.array([1.0, 2.0, 3.0, 4.0]))),
            H("long list", (np.round(r.normal(size=30), 1), r.integers(0, 5, 30).astype(float)))]


def _ndcg():
    r = np.random.default_rng(603)
    n = 20
    y = r.integers(0, 4, n).astype(float)
    y[3] = 3.0
    yp = r.permutation(n).astype(float)
    return [H("one relevant item", (np.array([0.1, 0.9, 0.5]), np.array([0.0, 0.0, 2.0]), 2)),
            H("k = r", (yp, y, n)), H("k = 1, long list", (yp, y, 1))]


HIDDEN = {"06.permutation": _perm, "06.kendall": _kendall, "06.ndcg": _ndcg}
