"""Chapter 04: multiclass reductions, linear multiclass predictors, perceptrons, Kesler. — ``kmlteach.multiclass.learners``."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from kmlteach import multiclass as M
from kmlteach.datasets import three_balls


def _separable(X, t):
    from scipy.optimize import linprog

    if len(t) == 0 or np.all(t == t[0]):
        return True
    # find (w, b): t_l (w·x_l + b) >= 1
    A = -t[:, None] * np.c_[X, np.ones(len(t))]
    r = linprog(np.zeros(3), A_ub=A, b_ub=-np.ones(len(t)), bounds=[(None, None)] * 3, method="highs")
    return r.status == 0


def _brute_force_erm(X, t):
    m = len(t)
    for n_err in range(m + 1):
        for wrong in itertools.combinations(range(m), n_err):
            keep = np.setdiff1d(np.arange(m), wrong)
            if _separable(X[keep], t[keep]):
                return n_err
    return m


def test_example_17_1_ova_with_erm_halfspaces_loses_class_2():
    X, y = three_balls(100, seed=0)
    # ERM for "class 2 vs rest" is the all-negative labelling: error = mass of class 2
    erm = M.erm_halfspace_2d(X, np.where(y == 2, 1.0, -1.0))
    assert erm.errors == 20 and np.all(erm.predict(X) == -1)
    ova = M.one_vs_all(X, y, M.erm_halfspace_2d)
    pred = ova.predict(X)
    assert not np.any(pred == 2)  # class 2 is never predicted
    assert np.mean(pred[y == 2] == 2) == 0.0
    assert np.all(pred[y != 2] == y[y != 2])  # the other classes are fine
    dec = ova.decide(X)
    assert np.array_equal(dec.ties, y == 2)  # class-2 points: all three say -1
    assert np.array_equal(ova.ties, y == 2) and "smallest" in ova.rule  # set by predict
    assert np.array_equal(ova.tie_mask(X[:3]), np.zeros(3, dtype=bool))
    assert np.array_equal(ova.tied_classes[y == 2], np.ones((20, 3), dtype=bool))
    # the multiclass linear predictor learned by SGD has zero training error
    res = M.multiclass_svm_sgd(X, y, eta=0.1, T=20_000, seed=0)
    assert np.all(res.predict(X) == y)


@pytest.mark.parametrize("seed", range(6))
def test_erm_halfspace_2d_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    if seed < 2:  # integer grid: collinear points
        X = rng.integers(0, 3, size=(8, 2)).astype(float)
        X = np.unique(X, axis=0)
    else:
        X = rng.normal(size=(8, 2))
    t = rng.choice([-1.0, 1.0], size=len(X))
    t[0], t[1] = 1.0, -1.0
    res = M.erm_halfspace_2d(X, t)
    assert res.errors == _brute_force_erm(X, t)
    assert res.errors == int(np.sum(res.predict(X) != t))  # the returned (w, b) realises it


def test_least_squares_learner_is_the_normal_equations():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    t = np.where(X[:, 0] + 0.3 * rng.normal(size=30) > 0, 1.0, -1.0)
    sc = M.least_squares_learner(X, t, lam=0.0)
    ref = np.linalg.lstsq(np.c_[X, np.ones(30)], t, rcond=None)[0]
    np.testing.assert_allclose(np.r_[sc.w, sc.b], ref, atol=1e-10)
    assert set(sc.predict(X)) <= {-1.0, 1.0}
    with pytest.raises(ValueError, match="lam"):
        M.least_squares_learner(X, t, lam=-1.0)
    with pytest.raises(ValueError, match="y"):
        M.least_squares_learner(X, np.ones(30))
    with pytest.raises(ValueError, match="X"):
        M.least_squares_learner(X[:, :0], t)


def test_stump_learner_is_an_erm_over_stumps():
    rng = np.random.default_rng(3)
    for _ in range(5):
        X = rng.integers(0, 6, size=(15, 2)).astype(float)
        t = rng.choice([-1.0, 1.0], size=15)
        t[:2] = (1.0, -1.0)
        st = M.stump_learner(X, t)
        # brute force: every feature, every threshold at a data value (or below all), both signs
        best = min(
            np.sum(s * np.where(X[:, f] > th, 1.0, -1.0) != t)
            for f in range(2)
            for th in np.r_[X[:, f].min() - 1, X[:, f]]
            for s in (1.0, -1.0)
        )
        assert st.errors == best == int(np.sum(st.predict(X) != t))
    with pytest.raises(ValueError, match="y"):
        M.stump_learner(X, np.ones(15))
    with pytest.raises(ValueError, match="X"):
        st.predict(np.ones((2, 0)))


@pytest.mark.parametrize("n", [5, 8, 9, 13, 61, 123])
def test_three_balls_erm_loses_class_2_for_any_n(n):
    X, y = three_balls(n, seed=n)
    erm = M.erm_halfspace_2d(X, np.where(y == 2, 1.0, -1.0))
    assert erm.constant and erm.errors == np.sum(y == 2)
    assert not np.any(M.one_vs_all(X, y, M.erm_halfspace_2d).predict(X) == 2)


def _erm_kernel_reference(X, t):
    """The exhaustive search of ``erm_halfspace_2d`` written plainly (one pass per pair, the
    points on the line sorted by position): the kernel's two-pass form must return the same
    (errors, i, j, orientation, mode, threshold), i.e. the same first minimiser."""
    m = len(t)
    npos = int(np.sum(t > 0))
    best = (npos, -1, -1, 1.0, 1, 0.0)
    if m - npos < best[0]:
        best = (m - npos, -1, -1, 1.0, 0, 0.0)
    for i in range(m):
        for j in range(i + 1, m):
            d = X[j] - X[i]
            if d[0] == 0.0 and d[1] == 0.0:
                continue
            u = X - X[i]
            c = d[0] * u[:, 1] - d[1] * u[:, 0]
            on = c == 0.0
            err_plus = int(np.sum((c[~on] > 0) != (t[~on] > 0)))
            n_off = int(np.sum(~on))
            off_err, sig = (err_plus, 1.0) if err_plus <= n_off - err_plus else (n_off - err_plus, -1.0)
            if off_err >= best[0]:
                continue
            pr = (d[0] * u[:, 0] + d[1] * u[:, 1])[on]
            lab = t[on][np.argsort(pr, kind="stable")]
            pr = np.sort(pr, kind="stable")
            on_pos = int(np.sum(lab > 0))
            on_best, mode, thr = len(lab) - on_pos, 0, 0.0
            if on_pos < on_best:
                on_best, mode = on_pos, 1
            for s in range(1, len(lab)):
                if pr[s] == pr[s - 1]:
                    continue
                pb = int(np.sum(lab[:s] > 0))
                e_np, e_pn = pb + (len(lab) - s - (on_pos - pb)), (s - pb) + (on_pos - pb)
                if e_np < on_best:
                    on_best, mode, thr = e_np, 2, 0.5 * (pr[s - 1] + pr[s])
                if e_pn < on_best:
                    on_best, mode, thr = e_pn, 3, 0.5 * (pr[s - 1] + pr[s])
            if off_err + on_best < best[0]:
                best = (off_err + on_best, i, j, sig, mode, thr)
    return best


def _erm_cases():
    rng = np.random.default_rng(7)
    for _ in range(12):  # collinear points and duplicates
        m = int(rng.integers(3, 25))
        X = rng.integers(-3, 4, size=(m, 2)).astype(float)
        yield X, np.where(rng.random(m) < 0.5, 1.0, -1.0)
        yield rng.normal(size=(m, 2)), np.where(rng.random(m) < 0.5, 1.0, -1.0)
    for shift, r, mass in (((0.0, 0.0), 1.0, 0.2), ((1.5, -1.0), 0.6, 0.4), ((-2.5, 2.0), 1.4, 0.05)):
        X, y = three_balls(60, seed=1, shift=shift, radius2=r, mass2=mass)  # the widget's data
        for c in (1, 2, 3):
            yield X, np.where(y == c, 1.0, -1.0)


def test_erm_halfspace_2d_kernel_finds_the_same_first_minimiser_as_the_plain_search():
    from kmlteach.multiclass.learners import _erm_halfspace_2d_kernel

    n = 0
    for X, t in _erm_cases():
        got = _erm_halfspace_2d_kernel(np.ascontiguousarray(X), t)
        ref = _erm_kernel_reference(X, t)
        assert (int(got[0]), int(got[1]), int(got[2]), float(got[3]), int(got[4])) == ref[:5]
        assert float(got[5]) == ref[5]
        n += ref[1] >= 0
    assert n >= 10  # most cases end on a line, not a constant
