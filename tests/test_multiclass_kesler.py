"""Chapter 04: Kesler's construction. — ``kmlteach.multiclass.kesler``."""

from __future__ import annotations

import numpy as np
import pytest
from test_multiclass_perceptrons import separable_problem

from kmlteach import multiclass as M


def test_kesler_embedding_turns_multiclass_into_one_binary_problem():
    X, y, _ = separable_problem(5, m=30, k=4)
    emb = M.kesler_embed(X, y)
    assert emb.Z.shape == (30 * 3, 4 * 3)
    # block y_i holds +x, block j holds −x, and ⟨W, x_ij⟩ = (w_i − w_j)·x
    W = np.random.default_rng(0).normal(size=(4, 3))
    for r in range(0, emb.Z.shape[0], 7):
        i, j, a = emb.example[r], emb.competitor[r], emb.label[r]
        Zr = emb.Z[r].reshape(4, 3)
        np.testing.assert_array_equal(Zr[a], X[i])
        np.testing.assert_array_equal(Zr[j], -X[i])
        assert np.count_nonzero(np.delete(Zr, [a, j], axis=0)) == 0
        assert emb.Z[r] @ W.ravel() == pytest.approx((W[a] - W[j]) @ X[i])
    full = M.kesler_embed(X, y, negatives=True)
    assert full.Z.shape == (2 * 90, 12) and set(full.t) == {-1.0, 1.0}
    # a binary perceptron on the embedded problem is a multiclass predictor
    from sklearn.linear_model import Perceptron

    clf = Perceptron(fit_intercept=False, tol=None, max_iter=1000, shuffle=False).fit(full.Z, full.t)
    Wk = full.weights(clf.coef_)
    assert np.all(np.argmax(X @ Wk.T, axis=1) == y)
    try:
        from kmlteach.svm import perceptron
    except ImportError:
        return
    p = perceptron(full.Z, full.t)
    assert p.converged
    assert np.all(np.argmax(X @ full.weights(p.w).T, axis=1) == y)
