"""bagging and random_forest: OOB bookkeeping by hand, OOB vs held-out error, scikit-learn's
RandomForestClassifier(oob_score=True) as the oracle, learners of every kind, bad input."""

import numpy as np
import pytest

from kmlteach.ensembles import bagging, decision_stump, decision_tree, random_forest
from kmlteach.ensembles.trees import _grow


def _data(m, seed, d=6):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d))
    y = np.where(X[:, 0] + X[:, 1] - X[:, 2] * X[:, 3] + 0.5 * rng.normal(size=m) > 0, 1.0, -1.0)
    return X, y


def tree_learner(X, y):
    return decision_tree(X, y)


def oob_by_hand(res, X, y):
    """The OOB vote written out point by point."""
    classes = list(res.classes)
    wrong, scored = 0, 0
    for i in range(len(y)):
        votes = np.zeros(len(classes))
        for b, est in enumerate(res.estimators):
            if i not in set(res.samples[b].tolist()):
                votes[classes.index(est.predict(X[i : i + 1])[0])] += 1
        if votes.sum() > 0:
            scored += 1
            wrong += classes[int(np.argmax(votes))] != y[i]
    return wrong / scored, scored


def test_oob_error_by_hand_and_path():
    X, y = _data(60, 0)
    res = bagging(X, y, tree_learner, n_estimators=7, seed=3)
    err, scored = oob_by_hand(res, X, y)
    assert res.oob_error == pytest.approx(err) and res.n_oob == scored
    assert res.n_oob + res.n_never_oob == 60 and res.samples.shape == (7, 60)
    sub = bagging(X, y, tree_learner, n_estimators=3, seed=3)  # same seed: same first samples
    np.testing.assert_array_equal(sub.samples, res.samples[:3])
    assert res.oob_error_path[2] == pytest.approx(sub.oob_error)
    np.testing.assert_array_equal(sub.predict(X), res.predict(X, n_estimators=3))


def test_points_never_out_of_bag_are_excluded_and_counted():
    X, y = _data(6, 1)
    y[:2] = [1.0, -1.0]
    res = bagging(X, y, tree_learner, n_estimators=1, seed=0)
    in_bag = len(np.unique(res.samples[0]))
    assert res.n_never_oob == in_bag and res.n_oob == 6 - in_bag


def test_bootstrap_fraction_and_vote():
    X, y = _data(300, 2)
    res = bagging(X, y, tree_learner, n_estimators=40, seed=0)
    frac = np.mean([300 - len(np.unique(s)) for s in res.samples]) / 300
    assert abs(frac - (1 - 1 / 300) ** 300) < 0.02
    P = np.array([e.predict(X) for e in res.estimators])
    np.testing.assert_array_equal(res.predict(X), np.where(np.sum(P > 0, 0) > 20, 1.0, -1.0))
    assert res.n_never_oob == 0


def test_oob_close_to_held_out_error():
    X, y = _data(500, 3)
    Xt, yt = _data(4000, 4)
    for res in (
        bagging(X, y, tree_learner, n_estimators=60, seed=1),
        random_forest(X, y, n_trees=100, seed=1),
    ):
        assert abs(res.oob_error - np.mean(res.predict(Xt) != yt)) < 0.05


def test_random_forest_oob_close_to_scikit_learn():
    ens = pytest.importorskip("sklearn.ensemble")
    X, y = _data(800, 5, d=10)
    Xt, yt = _data(4000, 6, d=10)
    ours = random_forest(X, y, n_trees=150, max_features="sqrt", seed=0)
    sk = ens.RandomForestClassifier(
        n_estimators=150, max_features="sqrt", oob_score=True, random_state=0, n_jobs=1
    ).fit(X, y)
    assert abs(ours.oob_error - (1 - sk.oob_score_)) < 0.04
    assert abs(np.mean(ours.predict(Xt) != yt) - (1 - sk.score(Xt, yt))) < 0.03


