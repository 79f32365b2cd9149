"""Tests of kmlteach.losses: values, subgradients (finite differences away from the
kinks, the subgradient inequality at them), shapes and bad input."""

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kmlteach import losses as L

NAMES = ["zero_one", "hinge", "ramp", "logistic", "exponential"]
KINKS = {"zero_one": (0.0,), "hinge": (1.0,), "ramp": (0.0, 1.0), "logistic": (), "exponential": ()}
CONVEX = ["hinge", "logistic", "exponential"]


def test_gallery_lists_every_loss_with_its_subgradient():
    assert list(L.LOSSES) == NAMES
    for name, (fn, g) in L.LOSSES.items():
        assert fn is getattr(L, name)
        assert g is getattr(L, f"{name}_subgradient")


def test_values_at_hand_computed_margins():
    z = np.array([-2.0, -0.5, 0.0, 0.5, 1.0, 3.0])
    np.testing.assert_array_equal(L.zero_one(z), [1, 1, 1, 0, 0, 0])
    np.testing.assert_array_equal(L.hinge(z), [3, 1.5, 1, 0.5, 0, 0])
    np.testing.assert_array_equal(L.ramp(z), [1, 1, 1, 0.5, 0, 0])
    np.testing.assert_allclose(L.logistic(z), [math.log1p(math.exp(-v)) for v in z], rtol=1e-14)
    np.testing.assert_allclose(L.exponential(z), [math.exp(-v) for v in z], rtol=1e-14)
    assert L.logistic(0.0) == pytest.approx(math.log(2.0))


def test_subgradients_at_hand_computed_margins():
    z = np.array([-2.0, -0.5, 0.0, 0.5, 1.0, 3.0])
    np.testing.assert_array_equal(L.hinge_subgradient(z), [-1, -1, -1, -1, 0, 0])
    np.testing.assert_array_equal(L.ramp_subgradient(z), [0, 0, -1, -1, 0, 0])
    np.testing.assert_array_equal(L.zero_one_subgradient(z), np.zeros(6))
    np.testing.assert_allclose(L.logistic_subgradient(z), -1.0 / (1.0 + np.exp(z)), rtol=1e-13)
    np.testing.assert_allclose(L.exponential_subgradient(z), -np.exp(-z), rtol=1e-14)


def test_order_between_surrogates():
    z = np.linspace(-4, 4, 801)
    assert np.all(L.zero_one(z) <= L.ramp(z))
    assert np.all(L.ramp(z) <= L.hinge(z))
    assert np.all(L.zero_one(z) <= L.exponential(z))
    assert np.all(L.zero_one(z) <= L.logistic(z) / math.log(2.0) + 1e-15)


@settings(max_examples=60, deadline=None)
@given(z=st.floats(-6, 6, allow_nan=False), name=st.sampled_from(NAMES))
def test_subgradient_matches_finite_differences_away_from_kinks(z, name):
    if any(abs(z - k) < 1e-3 for k in KINKS[name]):
        return
    fn, g = L.LOSSES[name]
    h = 1e-6
    fd = (fn(z + h) - fn(z - h)) / (2 * h)
    assert g(z) == pytest.approx(fd, rel=1e-5, abs=1e-7)


@pytest.mark.parametrize("name", CONVEX)
def test_subgradient_inequality_everywhere_including_kinks(name):
    fn, g = L.LOSSES[name]
    zs = np.r_[np.linspace(-3, 3, 61), 1.0, 0.0]
    us = np.linspace(-5, 5, 201)
    for z in zs:
        assert np.all(fn(us) >= fn(z) + g(z) * (us - z) - 1e-12), (name, z)


def test_ramp_kink_values_lie_between_one_sided_derivatives():
    # non-convex: at each kink the returned value is one of the one-sided derivatives
    h = 1e-7
    for k in (0.0, 1.0):
        left = (L.ramp(k) - L.ramp(k - h)) / h
        right = (L.ramp(k + h) - L.ramp(k)) / h
        gk = L.ramp_subgradient(k)
        assert min(left, right) - 1e-6 <= gk <= max(left, right) + 1e-6


def test_hinge_kink_choice_is_the_one_sgd_uses():
    # UML §15.5 makes no update when y<w,x> >= 1, i.e. subgradient 0 at the kink
    assert L.hinge_subgradient(1.0) == 0.0
    assert L.hinge_subgradient(np.nextafter(1.0, 0.0)) == -1.0


def test_shapes_and_scalars():
    Z = np.arange(-3.0, 3.0).reshape(2, 3)
    for fn, g in L.LOSSES.values():
        assert fn(Z).shape == (2, 3) and g(Z).shape == (2, 3)
        assert isinstance(fn(0.5), float) and isinstance(g(0.5), float)
        assert isinstance(fn(np.float64(0.5)), float)
        np.testing.assert_array_equal(fn([0.5, -1]), fn(np.array([0.5, -1.0])))
        assert fn(np.array([1, 2])).dtype == np.float64  # integer margins accepted


def test_logistic_and_exponential_are_stable_for_large_margins():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert L.logistic(-1000.0) == pytest.approx(1000.0)
        assert L.logistic(1000.0) == 0.0
        assert L.logistic_subgradient(-1000.0) == -1.0
        assert L.logistic_subgradient(1000.0) == 0.0
        assert L.exponential(-1000.0) == np.inf


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize(
    "bad, exc",
    [
        (None, TypeError),
        ("abc", TypeError),
        (True, TypeError),
        ([np.nan, 1.0], ValueError),
        ([np.inf], ValueError),
        ([], ValueError),
        (np.array([1 + 2j]), TypeError),
        ([[1.0, 2.0], [3.0]], ValueError),
        (["a", "b"], TypeError),
    ],
)
def test_bad_margins_are_rejected_naming_the_argument(name, bad, exc):
    fn, g = L.LOSSES[name]
    for f in (fn, g):
        with pytest.raises(exc, match="margins"):
            f(bad)
