"""ν-SVM (HSS2 (2.5)/(2.6)) and one-class SVM ((2.7)/(2.8)): libsvm oracles and the theorems."""

import numpy as np
import pytest
from scipy.stats import multivariate_normal

from kmlteach.kernels import gram
from kmlteach.svm import nu_svm, one_class_svm

sksvm = pytest.importorskip("sklearn.svm")

# libsvm keeps kernel values in single precision (its Qfloat), so it agrees with an exact
# solver only to ~1e-6 relative, whatever its tol.
RTOL = 2e-5


def _data(n=120, d=2, seed=0, noise=0.3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X[:, 0] + X[:, 1] ** 2 - 0.8 + noise * rng.normal(size=n) > 0, 1.0, -1.0)
    return X, y


def _close(a, b):
    np.testing.assert_allclose(a, b, rtol=0, atol=RTOL * max(1.0, np.max(np.abs(b))))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("nu", [0.21, 0.36, 0.61])  # nν/2 not an integer: some α is free
def test_nu_svm_matches_sklearn_nusvc(seed, nu):
    X, y = _data(seed=seed)
    sigma = [0.5, 1.0, 2.0, 1.0][seed]
    r = nu_svm(X, y, nu, kernel="gaussian", sigma=sigma, tol=1e-10)
    s = sksvm.NuSVC(nu=nu, gamma=1 / (2 * sigma), tol=1e-10).fit(X, y)
    assert r.rho > 1e-2  # f/ρ would amplify libsvm's single-precision kernel values
    Z = np.random.default_rng(9).normal(size=(50, 2))
    _close(r.decision_function(Z) / r.rho, s.decision_function(Z))
    _close(r.decision_function(X) / r.rho, s.decision_function(X))
    # sklearn stores y α / ρ
    assert r.rho == pytest.approx(nu * len(y) / np.sum(np.abs(s.dual_coef_)), rel=RTOL)


def test_nu_svm_matches_sklearn_polynomial():
    X, y = _data(seed=5)
    r = nu_svm(X, y, 0.3, kernel="polynomial", degree=2, c=1.0, tol=1e-10)
    s = sksvm.NuSVC(nu=0.3, kernel="poly", degree=2, gamma=1.0, coef0=1.0, tol=1e-10).fit(X, y)
    _close(r.decision_function(X) / r.rho, s.decision_function(X))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("nu", [0.053, 0.21, 0.47, 0.88])  # νn not an integer
def test_one_class_matches_sklearn(seed, nu):
    X, _ = _data(seed=seed)
    sigma = [0.5, 1.0, 2.0, 0.3][seed]
    r = one_class_svm(X, nu, sigma=sigma, tol=1e-10)
    s = sksvm.OneClassSVM(nu=nu, gamma=1 / (2 * sigma), tol=1e-10).fit(X)
    Z = np.random.default_rng(9).normal(scale=1.5, size=(50, 2))
    _close(r.decision_function(Z), s.decision_function(Z))
    assert r.rho == pytest.approx(float(s.offset_[0]), rel=RTOL)
    a = np.zeros(len(X))
    a[s.support_] = s.dual_coef_[0]
    K = gram("gaussian", X, sigma=sigma)  # α itself is ill-conditioned; the objective is not
    assert 0.5 * r.alpha @ K @ r.alpha <= 0.5 * a @ K @ a + 1e-9
    assert 0.5 * r.alpha @ K @ r.alpha == pytest.approx(0.5 * a @ K @ a, rel=1e-6)


def _kkt_violation(alpha, g, mask):
    a, v = alpha[mask], -g[mask]
    up, low = v[a < 1], v[a > 0]
    return (up.max() if up.size else -np.inf) - (low.min() if low.size else np.inf)


@pytest.mark.parametrize(
    "kernel,params",
    [("linear", {}), ("gaussian", {"sigma": 0.7}), ("polynomial", {"degree": 3}), ("bspline", {"order": 3})],
)
def test_constraints_and_kkt(kernel, params):
    X, y = _data(n=90, seed=3)
    r = nu_svm(X, y, 0.25, kernel=kernel, tol=1e-10, **params)
    assert np.all((r.alpha >= 0) & (r.alpha <= 1))
    assert r.alpha.sum() == pytest.approx(0.25 * 90, abs=1e-9)
    assert r.alpha @ y == pytest.approx(0.0, abs=1e-9)
    K = gram(kernel, X, **params)
    g = y * (K @ (r.alpha * y))
    for c in (1, -1):
        assert _kkt_violation(r.alpha, g, y == c) <= 1e-9
    # on free variables y f(x) = ρ (the primal's active margin)
    f = r.decision_function(X)
    free = (r.alpha > 1e-6) & (r.alpha < 1 - 1e-6)
    np.testing.assert_allclose(y[free] * f[free], r.rho, atol=1e-7)
    np.testing.assert_array_equal(r.support, np.flatnonzero(r.alpha > 0))
    o = one_class_svm(X, 0.3, kernel=kernel, tol=1e-10, **params)
    assert o.alpha.sum() == pytest.approx(0.3 * 90, abs=1e-9)
    assert _kkt_violation(o.alpha, K @ o.alpha, np.ones(90, bool)) <= 1e-9


