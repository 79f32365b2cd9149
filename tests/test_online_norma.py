"""NORMA (HSS2 Algorithm 2.1): oracles are the primal recursion, a naive expansion, Novikoff."""

import numpy as np
import pytest

from kmlteach.kernels import gram
from kmlteach.online import NORMA_LOSSES, norma, norma_loss


def _data(n=60, d=3, seed=0, regression=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    t = X[:, 0] - 0.5 * X[:, 1] + 0.3 * rng.normal(size=n)
    return X, (t if regression else np.where(t > 0, 1.0, -1.0))


def _deriv(loss, f, y, eps):
    """The table of COURSE.md §09 / HSS2 §2.2.2, written independently of the package."""
    if loss == "hinge":
        return -y if y * f < 1 else 0.0
    if loss == "perceptron":
        return -y if y * f <= 0 else 0.0
    if loss == "logistic":
        return -y / (1 + np.exp(y * f))
    if loss == "squared":
        return f - y
    return np.sign(f - y) if abs(f - y) > eps else 0.0


def _naive(X, y, lam, etas, loss, kernel, budget=None, eps=0.1, **params):
    """Every coefficient rescaled at every step; expansion truncated to the last budget terms."""
    K = gram(kernel, X, **params)
    n = len(y)
    coef = np.zeros(n)
    pred = np.zeros(n)
    first = 0
    dropped = []
    for t in range(n):
        pred[t] = coef[first:t] @ K[t, first:t]
        d = _deriv(loss, pred[t], y[t], eps)
        coef[:t] *= 1 - etas[t] * lam
        coef[t] = -etas[t] * d
        if budget is not None and t + 1 - first > budget:
            dropped.append(first)
            first += 1
    kept = coef.copy()
    kept[dropped] = 0.0
    trunc = np.zeros(n)
    trunc[dropped] = coef[dropped]
    return pred, kept, trunc, K


@pytest.mark.parametrize("loss", NORMA_LOSSES)
def test_linear_kernel_equals_primal_recursion(loss):
    X, y = _data(regression=loss in ("squared", "epsilon_insensitive"))
    lam, eta = 0.1, (lambda t: 0.5 / np.sqrt(t))
    r = norma(X, y, lam, eta, kernel="linear", loss=loss, epsilon=0.2)
    w = np.zeros(X.shape[1])
    for t in range(len(y)):
        f = w @ X[t]
        assert r.predictions[t] == pytest.approx(f, abs=1e-12)
        e = 0.5 / np.sqrt(t + 1)
        w = (1 - e * lam) * w - e * _deriv(loss, f, y[t], 0.2) * X[t]
    np.testing.assert_allclose(r.coef @ X, w, atol=1e-12)
    Z = np.random.default_rng(5).normal(size=(7, 3))
    np.testing.assert_allclose(r.decision_function(Z), Z @ w, atol=1e-12)
    np.testing.assert_allclose(r.eta, 0.5 / np.sqrt(np.arange(1, 61)))


@pytest.mark.parametrize(
    "kernel,params",
    [
        ("gaussian", {"sigma": 0.7}),
        ("polynomial", {"degree": 3, "c": 1.0}),
        ("exponential", {"gamma": 0.2}),
        ("bspline", {"order": 3}),
        ("min", {}),
    ],
)
@pytest.mark.parametrize("budget", [None, 1, 7, 60, 100])
def test_expansion_matches_naive_rescaling(kernel, params, budget):
    X, y = _data(seed=1)
    if kernel == "min":
        X = np.abs(X)
    etas = np.full(60, 0.3)
    r = norma(X, y, 0.2, 0.3, kernel=kernel, loss="hinge", budget=budget, **params)
    pred, kept, trunc, K = _naive(X, y, 0.2, etas, "hinge", kernel, budget, **params)
    np.testing.assert_allclose(r.predictions, pred, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(r.coef, kept, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(r.truncated_coef, trunc, rtol=1e-10, atol=1e-14)
    assert r.truncation_error == pytest.approx(np.sum(np.abs(trunc) * np.sqrt(np.diag(K))), abs=1e-14)
    assert r.n_terms == (60 if budget is None else min(60, budget))
    # the dropped part's exact RKHS norm is below the reported bound
    exact = np.sqrt(max(trunc @ K @ trunc, 0.0))
    assert exact <= r.truncation_error + 1e-12
    if budget is None or budget >= 60:
        assert r.truncation_error == 0.0


def test_lazy_scale_survives_underflow():
    """η λ = 0.5 halves f each step: the global scale underflows 1e-150 after ~500 steps."""
    X, y = _data(n=1500, seed=2)
    r = norma(X, y, 1.0, 0.5, kernel="gaussian", loss="logistic", sigma=2.0)
    pred, kept, _, _ = _naive(X, y, 1.0, np.full(1500, 0.5), "logistic", "gaussian", sigma=2.0)
    np.testing.assert_allclose(r.predictions, pred, rtol=1e-9, atol=1e-300)
    np.testing.assert_allclose(r.coef, kept, rtol=1e-9, atol=1e-300)


def test_truncation_error_shrinks_with_budget():
    X, y = _data(n=400, seed=3)
    errs = [norma(X, y, 0.05, 0.5, sigma=1.0, budget=b).truncation_error for b in (10, 50, 200)]
    assert errs[0] > errs[1] > errs[2] > 0


def test_perceptron_mistakes_within_novikoff_bound():
    rng = np.random.default_rng(4)
    w_star = np.array([0.6, -0.8])
    X = rng.uniform(-1, 1, size=(400, 2))
    gamma = 0.1
    X = X[np.abs(X @ w_star) >= gamma]
    y = np.sign(X @ w_star)
    R = np.max(np.linalg.norm(X, axis=1))
    Xs, ys = np.tile(X, (10, 1)), np.tile(y, 10)  # ten passes: the count saturates
    r = norma(Xs, ys, 0.0, 1.0, kernel="linear", loss="perceptron")
    assert r.mistakes[0] == 1  # f_1 = 0 counts as a mistake
    assert np.all(np.diff(r.mistakes) >= 0)
    assert r.mistakes[-1] <= (R / gamma) ** 2
    # the perceptron's final w separates the data once it stops making mistakes
    assert r.mistakes[-1] == r.mistakes[-len(y)]
    assert np.all(y * (r.coef @ Xs @ X.T) > 0)
    # mistakes counted from the predictions themselves
    np.testing.assert_array_equal(r.mistakes, np.cumsum(ys * r.predictions <= 0))


def test_decision_function_is_the_next_prediction():
    X, y = _data(n=41, seed=6)
    full = norma(X, y, 0.1, 0.4, sigma=0.5, budget=15)
    head = norma(X[:40], y[:40], 0.1, 0.4, sigma=0.5, budget=15)
    assert head.decision_function(X[40:])[0] == pytest.approx(full.predictions[40], abs=1e-12)


def test_epsilon_insensitive_mistakes_are_outside_the_tube():
    X, t = _data(regression=True, seed=7)
    r = norma(X, t, 0.1, 0.2, kernel="linear", loss="epsilon_insensitive", epsilon=0.3)
    np.testing.assert_array_equal(r.mistakes, np.cumsum(np.abs(t - r.predictions) > 0.3))
    np.testing.assert_allclose(r.losses, np.maximum(0, np.abs(r.predictions - t) - 0.3))


@pytest.mark.parametrize("loss", NORMA_LOSSES)
def test_norma_loss_derivative_vs_finite_differences(loss):
    rng = np.random.default_rng(8)
    f = rng.normal(scale=2, size=50)
    y = np.where(rng.random(50) < 0.5, -1.0, 1.0)
    v, d = norma_loss(loss, f, y, epsilon=0.25)
    h = 1e-6
    vp, _ = norma_loss(loss, f + h, y, epsilon=0.25)
    vm, _ = norma_loss(loss, f - h, y, epsilon=0.25)
    np.testing.assert_allclose(d, (vp - vm) / (2 * h), atol=1e-6)
    assert np.all(v >= 0)
    np.testing.assert_allclose(d, [_deriv(loss, a, b, 0.25) for a, b in zip(f, y)], rtol=1e-14, atol=0)
    assert norma_loss(loss, 0.3, 1.0, epsilon=0.25)[1] == pytest.approx(_deriv(loss, 0.3, 1.0, 0.25))


def test_logistic_loss_is_stable_for_large_margins():
    v, d = norma_loss("logistic", np.array([800.0, -800.0]), np.array([1.0, 1.0]))
    assert np.all(np.isfinite(v)) and v[0] == 0.0 and v[1] == pytest.approx(800.0)
    assert d[0] == pytest.approx(0.0) and d[1] == pytest.approx(-1.0)


def test_same_input_same_bits():
    X, y = _data(n=200, seed=9)
    a = norma(X, y, 0.01, 0.5, sigma=1.0, budget=30)
    b = norma(X, y, 0.01, 0.5, sigma=1.0, budget=30)
    np.testing.assert_array_equal(a.predictions, b.predictions)
    np.testing.assert_array_equal(a.coef, b.coef)


@pytest.mark.parametrize(
    "kwargs,name",
    [
        ({"lam": -0.1}, "lam"),
        ({"lam": np.nan}, "lam"),
        ({"eta": 0.0}, "eta"),
        ({"eta": -1}, "eta"),
        ({"eta": lambda t: np.nan}, "eta"),
        ({"eta": lambda t: "x"}, "eta"),
        ({"lam": 2.0, "eta": 0.5}, "eta"),
        ({"loss": "hinge2"}, "loss"),
        ({"budget": 0}, "budget"),
        ({"budget": 2.5}, "budget"),
        ({"kernel": "nope"}, "kernel"),
        ({"epsilon": -1.0}, "epsilon"),
        ({"sigma": -1.0}, "sigma"),
    ],
)
def test_bad_parameters_name_the_argument(kwargs, name):
    X, y = _data(n=10)
    args = {"lam": 0.1, "eta": 0.5} | kwargs
    lam, eta = args.pop("lam"), args.pop("eta")
    with pytest.raises((ValueError, TypeError), match=name):
        norma(X, y, lam, eta, **args)


def test_bad_data_name_the_argument():
    X, y = _data(n=10)
    Xn = X.copy()
    Xn[2, 1] = np.nan
    with pytest.raises(ValueError, match="X"):
        norma(Xn, y, 0.1, 0.5)
    with pytest.raises(ValueError, match="X"):
        norma(X[:, 0], y, 0.1, 0.5)
    with pytest.raises(ValueError, match="y"):
        norma(X, y[:-1], 0.1, 0.5)
    with pytest.raises(ValueError, match="y"):
        norma(X, (y + 1) / 2, 0.1, 0.5)  # 0/1 labels
    with pytest.raises(ValueError, match="y"):
        norma(X, np.ones(10), 0.1, 0.5)  # one class
    yn = y.copy()
    yn[0] = np.nan
    with pytest.raises(ValueError, match="y"):
        norma(X, yn, 0.1, 0.5, loss="squared")
    r = norma(X, y, 0.1, 0.5)
    with pytest.raises(ValueError, match="Z"):
        r.decision_function(np.ones((2, 4)))
    with pytest.raises(ValueError, match="y"):
        norma_loss("hinge", [0.1], [0.5])
    with pytest.raises(ValueError, match="loss"):
        norma_loss("nope", [0.1], [1.0])
