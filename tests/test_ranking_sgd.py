"""Oracle tests for kmlteach.ranking (UML §17.4-17.5.1) and its assignment kernel. — ``kmlteach.ranking.sgd``."""

from __future__ import annotations

import numpy as np
import pytest

from kmlteach import datasets
from kmlteach import ranking as R


@pytest.mark.parametrize("surrogate", ["kendall", "ndcg"])
def test_ranking_sgd_improves_heldout_loss(surrogate):
    qs = datasets.ranking_queries(120, r=8, d=4, noise=0.3, seed=11)
    train, test = qs[:80], qs[80:]
    res = R.ranking_sgd(train, surrogate=surrogate, eta=0.05, T=600, seed=0, record_every=100)
    rng = np.random.default_rng(0)
    random_w = [R.mean_loss(rng.normal(size=4), test, "ndcg") for _ in range(20)]
    learned = R.mean_loss(res.w, test, "ndcg")
    assert learned < np.mean(random_w) - 0.15
    assert learned < 0.15
    assert (
        R.mean_loss(res.w, test, "kendall")
        < np.mean([R.mean_loss(rng.normal(size=4), test, "kendall") for _ in range(20)]) - 0.1
    )
    assert res.path.shape == (6, 4) and res.path_t.tolist() == [100, 200, 300, 400, 500, 600]
    np.testing.assert_allclose(res.path[-1], res.w)


def test_ranking_sgd_is_the_book_recursion():
    qs = datasets.ranking_queries(5, r=4, d=3, seed=2)
    res = R.ranking_sgd(qs, "kendall", eta=0.5, T=4, seed=3)
    w, ws = np.zeros(3), []
    for t in range(4):
        ws.append(w)
        X, y = qs[res.indices[t]]
        w = w - 0.5 * R.kendall_hinge(w, X, y).grad
    np.testing.assert_allclose(res.w, np.mean(ws, axis=0))
    np.testing.assert_allclose(res.w_last, ws[-1])
    again = R.ranking_sgd(qs, "kendall", eta=0.5, T=4, seed=3)
    np.testing.assert_array_equal(again.w, res.w)


def test_bad_input_surrogates_and_sgd():
    X, y = np.ones((3, 2)), np.array([1.0, 0.0, 2.0])
    with pytest.raises(ValueError, match="w"):
        R.kendall_hinge([1.0, 2.0, 3.0], X, y)
    with pytest.raises(ValueError, match="X"):
        R.ndcg_hinge([1.0, 2.0], np.ones(3), y)
    with pytest.raises(ValueError, match="y"):
        R.ndcg_hinge([1.0, 2.0], X, [1.0, 2.0])
    with pytest.raises(ValueError, match="y_true"):
        R.ndcg_most_violating([1.0, 2.0, 3.0], [-1.0, 0.0, 1.0])
    qs = [(X, y)]
    with pytest.raises(ValueError, match="surrogate"):
        R.ranking_sgd(qs, surrogate="hinge")
    with pytest.raises(ValueError, match="eta"):
        R.ranking_sgd(qs, eta=0.0)
    with pytest.raises(ValueError, match="T"):
        R.ranking_sgd(qs, T=0)
    with pytest.raises(TypeError, match="seed"):
        R.ranking_sgd(qs, seed=1.5)
    with pytest.raises(TypeError, match="queries"):
        R.ranking_sgd((X, y))
    with pytest.raises(ValueError, match="queries"):
        R.ranking_sgd([])
    with pytest.raises(ValueError, match="queries"):
        R.ranking_sgd([(X, y), (np.ones((3, 3)), y)])
    with pytest.raises(ValueError, match="queries"):
        R.ranking_sgd([(X, [1.0, -1.0, 0.0])], surrogate="ndcg")
    with pytest.raises(ValueError, match="loss"):
        R.mean_loss([1.0, 1.0], qs, loss="auc")
