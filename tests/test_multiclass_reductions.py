"""Chapter 04: multiclass reductions, linear multiclass predictors, perceptrons, Kesler. — ``kmlteach.multiclass.reductions``."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import random_problem, stump_learner_x0

from kmlteach import multiclass as M


@pytest.mark.parametrize("k", [3, 4, 5, 6])
def test_one_vs_all_agrees_with_sklearn(k):
    from sklearn.linear_model import LogisticRegression
    from sklearn.multiclass import OneVsRestClassifier

    X, y = random_problem(10 + k, m=30 * k, d=4, k=k, spread=1.5)
    base = LogisticRegression(C=1.0, tol=1e-10, max_iter=10_000)
    ours = M.one_vs_all(X, y, base)
    ref = OneVsRestClassifier(base).fit(X, y)
    Xt = random_problem(100 + k, m=300, d=4, k=k, spread=1.5)[0]
    agree = np.mean(ours.predict(Xt) == ref.predict(Xt))
    print(f"one_vs_all vs OneVsRestClassifier(LogisticRegression), k={k}: agreement {agree:.4f}")
    assert agree >= 0.995
    np.testing.assert_allclose(ours.decision_function(Xt), ref.decision_function(Xt), atol=1e-5)


@pytest.mark.parametrize("k", [3, 4, 6])
def test_all_pairs_agrees_with_sklearn_except_ties(k):
    from sklearn.multiclass import OneVsOneClassifier
    from sklearn.svm import LinearSVC

    X, y = random_problem(20 + k, m=30 * k, d=3, k=k, spread=1.2)
    base = LinearSVC(C=1.0, tol=1e-8, max_iter=100_000, random_state=0)
    ours = M.all_pairs(X, y, base)
    ref = OneVsOneClassifier(base).fit(X, y)
    Xt = random_problem(200 + k, m=400, d=3, k=k, spread=1.2)[0]
    dec = ours.decide(Xt)
    untied = ~dec.ties
    agree = np.mean(dec.labels[untied] == ref.predict(Xt)[untied])
    print(
        f"all_pairs vs OneVsOneClassifier(LinearSVC), k={k}: agreement {agree:.4f} on "
        f"{untied.sum()} untied points ({dec.ties.sum()} ties)"
    )
    assert agree >= 0.99
    # tied points are exactly those with several classes at the maximal vote count
    V = ours.votes(Xt)
    assert np.array_equal(dec.ties, (V == V.max(axis=1, keepdims=True)).sum(axis=1) > 1)
    assert np.all(dec.index == np.argmax(V, axis=1))


def test_all_pairs_vote_ties_and_tournament_by_hand():
    # three classes whose pairwise learners beat each other in a cycle at some points
    X = np.array([[0.0, 0.0], [1.0, 0.0], [2.0, 0.0]] * 4) + 0.01 * np.arange(12)[:, None]
    y = np.array([0, 1, 2] * 4)
    cyc = {(0, 1): 1.0, (0, 2): -1.0, (1, 2): 1.0}  # 0 beats 1, 2 beats 0, 1 beats 2

    class Fixed:
        def __init__(self):
            self.v = None

        def fit(self, X, t):
            key = {frozenset({0, 1}): (0, 1), frozenset({0, 2}): (0, 2), frozenset({1, 2}): (1, 2)}
            self.v = cyc[key[frozenset(np.unique(np.round(X[:, 0])).astype(int).tolist())]]
            return self

        def predict(self, Z):
            return np.full(len(Z), self.v)

    model = M.all_pairs(X, y, Fixed())
    assert np.all(model.ties)  # training points, after fit
    dec = model.decide(X[:3])
    assert np.all(dec.ties) and np.all(dec.index == 0)  # 1 win each -> smallest index
    assert "smallest" in dec.rule
    tour = model.decide(X[:3], decision="tournament")
    # bracket: (0 vs 1) -> 0; 0 vs 2 (bye) -> 2
    assert np.all(tour.index == 2) and not np.any(tour.ties)
    assert M.all_pairs(X, y, stump_learner_x0, decision="tournament").predict(X).shape == (12,)


def test_reductions_accept_kmlteach_svm_results_and_estimators():
    svm = pytest.importorskip("kmlteach.svm")
    X, y = random_problem(8, m=60, d=2, k=3, spread=4.0)
    Xb = np.c_[X, np.ones(60)]
    # a function returning a result with .w / .b (soft_svm with a bias)
    m1 = M.one_vs_all(X, y, lambda A, t: svm.soft_svm(A, t, 0.01, homogeneous=False))
    ref = [svm.soft_svm(X, np.where(y == c, 1.0, -1.0), 0.01, homogeneous=False) for c in range(3)]
    S = np.column_stack([X @ r.w + r.b for r in ref])
    np.testing.assert_array_equal(m1.predict(X), np.argmax(S, axis=1))
    # the estimator SoftSVM is cloned per sub-problem
    est = svm.SoftSVM(lam=0.01)
    m2 = M.all_pairs(X, y, est)
    assert not hasattr(est, "coef_")  # the original is untouched
    assert len({id(e) for e in m2.estimators.values()}) == 3
    # the perceptron on lifted data as a plain binary learner
    m3 = M.one_vs_all(Xb, y, lambda A, t: svm.perceptron(A, t, max_updates=2000))
    assert m3.predict(Xb).shape == (60,)


def test_all_pairs_votes_count_exactly_and_both_rules_from_one_set_of_scores():
    """The integer vote count equals the masked half-point sum it replaced, with drawn
    matches (score exactly 0) on a grid; decide() and _decide_scores() agree."""
    from kmlteach.multiclass.reductions import all_pairs

    class Axis:  # +1 / 0 / -1 by the side of the pair's mean first coordinate
        def __init__(self, c):
            self.c = c

        def decision_function(self, Z):
            return np.sign(Z[:, 0] - self.c)

    rng = np.random.default_rng(4)
    X = rng.integers(-2, 3, size=(80, 2)).astype(float)
    y = rng.integers(0, 5, size=80)
    model = all_pairs(X, y, lambda Xp, t: Axis(float(np.round(np.mean(Xp[t > 0, 0])))))
    G = np.c_[rng.integers(-3, 4, size=500), rng.integers(-3, 4, size=500)].astype(float)
    P = model.pairwise_scores(G)
    off = ~np.eye(5, dtype=bool)
    ref = ((P > 0) + 0.5 * (P == 0)).sum(axis=2, where=off[None, :, :]).astype(float)
    assert np.array_equal(model.votes(G), ref) and np.any(P[:, off] == 0)  # drawn matches
    for rule in ("vote", "tournament"):
        a, b = model.decide(G, decision=rule), model._decide_scores(P, rule)
        assert np.array_equal(a.index, b.index) and np.array_equal(a.ties, b.ties)
