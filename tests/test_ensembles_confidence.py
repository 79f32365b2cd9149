"""Boosting the confidence: k > (1/δ₀) ln(2/δ) and the simulated failure rate of L′."""

import numpy as np
import pytest

from kmlteach.ensembles import boost_confidence, runs_needed


def test_runs_needed_examples():
    assert runs_needed(0.1, 0.01) == 53  # 52.98 -> 53
    assert runs_needed(0.5, 0.05) == 8  # 7.38 -> 8
    for d0, d in [(0.2, 0.1), (0.05, 0.001), (1.0, 0.5)]:
        k = runs_needed(d0, d)
        assert k > np.log(2 / d) / d0 >= k - 1
        assert (1 - d0) ** k < d / 2 or d0 == 1.0


def test_simulation_meets_the_targets():
    r = boost_confidence(seed=0)
    assert 0.25 < r.delta0 < 0.45
    np.testing.assert_array_equal(r.k, [runs_needed(r.delta0, d) for d in r.deltas])
    assert np.all(r.all_fail_bound < r.deltas / 2)
    assert np.all(r.failure <= r.deltas)
    # the measured all-fail rate is a binomial estimate of (1 - δ₀)^k: 4 standard errors
    se = np.sqrt(r.all_fail_bound * (1 - r.all_fail_bound) / r.reps)
    assert np.all(np.abs(r.all_fail - r.all_fail_bound) < 4 * se + 2e-3)


def test_deterministic():
    a = boost_confidence(deltas=[0.1], reps=300, seed=3)
    b = boost_confidence(deltas=[0.1], reps=300, seed=3)
    assert a.failure[0] == b.failure[0] and a.delta0 == b.delta0


@pytest.mark.parametrize(
    "kwargs,name",
    [
        ({"deltas": [0.0]}, "deltas"),
        ({"deltas": [1.5]}, "deltas"),
        ({"deltas": [np.nan]}, "deltas"),
        ({"eps": 0.6}, "eps"),
        ({"eps": 0}, "eps"),
        ({"gamma": -1}, "gamma"),
        ({"n": 0}, "n"),
        ({"reps": 2.5}, "reps"),
        ({"reps": 10**9}, "reps"),
        ({"sample_size": 0}, "sample_size"),
        ({"seed": -1}, "seed"),
    ],
)
def test_bad_input(kwargs, name):
    with pytest.raises((ValueError, TypeError), match=name):
        boost_confidence(**kwargs)


def test_bad_runs_needed():
    with pytest.raises(ValueError, match="delta0"):
        runs_needed(0, 0.1)
    with pytest.raises(ValueError, match="delta"):
        runs_needed(0.1, 1.0)
