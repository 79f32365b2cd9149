"""Tests of kmlteach.svm against oracles. — ``kmlteach.svm.hard``."""

import numpy as np
import pytest
from helpers import homogeneous_separable
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog, minimize

from kmlteach import svm
from kmlteach.datasets import separable


def lp_separable(X, y, homogeneous=False):
    """Exact oracle: is there (w, b) with y_i(<w, x_i> + b) >= 1 for all i?"""
    m, d = X.shape
    A = -(y[:, None] * X) if homogeneous else -np.c_[y[:, None] * X, y]
    res = linprog(
        np.zeros(A.shape[1]), A_ub=A, b_ub=-np.ones(m), bounds=[(None, None)] * A.shape[1], method="highs"
    )
    assert res.status in (0, 2)
    return res.status == 0


def oracle_samples():
    """20 separable samples (X, y, generic), including degenerate ones."""
    out = []
    for seed in range(10):
        X, y = separable(40 + 3 * seed, 2 + seed % 4, 0.2, seed=seed)
        out.append((X, y, True))
    rng = np.random.default_rng(123)
    for seed in range(3):  # duplicated points
        X, y = separable(30, 3, 0.3, seed=100 + seed)
        k = rng.integers(0, 30, size=10)
        out.append((np.r_[X, X[k]], np.r_[y, y[k]], False))
    for _ in range(3):  # all points on one line
        t = np.sort(rng.uniform(-2, 2, size=15))
        u, c = rng.normal(size=2), rng.normal(size=2)
        X = c + t[:, None] * u
        y = np.where(t > t[6] + 1e-9, 1.0, -1.0)
        out.append((X, y, False))
    for _ in range(3):  # more features than points
        X = rng.normal(size=(6, 10))
        y = np.array([1.0, -1.0, 1.0, 1.0, -1.0, -1.0])
        out.append((X, y, True))
    out.append((np.array([[0.0, 0.0], [2.0, 0.0]]), np.array([-1.0, 1.0]), False))
    return out


def _check_kkt(X, y, r, homogeneous):
    fm = y * (X @ r.w + r.b)
    assert np.all(fm >= 1 - 1e-7)
    assert np.all(r.alpha >= 0)
    np.testing.assert_allclose((r.alpha * y) @ X, r.w, atol=1e-9 * max(1, np.abs(r.w).max()))
    if not homogeneous:
        assert abs(np.sum(r.alpha * y)) <= 1e-9 * max(1.0, r.alpha.sum())
    # complementary slackness: alpha_i > 0 only on the margin
    assert np.all(np.abs(fm[r.support] - 1) <= 1e-6)
    assert r.margin == pytest.approx(1 / np.linalg.norm(r.w), rel=1e-6)
    assert r.support.dtype == np.int64


@pytest.mark.parametrize("force_nearest", [False, True])
def test_hard_svm_matches_libsvm_on_20_samples(monkeypatch, force_nearest):
    """Support sets: alpha_i > 1e-8 max(alpha) for us, SVC's support_ (alpha_i > 0) for
    libsvm. When several dual solutions exist (duplicated or collinear points, more
    margin points than needed) the two sets may differ, but both must lie inside the set
    of margin points {i : y_i(<w,x_i> + b) = 1}; for generic samples they are equal."""
    from sklearn.svm import SVC

    import kmlteach.svm.hard as svm_hard

    monkeypatch.setattr(svm_hard, "_FORCE_NEAREST_POINTS", force_nearest)
    samples = oracle_samples()
    assert len(samples) == 20
    for X, y, generic in samples:
        r = svm.hard_svm(X, y)
        sk = SVC(kernel="linear", C=1e10, tol=1e-8).fit(X, y)
        w_sk, b_sk = sk.coef_[0], sk.intercept_[0]
        assert np.linalg.norm(r.w - w_sk) <= 1e-4 * np.linalg.norm(w_sk)
        assert abs(r.b - b_sk) <= 1e-4 * max(1.0, abs(b_sk))
        _check_kkt(X, y, r, False)
        on_margin = set(np.flatnonzero(np.abs(y * (X @ r.w + r.b) - 1) <= 1e-5))
        assert set(r.support) <= on_margin
        assert set(sk.support_) <= on_margin
        if generic:
            assert set(r.support) == set(sk.support_)
        w_unit = r.w / np.linalg.norm(r.w)
        np.testing.assert_allclose(r.w_unit, w_unit, rtol=1e-12)
        assert svm.geometric_margin(X, y, r.w_unit, r.b_unit) == pytest.approx(r.margin, rel=1e-9)