def test_nu_property_on_many_random_problems():
    """Fraction of margin errors ≤ ν ≤ fraction of support vectors (Schölkopf et al. 2000)."""
    rng = np.random.default_rng(11)
    checked = 0
    for trial in range(40):
        n = int(rng.integers(30, 120))
        X, y = _data(n=n, d=int(rng.integers(2, 5)), seed=100 + trial, noise=rng.uniform(0, 1.5))
        if min(np.sum(y > 0), np.sum(y < 0)) < 3:
            continue
        nu = rng.uniform(0.02, 2 * min(np.sum(y > 0), np.sum(y < 0)) / n)
        kernel, params = [
            ("gaussian", {"sigma": rng.uniform(0.2, 3)}),
            ("linear", {}),
            ("polynomial", {"degree": 2}),
        ][trial % 3]
        r = nu_svm(X, y, nu, kernel=kernel, tol=1e-10, **params)
        o = one_class_svm(X, nu, kernel=kernel, tol=1e-10, **params)
        if r.rho > 1e-6:
            f = r.decision_function(X)
            margin_err = np.mean(y * f < r.rho - 1e-7)
            assert np.mean(r.alpha > 0) >= nu - 1e-12
            assert margin_err <= nu + 1e-12
            assert len(r.margin_errors) / n <= nu + 1e-12
            checked += 1
        fo = o.decision_function(X)
        assert np.mean(fo < -1e-7) <= nu + 1e-12 <= np.mean(o.alpha > 0) + 2e-12
    assert checked >= 20


def test_nu_one_gives_parzen_windows():
    X, y = _data(n=80, seed=4)
    keep = np.concatenate([np.flatnonzero(y > 0)[:30], np.flatnonzero(y < 0)[:30]])
    X, y = X[keep], y[keep]  # balanced: ν = 1 is feasible
    sigma = 0.5
    r = nu_svm(X, y, 1.0, kernel="gaussian", sigma=sigma)
    np.testing.assert_array_equal(r.alpha, np.ones(60))
    Z = np.random.default_rng(1).normal(size=(40, 2))
    K = gram("gaussian", Z, X, sigma=sigma)
    parzen = K[:, y > 0].sum(1) - K[:, y < 0].sum(1)  # HSS1 (1.6) up to scale and offset
    np.testing.assert_allclose(r.decision_function(Z), parzen + r.b, atol=1e-12)
    assert np.isfinite(r.b) and np.isfinite(r.rho)
    o = one_class_svm(X, 1.0, sigma=sigma)
    np.testing.assert_array_equal(o.alpha, np.ones(60))
    dens = np.mean([multivariate_normal(mean=x, cov=sigma * np.eye(2)).pdf(Z) for x in X], axis=0)
    np.testing.assert_allclose(o.decision_function(Z) + o.rho, 60 * (2 * np.pi * sigma) * dens, rtol=1e-10)
    assert o.rho == pytest.approx(np.max(gram("gaussian", X, sigma=sigma).sum(1)))


@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
def test_every_C_has_a_nu_with_the_same_solution(C):
    """α^C / C solves (2.6) at ν = Σα^C/(Cn), with ρ = 1/C and f_ν / ρ = f_C."""
    X, y = _data(n=100, seed=6)
    s = sksvm.SVC(C=C, kernel="rbf", gamma=1.0, tol=1e-10).fit(X, y)
    aC = np.zeros(100)
    aC[s.support_] = np.abs(s.dual_coef_[0])
    nu = aC.sum() / (C * 100)
    r = nu_svm(X, y, nu, kernel="gaussian", sigma=0.5, tol=1e-10)
    assert r.rho == pytest.approx(1 / C, rel=RTOL)
    _close(r.decision_function(X) / r.rho, s.decision_function(X))
    K = gram("gaussian", X, sigma=0.5)
    Q = K * np.outer(y, y)
    assert 0.5 * r.alpha @ Q @ r.alpha <= 0.5 * (aC / C) @ Q @ (aC / C) + 1e-9


def test_midpoint_offsets_are_finite_without_free_alpha():
    X = np.array([[0.0], [1.0], [3.0], [4.0]])
    y = np.array([-1.0, -1.0, 1.0, 1.0])
    r = nu_svm(X, y, 0.5, kernel="linear")  # each class carries 1 = one α at 1
    assert np.all(np.isin(r.alpha, (0.0, 1.0))) and np.isfinite(r.rho) and np.isfinite(r.b)
    o = one_class_svm(X, 0.5, kernel="linear")
    assert np.isfinite(o.rho)
    # the largest feasible ν = 2 n_-/n puts every α of the smaller class at 1
    X, y = _data(n=50, seed=8)
    n_min = min(np.sum(y > 0), np.sum(y < 0))
    r = nu_svm(X, y, 2 * n_min / 50, kernel="gaussian", sigma=1.0)
    small = y == (1.0 if np.sum(y > 0) == n_min else -1.0)
    np.testing.assert_array_equal(r.alpha[small], 1.0)
    assert np.isfinite(r.rho) and np.isfinite(r.b)
    # νn = 60 is an integer: typically no α is free and ρ is the midpoint of its KKT interval
    X, _ = _data(seed=2)
    o = one_class_svm(X, 0.5, sigma=2.0, tol=1e-12)
    g = gram("gaussian", X, sigma=2.0) @ o.alpha
    if not np.any((o.alpha > 0) & (o.alpha < 1)):
        assert o.rho == pytest.approx(0.5 * (g[o.alpha == 1].max() + g[o.alpha == 0].min()), abs=1e-12)


