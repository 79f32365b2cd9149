"""Tests of Wolfe's minimum-norm-point engine behind ``hard_svm`` — ``kmlteach.svm.min_norm``.

Oracles: SMO (the previous solver, kept as the fallback, forced with ``_USE_WOLFE``),
SLSQP on the primal (15.2), a least-squares solve for the affine minimum-norm point,
and linear programming for separability.
"""

import numpy as np
import pytest
from helpers import homogeneous_separable
from scipy.optimize import minimize

import kmlteach.svm.hard as svm_hard
from kmlteach import svm
from kmlteach.datasets import separable
from kmlteach.svm.min_norm import _affine_min_norm, _min_norm_alpha, _wolfe_kernel


def _small(X, homogeneous):
    Xc = X if homogeneous else X - X.mean(axis=0)
    return (1e-9 * np.max(np.linalg.norm(Xc, axis=1))) ** 2


def _smo(monkeypatch, X, y, homogeneous=False):
    with monkeypatch.context() as mp:
        mp.setattr(svm_hard, "_USE_WOLFE", False)
        return svm.hard_svm(X, y, homogeneous=homogeneous)


def test_affine_min_norm_matches_least_squares():
    rng = np.random.default_rng(0)
    for k, d in [(1, 3), (2, 3), (3, 3), (4, 3), (5, 8)]:
        V = rng.normal(size=(k, d)) + 2.0
        G = V @ V.T
        L, mu = np.zeros((k, k)), np.zeros(k)
        assert _affine_min_norm(G, k, float(G.diagonal().max()), L, mu)
        # oracle: min ||V^T mu|| s.t. sum mu = 1, by eliminating mu_k = 1 - sum(others)
        if k > 1:
            A = (V[:-1] - V[-1]).T
            c, *_ = np.linalg.lstsq(A, -V[-1], rcond=None)
            ref = np.r_[c, 1 - c.sum()]
        else:
            ref = np.ones(1)
        np.testing.assert_allclose(mu, ref, atol=1e-10)
        assert mu.sum() == pytest.approx(1.0)
    # affinely dependent vertices (the third is the mean of the first two) are refused
    V = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])
    G = V @ V.T
    assert not _affine_min_norm(G, 3, 1.0, np.zeros((3, 3)), np.zeros(3))


@pytest.mark.parametrize("seed", range(4))
def test_wolfe_matches_smo_on_2000_points(monkeypatch, seed):
    """The benchmark's problem: the same hyperplane as SMO, the same support vectors,
    and the duality-gap certificate to 1e-12 (SMO stops at a gradient tolerance)."""
    X, y = separable(2000, 20, 0.1, seed=seed)
    r = svm.hard_svm(X, y)
    s = _smo(monkeypatch, X, y)
    np.testing.assert_allclose(r.w, s.w, rtol=0, atol=1e-6 * np.abs(s.w).max())
    assert r.b == pytest.approx(s.b, rel=1e-6, abs=1e-8)
    assert set(r.support) == set(s.support)
    fm = y * (X @ r.w + r.b)
    assert fm.min() >= 1 - 1e-9 and np.all(np.abs(fm[r.support] - 1) <= 1e-9)
    assert r.n_iter < 1000 < s.n_iter  # minor steps vs SMO's two-variable steps
    beta, u, n_iter, status = _wolfe_kernel(X - X.mean(axis=0), y, False, 1e-12, 0.0, 10_000)
    assert status == 0 and n_iter == r.n_iter
    assert beta.min() >= 0 and beta[y > 0].sum() == pytest.approx(1.0)
    assert beta[y < 0].sum() == pytest.approx(1.0)


@pytest.mark.parametrize("homogeneous", [False, True])
def test_wolfe_matches_slsqp_on_the_primal(homogeneous):
    for seed in range(4):
        if homogeneous:
            X, y = homogeneous_separable(60, 4, 0.2, 40 + seed)
        else:
            X, y = separable(60, 4, 0.2, seed=40 + seed)
        r = svm.hard_svm(X, y, homogeneous=homogeneous)
        d = X.shape[1]
        k = d if homogeneous else d + 1
        A = y[:, None] * (X if homogeneous else np.c_[X, np.ones(len(y))])
        ref = minimize(
            lambda v, d=d: 0.5 * v[:d] @ v[:d],
            np.zeros(k),
            jac=lambda v, d=d, k=k: np.r_[v[:d], np.zeros(k - d)],
            constraints=[{"type": "ineq", "fun": lambda v, A=A: A @ v - 1, "jac": lambda v, A=A: A}],
            method="SLSQP",
            options={"ftol": 1e-14, "maxiter": 500},
        )
        assert ref.success
        np.testing.assert_allclose(r.w, ref.x[:d], rtol=1e-5, atol=1e-7)
        if not homogeneous:
            assert r.b == pytest.approx(ref.x[d], rel=1e-5, abs=1e-7)


