"""decision_stump: exact weighted ERM against a brute force over every stump (SL; UML §10.1.1)."""

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kmlteach.ensembles import Stump, decision_stump, presort


def brute_force(X, y, D):
    """Smallest Σ D_i 1[h(x_i) != y_i] over every feature, threshold (below the minimum and
    between consecutive distinct values) and sign, by evaluating each stump in full."""
    best = np.inf
    for j in range(X.shape[1]):
        v = np.unique(X[:, j])
        for theta in np.r_[v[0] - 1.0, (v[:-1] + v[1:]) / 2]:
            for s in (1.0, -1.0):
                pred = np.where(X[:, j] <= theta, s, -s)
                best = min(best, D[pred != y].sum())
    return best


def _data(seed, m=15, d=3, levels=None):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d)) if levels is None else rng.integers(0, levels, size=(m, d)).astype(float)
    y = np.where(rng.random(m) < 0.5, 1.0, -1.0)
    y[:2] = [1.0, -1.0]
    D = rng.random(m)
    return X, y, D / D.sum()


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("levels", [None, 3])
def test_matches_brute_force(seed, levels):
    X, y, D = _data(seed, levels=levels)  # levels=3: many ties in every feature
    h = decision_stump(X, y, D)
    assert h.error == pytest.approx(brute_force(X, y, D), abs=1e-12)
    assert h.error == pytest.approx(D[h.predict(X) != y].sum(), abs=1e-15)


@settings(max_examples=60)
@given(st.integers(2, 12), st.integers(1, 3), st.integers(0, 2**32 - 1))
def test_property_brute_force_on_small_integer_data(m, d, seed):
    rng = np.random.default_rng(seed)
    X = rng.integers(-2, 3, size=(m, d)).astype(float)
    y = np.where(rng.random(m) < 0.5, 1.0, -1.0)
    y[0], y[-1] = 1.0, -1.0
    D = rng.random(m) + 1e-3
    h = decision_stump(X, y, D)
    assert h.error == pytest.approx(brute_force(X, y, D), abs=1e-12)
    assert h.sign in (1.0, -1.0) and 0 <= h.feature < d


def test_threshold_is_a_midpoint_and_ties_stay_together():
    X = np.array([[0.0], [1.0], [1.0], [3.0]])
    y = np.array([1.0, 1.0, -1.0, -1.0])
    h = decision_stump(X, y, np.array([0.1, 0.4, 0.1, 0.4]))
    # equal values must land on one side: the best stump puts both 1.0s left (+1)
    assert (h.feature, h.threshold, h.sign) == (0, 2.0, 1.0)
    assert h.error == pytest.approx(0.1)


def test_constant_stump_when_nothing_better():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([1.0, -1.0, 1.0, 1.0])
    D = np.array([0.1, 0.1, 0.1, 0.7])  # the lone -1 is cheapest to give up
    h = decision_stump(X, y, D)
    assert h.error == pytest.approx(0.1)
    Xc = np.array([[5.0], [5.0], [5.0]])  # one value only: only the constants exist
    hc = decision_stump(Xc, np.array([1.0, -1.0, -1.0]))
    assert hc.threshold == np.inf and hc.sign == -1.0 and hc.error == pytest.approx(1 / 3)
    np.testing.assert_array_equal(hc.predict(np.array([[-1e300], [7.0]])), [-1.0, -1.0])


def test_uniform_default_and_unnormalised_weights():
    X, y, D = _data(3)
    assert decision_stump(X, y).error == pytest.approx(brute_force(X, y, np.full(len(y), 1 / len(y))))
    assert decision_stump(X, y, 5 * D).error == pytest.approx(5 * decision_stump(X, y, D).error)


def test_huge_values_do_not_overflow_the_midpoint():
    X = np.array([[-1e308], [1e308]])
    h = decision_stump(X, np.array([1.0, -1.0]))
    assert np.isfinite(h.threshold) and h.error == 0.0


def test_presort_and_result_type():
    X, y, _ = _data(1)
    order = presort(X)
    assert order.shape == (3, 15) and order.dtype == np.int64
    assert np.all(np.diff(X[order[0], 0]) >= 0)
    h = decision_stump(X, y)
    assert isinstance(h, Stump)
    with pytest.raises(dataclasses.FrozenInstanceError):
        h.error = 0.0  # frozen


@pytest.mark.parametrize(
    "bad_y",
    [
        np.array([0.0, 1, 0, 1]),
        np.ones(4),
        np.array([1.0, -1, 2, 1]),
        np.array([1.0, -1, np.nan, 1]),
        np.array([1.0, -1]),
    ],
)
def test_bad_labels(bad_y):
    with pytest.raises(ValueError, match="y"):
        decision_stump(np.eye(4), bad_y)


@pytest.mark.parametrize(
    "bad_D", [np.array([0.5, 0.5, -0.1, 0.1]), np.zeros(4), np.ones(3), np.array([0.5, np.nan, 0.2, 0.3])]
)
def test_bad_weights(bad_D):
    with pytest.raises(ValueError, match="D"):
        decision_stump(np.eye(4), np.array([1.0, -1, 1, -1]), bad_D)


def test_bad_X():
    with pytest.raises(ValueError, match="X"):
        decision_stump(np.array([[np.nan, 1.0], [0.0, 1.0]]), np.array([1.0, -1.0]))
    with pytest.raises(ValueError, match="X"):
        decision_stump(np.ones(4), np.array([1.0, -1, 1, -1]))
    h = decision_stump(np.eye(3), np.array([1.0, -1, 1]))
    with pytest.raises(ValueError, match="X"):
        h.predict(np.ones((2, 0)))
