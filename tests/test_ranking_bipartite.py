"""Oracle tests for kmlteach.ranking (UML §17.4-17.5.1) and its assignment kernel. — ``kmlteach.ranking.bipartite``."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from kmlteach import datasets
from kmlteach import ranking as R


def brute_bipartite(mu, y, measure, k=None, beta=1.0):
    r = len(y)
    best = -np.inf
    for bits in itertools.product((-1.0, 1.0), repeat=r):
        v = np.array(bits)
        a, b = np.sum((v > 0) & (y > 0)), np.sum((v > 0) & (y < 0))
        c, d = np.sum((v < 0) & (y > 0)), np.sum((v < 0) & (y < 0))
        if measure == "precision_at_k" and a + b < k:
            continue
        if measure == "recall_at_k" and a + b > k:
            continue
        if measure == "f1":
            delta = 1 - 2 * a / (2 * a + b + c)
        elif measure == "fbeta":
            q = 1 + beta**2
            delta = 1 - q * a / (b + beta**2 * c + q * a)
        elif measure == "balanced":
            delta = 1 - 0.5 * (a / (a + c) + d / (d + b))
        elif measure == "precision_at_k":
            delta = 1 - a / (a + b)
        elif measure == "recall_at_k":
            delta = 1 - a / (a + c)
        else:
            delta = (b + c) / r
        best = max(best, delta + (v - y) @ mu)
    return best


@pytest.mark.parametrize(
    "measure,k,beta",
    [
        ("f1", None, 1.0),
        ("fbeta", None, 2.0),
        ("fbeta", None, 0.5),
        ("balanced", None, 1.0),
        ("precision_at_k", 3, 1.0),
        ("recall_at_k", 2, 1.0),
        ("precision_at_k", 1, 1.0),
        ("recall_at_k", 5, 1.0),
        ("zero_one", None, 1.0),
    ],
)
def test_bipartite_most_violating_equals_brute_force(measure, k, beta):
    rng = np.random.default_rng(8)
    for trial in range(12):
        r = int(rng.integers(5, 11))
        y = np.where(rng.random(r) < 0.4, 1.0, -1.0)
        y[0], y[1] = 1.0, -1.0
        mu = rng.normal(size=r) if trial % 3 else rng.integers(-1, 2, r).astype(float)  # ties
        v = R.bipartite_most_violating(mu, y, measure, k=k, beta=beta)
        assert set(np.unique(v)) <= {-1.0, 1.0}
        if measure == "precision_at_k":
            assert np.sum(v > 0) >= k
        if measure == "recall_at_k":
            assert np.sum(v > 0) <= k
        hinge = R.bipartite_hinge(np.array([1.0]), mu[:, None], y, measure, k=k, beta=beta)
        np.testing.assert_array_equal(hinge.v, v)
        assert hinge.loss == pytest.approx(brute_bipartite(mu, y, measure, k, beta), abs=1e-12)


def test_bipartite_loss_is_bounded_by_the_surrogate():
    rng = np.random.default_rng(9)
    X = rng.normal(size=(12, 3))
    y = np.where(rng.random(12) < 0.3, 1.0, -1.0)
    y[:3] = 1.0
    for measure, k in [("f1", None), ("balanced", None), ("precision_at_k", 3), ("recall_at_k", 5)]:
        for _ in range(5):
            w = rng.normal(size=3)
            loss = R.bipartite_loss(X @ w, y, measure, k=k)
            assert 0.0 <= loss <= 1.0
            assert R.bipartite_hinge(w, X, y, measure, k=k).loss >= loss - 1e-12


def test_bipartite_loss_f1_matches_metric():
    from kmlteach import metrics

    rng = np.random.default_rng(10)
    s = rng.normal(size=30)
    y = np.where(rng.random(30) < 0.3, 1.0, -1.0)
    assert R.bipartite_loss(s, y, "f1") == pytest.approx(1 - metrics.f1(s, y))
    assert R.bipartite_loss(s, y, "balanced") == pytest.approx(1 - metrics.balanced_accuracy(s, y))


def test_fraud_all_negative_predictor():
    from kmlteach import metrics

    X, y = datasets.fraud(50_000, pos_rate=0.001, seed=0)
    assert X.shape == (50_000, 2) and np.sum(y > 0) == 50
    all_negative = -np.ones(len(y))
    assert metrics.zero_one_loss(all_negative, y) == pytest.approx(0.001)
    assert metrics.f1(all_negative, y) == 0.0


def test_fraud_training_for_f1_beats_training_for_zero_one():
    """UML §17.5: a zero-one-oriented learner (soft-SVM by SGD, thresholded at 0)
    flags nothing on 0.1 % positives; bipartite SGD for F1 / precision@k does better
    on those measures (fixed seeds, held-out half)."""
    from kmlteach import metrics, svm

    X, y = datasets.fraud(50_000, pos_rate=0.001, seed=1)
    Xb = np.c_[X, np.ones(len(y))]
    Xtr, ytr, Xte, yte = Xb[:25_000], y[:25_000], Xb[25_000:], y[25_000:]
    qs = datasets.split_queries(Xtr, ytr, 5, seed=0)
    f1_model = R.bipartite_sgd(qs, "f1", eta=1e-4, T=1000, seed=0)
    pk_model = R.bipartite_sgd(qs, "precision_at_k", k=10, eta=1e-4, T=1000, seed=0)
    soft = svm.sgd_soft_svm(Xtr, ytr, 1e-3, 20_000, 0)
    zo_scores = Xte @ soft.w
    assert metrics.zero_one_loss(zo_scores, yte) <= metrics.zero_one_loss(-np.ones(len(yte)), yte)
    assert metrics.f1(zo_scores, yte) < 0.1
    assert metrics.f1(Xte @ f1_model.w, yte) > 0.5
    assert (
        metrics.precision_at_k(Xte @ pk_model.w, yte, 10) >= metrics.precision_at_k(zo_scores, yte, 10) + 0.15
    )


def test_bad_input_bipartite():
    s, y = np.array([0.5, -0.2, 0.1]), np.array([1.0, -1.0, 1.0])
    with pytest.raises(ValueError, match="measure"):
        R.bipartite_most_violating(s, y, measure="accuracy")
    with pytest.raises(ValueError, match="k"):
        R.bipartite_most_violating(s, y, measure="precision_at_k")
    with pytest.raises(ValueError, match="k"):
        R.bipartite_most_violating(s, y, measure="recall_at_k", k=4)
    with pytest.raises(ValueError, match="beta"):
        R.bipartite_most_violating(s, y, measure="fbeta", beta=-1.0)
    with pytest.raises(ValueError, match="y_true"):
        R.bipartite_most_violating(s, [1.0, 0.0, 1.0])
    with pytest.raises(ValueError, match="y_score"):
        R.bipartite_most_violating(s[:2], y)
    with pytest.raises(ValueError, match="y_pred"):  # the argument is named y_pred
        R.bipartite_loss([np.nan, 0.0, 1.0], y)
    with pytest.raises(ValueError, match="y"):
        R.bipartite_hinge([1.0], s[:, None], [2.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="queries"):
        R.bipartite_sgd([(s[:, None], [0.0, 1.0, 1.0])])
    with pytest.raises(ValueError, match="k"):
        R.bipartite_sgd([(s[:, None], y)], "precision_at_k", k=10)


def test_bad_input_datasets():
    with pytest.raises(ValueError, match="n_queries"):
        datasets.ranking_queries(0)
    with pytest.raises(ValueError, match="r"):
        datasets.ranking_queries(3, r=1)
    with pytest.raises(ValueError, match="noise"):
        datasets.ranking_queries(3, noise=-1.0)
    with pytest.raises(ValueError, match="pos_rate"):
        datasets.fraud(100, pos_rate=1.5)
    with pytest.raises(TypeError, match="n"):
        datasets.fraud("many")
    with pytest.raises(ValueError, match="y"):
        datasets.split_queries(np.ones((4, 2)), [1.0, 1.0, 1.0, 1.0], 2)
    with pytest.raises(ValueError, match="n_queries"):
        datasets.split_queries(np.ones((4, 2)), [1.0, -1.0, 1.0, -1.0], 5)


def test_datasets_are_seeded():
    a = datasets.ranking_queries(3, r=4, d=2, seed=5)
    b = datasets.ranking_queries(3, r=4, d=2, seed=5)
    for (Xa, ya), (Xb, yb) in zip(a, b):
        np.testing.assert_array_equal(Xa, Xb)
        np.testing.assert_array_equal(ya, yb)
    qs = datasets.split_queries(*datasets.fraud(1000, pos_rate=0.01, seed=0), 3, seed=0)
    assert sorted(int(np.sum(q[1] > 0)) for q in qs) == [3, 3, 4]
    assert sum(len(q[1]) for q in qs) == 1000


@pytest.mark.parametrize(
    "measure,k",
    [
        ("f1", None),
        ("fbeta", None),
        ("balanced", None),
        ("precision_at_k", 5),
        ("recall_at_k", 20),
        ("zero_one", None),
    ],
)
def test_bipartite_sgd_every_measure_learns(measure, k):
    # k chosen so that y lies in V (P >= 5 for precision@5, P <= 20 for recall@20), as UML assumes
    rng = np.random.default_rng(12)
    w_true = np.array([1.0, -1.0, 0.5, -0.3])
    qs = []
    for _ in range(6):
        X = np.c_[rng.normal(size=(40, 3)), np.ones(40)]
        y = np.where(X @ w_true + 0.3 * rng.normal(size=40) > 0, 1.0, -1.0)
        qs.append((X, y))
    res = R.bipartite_sgd(qs, measure, eta=0.01, T=300, seed=0, k=k, beta=2.0)
    learned = np.mean([R.bipartite_loss(X @ res.w, y, measure, k=k, beta=2.0) for X, y in qs])
    flipped = np.mean([R.bipartite_loss(-(X @ res.w), y, measure, k=k, beta=2.0) for X, y in qs])
    assert learned < 0.3 and learned < flipped - 0.3


def test_bipartite_sgd_is_the_book_recursion():
    rng = np.random.default_rng(13)
    qs = [(rng.normal(size=(8, 2)), np.array([1.0, -1, -1, 1, -1, -1, 1, -1])) for _ in range(3)]
    res = R.bipartite_sgd(qs, "f1", eta=0.3, T=5, seed=4)
    w, ws = np.zeros(2), []
    for t in range(5):
        ws.append(w)
        X, y = qs[res.indices[t]]
        w = w - 0.3 * R.bipartite_hinge(w, X, y, "f1").grad
    np.testing.assert_allclose(res.w, np.mean(ws, axis=0))
    np.testing.assert_allclose(res.w_last, ws[-1])


@pytest.mark.parametrize("seed", range(30))
@pytest.mark.parametrize("measure", ["precision_at_k", "recall_at_k"])
def test_one_minus_loss_of_the_top_k_prediction_is_the_metric(seed, measure):
    # precision@k / recall@k mean one thing across metrics and the bipartite losses
    from kmlteach import metrics

    rng = np.random.default_rng(seed)
    r = int(rng.integers(3, 40))
    y_score = np.round(rng.normal(size=r), 1)  # ties at the k-th score happen
    y_true = np.where(rng.random(r) < 0.4, 1.0, -1.0)
    y_true[0] = 1.0
    k = int(rng.integers(1, r + 1))
    sk = np.sort(y_score)[::-1][k - 1]
    top_k_prediction = y_score - sk  # the k-th largest sits at 0
    metric = getattr(metrics, measure)(y_score, y_true, k)
    assert 1.0 - R.bipartite_loss(top_k_prediction, y_true, measure, k=k) == pytest.approx(metric)
