"""Tests for kmlteach.kernels: Gram matrices (oracles: scikit-learn, SciPy, closed forms), — ``kmlteach.kernels.features``."""

import math

import numpy as np
import pytest

from kmlteach import kernels as kk
from kmlteach.datasets import line_example


@pytest.mark.parametrize("d", [1, 2, 3, 5])
@pytest.mark.parametrize("degree", [1, 2, 3, 4])
def test_polynomial_features_reproduce_the_kernel(d, degree):
    P = np.random.default_rng(d * 10 + degree).normal(size=(9, d))
    Phi = kk.polynomial_features(P, degree)
    assert Phi.shape == (9, math.comb(d + degree, degree))
    K = kk.gram("polynomial", P, degree=degree, c=1)
    assert np.allclose(Phi @ Phi.T, K, rtol=1e-10, atol=1e-10)
    Phi0 = kk.polynomial_features(P, degree, c=0.0)
    assert np.allclose(Phi0 @ Phi0.T, kk.gram("polynomial", P, degree=degree, c=0.0), rtol=1e-10, atol=1e-10)


def test_polynomial_feature_names_and_uml_ordered_map():
    assert kk.polynomial_feature_names(2, 2) == ["1", "x1", "x2", "x1^2", "x1 x2", "x2^2"]
    # UML Example 16.1: all (d+1)^k ordered products with x_0 = 1 give the same inner products
    P = np.random.default_rng(5).normal(size=(4, 2))
    P0 = np.c_[np.ones(4), P]
    ordered = np.stack([np.prod(P0[:, list(J)], axis=1) for J in np.ndindex(3, 3, 3)], axis=1)
    assert np.allclose(ordered @ ordered.T, kk.polynomial_features(P, 3) @ kk.polynomial_features(P, 3).T)


def test_min_feature_map_uml_ex_16_4():
    x = np.arange(1, 9)
    Psi = kk.min_features(x)
    assert np.array_equal(Psi @ Psi.T, np.minimum.outer(x, x).astype(float))
    assert np.array_equal(kk.gram("min", x[:, None].astype(float)), Psi @ Psi.T)


def test_line_example_is_separated_after_embedding():
    x, y = line_example()
    psi = kk.line_embedding(x)
    w, b = np.array([0.0, 1.0]), 5.0
    assert np.array_equal(np.sign(psi @ w - b), y)  # UML §16.1: sign(<w, psi(x)> - b)
    # ... while no threshold on x itself separates the sample (not a halfspace in 1-D)
    for thr in np.arange(-11, 11, 0.5):
        assert not np.array_equal(np.sign(x - thr), y) and not np.array_equal(np.sign(thr - x), y)
