"""Chapter 04: multiclass reductions, linear multiclass predictors, perceptrons. — ``kmlteach.multiclass.perceptrons`` (Kesler: test_multiclass_kesler.py)."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import stump_learner_x0

from kmlteach import multiclass as M


def separable_problem(seed, m=40, d=3, k=4, gamma=0.3):
    """Data labelled by argmax of a random W, keeping only points with margin >= gamma."""
    rng = np.random.default_rng(seed)
    Wt = rng.normal(size=(k, d))
    X = []
    while len(X) < m:
        x = rng.normal(size=d) * 2
        s = np.sort(Wt @ x)
        if s[-1] - s[-2] >= gamma:
            X.append(x)
    X = np.array(X)
    return X, np.argmax(X @ Wt.T, axis=1), Wt


X0 = np.array([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0], [2.0, 0.5]])


y0 = np.array([0, 1, 2, 1])


@pytest.mark.parametrize("seed", range(4))
def test_batch_perceptron_bound_theorem_17_5(seed):
    X, y, Wt = separable_problem(seed)
    # w* = W_true / γ has unit multiclass margin
    S = X @ Wt.T
    srt = np.sort(S, axis=1)
    gamma = np.min(srt[:, -1] - srt[:, -2])
    w_star = Wt / gamma
    R = np.sqrt(2.0) * np.max(np.linalg.norm(X, axis=1))  # max ‖Ψ(x,y_i) − Ψ(x,y)‖
    res = M.multiclass_perceptron(X, y)
    assert res.converged
    assert res.n_updates <= (R * np.linalg.norm(w_star)) ** 2
    assert np.all(res.predict(X) == y)
    # the other perceptrons separate the sample too; the conservative update (η = 1)
    # follows the batch perceptron's path exactly
    cons = M.conservative_perceptron(X, y, max_epochs=1000)
    assert cons.converged and np.array_equal(cons.W, res.W) and cons.n_updates == res.n_updates
    for f in (M.kesler_perceptron, M.collins_perceptron):
        r = f(X, y, max_epochs=1000)
        assert r.converged and np.all(r.predict(X) == y)
        assert r.n_mistakes <= (R * np.linalg.norm(w_star)) ** 2


def test_perceptron_general_psi_matches_multivector():
    X, y, _ = separable_problem(9, m=25, k=3)
    a = M.multiclass_perceptron(X, y)
    b = M.multiclass_perceptron(X, y, psi=M.MultivectorPsi(3, 3))
    np.testing.assert_allclose(b.w, a.w)
    assert a.n_updates == b.n_updates
    c = M.collins_perceptron(X, y)
    e = M.collins_perceptron(X, y, psi=M.MultivectorPsi(3, 3))
    np.testing.assert_allclose(e.w, c.w)


def test_collins_tie_rule_at_zero():
    X = np.array([[1.0, 0.0], [0.0, 1.0]])
    r = M.collins_perceptron(X, [0, 1], max_epochs=1)
    # at w = 0, example 0 (class 0) wins the tie -> no update; example 1 is a mistake
    np.testing.assert_array_equal(r.W, [[0.0, -1.0], [0.0, 1.0]])
    c = M.conservative_perceptron(X, [0, 1], max_epochs=1)
    np.testing.assert_array_equal(c.W, [[1.0, -1.0], [-1.0, 1.0]])  # ties are mistakes


@pytest.mark.parametrize(
    "fn",
    [
        lambda X, y: M.multiclass_svm_sgd(X, y, 0.1, 10, 0),
        lambda X, y: M.multiclass_svm(X, y, 0.1, 10, 0),
        lambda X, y: M.multiclass_perceptron(X, y),
        lambda X, y: M.kesler_perceptron(X, y),
        lambda X, y: M.conservative_perceptron(X, y),
        lambda X, y: M.collins_perceptron(X, y),
        lambda X, y: M.kesler_embed(X, y),
        lambda X, y: M.one_vs_all(X, y, stump_learner_x0),
        lambda X, y: M.all_pairs(X, y, stump_learner_x0),
        lambda X, y: M.ecoc(X, y, stump_learner_x0, code="ova"),
    ],
)
def test_bad_X_and_y(fn):
    with pytest.raises(ValueError, match="X"):
        fn(np.array([[0.0, np.nan]] * 4), y0)
    with pytest.raises(ValueError, match="X"):
        fn(np.zeros(4), y0)
    with pytest.raises(ValueError, match="X"):
        fn(np.zeros((0, 2)), y0[:0])
    with pytest.raises(TypeError, match="X"):
        fn(np.array([["a", "b"]] * 4), y0)
    with pytest.raises(ValueError, match="y"):
        fn(X0, y0[:3])
    with pytest.raises(ValueError, match="y"):
        fn(X0, np.zeros(4))  # a single class
    with pytest.raises(ValueError, match="y"):
        fn(X0, np.array([0, 1, np.nan, 1]))
    with pytest.raises(TypeError, match="y"):
        fn(X0, None)
    fn(X0.tolist(), y0.tolist())  # lists are fine


def test_max_updates_caps_the_online_perceptrons():
    X, y, _ = separable_problem(1, m=30, k=3)
    for f in (M.kesler_perceptron, M.conservative_perceptron, M.collins_perceptron):
        r = f(X, y, max_updates=2)
        assert r.n_updates == 2 and not r.converged
        with pytest.raises(ValueError, match="max_updates"):
            f(X, y, max_updates=-1)
    g = M.collins_perceptron(X, y, psi=M.MultivectorPsi(3, 3), max_updates=2)
    np.testing.assert_allclose(g.w, M.collins_perceptron(X, y, max_updates=2).w)
