"""Tests for kmlteach.kernels: Gram matrices (oracles: scikit-learn, SciPy, closed forms), — ``kmlteach.kernels.gram``."""

import math

import numpy as np
import pytest
from scipy.interpolate import BSpline
from sklearn.metrics.pairwise import linear_kernel, polynomial_kernel, rbf_kernel

from kmlteach import kernels as kk

RNG = np.random.default_rng(0)


X = RNG.normal(size=(12, 3))


Y = RNG.normal(size=(7, 3))


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
            assert mn[i, j] == pytest.approx(
                float(np.prod(np.minimum(np.abs(X[i]), np.abs(Y[j])))), rel=1e-14
            )


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


@pytest.mark.parametrize(
    "bad, exc, match",
    [
        ([[1, 2], [3]], ValueError, "X"),
        ("abc", TypeError, "X"),
        (np.array([[1.0, np.nan]]), ValueError, "X"),
        (np.zeros((0, 2)), ValueError, "X"),
        (np.ones(3), ValueError, "X"),
        (np.array([["a", "b"]]), TypeError, "X"),
    ],
)
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


def test_gram_schmidt_drops_dependent_vectors_at_the_default_tolerance():
    # 8 points, degree-2 polynomial kernel in the plane: the feature space has dimension 6,
    # so only 6 of the 8 vectors Phi(x_i) are independent.
    X = np.random.default_rng(3).normal(size=(8, 2))
    K = kk.gram("polynomial", X, degree=2, c=1.0)
    Q = kk.gram_schmidt(K)
    assert Q.shape == (8, 6)
    np.testing.assert_allclose(Q.T @ K @ Q, np.eye(6), atol=1e-8)


@pytest.mark.parametrize("offset", [1e6, 1e8])
def test_gaussian_gram_is_translation_invariant_far_from_the_origin(offset):
    # regression: the ||x||² − 2<x, y> + ||y||² expansion cancelled catastrophically
    # (offset 1e6: entries off by 1e-3; 1e8: not even PSD). Unit-scale data offset by
    # 1e8 are stored to ~1.5e-8 absolute, so entries must agree to 1e-6.
    rng = np.random.default_rng(5)
    X = rng.normal(size=(120, 4))
    Y = rng.normal(size=(30, 4))
    K0 = kk.gram("gaussian", X, sigma=1.0)
    K1 = kk.gram("gaussian", X + offset, sigma=1.0)
    assert np.max(np.abs(K1 - K0)) < 1e-6
    assert kk.is_psd(K1).psd
    R0 = kk.gram("gaussian", X, Y, sigma=0.5)
    R1 = kk.gram("gaussian", X + offset, Y + offset, sigma=0.5)
    assert np.max(np.abs(R1 - R0)) < 1e-6
    D0 = kk.similarity("negative_distance", X, Y)
    D1 = kk.similarity("negative_distance", X + offset, Y + offset)
    assert np.max(np.abs(D1 - D0)) < 1e-6


def test_gaussian_gram_exactly_symmetric_with_unit_diagonal():
    X = np.random.default_rng(6).normal(size=(257, 3)) * 10
    K = kk.gram("gaussian", X, sigma=2.0)
    assert np.array_equal(K, K.T)
    assert np.all(np.diag(K) == 1.0)
    from scipy.spatial.distance import cdist

    np.testing.assert_allclose(K, np.exp(-cdist(X, X, "sqeuclidean") / 4.0), atol=1e-13)


@pytest.mark.parametrize("d", [3, 40])  # d² coordinate by coordinate / through BLAS
def test_gaussian_gram_over_many_tiles_matches_the_oracle(d):
    # large enough for many tiles of rows shared by the threads, each mirrored below the
    # diagonal on its own; oracle: SciPy's squared distances and NumPy's exp
    from scipy.spatial.distance import cdist

    rng = np.random.default_rng(d)
    X = rng.normal(size=(2100, d)) * 2
    Y = rng.normal(size=(700, d)) * 2
    gamma = 0.5 / d
    K = kk.gram("gaussian", X, gamma=gamma)
    assert np.array_equal(K, K.T) and np.all(np.diag(K) == 1.0)
    np.testing.assert_allclose(K, np.exp(-gamma * cdist(X, X, "sqeuclidean")), rtol=0, atol=1e-12)
    R = kk.gram("gaussian", X, Y, gamma=gamma)
    np.testing.assert_allclose(R, np.exp(-gamma * cdist(X, Y, "sqeuclidean")), rtol=0, atol=1e-12)


def test_exp_nonpositive_within_one_ulp_of_exp():
    # the vectorisable exp of the Gaussian tiles, against libm's (math.exp), over the whole
    # range where exp(x) is a normal number, plus its exact points and its underflow
    from kmlteach._linalg import exp_nonpositive

    rng = np.random.default_rng(7)
    xs = np.concatenate([-rng.random(3000) * 708.0, -rng.random(3000), -np.logspace(-300, 2.85, 600)])
    got = np.array([exp_nonpositive(float(x)) for x in xs])
    ref = np.array([math.exp(float(x)) for x in xs])
    assert np.all(np.abs(got - ref) <= np.spacing(ref))
    assert exp_nonpositive(0.0) == 1.0 and exp_nonpositive(-0.0) == 1.0
    assert exp_nonpositive(-709.0) == 0.0 and exp_nonpositive(-1e300) == 0.0
