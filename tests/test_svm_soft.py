"""Tests of kmlteach.svm against oracles. — ``kmlteach.svm.soft``."""

import numpy as np
import pytest
from helpers import soft_data
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from kmlteach import svm


def _certified_gap(X, y, lam, r, homogeneous):
    """(primal - dual)/primal computed here from r.w, r.b and r.alpha (weak duality)."""
    m = len(y)
    C = 1 / (lam * m)
    assert np.all(r.alpha >= -1e-15) and np.all(r.alpha <= C * (1 + 1e-12))
    if not homogeneous:
        assert abs(np.sum(r.alpha * y)) <= 1e-10 * max(1.0, r.alpha.sum())
    w_a = (r.alpha * y) @ X
    dual = lam * (r.alpha.sum() - 0.5 * w_a @ w_a)
    primal = svm.soft_svm_objective(r.w, X, y, lam, r.b)
    return (primal - dual) / primal


@pytest.mark.parametrize("seed, lam", [(0, 0.1), (1, 0.01), (2, 1e-3), (3, 1.0)])
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_soft_svm_homogeneous_matches_liblinear_objective(seed, lam):
    from sklearn.svm import LinearSVC

    X, y = soft_data(seed)
    r = svm.soft_svm(X, y, lam)
    # liblinear draws its coordinate order from random_state; with random_state=None it
    # took the global NumPy state and, for about 6 % of states on the (1, 0.01) instance,
    # stalled at max_iter 0.2 % above the optimum. Pin it (at tol=1e-12 liblinear may still
    # use all its iterations, as for λ = 1e-3, but with random_state=0 it ends within 1e-8
    # of the optimum on all four instances).
    sk = LinearSVC(loss="hinge", fit_intercept=False, C=1 / (lam * len(y)), tol=1e-12,
                   max_iter=1_000_000, dual=True, random_state=0).fit(X, y)
    f_sk = svm.soft_svm_objective(sk.coef_[0], X, y, lam)
    assert r.objective == pytest.approx(f_sk, rel=1e-6)
    assert r.objective <= f_sk * (1 + 1e-8)
    assert r.b == 0.0
    assert _certified_gap(X, y, lam, r, True) <= 1e-8
    assert r.relative_gap <= 1e-8
    np.testing.assert_allclose((r.alpha * y) @ X, r.w, atol=1e-12)



@pytest.mark.parametrize("seed, lam", [(4, 0.1), (5, 0.01), (6, 1e-3)])
def test_soft_svm_with_bias_matches_libsvm_objective(seed, lam):
    from sklearn.svm import SVC

    X, y = soft_data(seed)
    r = svm.soft_svm(X, y, lam, homogeneous=False)
    sk = SVC(kernel="linear", C=1 / (lam * len(y)), tol=1e-10).fit(X, y)
    f_sk = svm.soft_svm_objective(sk.coef_[0], X, y, lam, sk.intercept_[0])
    assert r.objective == pytest.approx(f_sk, rel=1e-6)
    assert r.objective <= f_sk * (1 + 1e-8)
    assert _certified_gap(X, y, lam, r, False) <= 1e-8



def test_soft_svm_optimum_does_not_depend_on_the_coordinate_order():
    X, y = soft_data(9)
    a = svm.soft_svm(X, y, 0.05, seed=0)
    b = svm.soft_svm(X, y, 0.05, seed=1)
    np.testing.assert_allclose(a.w, b.w, rtol=1e-4, atol=1e-6)
    assert a.objective == pytest.approx(b.objective, rel=1e-8)



def test_sgd_optimisation_gap_bound():
    """UML Theorem 14.11 (used in §15.5): SGD on a λ-strongly convex F with step 1/(λt)
    and E||v_t||² <= ρ² gives E[F(w̄)] - F(w*) <= ρ²/(2λT) (1 + ln T). Here the step
    direction is v_t = λ w(t) + (hinge subgradient), and ||λ w(t)|| <= R(t-1)/t because
    θ(t) is a sum of at most t - 1 vectors y_i x_i, so ||v_t|| <= 2R with
    R = max_i ||x_i||: ρ² = 4R² and the bound is c (1 + ln T)/(λT) with c = 2R².
    We check the mean gap over 3 seeds (the theorem bounds the expectation)."""
    X, y = soft_data(13, m=100, d=3)
    lam = 0.1
    exact = svm.soft_svm(X, y, lam)
    R = np.max(np.linalg.norm(X, axis=1))
    c = 2 * R ** 2
    for T in (10_000, 100_000, 1_000_000):
        gaps = [svm.sgd_soft_svm(X, y, lam, T, s).objective - exact.objective for s in range(3)]
        assert min(gaps) >= -1e-9 * exact.objective      # nothing beats the exact minimum
        assert np.mean(gaps) <= c * (1 + np.log(T)) / (lam * T)



@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), lam=st.floats(1e-3, 1.0))
def test_soft_svm_beats_every_perturbation(seed, lam):
    X, y = soft_data(seed, m=40, d=3)
    r = svm.soft_svm(X, y, lam)
    rng = np.random.default_rng(seed)
    for _ in range(20):
        w = r.w + rng.normal(size=3) * 10 ** rng.uniform(-4, 0)
        assert svm.soft_svm_objective(w, X, y, lam) >= r.objective * (1 - 1e-8)
    # the exact minimiser is at least as good as SGD's averaged output
    assert svm.sgd_soft_svm(X, y, lam, 2000, seed).objective >= r.objective * (1 - 1e-8)



def test_soft_svm_matches_svc_at_lam_to_C():
    from sklearn.svm import SVC

    from kmlteach.svm import lam_to_C

    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 2))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=60) > 0, 1.0, -1.0)
    lam = 0.05
    ours = svm.soft_svm(X, y, lam, homogeneous=False)
    ref = SVC(kernel="linear", C=lam_to_C(lam, 60), tol=1e-10).fit(X, y)
    np.testing.assert_allclose(ours.w, ref.coef_.ravel(), atol=1e-5)