def test_hard_svm_homogeneous_matches_slsqp_and_kkt():
    for seed in range(8):
        X, y = homogeneous_separable(20, 2 + seed % 3, 0.2, 300 + seed)
        r = svm.hard_svm(X, y, homogeneous=True)
        assert r.b == 0.0
        _check_kkt(X, y, r, True)
        cons = {
            "type": "ineq",
            "fun": lambda w, X=X, y=y: y * (X @ w) - 1,
            "jac": lambda w, X=X, y=y: y[:, None] * X,
        }
        ref = minimize(
            lambda w: 0.5 * w @ w,
            np.zeros(X.shape[1]),
            jac=lambda w: w,
            constraints=[cons],
            method="SLSQP",
            options={"ftol": 1e-14, "maxiter": 500},
        )
        assert ref.success
        np.testing.assert_allclose(r.w, ref.x, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize(
    "X, y",
    [
        (np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]]), np.array([1.0, 1.0, -1.0, -1.0])),
        (np.array([[1.0, 2.0], [1.0, 2.0], [0.0, 0.0]]), np.array([1.0, -1.0, 1.0])),
        (np.array([[0.3, -0.2], [0.3, -0.2]]), np.array([1.0, -1.0])),
    ],
)
@pytest.mark.parametrize("homogeneous", [False, True])
def test_hard_svm_rejects_xor_and_a_point_with_both_labels(X, y, homogeneous):
    with pytest.raises(ValueError, match="not linearly separable"):
        svm.hard_svm(X, y, homogeneous=homogeneous)


def test_hard_svm_homogeneous_needs_the_origin_outside_the_hull():
    # separable with a bias, but not through the origin
    X = np.array([[1.0, 0.0], [2.0, 0.0], [3.0, 0.0], [4.0, 0.0]])
    y = np.array([-1.0, -1.0, 1.0, 1.0])
    assert svm.hard_svm(X, y).w[0] == pytest.approx(2.0)
    with pytest.raises(ValueError, match="not linearly separable"):
        svm.hard_svm(X, y, homogeneous=True)
    with pytest.raises(ValueError, match="not linearly separable"):  # a point at the origin
        svm.hard_svm(np.array([[0.0, 0.0], [1.0, 1.0]]), np.array([1.0, -1.0]), homogeneous=True)


def test_hard_svm_decides_separability_like_linear_programming():
    rng = np.random.default_rng(7)
    seen = {True: 0, False: 0}
    for trial in range(40):
        m = int(rng.integers(4, 12))
        X = rng.normal(size=(m, 2)) + (trial % 2) * np.array([3.0, 0.0])
        y = np.where(rng.random(m) < 0.5, 1.0, -1.0)
        y[:2] = (1.0, -1.0)
        for homogeneous in (False, True):
            sep = lp_separable(X, y, homogeneous)
            seen[sep] += 1
            if sep:
                r = svm.hard_svm(X, y, homogeneous=homogeneous)
                assert np.all(y * (X @ r.w + r.b) >= 1 - 1e-7)
            else:
                with pytest.raises(ValueError, match="not linearly separable"):
                    svm.hard_svm(X, y, homogeneous=homogeneous)
    assert seen[True] > 5 and seen[False] > 5


def test_hard_svm_overlapping_clouds_is_rejected_quickly():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(400, 5))
    y = np.where(rng.random(400) < 0.5, 1.0, -1.0)
    with pytest.raises(ValueError, match="not linearly separable"):
        svm.hard_svm(X, y)


def test_soft_svm_with_tiny_lambda_approaches_hard_svm():
    X, y = separable(40, 2, 0.5, seed=3)
    hard = svm.hard_svm(X, y)
    soft = svm.soft_svm(X, y, 1e-7, homogeneous=False)
    np.testing.assert_allclose(soft.w, hard.w, rtol=1e-6)
    assert soft.b == pytest.approx(hard.b, rel=1e-6, abs=1e-6)


def test_integer_and_float32_input_is_converted():
    Xi = np.array([[1, 2], [2, 1], [-1, -1], [-2, 0]], dtype=np.int32)
    yi = np.array([1, 1, -1, -1], dtype=np.int64)
    r1 = svm.hard_svm(Xi, yi)
    r2 = svm.hard_svm(Xi.astype(np.float32), yi.astype(np.float32))
    np.testing.assert_allclose(r1.w, r2.w)
    assert svm.perceptron(Xi.tolist(), yi.tolist()).converged
    assert svm.hard_svm(Xi.tolist(), yi.tolist(), homogeneous=True).margin > 0


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    scale=st.floats(0.1, 10.0),
    shift=st.lists(st.floats(-5, 5), min_size=3, max_size=3),
)
def test_hard_svm_equivariance(seed, scale, shift):
    """Translating the sample shifts b only; scaling it by c divides w by c and multiplies
    the margin by c; swapping the labels negates (w, b)."""
    X, y = separable(25, 3, 0.3, seed=seed)
    r = svm.hard_svm(X, y)
    t = svm.hard_svm(X + np.array(shift), y)
    np.testing.assert_allclose(t.w, r.w, rtol=1e-5, atol=1e-7 * np.abs(r.w).max())
    assert t.b == pytest.approx(r.b - r.w @ np.array(shift), rel=1e-5, abs=1e-6 * (1 + abs(r.b)))
    s = svm.hard_svm(scale * X, y)
    np.testing.assert_allclose(s.w, r.w / scale, rtol=1e-5, atol=1e-7 * np.abs(r.w).max() / scale)
    assert s.margin == pytest.approx(scale * r.margin, rel=1e-6)
    f = svm.hard_svm(X, -y)
    np.testing.assert_allclose(f.w, -r.w, rtol=1e-6, atol=1e-8 * np.abs(r.w).max())
    assert f.b == pytest.approx(-r.b, rel=1e-6, abs=1e-8)
