"""Platt scaling (kmlteach.theory.platt_scaling) and the reliability diagram's bins
(kmlteach.metrics.reliability_curve). Oracles: scikit-learn's sigmoid calibration and
``calibration_curve``; the optimality conditions of Platt's objective."""

import numpy as np
import pytest

from kmlteach.metrics import reliability_curve
from kmlteach.theory import PlattScaling, platt_scaling


def _samples():
    rng = np.random.default_rng(0)
    out = {}
    for n in (8, 50, 500, 3000):
        y = np.where(rng.random(n) < 0.4, 1, -1)
        out[f"overlap-{n}"] = (rng.normal(size=n) + 1.5 * y, y)
    f = np.array([-3.0, -2, -1, 1, 2, 3])
    y = np.array([-1, -1, -1, 1, 1, 1])
    out["separable"] = (f, y)
    out["separable-huge-scores"] = (1e4 * f, y)  # scikit-learn rescales scores beyond 30
    out["two-points"] = (np.array([0.0, 1.0]), np.array([-1, 1]))
    out["reversed"] = (-f, y)  # larger scores mean -1: A > 0
    y = np.where(rng.random(2000) < 0.02, 1, -1)
    out["imbalanced-2pc"] = (rng.normal(size=2000) + 2 * y, y)
    out["ties"] = (np.array([1.0, 1, 1, 2, 2, -1]), np.array([-1, 1, 1, 1, 1, -1]))
    out["one-positive"] = (np.array([0.3, -0.2, 0.9, -1.4, 0.0]), np.array([-1, -1, 1, -1, -1]))
    return out


SAMPLES = _samples()


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_equal_to_scikit_learns_sigmoid_calibration(name):
    calibration = pytest.importorskip("sklearn.calibration")
    f, y = SAMPLES[name]
    A, B = platt_scaling(f, y)
    a, b = calibration._sigmoid_calibration(f, y)
    assert abs(A - a) <= 1e-4 * max(1.0, abs(a)) and abs(B - b) <= 1e-4 * max(1.0, abs(b))
    # and the probabilities agree
    p = 1 / (1 + np.exp(a * f + b))
    np.testing.assert_allclose(platt_scaling(f, y).probability(f), p, atol=1e-5)


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_the_gradient_of_platts_objective_vanishes(name):
    """At the minimum, Σ (t_i − p_i) = 0 and Σ f_i (t_i − p_i) = 0, with Platt's targets."""
    f, y = SAMPLES[name]
    r = platt_scaling(f, y)
    n_pos, n_neg = np.sum(y == 1), np.sum(y == -1)
    t = np.where(y == 1, (n_pos + 1) / (n_pos + 2), 1 / (n_neg + 2))
    resid = t - r.probability(f)
    scale = np.max(np.abs(f))
    assert abs(resid.sum()) < 1e-9 * len(f) and abs((f / scale) @ resid) < 1e-9 * len(f)
    assert (r.A < 0) == (name != "reversed")


def test_result_is_the_pair_A_B_and_probabilities_are_the_sigmoid():
    f, y = SAMPLES["overlap-50"]
    r = platt_scaling(f, y)
    assert isinstance(r, tuple) and isinstance(r, PlattScaling) and len(r) == 2
    A, B = r
    assert (A, B) == (r.A, r.B) and isinstance(A, float) and isinstance(B, float)
    z = np.array([-800.0, -3.0, 0.0, 2.0, 800.0])  # no overflow at the extremes
    p = r.probability(z)
    np.testing.assert_allclose(p[1:4], 1 / (1 + np.exp(A * z[1:4] + B)), rtol=1e-14)
    assert p[0] == 0.0 and p[-1] == 1.0 and np.all(np.diff(p) >= 0)


def test_separable_scores_give_finite_parameters_thanks_to_the_targets():
    f, y = SAMPLES["separable"]
    A, B = platt_scaling(f, y)
    assert np.isfinite(A) and np.isfinite(B) and A < 0
    p = platt_scaling(f, y).probability(f)
    # the fitted probabilities stay between Platt's targets, never 0 or 1
    assert p.max() < 1.0 and p.min() > 0.0


