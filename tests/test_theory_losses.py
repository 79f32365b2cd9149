"""Loss gallery of HSS2 §2.4: values from the table, gradients vs finite differences."""

import numpy as np
import pytest

from kmlteach import theory as T

BINARY = {"soft_margin": [1.0], "squared_soft_margin": [1.0], "logistic": [], "exponential": []}
REGRESSION = {"epsilon_insensitive": [-0.3, 0.3], "huber": []}


def _fd(fun, f, h=1e-6):
    return (fun(f + h) - fun(f - h)) / (2 * h)


def _away_from(z, kinks, gap=1e-3):
    ok = np.ones(z.shape, bool)
    for k in kinks:
        ok &= np.abs(z - k) > gap
    return ok


@pytest.mark.parametrize("name", list(BINARY))
def test_binary_gradients_vs_finite_differences(name):
    rng = np.random.default_rng(0)
    f = rng.normal(scale=2, size=400)
    y = np.where(rng.random(400) < 0.5, -1.0, 1.0)
    loss = T.LOSS_GALLERY[name]
    v, g = loss(f, y)
    ok = _away_from(y * f, BINARY[name])
    np.testing.assert_allclose(g[ok], _fd(lambda t: loss(t, y).value, f)[ok], rtol=1e-6, atol=1e-7)
    assert np.all(v >= 0)
    # convex: the (sub)gradient inequality holds everywhere, kinks included
    for u in (-3.0, 0.0, 0.5, 1.0, 4.0):
        assert np.all(loss(np.full(400, u), y).value >= v + g * (u - f) - 1e-12)


@pytest.mark.parametrize("name", list(REGRESSION))
def test_regression_gradients_vs_finite_differences(name):
    rng = np.random.default_rng(1)
    f, y = rng.normal(scale=2, size=300), rng.normal(size=300)
    loss = T.LOSS_GALLERY[name]
    g = loss(f, y).gradient
    ok = _away_from(f - y, REGRESSION[name] + ([-1.0, 1.0] if name == "huber" else []))
    np.testing.assert_allclose(g[ok], _fd(lambda t: loss(t, y).value, f)[ok], rtol=1e-6, atol=1e-7)


def test_table_values():
    f = np.array([-1.0, 0.0, 0.5, 2.0])
    y = np.ones(4)
    np.testing.assert_allclose(T.soft_margin(f, y).value, [2.0, 1.0, 0.5, 0.0])
    np.testing.assert_allclose(T.soft_margin(f, y).gradient, [-1.0, -1.0, -1.0, 0.0])
    np.testing.assert_allclose(T.soft_margin(f, y, rho=0.4).value, [1.4, 0.4, 0.0, 0.0])
    np.testing.assert_allclose(T.squared_soft_margin(f, y).value, [4.0, 1.0, 0.25, 0.0])
    np.testing.assert_allclose(T.logistic(f, -y).value, np.log1p(np.exp(f)))
    np.testing.assert_allclose(T.logistic(f, y).gradient, -1 / (1 + np.exp(f)))
    np.testing.assert_allclose(T.exponential(f, y).value, np.exp(-f))
    np.testing.assert_allclose(T.novelty(f, rho=0.5).value, [1.5, 0.5, 0.0, 0.0])
    np.testing.assert_allclose(T.novelty(f, rho=0.5).gradient, [-1.0, -1.0, 0.0, 0.0])
    np.testing.assert_allclose(T.epsilon_insensitive(f, np.zeros(4), 0.5).value, [0.5, 0, 0, 1.5])
    np.testing.assert_allclose(T.huber(f, np.zeros(4), 1.0).value, [0.5, 0.0, 0.125, 1.5])
    lg = T.logistic(np.array([900.0, -900.0]), np.ones(2))
    assert np.all(np.isfinite(lg.value)) and lg.value[1] == pytest.approx(900.0)


def _scores(seed=2, n=50, k=4):
    rng = np.random.default_rng(seed)
    return rng.normal(scale=2, size=(n, k)), rng.integers(0, k, size=n)


