"""Rademacher averages (2.26) and the margin bound (2.28) of HSS2 §2.5."""

import itertools

import numpy as np
import pytest

from kmlteach import theory as T
from kmlteach.kernels import gram


def test_orthonormal_data_give_sqrt_n_over_n():
    for n, d in ((4, 4), (16, 30)):
        Q, _ = np.linalg.qr(np.random.default_rng(n).normal(size=(d, n)))
        r = T.rademacher_linear(Q.T, n_draws=200, seed=1)
        assert r.estimate == pytest.approx(np.sqrt(n) / n, rel=1e-12)
        assert r.bound == pytest.approx(np.sqrt(n) / n, rel=1e-12) and r.stderr < 1e-12


def test_exact_expectation_by_enumeration():
    X = np.random.default_rng(2).normal(size=(10, 3))
    exact = np.mean([np.linalg.norm(np.array(s) @ X) / 10 for s in itertools.product((-1.0, 1.0), repeat=10)])
    r = T.rademacher_linear(X, n_draws=20000, seed=3)
    assert abs(r.estimate - exact) < 4 * r.stderr
    assert exact <= r.bound
    assert exact >= r.bound / np.sqrt(2)  # Khintchine–Kahane (Szarek's constant)


@pytest.mark.parametrize("seed", range(5))
def test_estimate_below_bound(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(int(rng.integers(5, 200)), int(rng.integers(1, 20)))) * rng.uniform(0.1, 10)
    r = T.rademacher_linear(X, n_draws=2000, seed=seed)
    assert r.estimate <= r.bound
    assert r.estimate >= r.bound / np.sqrt(2) - 4 * r.stderr
    assert r.samples.shape == (2000,)
    assert r.stderr == pytest.approx(np.std(r.samples, ddof=1) / np.sqrt(2000))


def test_kernel_version_matches_linear_and_trace_bound():
    X = np.random.default_rng(5).normal(size=(60, 4))
    a = T.rademacher_linear(X, n_draws=500, seed=7)
    b = T.rademacher_kernel(gram("linear", X), n_draws=500, seed=7)
    np.testing.assert_allclose(b.samples, a.samples, rtol=1e-10)
    assert b.bound == pytest.approx(a.bound, rel=1e-12)
    g = T.rademacher_kernel(gram("gaussian", X, sigma=0.5), n_draws=500, seed=7)
    assert g.bound == pytest.approx(np.sqrt(60) / 60) and g.estimate <= g.bound


def test_seeds():
    X = np.random.default_rng(6).normal(size=(30, 2))
    np.testing.assert_array_equal(
        T.rademacher_linear(X, 100, 4).samples, T.rademacher_linear(X, 100, 4).samples
    )
    assert not np.array_equal(T.rademacher_linear(X, 100, 4).samples, T.rademacher_linear(X, 100, 5).samples)


def test_margin_bound_terms():
    b = T.margin_bound(400, W=2.0, R=3.0, gamma=0.5, delta=0.1, r=1.5, approximation=0.02, bayes_risk=0.05)
    scale = 4 * 3.0 * 2.0 * 0.5 / 20
    assert b.scale == pytest.approx(scale)
    assert b.confidence == pytest.approx(scale * np.sqrt(-2 * np.log(0.1)))
    assert b.complexity == pytest.approx(scale * 0.5)
    assert b.offset == pytest.approx(scale * np.sqrt(8 * np.log(2)))
    assert b.bound == pytest.approx(0.07 + b.confidence + b.complexity + b.offset)
    # O(1/√n): four times the data halves the estimation term
    b4 = T.margin_bound(1600, W=2.0, R=3.0, gamma=0.5, delta=0.1, r=1.5)
    assert b4.estimation == pytest.approx(b.estimation / 2)
    assert T.margin_bound(100, 1.0, 1.0, 1.0).complexity == pytest.approx(0.4)  # r defaults to R


def test_bad_input():
    X = np.ones((4, 2))
    with pytest.raises(ValueError, match="n_draws"):
        T.rademacher_linear(X, n_draws=0)
    with pytest.raises(TypeError, match="n_draws"):
        T.rademacher_linear(X, n_draws=2.5)
    with pytest.raises(ValueError, match="seed"):
        T.rademacher_linear(X, seed=-1)
    with pytest.raises(ValueError, match="X"):
        T.rademacher_linear(np.array([[np.nan, 1.0]]))
    with pytest.raises(ValueError, match="K"):
        T.rademacher_kernel(np.ones((3, 2)))
    with pytest.raises(ValueError, match="K"):
        T.rademacher_kernel(-np.eye(3))
    with pytest.raises(ValueError, match="r"):
        T.margin_bound(10, 1.0, 1.0, 1.0, r=2.0)
    with pytest.raises(ValueError, match="delta"):
        T.margin_bound(10, 1.0, 1.0, 1.0, delta=1.0)
    for kw in ({"n": 0}, {"W": -1.0}, {"R": 0.0}, {"gamma": np.nan}):
        args = {"n": 10, "W": 1.0, "R": 1.0, "gamma": 1.0} | kw
        with pytest.raises(ValueError, match=next(iter(kw))):
            T.margin_bound(**args)
