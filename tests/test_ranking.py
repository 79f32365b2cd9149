"""Oracle tests for kmlteach.ranking (UML §17.4-17.5.1) and its assignment kernel."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy.optimize import linear_sum_assignment, linprog
from scipy.stats import kendalltau
from sklearn.metrics import ndcg_score

from kmlteach import datasets, ranking as R


# ---------------------------------------------------------------- permutation, losses

def test_permutation_book_example():
    np.testing.assert_array_equal(R.permutation([2, 1, 6, -1, 0.5]), [4, 3, 5, 1, 2])


def test_permutation_tie_rule_and_inverse_of_sort():
    np.testing.assert_array_equal(R.permutation([1, 1, 0]), [2, 3, 1])
    rng = np.random.default_rng(0)
    y = rng.normal(size=30)
    pi = R.permutation(y)
    assert np.array_equal(np.sort(y), y[np.argsort(pi)])  # position p holds the p-th smallest


def brute_kendall(yp, y):
    r = len(y)
    bad = sum(np.sign(yp[i] - yp[j]) != np.sign(y[i] - y[j])
              for i in range(r) for j in range(i + 1, r))
    return 2 * bad / (r * (r - 1))


def test_kendall_equals_scipy_tau_without_ties():
    rng = np.random.default_rng(1)
    for r in (2, 3, 10, 57):
        yp, y = rng.normal(size=r), rng.normal(size=r)
        tau = kendalltau(yp, y).statistic
        assert R.kendall_tau_loss(yp, y) == pytest.approx((1 - tau) / 2, abs=1e-12)
    assert R.kendall_tau_loss([1, 2, 3], [1, 2, 3]) == 0.0
    assert R.kendall_tau_loss([3, 2, 1], [1, 2, 3]) == 1.0


def test_kendall_ties_follow_sign_definition():
    # pair (0,1) tied in y only: disagreement; pair tied in both: agreement
    assert R.kendall_tau_loss([1.0, 2.0], [5.0, 5.0]) == 1.0
    assert R.kendall_tau_loss([2.0, 2.0], [5.0, 5.0]) == 0.0
    rng = np.random.default_rng(2)
    for _ in range(20):
        yp, y = rng.integers(0, 3, 8).astype(float), rng.integers(0, 3, 8).astype(float)
        assert R.kendall_tau_loss(yp, y) == pytest.approx(brute_kendall(yp, y))


def test_zero_one_ranking_loss():
    assert R.zero_one_ranking_loss([1, 2, 3], [10, 20, 30]) == 0.0
    assert R.zero_one_ranking_loss([1, 3, 2], [10, 20, 30]) == 1.0


def test_discount_values():
    # position r (the top) has discount 1, r-1 has 1/log2(3); outside the top k: 0
    np.testing.assert_allclose(R.discount(np.arange(1, 6), 5),
                               1 / np.log2(np.array([6, 5, 4, 3, 2])))
    np.testing.assert_allclose(R.discount(np.arange(1, 6), 5, k=2), [0, 0, 0, 1 / np.log2(3), 1])


def book_ndcg_loss(yp, y, k=None):
    """Direct transcription of the second form of the NDCG loss in UML §17.4."""
    r = len(y)
    k = r if k is None else min(k, r)

    def D(i):
        return 1 / np.log2(r - i + 2) if i >= r - k + 1 else 0.0

    pi_y, pi_p = R.permutation(y), R.permutation(yp)
    G = sum(D(pi_y[i]) * y[i] for i in range(r))
    return sum((D(pi_y[i]) - D(pi_p[i])) * y[i] for i in range(r)) / G


@pytest.mark.parametrize("k", [None, 1, 3, 10])
def test_ndcg_matches_sklearn_and_book(k):
    rng = np.random.default_rng(3)
    for _ in range(10):
        yp = rng.normal(size=10)                    # no ties in the prediction
        y = rng.integers(0, 4, 10).astype(float)
        if y.sum() == 0:
            y[0] = 1.0
        ours = R.ndcg_loss(yp, y, k=k)
        assert ours == pytest.approx(1 - ndcg_score([y], [yp], k=k), abs=1e-12)
        assert ours == pytest.approx(book_ndcg_loss(yp, y, k), abs=1e-12)
        assert 0.0 <= ours <= 1.0
    assert R.ndcg_loss(y, y, k=k) == 0.0


def test_ndcg_differences_with_sklearn_documented():
    y = np.array([3.0, 0.0, 1.0])
    yp = np.array([1.0, 1.0, 0.0])                  # tie between items 0 and 1
    assert R.ndcg_loss(yp, y) == pytest.approx(book_ndcg_loss(yp, y))
    assert R.ndcg_loss(yp, y) != pytest.approx(1 - ndcg_score([y], [yp]))
    assert R.ndcg_loss([1.0, 2.0], [0.0, 0.0]) == 0.0  # G(y, y) = 0 -> loss 0


# ---------------------------------------------------------------- assignment

def brute_assignment_cost(A):
    r = A.shape[0]
    return min(A[np.arange(r), list(p)].sum() for p in itertools.permutations(range(r)))


def test_assignment_brute_force_small():
    rng = np.random.default_rng(4)
    for r in range(1, 8):
        for kind in ("real", "int"):
            A = rng.normal(size=(r, r)) if kind == "real" else rng.integers(0, 3, (r, r)).astype(float)
            v = R.assignment(A)
            assert sorted(v.tolist()) == list(range(r))
            assert A[np.arange(r), v].sum() == pytest.approx(brute_assignment_cost(A), abs=1e-9)


@pytest.mark.parametrize("r", [10, 57, 200])
@pytest.mark.parametrize("kind", ["real", "int", "ties"])
def test_assignment_matches_scipy(r, kind):
    rng = np.random.default_rng(r)
    if kind == "real":
        A = rng.normal(size=(r, r)) * 100
    elif kind == "int":
        A = rng.integers(-1000, 1000, (r, r)).astype(float)
    else:
        A = rng.integers(0, 3, (r, r)).astype(float)
    v = R.assignment(A)
    assert np.array_equal(np.sort(v), np.arange(r))
    rows, cols = linear_sum_assignment(A)
    assert A[np.arange(r), v].sum() == pytest.approx(A[rows, cols].sum(), rel=1e-12, abs=1e-9)
    assert R.assignment_cost(A, v) == pytest.approx(A[rows, cols].sum(), rel=1e-12, abs=1e-9)


def test_lemma_17_4_lp_over_doubly_stochastic_matrices():
    rng = np.random.default_rng(5)
    r = 6
    A = rng.normal(size=(r, r))
    # B >= 0, rows and columns sum to 1 (Eq. (17.10)); B flattened row-major
    A_eq = np.vstack([np.kron(np.eye(r), np.ones(r)), np.kron(np.ones(r), np.eye(r))])
    res = linprog(A.ravel(), A_eq=A_eq, b_eq=np.ones(2 * r), bounds=(0, None), method="highs")
    B = res.x.reshape(r, r)
    assert np.allclose(B, np.round(B), atol=1e-8)        # a vertex: a permutation matrix
    v = R.assignment(A)
    assert res.fun == pytest.approx(A[np.arange(r), v].sum(), abs=1e-9)


# ---------------------------------------------------------------- surrogates

def brute_ndcg_max(mu, y, k=None):
    r = len(y)
    pi_y = R.permutation(y)
    best = -np.inf
    for p in itertools.permutations(range(1, r + 1)):
        v = np.array(p)
        # Δ(v, y) with v as the predicted score vector: π(v) = v
        val = R.ndcg_loss(v.astype(float), y, k=k) + (v - pi_y) @ mu
        best = max(best, val)
    return best


@pytest.mark.parametrize("k", [None, 2])
def test_ndcg_most_violating_is_the_argmax(k):
    rng = np.random.default_rng(6)
    for _ in range(8):
        r = int(rng.integers(2, 7))
        X = rng.normal(size=(r, 3))
        w = rng.normal(size=3)
        y = rng.integers(0, 4, r).astype(float)
        if y.sum() == 0:
            y[0] = 2.0
        res = R.ndcg_hinge(w, X, y, k=k)
        assert res.loss == pytest.approx(brute_ndcg_max(X @ w, y, k), abs=1e-9)
        np.testing.assert_array_equal(res.v, R.ndcg_most_violating(X @ w, y, k=k))
        # upper bound on the NDCG loss of h_w
        assert res.loss >= R.ndcg_loss(X @ w, y, k=k) - 1e-12
        # subgradient inequality at a random other point (convexity)
        w2 = rng.normal(size=3)
        assert R.ndcg_hinge(w2, X, y, k=k).loss >= res.loss + res.grad @ (w2 - w) - 1e-9


def test_kendall_hinge_value_bound_and_gradient():
    rng = np.random.default_rng(7)
    r, d = 7, 3
    X = rng.normal(size=(r, d))
    y = rng.normal(size=r)
    for _ in range(5):
        w = rng.normal(size=d)
        res = R.kendall_hinge(w, X, y)
        direct = sum(max(0, 1 - np.sign(y[i] - y[j]) * (X[i] - X[j]) @ w)
                     for i in range(r) for j in range(i + 1, r)) * 2 / (r * (r - 1))
        assert res.loss == pytest.approx(direct)
        assert res.loss >= R.kendall_tau_loss(X @ w, y)
        eps = 1e-6                     # differentiable almost everywhere: finite differences
        num = [(R.kendall_hinge(w + eps * e, X, y).loss - R.kendall_hinge(w - eps * e, X, y).loss)
               / (2 * eps) for e in np.eye(d)]
        np.testing.assert_allclose(res.grad, num, atol=1e-5)


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
    assert R.mean_loss(res.w, test, "kendall") < np.mean(
        [R.mean_loss(rng.normal(size=4), test, "kendall") for _ in range(20)]) - 0.1
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


# ---------------------------------------------------------------- bipartite (17.14)

def brute_bipartite(mu, y, measure, k=None, beta=1.0):
    r = len(y)
    best = -np.inf
    for bits in itertools.product((-1.0, 1.0), repeat=r):
        v = np.array(bits)
        a = np.sum((v > 0) & (y > 0)); b = np.sum((v > 0) & (y < 0))
        c = np.sum((v < 0) & (y > 0)); d = np.sum((v < 0) & (y < 0))
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


@pytest.mark.parametrize("measure,k,beta", [("f1", None, 1.0), ("fbeta", None, 2.0),
                                            ("fbeta", None, 0.5), ("balanced", None, 1.0),
                                            ("precision_at_k", 3, 1.0), ("recall_at_k", 2, 1.0),
                                            ("precision_at_k", 1, 1.0), ("recall_at_k", 5, 1.0),
                                            ("zero_one", None, 1.0)])
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


# ---------------------------------------------------------------- the fraud example

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
    assert metrics.precision_at_k(Xte @ pk_model.w, yte, 10) >= \
        metrics.precision_at_k(zo_scores, yte, 10) + 0.15


# ---------------------------------------------------------------- bad input

def test_bad_input_permutation_and_losses():
    with pytest.raises(TypeError, match="y"):
        R.permutation("abc")
    with pytest.raises(ValueError, match="y"):
        R.permutation([1.0, np.nan])
    with pytest.raises(ValueError, match="y"):
        R.permutation([])
    with pytest.raises(ValueError, match="y"):
        R.permutation(np.zeros((2, 2)))
    for fn in (R.kendall_tau_loss, R.ndcg_loss, R.zero_one_ranking_loss, R.dcg):
        with pytest.raises(ValueError, match="y_pred"):
            fn([1.0, 2.0], [1.0, 2.0, 3.0])
        with pytest.raises(ValueError, match="y_true"):
            fn([1.0, 2.0], [1.0, np.inf])
        with pytest.raises(TypeError, match="y_pred"):
            fn(None, [1.0, 2.0])
    with pytest.raises(ValueError, match="y_true"):
        R.kendall_tau_loss([1.0], [1.0])
    with pytest.raises(ValueError, match="y_true"):
        R.ndcg_loss([1.0, 2.0], [-1.0, 2.0])
    with pytest.raises(ValueError, match="k"):
        R.ndcg_loss([1.0, 2.0], [1.0, 2.0], k=0)
    with pytest.raises(TypeError, match="k"):
        R.ndcg_loss([1.0, 2.0], [1.0, 2.0], k="2")
    with pytest.raises(ValueError, match="positions"):
        R.discount([0, 1], 3)
    with pytest.raises(ValueError, match="r"):
        R.discount([1], 0)


def test_bad_input_assignment():
    with pytest.raises(ValueError, match="A"):
        R.assignment(np.ones((2, 3)))
    with pytest.raises(ValueError, match="A"):
        R.assignment([[1.0, np.nan], [0.0, 1.0]])
    with pytest.raises(ValueError, match="A"):
        R.assignment(np.ones(3))
    with pytest.raises(TypeError, match="A"):
        R.assignment(np.array([["a", "b"], ["c", "d"]]))
    with pytest.raises(ValueError, match="A"):
        R.assignment(np.zeros((0, 0)))
    with pytest.raises(ValueError, match="v"):
        R.assignment_cost(np.eye(3), [0, 0, 1])


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
    with pytest.raises(ValueError, match="y_score"):
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


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(-5, 5), min_size=2, max_size=12))
def test_kendall_and_permutation_properties(vals):
    y = np.array(vals, dtype=float)
    pi = R.permutation(y)
    assert sorted(pi.tolist()) == list(range(1, len(y) + 1))
    # π(π(y)) = π(y), and a strictly increasing map leaves every loss unchanged
    np.testing.assert_array_equal(R.permutation(pi.astype(float)), pi)
    rng = np.random.default_rng(len(vals))
    yp = rng.normal(size=len(y))
    assert R.kendall_tau_loss(yp, y) == R.kendall_tau_loss(np.exp(yp), 3 * y + 1)
    assert R.kendall_tau_loss(yp, y) == pytest.approx(brute_kendall(yp, y))


@pytest.mark.parametrize("measure,k", [("f1", None), ("fbeta", None), ("balanced", None),
                                       ("precision_at_k", 5), ("recall_at_k", 20), ("zero_one", None)])
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