@pytest.mark.parametrize("bad", [0.0, -0.1, 1.5, np.nan, np.inf])
def test_bad_nu(bad):
    X, y = _data(n=20)
    with pytest.raises(ValueError, match="nu"):
        nu_svm(X, y, bad)
    with pytest.raises(ValueError, match="nu"):
        one_class_svm(X, bad)


def test_bad_input_names_the_argument():
    X, y = _data(n=20)
    n_min = min(np.sum(y > 0), np.sum(y < 0))
    with pytest.raises(ValueError, match="nu"):
        nu_svm(X, y, 2 * n_min / 20 + 0.01)  # infeasible
    with pytest.raises(TypeError, match="nu"):
        nu_svm(X, y, "0.5")
    Xn = X.copy()
    Xn[0, 0] = np.nan
    for call in (
        lambda: nu_svm(Xn, y, 0.2),
        lambda: one_class_svm(Xn, 0.2),
        lambda: nu_svm(X[:, 0], y, 0.2),
        lambda: one_class_svm(X[0], 0.2),
    ):
        with pytest.raises(ValueError, match="X"):
            call()
    for yy in ((y + 1) / 2, np.ones(20), y[:-1], np.where(y > 0, 2.0, -1.0)):
        with pytest.raises(ValueError, match="y"):
            nu_svm(X, yy, 0.2)
    with pytest.raises(ValueError, match="tol"):
        nu_svm(X, y, 0.2, tol=0.0)
    with pytest.raises(ValueError, match="kernel"):
        one_class_svm(X, 0.2, kernel="nope")
    with pytest.raises(ValueError, match="sigma"):
        one_class_svm(X, 0.2, sigma=-1.0)
    with pytest.raises(ValueError, match="Z"):
        nu_svm(X, y, 0.2).decision_function(np.ones((3, 5)))
    with pytest.raises(ValueError, match="Z"):
        one_class_svm(X, 0.2).decision_function(np.ones((3, 5)))


def _grid_cell(kind, n=1200, seed=0):
    """The benchmark grid's data (benchmarks/bench_ch09.py): 10-D standard normal points,
    labels from a linear score, x₁x₂ (XOR-like) or rings, with noise."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 10))
    score = {"linear": X[:, 0] + 0.5 * X[:, 1], "xor": X[:, 0] * X[:, 1]}.get(
        kind, np.sin(2.5 * np.hypot(X[:, 0], X[:, 1]))
    )
    return X, np.where(score + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)


@pytest.mark.parametrize(
    "kind,nu,sigma",
    [("linear", 0.1, 5.0), ("xor", 0.3, 0.5), ("rings", 0.5, 1.5), ("xor", 0.1, 5.0)],
)
def test_float32_steps_with_shrinking_meet_tol_exactly(kind, nu, sigma):
    """At the benchmark's tol = 1e-6 the steps run on float32 kernel values with shrinking
    and in-place compaction of the active block (thousands of steps, n > 1000); the α
    returned still meets tol on the float64 gradient, in each class, and has NuSVC's
    objective (libsvm's own steps: float32 values too)."""
    X, y = _grid_cell(kind)
    tol = 1e-6
    r = nu_svm(X, y, nu, kernel="gaussian", sigma=sigma, tol=tol)
    assert r.n_iter > 1000  # shrinking ran (every 1000 steps)
    n = len(y)
    assert np.all((r.alpha >= 0) & (r.alpha <= 1))
    assert r.alpha.sum() == pytest.approx(nu * n, abs=1e-9)
    assert r.alpha @ y == pytest.approx(0.0, abs=1e-9)
    K = gram("gaussian", X, sigma=sigma)
    g = y * (K @ (r.alpha * y))
    for c in (1, -1):
        assert _kkt_violation(r.alpha, g, y == c) <= tol
    s = sksvm.NuSVC(nu=nu, gamma=1 / (2 * sigma), tol=tol).fit(X, y)
    a = np.zeros(n)
    a[s.support_] = np.abs(s.dual_coef_[0])
    a *= nu * n / a.sum()  # NuSVC stores y α / ρ
    obj, obj_s = (0.5 * (v * y) @ K @ (v * y) for v in (r.alpha, a))
    assert obj == pytest.approx(obj_s, rel=1e-8)
    np.testing.assert_allclose(r.decision_function(X), r.rho * s.decision_function(X), atol=1e-4)
    o = one_class_svm(X, nu, sigma=sigma, tol=tol)
    assert o.alpha.sum() == pytest.approx(nu * n, abs=1e-9)
    assert _kkt_violation(o.alpha, K @ o.alpha, np.ones(n, bool)) <= tol
