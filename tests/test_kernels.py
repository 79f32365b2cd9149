"""Tests for kmlteach.kernels: Gram matrices (oracles: scikit-learn, SciPy, closed forms),
PSD checks, feature maps, closure rules and RKHS operations."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.interpolate import BSpline
from sklearn.metrics.pairwise import linear_kernel, polynomial_kernel, rbf_kernel

from kmlteach import kernels as kk
from kmlteach.datasets import line_example

RNG = np.random.default_rng(0)
X = RNG.normal(size=(12, 3))
Y = RNG.normal(size=(7, 3))


# ----------------------------------------------------------------------------- oracles

def test_gram_matches_sklearn():
    assert np.allclose(kk.gram("linear", X, Y), linear_kernel(X, Y), rtol=0, atol=1e-12)
    for degree, c in [(1, 0.0), (2, 1.0), (3, 0.5), (4, 0.0)]:
        ref = polynomial_kernel(X, Y, degree=degree, gamma=1.0, coef0=c)
        assert np.allclose(kk.gram("polynomial", X, Y, degree=degree, c=c), ref, rtol=1e-12, atol=1e-12)
    for sigma in [0.1, 1.0, 7.0]:
        ref = rbf_kernel(X, Y, gamma=1.0 / (2 * sigma))
        assert np.allclose(kk.gram("gaussian", X, Y, sigma=sigma), ref, rtol=0, atol=1e-12)
        assert np.allclose(kk.gram("gaussian", X, Y, gamma=1.0 / (2 * sigma)), ref, rtol=0, atol=1e-12)
    assert np.allclose(kk.gram("gaussian", X), rbf_kernel(X, gamma=0.5), rtol=0, atol=1e-12)


def test_gram_closed_forms_by_brute_force():
    ex = kk.gram("exponential", X, Y, gamma=0.3)
    mn = kk.gram("min", np.abs(X), np.abs(Y))
    for i in range(X.shape[0]):
        for j in range(Y.shape[0]):
            assert ex[i, j] == pytest.approx(math.exp(0.3 * float(X[i] @ Y[j])), rel=1e-13)
            assert mn[i, j] == pytest.approx(float(np.prod(np.minimum(np.abs(X[i]), np.abs(Y[j])))), rel=1e-14)


def test_gaussian_uml_example_value():
    # UML Example 16.2: exp(-|x-x'|^2/(2 sigma)); x = 0, x' = 2, sigma = 1 -> e^-2
    assert kk.gram("gaussian", [[0.0]], [[2.0]], sigma=1.0)[0, 0] == pytest.approx(math.exp(-2.0))
    assert np.all(np.diag(kk.gram("gaussian", X)) == 1.0)


@pytest.mark.parametrize("order", [0, 1, 2, 3, 4, 5, 7, 11])
def test_bspline_matches_scipy_basis_element(order):
    knots = np.arange(order + 2) - (order + 1) / 2
    ref = BSpline.basis_element(knots, extrapolate=False)
    t = np.linspace(-(order + 1) / 2 - 0.3, (order + 1) / 2 + 0.3, 97)
    t = t[np.min(np.abs(t[:, None] - knots[None, :]), axis=1) > 1e-9]  # away from the knots
    expect = np.nan_to_num(ref(t), nan=0.0)
    assert np.allclose(kk.bspline(t, order), expect, rtol=0, atol=1e-13)


def test_bspline_is_repeated_convolution_of_the_box():
    # B_1 is the hat 1 - |t|; B_3 at 0, 1 is 2/3, 1/6; each B_n integrates to 1
    t = np.linspace(-1.5, 1.5, 31)
    assert np.allclose(kk.bspline(t, 1), np.maximum(0.0, 1.0 - np.abs(t)), atol=1e-15)
    assert kk.bspline([0.0, 1.0], 3) == pytest.approx([2 / 3, 1 / 6])
    h = 1e-3
    grid = np.arange(-3.0, 3.0, h)
    box = (np.abs(grid) < 0.5).astype(float)
    b = box.copy()
    for n in range(1, 4):
        b = np.convolve(b, box, mode="same") * h
        assert np.allclose(b, kk.bspline(grid, n), atol=5e-3)
        assert np.sum(kk.bspline(grid, n)) * h == pytest.approx(1.0, abs=1e-6)


def test_bspline_gram_is_product_over_coordinates():
    K = kk.gram("bspline", X, Y, order=3)
    i, j = 2, 5
    assert K[i, j] == pytest.approx(float(np.prod(kk.bspline(X[i] - Y[j], 3))), rel=1e-13)


# ----------------------------------------------------------------------------- PSD properties

# rounded to 6 decimals: values like 1e-200 only test floating-point underflow, not kernels
finite = st.floats(-3, 3, allow_nan=False, allow_infinity=False).map(lambda v: round(v, 6))
points = arrays(np.float64, st.tuples(st.integers(1, 8), st.integers(1, 3)), elements=finite)
specs = st.sampled_from([
    ("linear", {}), ("polynomial", {"degree": 2, "c": 1.0}), ("polynomial", {"degree": 3, "c": 0.0}),
    ("gaussian", {"sigma": 0.5}), ("gaussian", {"gamma": 2.0}), ("exponential", {"gamma": 0.5}),
    ("bspline", {"order": 1}), ("bspline", {"order": 3}), ("min", {}),
])


@settings(max_examples=50, deadline=None)
@given(points, specs)
def test_every_kernel_gives_symmetric_psd_gram(P, spec):
    name, params = spec
    if name == "min":
        P = np.abs(P)
    K = kk.gram(name, P, **params)
    assert K.shape == (P.shape[0], P.shape[0])
    assert np.array_equal(K, K.T)
    psd, lmin = kk.is_psd(K, tol=1e-9)
    assert psd, (name, params, lmin)
    assert kk.cauchy_schwarz_ratio(K) <= 1 + 1e-9  # HSS1 Prop. 4, (1.10)
    d = np.diag(K)
    assert np.all(K ** 2 <= np.outer(d, d) * (1 + 1e-9) + 1e-12)  # every pair, (1.10)


def test_is_psd_catches_exponential_with_negative_gamma():
    # SEED_INVENTORY: x = 1, x' = -1, gamma = -1 -> [[e^-1, e], [e, e^-1]], det < 0
    K = kk.similarity("exponential", [[1.0], [-1.0]], gamma=-1.0)
    assert np.allclose(K, [[math.exp(-1), math.e], [math.e, math.exp(-1)]])
    psd, lmin = kk.is_psd(K)
    assert not psd
    assert lmin == pytest.approx(math.exp(-1) - math.e)


def test_is_psd_catches_even_bsplines_and_negative_distance():
    K0 = kk.similarity("bspline", [[0.0], [0.4], [0.8]], order=0)
    assert np.allclose(K0, [[1, 1, 0], [1, 1, 1], [0, 1, 1]])
    psd, lmin = kk.is_psd(K0)
    assert not psd and lmin == pytest.approx(1 - math.sqrt(2))
    grid = np.arange(0, 3.01, 0.1)[:, None]
    for order in (2, 4):
        psd, lmin = kk.is_psd(kk.similarity("bspline", grid, order=order))
        assert not psd and lmin < -1e-6
    for order in (1, 3, 5):
        assert kk.is_psd(kk.similarity("bspline", grid, order=order)).psd
    D = kk.similarity("negative_distance", [[0.0], [1.0]])
    assert np.allclose(D, [[0, -1], [-1, 0]])
    assert kk.is_psd(D) == (False, pytest.approx(-1.0))


def test_negative_distance_is_conditionally_positive_definite():
    # -||x - x'|| has exactly one negative eigenvalue (distinct points), and c^T K c >= 0
    # whenever sum(c) = 0 (HSS1 (1.20))
    P = np.random.default_rng(4).normal(size=(15, 3))
    K = kk.similarity("negative_distance", P)
    lam = np.linalg.eigvalsh(K)
    assert np.sum(lam < -1e-9) == 1
    C = np.random.default_rng(5).normal(size=(200, 15))
    C -= C.mean(axis=1, keepdims=True)
    assert np.all(np.einsum("ki,ij,kj->k", C, K, C) >= -1e-9)


def test_is_psd_basic_and_asymmetric():
    assert kk.is_psd(np.eye(3)) == (True, 1.0)
    psd, lmin = kk.is_psd([[1.0, 2.0], [0.0, 1.0]])
    assert not psd
    assert kk.cauchy_schwarz_ratio([[1.0, 2.0], [2.0, 1.0]]) == pytest.approx(2.0)


# ----------------------------------------------------------------------------- feature maps

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
    ordered = np.stack([np.prod(P0[:, list(J)], axis=1)
                        for J in np.ndindex(3, 3, 3)], axis=1)
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


# ----------------------------------------------------------------------------- closure rules

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


def test_limit_rule_exponential_kernel():
    prev = np.inf
    target = kk.gram("exponential", X, gamma=0.4)
    for n in (1, 3, 6, 12, 25):
        Kn = kk.exponential_taylor_gram(X, gamma=0.4, n_terms=n)
        assert kk.is_psd(Kn, tol=1e-9).psd
        err = np.max(np.abs(Kn - target))
        assert err < prev
        prev = err
    assert prev < 1e-10


# ----------------------------------------------------------------------------- RKHS operations

def test_translate_and_center_match_explicit_features():
    P = RNG.normal(size=(6, 2))
    Z = RNG.normal(size=(4, 2))
    Phi, PhiZ = kk.polynomial_features(P, 2), kk.polynomial_features(Z, 2)
    K, Kz = Phi @ Phi.T, PhiZ @ Phi.T
    a = RNG.normal(size=6)
    G = Phi.T @ a
    assert np.allclose(kk.translate(K, a), (Phi + G) @ (Phi + G).T)
    assert np.allclose(kk.translate(K, a, Kz), (PhiZ + G) @ (Phi + G).T)
    mu = Phi.mean(axis=0)
    assert np.allclose(kk.center(K), (Phi - mu) @ (Phi - mu).T)
    assert np.allclose(kk.center(K, Kz), (PhiZ - mu) @ (Phi - mu).T)
    assert np.allclose(kk.center(K), kk.translate(K, -np.ones(6) / 6))
    D = kk.rkhs_distances(K)
    assert np.allclose(D, np.linalg.norm(Phi[:, None] - Phi[None], axis=2), atol=1e-7)
    Dz = kk.rkhs_distances(Kz, np.sum(PhiZ ** 2, 1), np.sum(Phi ** 2, 1))
    assert np.allclose(Dz, np.linalg.norm(PhiZ[:, None] - Phi[None], axis=2), atol=1e-7)
    b = RNG.normal(size=6)
    assert kk.rkhs_inner(a, b, K) == pytest.approx(float((Phi.T @ a) @ (Phi.T @ b)))
    assert kk.rkhs_norm(a, K) == pytest.approx(float(np.linalg.norm(Phi.T @ a)))


def test_projection_deflation_and_gram_schmidt():
    P = RNG.normal(size=(7, 2))
    Phi = kk.polynomial_features(P, 2)  # 6 features, 7 points: rank 6
    K = Phi @ Phi.T
    a, g = RNG.normal(size=7), RNG.normal(size=7)
    psi, gam = Phi.T @ a, Phi.T @ g
    assert np.allclose(Phi.T @ kk.project(a, g, K), (gam @ psi) / (gam @ gam) * gam)
    d = kk.deflate(a, g, K)
    assert np.allclose(Phi.T @ d, psi - (gam @ psi) / (gam @ gam) * gam)
    assert abs(kk.rkhs_inner(d, g, K)) < 1e-9
    Q = kk.gram_schmidt(K)
    assert Q.shape == (7, 6)  # the 7th vector depends on the others
    assert np.allclose(Q.T @ K @ Q, np.eye(6), atol=1e-9)
    # same span: projecting Phi onto the orthonormal basis reproduces it
    B = Phi.T @ Q
    assert np.allclose(B @ (B.T @ Phi.T), Phi.T, atol=1e-8)
    with pytest.raises(ValueError, match="g"):
        kk.project(a, np.zeros(7), K)


# ----------------------------------------------------------------------------- bad input

@pytest.mark.parametrize("bad, exc, match", [
    ([[1, 2], [3]], ValueError, "X"),
    ("abc", TypeError, "X"),
    (np.array([[1.0, np.nan]]), ValueError, "X"),
    (np.zeros((0, 2)), ValueError, "X"),
    (np.ones(3), ValueError, "X"),
    (np.array([["a", "b"]]), TypeError, "X"),
])
def test_gram_rejects_bad_X(bad, exc, match):
    with pytest.raises(exc, match=match):
        kk.gram("linear", bad)


def test_gram_rejects_bad_kernel_and_params():
    with pytest.raises(ValueError, match="kernel"):
        kk.gram("rbf", X)
    with pytest.raises(TypeError, match="kernel"):
        kk.gram(None, X)
    with pytest.raises(ValueError, match="sigma"):
        kk.gram("gaussian", X, sigma=0.0)
    with pytest.raises(ValueError, match="gamma"):
        kk.gram("gaussian", X, sigma=1.0, gamma=1.0)
    with pytest.raises(ValueError, match="gamma"):
        kk.gram("exponential", X, gamma=-1.0)
    with pytest.raises(ValueError, match="order"):
        kk.gram("bspline", X, order=2)
    with pytest.raises(ValueError, match="degree"):
        kk.gram("polynomial", X, degree=0)
    with pytest.raises(TypeError, match="degree"):
        kk.gram("polynomial", X, degree=1.5)
    with pytest.raises(ValueError, match="c"):
        kk.gram("polynomial", X, c=-1.0)
    with pytest.raises(TypeError, match="sigma"):
        kk.gram("gaussian", X, sigma="1")
    with pytest.raises(TypeError, match="degree"):
        kk.gram("linear", X, degree=2)
    with pytest.raises(ValueError, match="Y"):
        kk.gram("linear", X, np.ones((2, 5)))
    with pytest.raises(ValueError, match="non-negative"):
        kk.gram("min", X)
    with pytest.raises(ValueError, match="kernel"):
        kk.similarity("cosine", X)


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


def test_rkhs_operations_reject_bad_input():
    K = kk.gram("gaussian", X)
    with pytest.raises(ValueError, match="alpha"):
        kk.translate(K, np.ones(3))
    with pytest.raises(ValueError, match="K_test"):
        kk.translate(K, np.ones(12), np.ones((2, 3)))
    with pytest.raises(ValueError, match="K"):
        kk.center(np.ones((3, 4)))
    with pytest.raises(ValueError, match="K_test"):
        kk.center(K, np.ones((2, 5)))
    with pytest.raises(ValueError, match="diag"):
        kk.rkhs_distances(np.ones((2, 3)), diag_test=np.ones(2))
    with pytest.raises(ValueError, match="K"):
        kk.rkhs_distances(np.ones((2, 3)))
    with pytest.raises(ValueError, match="a"):
        kk.rkhs_inner(np.ones(2), np.ones(12), K)
    with pytest.raises(ValueError, match="b"):
        kk.rkhs_inner(np.ones(12), [np.nan] * 12, K)
    with pytest.raises(ValueError, match="a"):
        kk.rkhs_norm(np.ones(2), K)
    with pytest.raises(ValueError, match="g"):
        kk.deflate(np.ones(12), np.ones(2), K)
    with pytest.raises(ValueError, match="A"):
        kk.gram_schmidt(K, np.ones((3, 2)))
    with pytest.raises(ValueError, match="tol"):
        kk.gram_schmidt(K, tol=0)


def test_gram_schmidt_drops_dependent_vectors_at_the_default_tolerance():
    # 8 points, degree-2 polynomial kernel in the plane: the feature space has dimension 6,
    # so only 6 of the 8 vectors Phi(x_i) are independent.
    X = np.random.default_rng(3).normal(size=(8, 2))
    K = kk.gram("polynomial", X, degree=2, c=1.0)
    Q = kk.gram_schmidt(K)
    assert Q.shape == (8, 6)
    np.testing.assert_allclose(Q.T @ K @ Q, np.eye(6), atol=1e-8)
