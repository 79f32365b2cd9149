"""Chapter 04: multiclass reductions, linear multiclass predictors, perceptrons, Kesler. — ``kmlteach.multiclass.hinge``."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import random_problem, stump_learner_x0
from hypothesis import given, settings
from hypothesis import strategies as st

from kmlteach import multiclass as M
from kmlteach.datasets import three_balls

X0 = np.array([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0], [2.0, 0.5]])


y0 = np.array([0, 1, 2, 1])


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), k=st.integers(2, 5))
def test_generalized_hinge_upper_bounds_delta(seed, k):
    rng = np.random.default_rng(seed)
    d, m = 3, 12
    W = rng.normal(size=(k, d))
    X = rng.normal(size=(m, d))
    y = rng.integers(0, k, size=m)
    D = rng.uniform(0.1, 3.0, size=(k, k))
    np.fill_diagonal(D, 0.0)
    loss = M.generalized_hinge(W, X, y, delta=D)
    pred = np.argmax(X @ W.T, axis=1)
    assert np.all(loss >= D[pred, y] - 1e-12)
    # direct evaluation of (17.3)
    direct = [max(D[yp, y[i]] + W[yp] @ X[i] - W[y[i]] @ X[i] for yp in range(k)) for i in range(m)]
    np.testing.assert_allclose(loss, direct, rtol=0, atol=1e-12)
    # equality when the correct score beats every y' by at least Δ(y', y)
    Ws = 50.0 * np.eye(k, d) if d >= k else None
    if Ws is not None:
        Xs = np.eye(k, d)[y] * 1.0
        np.testing.assert_allclose(M.generalized_hinge(Ws, Xs, y, delta=D), 0.0)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_subgradient_inequality(seed):
    rng = np.random.default_rng(seed)
    k, d, m = 4, 3, 5
    W = rng.normal(size=(k, d))
    X = rng.normal(size=(m, d))
    y = rng.integers(0, k, size=m)
    G = M.generalized_hinge_subgradient(W, X, y)
    f = M.generalized_hinge(W, X, y).mean()
    for _ in range(10):
        V = W + rng.normal(size=W.shape)
        assert M.generalized_hinge(V, X, y).mean() >= f + np.sum(G * (V - W)) - 1e-10


def test_remark_17_2_binary_case_is_the_hinge():
    # Y = {±1}, Ψ(x, y) = y x / 2: generalized hinge = max(0, 1 - y<w, x>)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 3))
    w = rng.normal(size=3)
    labels = np.array([-1, 1])
    psi = lambda x, c: labels[c] * np.asarray(x) / 2.0
    y = rng.choice(labels, size=20)
    loss = M.generalized_hinge(w, X, y, psi=psi, classes=labels)
    np.testing.assert_allclose(loss, np.maximum(0, 1 - y * (X @ w)), atol=1e-12)


def test_objective_and_crammer_singer_conversion():
    X, y = random_problem(0, m=30)
    W = np.random.default_rng(1).normal(size=(4, 3))
    lam = 0.05
    obj = M.multiclass_svm_objective(W, X, y, lam)
    # the course's one convention: (λ/2)‖w‖² + mean loss (UML (15.12)); §17.2.5's λ is half
    assert obj == pytest.approx(0.5 * lam * np.sum(W**2) + M.generalized_hinge(W, X, y).mean())
    C = M.crammer_singer_C(lam, 30)
    assert C == pytest.approx(1.0 / (lam * 30))
    cs = 0.5 * np.sum(W**2) + C * M.generalized_hinge(W, X, y).sum()
    assert cs / (C * 30) == pytest.approx(obj)


def test_multiclass_svm_matches_crammer_singer():
    """λ‖w‖² + mean g-hinge  <->  ½‖W‖² + C Σ ξ with C = 1/(2λm) (LinearSVC crammer_singer)."""
    from sklearn.svm import LinearSVC

    X, y = random_problem(4, m=80, d=3, k=4, spread=1.5)
    lam = 0.01
    C = M.crammer_singer_C(lam, 80)
    # liblinear's coordinate order comes from random_state: pin it (None would take the
    # global NumPy state, making the oracle's own convergence depend on test order)
    ref = LinearSVC(
        multi_class="crammer_singer", fit_intercept=False, C=C, tol=1e-10, max_iter=200_000, random_state=0
    ).fit(X, y)
    assert ref.n_iter_ < 200_000, "the liblinear oracle did not converge"
    W_ref = ref.coef_
    ours = M.multiclass_svm(X, y, lam, T=200_000, seed=0)
    obj_ref = M.multiclass_svm_objective(W_ref, X, y, lam)
    obj_ours = M.multiclass_svm_objective(ours.W, X, y, lam)
    assert ours.objective == pytest.approx(obj_ours)
    # stated tolerance: within 1 % of the reference optimum (SGD gap ~ log T /(λT))
    assert obj_ours <= obj_ref * 1.01
    assert obj_ref <= obj_ours + 1e-6  # the reference is (near) optimal
    # general Ψ path of the same solver agrees
    gen = M.multiclass_svm(X, y, lam, T=2000, seed=0, psi=M.MultivectorPsi(4, 3))
    fast = M.multiclass_svm(X, y, lam, T=2000, seed=0)
    np.testing.assert_allclose(gen.w, fast.w, rtol=0, atol=1e-12)


def test_bad_input_losses_and_maps():
    W = np.ones((3, 2))
    with pytest.raises(ValueError, match="X"):
        M.generalized_hinge(W, np.ones((2, 3)), [0, 1])
    with pytest.raises(ValueError, match="y"):
        M.generalized_hinge(W, np.ones((2, 2)), [0, 3])
    with pytest.raises(ValueError, match="y"):
        M.generalized_hinge(W, np.ones((2, 2)), [0, 1, 1])
    with pytest.raises(TypeError, match="y"):
        M.generalized_hinge(W, np.ones((2, 2)), ["a", "b"])
    with pytest.raises(ValueError, match="w"):
        M.generalized_hinge(np.ones((1, 2)), np.ones((2, 2)), [0, 0])
    with pytest.raises(ValueError, match="w"):
        M.generalized_hinge([1.0, np.nan], np.ones((2, 2)), [0, 0], psi=M.MultivectorPsi(2, 1))
    with pytest.raises(ValueError, match="delta"):
        M.generalized_hinge(W, np.ones((2, 2)), [0, 1], delta=np.eye(3))
    with pytest.raises(ValueError, match="y"):
        M.generalized_hinge_subgradient(W, np.ones((2, 2)), [0, 1], classes=[5, 6, 7])
    with pytest.raises(ValueError, match="lam"):
        M.multiclass_svm_objective(W, np.ones((2, 2)), [0, 1], -1.0)
    with pytest.raises(ValueError, match="lam"):
        M.crammer_singer_C(0.0, 10)
    with pytest.raises(ValueError, match="k"):
        M.multivector_psi([1.0], 0, 1)
    with pytest.raises(ValueError, match="y"):
        M.multivector_psi([1.0], 3, 3)
    with pytest.raises(ValueError, match="x"):
        M.MultivectorPsi(3, 2)([1.0, 2.0, 3.0], 0)
    with pytest.raises(ValueError, match="TF"):
        M.TfidfPsi(-np.ones((2, 2)), [0, 1])
    with pytest.raises(ValueError, match="y"):
        M.TfidfPsi(np.ones((2, 2)), [0, 0])
    with pytest.raises(ValueError, match="X"):
        M.erm_halfspace_2d(np.ones((3, 3)), [1, -1, 1])
    with pytest.raises(ValueError, match="y"):
        M.erm_halfspace_2d(np.ones((3, 2)), [1, 0, 1])
    with pytest.raises(ValueError, match="y"):
        M.erm_halfspace_2d(np.ones((3, 2)), [1, 1, 1])
    model = M.one_vs_all(X0, y0, stump_learner_x0)
    with pytest.raises(ValueError, match="X"):
        model.predict(np.ones((2, 3)))
    res = M.multiclass_svm_sgd(X0, y0, 0.1, 10, 0)
    with pytest.raises(ValueError, match="X"):
        res.predict(np.ones((2, 3)))
    emb = M.kesler_embed(X0, y0)
    with pytest.raises(ValueError, match="w"):
        emb.weights(np.ones(5))


def test_bad_input_three_balls():
    with pytest.raises(ValueError, match="n"):
        three_balls(3, 0)
    with pytest.raises(TypeError, match="n"):
        three_balls("100", 0)
    with pytest.raises(ValueError, match="seed"):
        three_balls(100, -2)
    with pytest.raises(ValueError, match="radius2"):
        three_balls(100, 0, radius2=2.0)
    with pytest.raises(ValueError, match="mass2"):
        three_balls(100, 0, mass2=1.0)
    with pytest.raises(ValueError, match="shift"):
        three_balls(100, 0, shift=(1.0, 2.0, 3.0))


def test_losses_with_labels_in_any_class_order():
    W = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]])
    X = np.array([[2.0, 0.5], [0.1, 1.0], [-1.0, -2.0]])
    classes = np.array(["whale", "cat", "dog"])  # row order of W, not sorted
    y = np.array(["whale", "cat", "dog"])
    np.testing.assert_allclose(
        M.generalized_hinge(W, X, y, classes=classes), M.generalized_hinge(W, X, [0, 1, 2])
    )
    with pytest.raises(ValueError, match="y"):
        M.generalized_hinge(W, X, ["whale", "cat", "cow"], classes=classes)