def test_wolfe_and_nearest_point_smo_agree_without_bias(monkeypatch):
    for seed in range(6):
        X, y = homogeneous_separable(300, 3 + seed, 0.1, seed)
        r = svm.hard_svm(X, y, homogeneous=True)
        s = _smo(monkeypatch, X, y, homogeneous=True)
        np.testing.assert_allclose(r.w, s.w, rtol=1e-6, atol=1e-8 * np.abs(s.w).max())
        assert r.b == 0.0 and r.homogeneous


def test_far_from_the_origin_is_certified_on_the_centred_sample():
    """A tiny cloud far away: scores <w, x> cancel to ~1e-7 there, so the certificate
    is computed on the centred sample; the hyperplane is the translated one."""
    X, y = separable(200, 6, 0.1, seed=5)
    shift = np.linspace(300.0, 900.0, 6)
    r = svm.hard_svm(X, y)
    t = svm.hard_svm(1e-5 * X + shift, y)
    # the shifted coordinates keep only ~8 of X's digits (900 / 1e-5 = 1e8)
    np.testing.assert_allclose(t.w, r.w / 1e-5, rtol=0, atol=1e-6 * np.abs(t.w).max())
    assert t.margin == pytest.approx(1e-5 * r.margin, rel=1e-6)
    fm = y * ((1e-5 * X) @ t.w + (t.b + shift @ t.w))
    assert np.all(fm >= 1 - 1e-6)
    assert t.n_iter < 1000  # Wolfe, not the SMO fallback


def test_not_separable_is_decided_in_a_few_steps():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(400, 5))
    y = np.where(rng.random(400) < 0.5, 1.0, -1.0)
    alpha, n_iter, status = _min_norm_alpha(X - X.mean(axis=0), y, False, _small(X, False))
    assert alpha is None and status == 2 and n_iter < 100
    with pytest.raises(ValueError, match="not linearly separable"):
        svm.hard_svm(X, y)
    # a point carrying both labels: the difference vertex is 0 at once
    X2 = np.array([[1.0, 2.0], [1.0, 2.0], [3.0, 0.0]])
    y2 = np.array([1.0, -1.0, 1.0])
    assert _min_norm_alpha(X2 - X2.mean(axis=0), y2, False, _small(X2, False))[2] == 2


def test_a_stalled_wolfe_run_falls_back_to_smo(monkeypatch):
    """If Wolfe stops early (here: an iteration limit of 3), its hyperplane fails the
    certificate and SMO solves the problem; the answer is the same."""
    X, y = separable(300, 8, 0.1, seed=2)
    full = svm.hard_svm(X, y)

    def stalled(Xc, y_, homogeneous, small, eps=1e-12):
        beta, u, n_iter, status = _wolfe_kernel(Xc, y_, bool(homogeneous), eps, small, 3)
        assert status == 1
        return 2.0 * beta / float(u @ u), int(n_iter), int(status)

    monkeypatch.setattr(svm_hard, "_min_norm_alpha", stalled)
    r = svm.hard_svm(X, y)
    assert r.n_iter > 3
    np.testing.assert_allclose(r.w, full.w, rtol=1e-6, atol=1e-8 * np.abs(full.w).max())


def test_the_corral_drops_vertices():
    """A minor step that drops a vertex happens (more minor than major steps), and the
    result still has every point on the right side with margin >= 1 - 1e-12."""
    X, y = separable(500, 10, 0.05, seed=11)
    Xc = X - X.mean(axis=0)
    beta, u, n_iter, status = _wolfe_kernel(Xc, y, False, 1e-12, 0.0, 10_000)
    assert status == 0
    n_support = int(np.sum(beta > 0))
    assert n_iter > n_support  # some vertices entered and left again
    scores = Xc @ u
    gap = u @ u - (scores[y > 0].min() - scores[y < 0].max())
    assert gap <= 1e-12 * (u @ u)