def test_multiclass_logistic_gradient_and_binary_case():
    F, y = _scores()
    G = T.multiclass_logistic(F, y).gradient
    h = 1e-6
    for c in range(4):
        E = np.zeros_like(F)
        E[:, c] = h
        fd = (T.multiclass_logistic(F + E, y).value - T.multiclass_logistic(F - E, y).value) / (2 * h)
        np.testing.assert_allclose(G[:, c], fd, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(G.sum(axis=1), 0.0, atol=1e-12)
    # two classes: the binary logistic loss of the margin f_1 - f_0
    F2 = F[:, :2]
    y2 = (F2[:, 0] > 0).astype(int)
    np.testing.assert_allclose(
        T.multiclass_logistic(F2, y2).value, T.logistic(F2[:, 1] - F2[:, 0], 2.0 * y2 - 1).value, rtol=1e-12
    )


def test_multiclass_soft_margin_gradient_and_lemma_12():
    F, y = _scores(3)
    rng = np.random.default_rng(4)
    D = rng.uniform(0.5, 2, size=(4, 4))
    D = (D + D.T) / 2
    np.fill_diagonal(D, 0.0)
    v, G = T.multiclass_soft_margin(F, y, delta=D)
    h = 1e-6
    brute = np.array(
        [
            max(0.0, max(D[y[i], c] + F[i, c] - F[i, y[i]] for c in range(4) if c != y[i]))
            for i in range(len(y))
        ]
    )
    np.testing.assert_allclose(v, brute, rtol=1e-12)
    for c in range(4):
        E = np.zeros_like(F)
        E[:, c] = h
        fd = (T.multiclass_soft_margin(F + E, y, D).value - T.multiclass_soft_margin(F - E, y, D).value) / (
            2 * h
        )
        np.testing.assert_allclose(G[:, c], fd, atol=1e-6)
    # Lemma 12: the loss bounds the Δ-loss of the prediction argmax_ỹ f(x, ỹ)
    assert np.all(v >= D[y, np.argmax(F, axis=1)] - 1e-12)
    # default Δ = ρ(1 − δ): Crammer–Singer (2.12)
    cs = T.multiclass_soft_margin(F, y, rho=0.7).value
    other = np.where(np.eye(4, dtype=bool)[y], -np.inf, F).max(axis=1)
    np.testing.assert_allclose(cs, np.maximum(0, 0.7 + other - F[np.arange(len(y)), y]))


def test_taxonomy_distance_and_two_level_reduction():
    names = [
        "Computers",
        "Hardware",
        "Software",
        "Storage",
        "Cables",
        "HDD",
        "CDROM",
        "Freeware",
        "Shareware",
        "Opensource",
    ]
    edges = [(0, 1), (0, 2), (1, 3), (1, 4), (3, 5), (3, 6), (2, 7), (2, 8), (2, 9)]
    W = np.zeros((10, 10))
    for a, b in edges:
        W[a, b] = W[b, a] = 1.0
    D = T.graph_distance(W)
    hdd, cdrom, cables = names.index("HDD"), names.index("CDROM"), names.index("Cables")
    assert D[cdrom, hdd] == 2 and D[cdrom, cables] == 3 and D[hdd, names.index("Freeware")] == 5
    # two-level tree, every edge ρ/2: Δ = ρ between distinct leaves, i.e. (2.21) → (2.12)
    rho, k = 0.8, 5
    S = np.zeros((k + 1, k + 1))
    S[0, 1:] = S[1:, 0] = rho / 2
    Dl = T.graph_distance(S)[1:, 1:]
    np.testing.assert_allclose(Dl, rho * (1 - np.eye(k)))
    F, y = _scores(5, k=k)
    np.testing.assert_allclose(
        T.multiclass_soft_margin(F, y, delta=Dl).value, T.multiclass_soft_margin(F, y, rho=rho).value
    )


def test_bad_input():
    with pytest.raises(ValueError, match="y"):
        T.soft_margin([0.1, 0.2], [1.0, 0.0])
    with pytest.raises(ValueError, match="y"):
        T.logistic([0.1, 0.2], [1.0])
    with pytest.raises(ValueError, match="f"):
        T.exponential([np.nan], [1.0])
    with pytest.raises(ValueError, match="rho"):
        T.soft_margin([0.1], [1.0], rho=0.0)
    with pytest.raises(ValueError, match="delta"):
        T.huber([0.1], [1.0], delta=-1.0)
    with pytest.raises(ValueError, match="epsilon"):
        T.epsilon_insensitive([0.1], [1.0], epsilon=-1.0)
    with pytest.raises(ValueError, match="y"):
        T.multiclass_logistic(np.zeros((2, 3)), [0, 3])
    with pytest.raises(ValueError, match="y"):
        T.multiclass_logistic(np.zeros((2, 3)), [0.5, 1])
    with pytest.raises(ValueError, match="F"):
        T.multiclass_logistic(np.zeros(3), [0])
    with pytest.raises(ValueError, match="delta"):
        T.multiclass_soft_margin(np.zeros((2, 3)), [0, 1], delta=np.ones((3, 3)))
    with pytest.raises(ValueError, match="W"):
        T.graph_distance(np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]]))
