"""Chapter 04: multiclass reductions, linear multiclass predictors, perceptrons, Kesler. — ``kmlteach.multiclass.sgd``."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import random_problem, stump_learner_x0

from kmlteach import multiclass as M


def _naive_sgd(X, yi, D, idx, eta, k):
    """The pseudo-code of §17.2.5 with explicit Ψ vectors (written independently)."""
    m, n = X.shape

    def psi(x, c):
        v = np.zeros(k * n)
        v[c * n : (c + 1) * n] = x
        return v

    w = np.zeros(k * n)
    ws = []
    for i in idx:
        ws.append(w.copy())
        x, y = X[i], yi[i]
        vals = [D[c, y] + w @ (psi(x, c) - psi(x, y)) for c in range(k)]
        yh = int(np.argmax(vals))
        w = w - eta * (psi(x, yh) - psi(x, y))
    return np.mean(ws, axis=0), ws[-1]


X0 = np.array([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0], [2.0, 0.5]])


y0 = np.array([0, 1, 2, 1])


def test_sgd_matches_the_pseudocode_and_general_path():
    X, y = random_problem(2, m=40, k=3)
    labels = np.array(["cat", "dog", "whale"])[y]
    D = np.array([[0, 1, 3], [1, 0, 3], [3, 3, 0]], dtype=float)
    res = M.multiclass_svm_sgd(X, labels, eta=0.05, T=300, seed=7, delta=D)
    assert res.classes.tolist() == ["cat", "dog", "whale"] and res.W.shape == (3, 3)
    idx = np.random.default_rng(7).integers(0, 40, size=300)
    assert np.array_equal(res.indices, idx)
    wbar, wlast = _naive_sgd(X, y, D, idx, 0.05, 3)
    np.testing.assert_allclose(res.w, wbar, atol=1e-12)
    np.testing.assert_allclose(res.w_last, wlast, atol=1e-12)
    # general Ψ path (object and plain callable): bit-identical
    gen = M.multiclass_svm_sgd(X, labels, eta=0.05, T=300, seed=7, delta=D, psi=M.MultivectorPsi(3, 3))
    assert np.array_equal(gen.w, res.w) and np.array_equal(gen.w_last, res.w_last)
    fn = lambda x, c: M.multivector_psi(x, c, 3)
    gen2 = M.multiclass_svm_sgd(X, labels, eta=0.05, T=300, seed=7, delta=D, psi=fn)
    assert np.array_equal(gen2.w, res.w)
    np.testing.assert_array_equal(gen2.predict(X[:5]), res.predict(X[:5]))
    # a callable Δ on labels gives the same as the matrix
    cost = {("whale", "cat"): 3, ("whale", "dog"): 3, ("cat", "whale"): 3, ("dog", "whale"): 3}
    dfun = lambda a, b: 0.0 if a == b else cost.get((a, b), 1.0)
    res2 = M.multiclass_svm_sgd(X, labels, eta=0.05, T=300, seed=7, delta=dfun)
    assert np.array_equal(res2.W, res.W)
    # different seeds draw different indices
    assert not np.array_equal(M.multiclass_svm_sgd(X, labels, 0.05, 300, seed=8).indices, idx)


def test_bad_parameters():
    with pytest.raises(ValueError, match="eta"):
        M.multiclass_svm_sgd(X0, y0, 0.0, 10, 0)
    with pytest.raises(TypeError, match="eta"):
        M.multiclass_svm_sgd(X0, y0, "1", 10, 0)
    with pytest.raises(ValueError, match="T"):
        M.multiclass_svm_sgd(X0, y0, 0.1, 0, 0)
    with pytest.raises(TypeError, match="T"):
        M.multiclass_svm_sgd(X0, y0, 0.1, 2.5, 0)
    with pytest.raises(ValueError, match="seed"):
        M.multiclass_svm_sgd(X0, y0, 0.1, 10, -1)
    with pytest.raises(ValueError, match="lam"):
        M.multiclass_svm(X0, y0, -1.0, 10, 0)
    with pytest.raises(ValueError, match="delta"):
        M.multiclass_svm_sgd(X0, y0, 0.1, 10, 0, delta=np.ones((3, 3)))  # diagonal
    with pytest.raises(ValueError, match="delta"):
        M.multiclass_svm_sgd(X0, y0, 0.1, 10, 0, delta=np.zeros((2, 2)))
    with pytest.raises(ValueError, match="delta"):
        M.multiclass_svm_sgd(X0, y0, 0.1, 10, 0, delta=-(1 - np.eye(3)))
    with pytest.raises(TypeError, match="psi"):
        M.multiclass_svm_sgd(X0, y0, 0.1, 10, 0, psi=3)
    with pytest.raises(ValueError, match="psi"):
        M.multiclass_svm_sgd(X0, y0, 0.1, 10, 0, psi=M.MultivectorPsi(4, 2))
    with pytest.raises(ValueError, match="max_updates"):
        M.multiclass_perceptron(X0, y0, max_updates=-1)
    with pytest.raises(ValueError, match="eta"):
        M.kesler_perceptron(X0, y0, eta=0)
    with pytest.raises(ValueError, match="max_epochs"):
        M.collins_perceptron(X0, y0, max_epochs=0)
    with pytest.raises(TypeError, match="learner"):
        M.one_vs_all(X0, y0, None)
    with pytest.raises(TypeError, match="learner"):
        M.all_pairs(X0, y0, 3)
    with pytest.raises(ValueError, match="decision"):
        M.all_pairs(X0, y0, stump_learner_x0, decision="majority")
    with pytest.raises(ValueError, match="code"):
        M.ecoc(X0, y0, stump_learner_x0, code=np.ones((3, 4)))  # constant columns
    with pytest.raises(ValueError, match="code"):
        M.ecoc(X0, y0, stump_learner_x0, code=np.array([[1, -1], [1, -1], [-1, 1]]))  # equal rows
    with pytest.raises(ValueError, match="code"):
        M.ecoc(X0, y0, stump_learner_x0, code=np.array([[1, 0], [-1, 1], [1, -1]]))
    with pytest.raises(ValueError, match="code"):
        M.ecoc(X0, y0, stump_learner_x0, code=np.array([[1, -1], [-1, 1]]))
    with pytest.raises(ValueError, match="kind"):
        M.ecoc_code(3, "dense")
    with pytest.raises(ValueError, match="k"):
        M.ecoc_code(12, "exhaustive")