def test_forest_trees_equal_trees_on_the_repeated_bootstrap_sample():
    X, y = _data(120, 7)
    f = random_forest(X, y, n_trees=3, max_features=None, seed=2)
    for b, tree in enumerate(f.estimators):
        idx = f.samples[b]
        ref = _grow(X[idx], np.where(y[idx] > 0, 1, 0), f.classes, 2**62, 0, 1, X.shape[1], 0)
        np.testing.assert_array_equal(tree.threshold, ref.threshold)
        np.testing.assert_array_equal(tree.predict(X), ref.predict(X))


def test_forest_seed_max_features_and_labels():
    X, y = _data(200, 8)
    ys = np.where(y > 0, "tasty", "not tasty")
    a = random_forest(X, ys, n_trees=10, seed=4)
    b = random_forest(X, ys, n_trees=10, seed=4)
    np.testing.assert_array_equal(a.samples, b.samples)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    assert set(a.predict(X)) <= {"tasty", "not tasty"} and a.max_features == 2
    assert a.oob_error == b.oob_error
    c = random_forest(X, ys, n_trees=10, seed=5)
    assert not np.array_equal(a.samples, c.samples)
    shallow = random_forest(X, y, n_trees=5, max_depth=2, max_features=0.5, seed=0)
    assert max(t.depth for t in shallow.estimators) <= 2 and shallow.max_features == 3


def test_learner_kinds():
    X, y = _data(150, 9)
    tree = pytest.importorskip("sklearn.tree")
    sk = bagging(X, y, tree.DecisionTreeClassifier(max_depth=3), n_estimators=5, seed=0)
    assert len(sk.estimators) == 5 and len({id(e) for e in sk.estimators}) == 5
    assert sk.predict(X).dtype == np.float64

    class Majority:  # an estimator that is not scikit-learn's
        def fit(self, X, y):
            vals, n = np.unique(y, return_counts=True)
            self.label = vals[np.argmax(n)]
            return self

        def predict(self, X):
            return np.full(len(X), self.label)

    maj = bagging(X, y, Majority(), n_estimators=4, seed=0)
    assert maj.oob_error == pytest.approx(np.mean(maj.predict(X) != y), abs=0.15)
    stumps = bagging(X, y, lambda Xb, yb: decision_stump(Xb, yb), n_estimators=5, seed=0)
    assert 0 <= stumps.oob_error < 0.5


def test_bad_input():
    X, y = _data(30, 10)
    with pytest.raises(ValueError, match="y"):
        bagging(X, np.ones(30), tree_learner, 5, 0)
    with pytest.raises(TypeError, match="learner"):
        bagging(X, y, "tree", 5, 0)
    with pytest.raises(TypeError, match="learner"):
        bagging(X, y, lambda Xb, yb: None, 5, 0)
    with pytest.raises(ValueError, match="learner"):
        bagging(X, y, lambda Xb, yb: _Wrong(), 5, 0)
    for bad in (0, -2, 2.5, 10**12):
        with pytest.raises((ValueError, TypeError), match="n_estimators"):
            bagging(X, y, tree_learner, bad, 0)
        with pytest.raises((ValueError, TypeError), match="n_trees"):
            random_forest(X, y, n_trees=bad)
    with pytest.raises(ValueError, match="seed"):
        bagging(X, y, tree_learner, 5, -1)
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="X"):
        random_forest(Xn, y)
    with pytest.raises(ValueError, match="max_features"):
        random_forest(X, y, max_features=0)
    with pytest.raises(ValueError, match="max_depth"):
        random_forest(X, y, max_depth=-1)
    with pytest.raises(ValueError, match="y"):
        random_forest(X, np.zeros(30))
    f = random_forest(X, y, n_trees=3)
    with pytest.raises(ValueError, match="X"):
        f.predict(np.ones((2, 2)))
    with pytest.raises(ValueError, match="n_estimators"):
        f.predict(X, n_estimators=4)


class _Wrong:
    def predict(self, X):
        return np.full(len(X), 7.0)
