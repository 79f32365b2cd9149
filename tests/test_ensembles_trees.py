"""decision_tree and prune: scikit-learn's tree as the oracle, the three gains by hand,
max_features, min_samples_leaf, any labels, reduced-error pruning, bad input."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kmlteach.ensembles import DecisionTree, decision_tree, papaya, prune, resolve_max_features


def _data(m=400, d=5, seed=0, labels=("a", "b")):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d))
    y = np.where(X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=m) > 0, labels[0], labels[1])
    return X, y


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("max_depth", [1, 2, 3, 5, None])
@pytest.mark.parametrize("seed", [0, 1])
def test_same_tree_as_scikit_learn(criterion, max_depth, seed):
    tree_mod = pytest.importorskip("sklearn.tree")
    X, y = _data(seed=seed)
    ours = decision_tree(X, y, max_depth=max_depth, criterion=criterion)
    sk = tree_mod.DecisionTreeClassifier(criterion=criterion, max_depth=max_depth, random_state=0).fit(X, y)
    assert np.mean(ours.predict(X) != y) == pytest.approx(1 - sk.score(X, y), abs=1e-12)
    if max_depth is not None and max_depth <= 3:  # deeper, small nodes have tied splits
        assert ours.n_leaves == sk.get_n_leaves() and ours.depth == sk.get_depth()
    Xt, yt = _data(seed=seed + 10)
    if max_depth is not None and max_depth <= 5:
        assert np.mean(ours.predict(Xt) == sk.predict(Xt)) > 0.97
    else:  # same fit, tied small splits differ
        assert abs(np.mean(ours.predict(Xt) != yt) - np.mean(sk.predict(Xt) != yt)) < 0.05


def test_min_samples_leaf_like_scikit_learn():
    tree_mod = pytest.importorskip("sklearn.tree")
    X, y = _data(seed=3)
    ours = decision_tree(X, y, min_samples_leaf=7)
    sk = tree_mod.DecisionTreeClassifier(min_samples_leaf=7, random_state=0).fit(X, y)
    assert ours.n_leaves == sk.get_n_leaves()
    assert ours.counts[ours.feature < 0].sum(axis=1).min() >= 7


def _gain(y, left, crit):
    """Gain of splitting labels y into y[left], y[~left] with impurity C (UML §18.2.1)."""

    def C(lab):
        p = np.array([np.mean(lab == c) for c in np.unique(y)])
        return {
            "gini": 1 - np.sum(p**2),
            "error": 1 - p.max(),
            "entropy": -np.sum(p[p > 0] * np.log2(p[p > 0])),
        }[crit]

    n = len(y)
    return C(y) - left.sum() / n * C(y[left]) - (~left).sum() / n * C(y[~left])


@pytest.mark.parametrize("crit", ["gini", "entropy", "error"])
@pytest.mark.parametrize("seed", range(4))
def test_root_split_maximises_the_gain(crit, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(40, 3))
    y = np.where(X[:, 0] + 0.5 * X[:, 2] + 0.5 * rng.normal(size=40) > 0, 1, 0)
    t = decision_tree(X, y, max_depth=1, criterion=crit)
    best = max(_gain(y, X[:, j] <= th, crit) for j in range(3) for th in np.unique(X[:, j])[:-1])
    j, th = t.feature[0], t.threshold[0]
    assert _gain(y, X[:, j] <= th, crit) == pytest.approx(best, abs=1e-12)
    # binary formulas of UML §18.2.1 with a = P[y = 1]
    a = np.mean(y == 1)
    root = {
        "gini": 2 * a * (1 - a),
        "error": min(a, 1 - a),
        "entropy": -a * np.log2(a) - (1 - a) * np.log2(1 - a),
    }[crit]
    assert t.impurity[0] == pytest.approx(root, abs=1e-12)


def test_full_tree_fits_and_structure_is_consistent():
    X, y = _data(seed=5, labels=(3, 7))
    t = decision_tree(X, y)
    np.testing.assert_array_equal(t.predict(X), y)
    assert t.predict(X).dtype == y.dtype and list(t.classes) == [3, 7]
    inner = t.feature >= 0
    np.testing.assert_allclose(t.counts[inner], t.counts[t.left[inner]] + t.counts[t.right[inner]])
    assert np.all(t.left[inner] > np.flatnonzero(inner)) and t.n_leaves == t.n_nodes - inner.sum()
    assert len(t.nodes) == t.n_nodes and t.export_text().count("predict") == t.n_leaves
    assert decision_tree(X, y, max_depth=0).n_leaves == 1


def test_three_classes_and_string_labels():
    rng = np.random.default_rng(0)
    X = rng.random((300, 2))
    y = np.array(["low", "mid", "high"])[np.minimum((X[:, 0] * 3).astype(int), 2)]
    t = decision_tree(X, y, max_depth=2)
    assert np.mean(t.predict(X) == y) == 1.0 and set(t.predict(X)) == {"low", "mid", "high"}
    assert "predict 'mid'" in t.export_text(["colour", "softness"])


def test_max_features_and_seed():
    X, y = _data(d=9, seed=2)
    assert [resolve_max_features(v, 9) for v in (None, "sqrt", "log2", 4, 0.5, 0.01)] == [9, 3, 3, 4, 4, 1]
    a = decision_tree(X, y, max_features="sqrt", seed=1)
    b = decision_tree(X, y, max_features="sqrt", seed=1)
    c = decision_tree(X, y, max_features="sqrt", seed=2)
    np.testing.assert_array_equal(a.threshold, b.threshold)
    assert a.n_nodes != c.n_nodes or not np.array_equal(a.threshold, c.threshold)
    np.testing.assert_array_equal(a.predict(X), y)  # still grown to purity
    # one feature per split, all but one constant: the informative one is found anyway
    Xc = np.c_[np.zeros((50, 4)), np.arange(50.0)]
    yc = np.where(np.arange(50) < 20, 1.0, -1.0)
    tc = decision_tree(Xc, yc, max_features=1, seed=0)
    assert tc.feature[0] == 4 and tc.n_leaves == 2


def test_papaya_tree_and_pruning():
    X, y, box = papaya(400, noise=0.1, seed=0)
    Xv, yv, _ = papaya(400, noise=0.1, seed=1)
    Xt, yt, _ = papaya(4000, noise=0.1, seed=2)
    full = decision_tree(X, y)
    pruned = prune(full, Xv, yv)
    assert pruned.n_leaves < full.n_leaves / 2
    assert np.mean(pruned.predict(Xv) != yv) <= np.mean(full.predict(Xv) != yv)
    assert np.mean(pruned.predict(Xt) != yt) < np.mean(full.predict(Xt) != yt)
    # the root of a pruned tree tests colour or softness near an edge of the tasty box
    assert min(abs(pruned.threshold[0] - b) for b in box) < 0.05


def test_prune_oracle_on_a_small_tree():
    """Reduced-error pruning by hand: every inner node whose leaf is no worse is cut."""
    X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0], [5.0]])
    y = np.array([1, 1, 2, 1, 2, 2])
    t = decision_tree(X, y)
    assert t.n_leaves == 4
    # validation data that the coarse split x <= 3.5 explains
    Xv = np.array([[0.5], [2.0], [3.0], [4.5]])
    yv = np.array([1, 1, 1, 2])
    p = prune(t, Xv, yv)
    assert np.mean(p.predict(Xv) != yv) == 0 and p.n_leaves < t.n_leaves
    # no validation point at all: everything collapses to the root's majority leaf
    p0 = prune(t, np.empty((0, 1)), np.array([], dtype=int))
    assert p0.n_leaves == 1 and isinstance(p0, DecisionTree)


@pytest.mark.parametrize(
    "kwargs,name",
    [
        ({"max_depth": -1}, "max_depth"),
        ({"max_depth": 1.5}, "max_depth"),
        ({"criterion": "mse"}, "criterion"),
        ({"min_samples_leaf": 0}, "min_samples_leaf"),
        ({"min_samples_leaf": 10**9}, "min_samples_leaf"),
        ({"max_features": 0}, "max_features"),
        ({"max_features": 1.5}, "max_features"),
        ({"max_features": "all"}, "max_features"),
        ({"max_features": 99}, "max_features"),
        ({"seed": -1}, "seed"),
    ],
)
def test_bad_parameters(kwargs, name):
    X, y = _data(m=20)
    with pytest.raises((ValueError, TypeError), match=name):
        decision_tree(X, y, **kwargs)


def test_bad_data():
    X, y = _data(m=20)
    with pytest.raises(ValueError, match="y"):
        decision_tree(X, np.full(20, "a"))  # a single class
    with pytest.raises(ValueError, match="y"):
        decision_tree(X, y[:10])
    Xn = X.copy()
    Xn[3, 1] = np.nan
    with pytest.raises(ValueError, match="X"):
        decision_tree(Xn, y)
    t = decision_tree(X, y)
    with pytest.raises(ValueError, match="X"):
        t.predict(np.ones((2, 3)))
    with pytest.raises(TypeError, match="tree"):
        prune("tree", X, y)
    with pytest.raises(ValueError, match="y_val"):
        prune(t, X, y[:5])
    with pytest.raises(ValueError, match="X_val"):
        prune(t, Xn, y)
    with pytest.raises(ValueError, match="m"):
        papaya(0)
    with pytest.raises(ValueError, match="noise"):
        papaya(10, noise=0.7)


@settings(max_examples=30)
@given(
    st.integers(4, 40),
    st.integers(1, 3),
    st.sampled_from(["gini", "entropy", "error"]),
    st.integers(0, 2**32 - 1),
)
def test_property_depth_never_hurts_training_fit_and_pruning_never_hurts_validation(m, d, crit, seed):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 5, size=(m, d)).astype(float)  # ties and repeated rows
    y = rng.integers(0, 3, size=m)
    y[:2] = [0, 1]
    errors = [np.mean(decision_tree(X, y, max_depth=k, criterion=crit).predict(X) != y) for k in range(6)]
    assert all(a >= b - 1e-12 for a, b in zip(errors, errors[1:]))  # a split never adds mistakes
    full = decision_tree(X, y, criterion=crit)
    # a full tree errs only on rows whose copies carry different labels
    keys = [tuple(r) for r in X]
    fixable = sum(1 for i in range(m) if len({y[j] for j in range(m) if keys[j] == keys[i]}) == 1)
    assert np.sum(full.predict(X) == y) >= fixable
    Xv = rng.integers(0, 5, size=(m, d)).astype(float)
    yv = rng.integers(0, 3, size=m)
    pruned = prune(full, Xv, yv)
    assert np.sum(pruned.predict(Xv) != yv) <= np.sum(full.predict(Xv) != yv)
    assert pruned.n_leaves <= full.n_leaves
