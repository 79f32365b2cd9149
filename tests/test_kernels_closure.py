"""Tests for kmlteach.kernels: Gram matrices (oracles: scikit-learn, SciPy, closed forms), — ``kmlteach.kernels.closure``."""

import numpy as np
import pytest

from kmlteach import kernels as kk

RNG = np.random.default_rng(0)


X = RNG.normal(size=(12, 3))


Y = RNG.normal(size=(7, 3))


def test_closure_rules_give_kernels():
    g = kk.make_kernel("gaussian", sigma=0.5)
    p = kk.make_kernel("polynomial", degree=2)
    lin = kk.make_kernel("linear")
    s = kk.kernel_sum(g, p, 2.0, 0.5)
    assert np.allclose(s(X), 2 * g(X) + 0.5 * p(X))
    assert np.allclose(kk.kernel_product(g, p)(X, Y), g(X, Y) * p(X, Y))
    t = kk.tensor_product(g, lin, 2)
    assert np.allclose(t(X, Y), g(X[:, :2], Y[:, :2]) * lin(X[:, 2:], Y[:, 2:]))
    ds = kk.direct_sum(g, lin, 1)
    assert np.allclose(ds(X), g(X[:, :1]) + lin(X[:, 1:]))
    f = kk.feature_product(lambda r: np.sin(r).sum())
    assert np.allclose(f(X), np.outer(np.sin(X).sum(1), np.sin(X).sum(1)))
    for k in (s, kk.kernel_product(g, p), t, ds, f):
        assert kk.is_psd(k(X), tol=1e-9).psd
    assert "gaussian" in repr(s)


def test_other_functions_reject_bad_input():
    with pytest.raises(ValueError, match="K"):
        kk.is_psd(np.ones((2, 3)))
    with pytest.raises(ValueError, match="K"):
        kk.is_psd([[np.nan]])
    with pytest.raises(ValueError, match="tol"):
        kk.is_psd(np.eye(2), tol=-1)
    with pytest.raises(ValueError, match="K"):
        kk.cauchy_schwarz_ratio(np.ones(3))
    with pytest.raises(ValueError, match="degree"):
        kk.polynomial_features(X, 0)
    with pytest.raises(ValueError, match="X"):
        kk.polynomial_features([1.0, 2.0], 2)
    with pytest.raises(ValueError, match="c"):
        kk.polynomial_features(X, 2, c=-1)
    with pytest.raises(ValueError, match="degree"):
        kk.polynomial_feature_names(2, 0)
    with pytest.raises(ValueError, match="x"):
        kk.min_features([0, 1])
    with pytest.raises(ValueError, match="x"):
        kk.min_features([1.5])
    with pytest.raises(ValueError, match="N"):
        kk.min_features([1, 5], N=3)
    with pytest.raises(ValueError, match="x"):
        kk.line_embedding([[1.0, 2.0]])
    with pytest.raises(ValueError, match="order"):
        kk.bspline([0.0], -1)
    with pytest.raises(ValueError, match="t"):
        kk.bspline([np.inf], 3)
    with pytest.raises(TypeError, match="k1"):
        kk.kernel_sum(lambda X, Y=None: X, kk.make_kernel("linear"))
    with pytest.raises(ValueError, match="w2"):
        kk.kernel_sum(kk.make_kernel("linear"), kk.make_kernel("linear"), 1.0, -1.0)
    with pytest.raises(TypeError, match="k2"):
        kk.kernel_product(kk.make_kernel("linear"), "gaussian")
    with pytest.raises(ValueError, match="d1"):
        kk.tensor_product(kk.make_kernel("linear"), kk.make_kernel("linear"), 3)(X)
    with pytest.raises(ValueError, match="d1"):
        kk.direct_sum(kk.make_kernel("linear"), kk.make_kernel("linear"), 0)
    with pytest.raises(TypeError, match="f"):
        kk.feature_product(3.0)
    with pytest.raises(ValueError, match="gamma"):
        kk.exponential_taylor_gram(X, gamma=-1)
    with pytest.raises(ValueError, match="n_terms"):
        kk.exponential_taylor_gram(X, n_terms=0)
    with pytest.raises(ValueError, match="kernel"):
        kk.make_kernel("nope")
