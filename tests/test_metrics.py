"""Oracle tests for kmlteach.metrics (UML §17.5) against scikit-learn and by hand."""

from __future__ import annotations

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st

from kmlteach import metrics as M


def sample(seed, n=60, ties=False, pos=0.3):
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < pos, 1.0, -1.0)
    y[0], y[1] = 1.0, -1.0
    s = rng.integers(-3, 4, n).astype(float) if ties else rng.normal(size=n)
    return s, y


def test_confusion_counts_by_hand_and_threshold_convention():
    s = [0.9, 0.2, -0.1, -0.8, 0.0]
    y = [1, -1, 1, -1, 1]
    assert M.confusion_counts(s, y) == (2, 1, 1, 1)  # 0.0 >= θ = 0 is positive
    assert M.confusion_counts(s, y, theta=0.5) == (1, 0, 2, 2)
    c = M.confusion_counts(s, y, theta=-1.0)
    assert (c.a, c.b, c.c, c.d) == (3, 2, 0, 0)


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("theta", [-0.5, 0.0, 1.0])
def test_thresholded_metrics_match_sklearn(ties, theta):
    for seed in range(5):
        s, y = sample(seed, ties=ties)
        pred = np.where(s >= theta, 1, -1)
        tn, fp, fn, tp = skm.confusion_matrix(y, pred, labels=[-1, 1]).ravel()
        assert M.confusion_counts(s, y, theta) == (tp, fp, fn, tn)
        assert M.precision(s, y, theta) == pytest.approx(skm.precision_score(y, pred, zero_division=0))
        assert M.recall(s, y, theta) == pytest.approx(skm.recall_score(y, pred))
        assert M.specificity(s, y, theta) == pytest.approx(skm.recall_score(y, pred, pos_label=-1))
        assert M.balanced_accuracy(s, y, theta) == pytest.approx(skm.balanced_accuracy_score(y, pred))
        assert M.f1(s, y, theta) == pytest.approx(skm.f1_score(y, pred, zero_division=0))
        for beta in (0.5, 2.0):
            assert M.f_beta(s, y, theta, beta=beta) == pytest.approx(
                skm.fbeta_score(y, pred, beta=beta, zero_division=0)
            )
        assert M.zero_one_loss(s, y, theta) == pytest.approx(skm.zero_one_loss(y, pred))


def test_zero_division_cases():
    s, y = np.array([-1.0, -2.0]), np.array([1.0, -1.0])
    assert M.precision(s, y) == 0.0  # no predicted positive
    assert M.precision(s, y, zero_division=1.0) == 1.0
    assert M.recall([1.0, 2.0], [-1.0, -1.0]) == 0.0  # no positive label
    assert M.f1([-1.0, -2.0], [-1.0, -1.0]) == 0.0  # a = b = c = 0
    assert M.specificity([1.0], [1.0], zero_division=1.0) == 1.0


@pytest.mark.parametrize("ties", [False, True])
def test_curves_ap_auc_match_sklearn(ties):
    for seed in range(6):
        s, y = sample(seed, n=80, ties=ties)
        p, r, t = M.precision_recall_curve(s, y)
        ps, rs, ts = skm.precision_recall_curve(y, s)
        np.testing.assert_allclose(p, ps)
        np.testing.assert_allclose(r, rs)
        np.testing.assert_allclose(t, ts)
        fpr, tpr, thr = M.roc_curve(s, y)
        fs, tss, ths = skm.roc_curve(y, s, drop_intermediate=False)
        np.testing.assert_allclose(fpr, fs)
        np.testing.assert_allclose(tpr, tss)
        np.testing.assert_array_equal(thr, ths)
        assert M.average_precision(s, y) == pytest.approx(skm.average_precision_score(y, s), abs=1e-12)
        assert M.auc(s, y) == pytest.approx(skm.roc_auc_score(y, s), abs=1e-12)


def test_auc_is_the_pair_statistic():
    s, y = sample(3, n=40, ties=True)
    pos, neg = s[y > 0], s[y < 0]
    pairs = (pos[:, None] > neg[None, :]).mean() + 0.5 * (pos[:, None] == neg[None, :]).mean()
    assert M.auc(s, y) == pytest.approx(pairs)


def hand_top_k(s, y, k, at_least):
    """Precision@k / recall@k by hand with the book's constraint on a + b."""
    order = sorted(range(len(s)), key=lambda i: -s[i])
    kth = s[order[k - 1]]
    chosen = [i for i in range(len(s)) if s[i] >= kth]
    if not at_least and len(chosen) > k:
        chosen = [i for i in range(len(s)) if s[i] > kth]
    a = sum(y[i] > 0 for i in chosen)
    return a / len(chosen) if at_least else a / sum(v > 0 for v in y)