def test_bad_input_is_refused_naming_the_argument():
    f, y = SAMPLES["overlap-8"]
    for args, name in [
        ((f, np.ones(8)), "y"),  # one class
        ((f, (y + 1) // 2), "y"),  # 0/1 labels
        ((f, y[:-1]), "y"),
        ((np.full(8, 0.7), y), "scores"),  # A is not determined
        ((np.r_[np.nan, f[1:]], y), "scores"),
        ((f[:, None], y), "scores"),
        ((None, y), "scores"),
        (([], []), "scores"),
    ]:
        with pytest.raises((ValueError, TypeError), match=name):
            platt_scaling(*args)
    with pytest.raises((ValueError, TypeError), match="max_iter"):
        platt_scaling(f, y, max_iter=0)


# ----------------------------------------------------------------------------- reliability curve


@pytest.mark.parametrize("n_bins", [1, 2, 5, 10, 17])
def test_reliability_curve_equals_calibration_curve(n_bins):
    calibration = pytest.importorskip("sklearn.calibration")
    rng = np.random.default_rng(n_bins)
    prob = rng.random(400) ** 2
    edges = np.linspace(0, 1, n_bins + 1).repeat(2)[:20]
    prob[: edges.size] = edges  # values on the bin edges
    y = np.where(rng.random(400) < prob, 1, -1)
    r = reliability_curve(prob, y, n_bins=n_bins)
    pt, pp = calibration.calibration_curve(y, prob, n_bins=n_bins)
    np.testing.assert_allclose(r.prob_true, pt, rtol=1e-12)
    np.testing.assert_allclose(r.prob_pred, pp, rtol=1e-12)
    assert r.counts.sum() == 400 and np.all(r.counts > 0)


def test_reliability_curve_leaves_out_empty_bins_and_checks_its_input():
    r = reliability_curve([0.05, 0.15, 0.95], [-1, 1, 1], n_bins=10)
    assert r.counts.tolist() == [1, 1, 1] and r.prob_true.tolist() == [0.0, 1.0, 1.0]
    r = reliability_curve([0.05, 0.1, 0.95], [-1, 1, 1], n_bins=10)  # 0.1 is an edge: the lower bin
    assert r.counts.tolist() == [2, 1]
    r = reliability_curve([0.05, 0.06, 0.95], [-1, 1, 1], n_bins=10)
    assert r.counts.tolist() == [2, 1] and r.prob_true.tolist() == [0.5, 1.0]
    for args, name in [
        (([0.2, 1.2], [1, -1]), "y_prob"),
        (([0.2, -0.1], [1, -1]), "y_prob"),
        (([0.2, np.nan], [1, -1]), "y_prob"),
        (([0.2, 0.3], [1, 0]), "y_true"),
        (([0.2, 0.3], [1, -1, 1]), "y_prob"),
    ]:
        with pytest.raises(ValueError, match=name):
            reliability_curve(*args)
    for bad in (0, 2.5, -1, None):
        with pytest.raises((ValueError, TypeError), match="n_bins"):
            reliability_curve([0.2, 0.3], [1, -1], n_bins=bad)


def test_platt_then_reliability_on_held_out_svm_scores():
    """The path of the chapter's lab: scores of a linear SVM on held-out data become
    probabilities whose reliability diagram hugs the diagonal."""
    from kmlteach.datasets import breast_cancer
    from kmlteach.svm import soft_svm

    d = breast_cancer()
    X = (d.X - d.X.mean(0)) / d.X.std(0)
    idx = np.random.default_rng(0).permutation(len(X))
    tr, va = idx[:300], idx[300:]
    w = soft_svm(np.c_[X[tr], np.ones(300)], d.y[tr], 0.01).w
    f = np.c_[X[va], np.ones(len(va))] @ w
    p = platt_scaling(f, d.y[va]).probability(f)
    r = reliability_curve(p, d.y[va], n_bins=5)
    assert np.average(np.abs(r.prob_true - r.prob_pred), weights=r.counts) < 0.1


def test_the_docstring_examples_are_true():
    import doctest

    from kmlteach import metrics
    from kmlteach.theory import platt

    assert doctest.testmod(platt).failed == 0
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner()
    for t in finder.find(
        metrics.reliability_curve, "reliability_curve", globs={"reliability_curve": reliability_curve}
    ):
        runner.run(t)
    assert runner.failures == 0 and runner.tries > 0
