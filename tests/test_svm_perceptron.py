"""Tests of kmlteach.svm against oracles. — ``kmlteach.svm.perceptron``."""

import numpy as np
import pytest
from helpers import homogeneous_separable

from kmlteach import svm


def replay_batch_perceptron(X, y, max_updates):
    """UML §9.1.2 literally, picking the first violating example."""
    w = np.zeros(X.shape[1])
    hist = []
    while True:
        bad = [i for i in range(len(y)) if y[i] * (w @ X[i]) <= 0]
        if not bad or len(hist) >= max_updates:
            return w, hist, not bad
        w = w + y[bad[0]] * X[bad[0]]
        hist.append(bad[0])


def test_perceptron_matches_a_literal_replay():
    for seed in range(5):
        X, y = homogeneous_separable(25, 3, 0.1, seed)
        r = svm.perceptron(X, y)
        w, hist, conv = replay_batch_perceptron(X, y, 10_000)
        np.testing.assert_allclose(r.w, w, rtol=0, atol=1e-12)
        np.testing.assert_array_equal(r.history, hist)
        assert r.converged and conv and r.n_updates == len(hist)
        np.testing.assert_allclose(r.w_path[-1], r.w, atol=1e-12)
        assert r.w_path.shape == (r.n_updates + 1, 3) and not np.any(r.w_path[0])


def test_perceptron_hand_example_and_zero_score_counts_as_mistake():
    r = svm.perceptron([[1.0, 0.0], [-1.0, 0.5]], [1, -1])
    np.testing.assert_array_equal(r.w, [1.0, 0.0])
    assert r.n_updates == 1 and r.converged
    # a point orthogonal to w has score 0: it is a mistake and triggers an update
    r = svm.perceptron([[1.0, 0.0], [0.0, 1.0]], [1, -1])
    assert r.n_updates == 2 and r.converged
    np.testing.assert_array_equal(r.w, [1.0, -1.0])


def test_perceptron_stops_on_xor():
    X = np.array([[1.0, 1.0, 1.0], [-1.0, -1.0, 1.0], [1.0, -1.0, 1.0], [-1.0, 1.0, 1.0]])
    y = np.array([1.0, 1.0, -1.0, -1.0])
    r = svm.perceptron(X, y, max_updates=50)
    assert not r.converged and r.n_updates == 50


def test_novikoff_bound_on_many_random_samples():
    for seed in range(40):
        d = 2 + seed % 4
        X, y = homogeneous_separable(30 + seed, d, 0.05 + 0.01 * (seed % 5), seed)
        gamma = svm.hard_svm(X, y, homogeneous=True).margin
        R = np.max(np.linalg.norm(X, axis=1))
        r = svm.perceptron(X, y)
        assert r.converged
        assert np.all(y * (X @ r.w) > 0)
        assert r.n_updates <= (R / gamma) ** 2


def test_subgradient_perceptron_separates_within_the_bound():
    for seed in range(20):
        X, y = homogeneous_separable(30, 2 + seed % 3, 0.1, 200 + seed)
        w_star = svm.hard_svm(X, y, homogeneous=True).w  # min-norm w with y<w,x> >= 1
        R = np.max(np.linalg.norm(X, axis=1))
        r = svm.subgradient_perceptron(X, y)
        assert r.converged and r.objective[-1] < 1.0
        assert np.all(y * (X @ r.w) > 0)
        assert r.n_iter <= (R * np.linalg.norm(w_star)) ** 2
        # each step used the example attaining max_i (1 - y_i <w, x_i>)
        w = np.zeros(X.shape[1])
        for t, i in enumerate(r.history):
            f = 1 - y * (X @ w)
            assert i == int(np.argmax(f)) and f.max() == pytest.approx(r.objective[t])
            w = w + y[i] * X[i]
        # from w = 0 the step size only rescales the iterates
        r2 = svm.subgradient_perceptron(X, y, eta=0.25)
        np.testing.assert_array_equal(r2.history, r.history)
        np.testing.assert_allclose(r2.w, 0.25 * r.w, rtol=1e-12)


def test_kernels_are_registered_with_warmup():
    from kmlteach._jit import registered

    reg = registered()
    for name in [
        "kmlteach.svm.perceptron._perceptron_kernel",
        "kmlteach.svm.perceptron._subgradient_perceptron_kernel",
        "kmlteach.svm.sgd._sgd_soft_svm_kernel",
        "kmlteach.svm.smo._smo_kernel",
        "kmlteach.svm.dcd._dcd_kernel",
        "kmlteach.svm.dcd._dcd_gap",
        "kmlteach.svm.margins._objective_kernel",
    ]:
        fn, example = reg[name]
        assert example is not None
        fn(*example())