def test_precision_recall_at_k_by_hand():
    s = [0.9, 0.8, 0.8, 0.1, -0.3]
    y = [1, -1, 1, 1, -1]
    assert M.precision_at_k(s, y, 1) == 1.0
    assert M.precision_at_k(s, y, 2) == pytest.approx(2 / 3)  # tie at 0.8: 3 predicted
    assert M.recall_at_k(s, y, 2) == pytest.approx(1 / 3)  # tie excluded: 1 predicted
    assert M.recall_at_k(s, y, 3) == pytest.approx(2 / 3)
    assert M.precision_at_k(s, y, 5) == pytest.approx(3 / 5)
    for seed in range(10):
        s, y = sample(seed, n=30, ties=seed % 2 == 0)
        for k in (1, 3, 7, 30):
            assert M.precision_at_k(s, y, k) == pytest.approx(hand_top_k(s, y, k, True))
            assert M.recall_at_k(s, y, k) == pytest.approx(hand_top_k(s, y, k, False))
    # without ties precision@k equals scikit-learn's top-k precision
    s, y = sample(1, n=50)
    pred = np.where(s >= np.sort(s)[-7], 1, -1)
    assert M.precision_at_k(s, y, 7) == pytest.approx(skm.precision_score(y, pred))


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.tuples(st.integers(-6, 6), st.booleans()), min_size=2, max_size=25),
    st.integers(-6, 6),
    st.sampled_from(["affine", "cube", "exp"]),
)
def test_metrics_invariant_under_increasing_maps(items, theta, kind):
    s = np.array([v for v, _ in items], dtype=float)
    y = np.array([1.0 if b else -1.0 for _, b in items])
    y[0], y[1] = 1.0, -1.0
    g = {"affine": lambda x: 3 * x + 1, "cube": lambda x: x**3, "exp": np.exp}[kind]
    gs, gt = g(s), float(g(np.float64(theta)))
    assert M.confusion_counts(gs, y, gt) == M.confusion_counts(s, y, theta)
    for fn in (M.precision, M.recall, M.f1, M.balanced_accuracy, M.specificity):
        assert fn(gs, y, gt) == fn(s, y, theta)
    assert M.average_precision(gs, y) == pytest.approx(M.average_precision(s, y), abs=1e-12)
    assert M.auc(gs, y) == pytest.approx(M.auc(s, y), abs=1e-12)
    k = 1 + len(s) // 2
    assert M.precision_at_k(gs, y, k) == M.precision_at_k(s, y, k)
    assert M.recall_at_k(gs, y, k) == M.recall_at_k(s, y, k)
    np.testing.assert_allclose(
        M.precision_recall_curve(gs, y).precision, M.precision_recall_curve(s, y).precision
    )


def test_bad_input():
    s, y = [0.5, -0.1, 0.3], [1, -1, 1]
    one_arg = (
        M.confusion_counts,
        M.precision,
        M.recall,
        M.specificity,
        M.balanced_accuracy,
        M.f_beta,
        M.f1,
        M.zero_one_loss,
        M.precision_recall_curve,
        M.roc_curve,
        M.average_precision,
        M.auc,
    )
    for fn in one_arg:
        with pytest.raises(ValueError, match="y_true"):
            fn(s, [1, 0, 1])
        with pytest.raises(ValueError, match="y_score"):
            fn(s[:2], y)
        with pytest.raises(ValueError, match="y_score"):
            fn([np.nan, 0.0, 1.0], y)
        with pytest.raises(TypeError, match="y_score"):
            fn("abc", y)
        with pytest.raises(ValueError, match="y_true"):
            fn([], [])
        with pytest.raises(ValueError, match="y_true"):
            fn(s, np.ones((3, 1)))
    for fn in (M.precision_at_k, M.recall_at_k):
        with pytest.raises(ValueError, match="k"):
            fn(s, y, 0)
        with pytest.raises(ValueError, match="k"):
            fn(s, y, 4)
        with pytest.raises(TypeError, match="k"):
            fn(s, y, "2")
        with pytest.raises(ValueError, match="y_true"):
            fn(s, [2, 1, 1], 1)
    with pytest.raises(TypeError, match="theta"):
        M.precision(s, y, theta="0")
    with pytest.raises(ValueError, match="theta"):
        M.recall(s, y, theta=np.nan)
    with pytest.raises(ValueError, match="beta"):
        M.f_beta(s, y, beta=0.0)
    with pytest.raises(ValueError, match="zero_division"):
        M.precision(s, y, zero_division=2.0)
    for fn in (M.auc, M.balanced_accuracy, M.roc_curve):  # need both classes
        with pytest.raises(ValueError, match="y_true"):
            fn(s, [1, 1, 1])
    for fn in (M.average_precision, M.precision_recall_curve):  # need a positive
        with pytest.raises(ValueError, match="y_true"):
            fn(s, [-1, -1, -1])


@pytest.mark.parametrize("seed", range(25))
def test_average_precision_and_auc_match_sklearn_with_heavy_ties(seed):
    from sklearn.metrics import average_precision_score, roc_auc_score

    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 300))
    s = np.round(rng.normal(size=n), int(rng.integers(0, 3)))  # many tied scores
    y = np.where(rng.random(n) < rng.uniform(0.05, 0.95), 1, -1)
    y[0], y[-1] = 1, -1
    assert M.average_precision(s, y) == pytest.approx(average_precision_score(y, s), abs=1e-12)
    assert M.auc(s, y) == pytest.approx(roc_auc_score(y, s), abs=1e-12)
