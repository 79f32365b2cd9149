"""adaboost: the slides' toy example, the ε/α/D recursion against a direct NumPy
implementation, the training-error bounds in every round, early stops, scikit-learn."""

import dataclasses
import inspect
from fractions import Fraction

import numpy as np
import pytest

from kmlteach.ensembles import ALPHA_CAP, adaboost, decision_stump, toy_example


def _brute_stump(X, y, D):
    """(predictions, error) of the best stump by evaluating every stump."""
    best, best_pred = np.inf, None
    for j in range(X.shape[1]):
        v = np.unique(X[:, j])
        for theta in np.r_[v[0] - 1.0, (v[:-1] + v[1:]) / 2]:
            for s in (1.0, -1.0):
                pred = np.where(X[:, j] <= theta, s, -s)
                e = D[pred != y].sum()
                if e < best - 1e-12:
                    best, best_pred = e, pred
    return best_pred, best


def numpy_adaboost(X, y, T):
    """AdaBoost written directly from the slides, with a brute-force stump search."""
    m = len(y)
    D = np.full(m, 1 / m)
    out = {"D": [], "eps": [], "alpha": [], "Z": [], "err": []}
    F = np.zeros(m)
    for _ in range(T):
        pred, eps = _brute_stump(X, y, D)
        alpha = 0.5 * np.log((1 - eps) / eps)
        Z = eps * np.exp(alpha) + (1 - eps) * np.exp(-alpha)  # Σ D exp(-α y h), split
        out["D"].append(D)
        D = D * np.exp(-alpha * y * pred) / Z
        F = F + alpha * pred
        for k, v in zip(("eps", "alpha", "Z"), (eps, alpha, Z)):
            out[k].append(v)
        out["err"].append(np.mean(np.sign(F) != y))
    return {k: np.array(v) for k, v in out.items()}


def _moons(m, seed):
    rng = np.random.default_rng(seed)
    t = rng.uniform(0, np.pi, m)
    y = np.where(rng.random(m) < 0.5, 1.0, -1.0)
    X = np.c_[np.cos(t) + (y < 0), np.sin(t) * y - 0.3 * (y < 0)] + 0.25 * rng.normal(size=(m, 2))
    return X, y


def test_toy_example_exact_fractions():
    X, y = toy_example()
    assert X.shape == (10, 2) and np.sum(y > 0) == 5
    r = adaboost(X, y, 3)
    assert r.stopped == "T rounds"
    np.testing.assert_allclose(r.epsilons, [3 / 10, 3 / 14, 3 / 22], rtol=0, atol=1e-14)
    assert [Fraction(e).limit_denominator(100) for e in r.epsilons] == [
        Fraction(3, 10),
        Fraction(3, 14),
        Fraction(3, 22),
    ]
    assert [round(a, 2) for a in r.alphas] == [0.42, 0.65, 0.92]  # as on the slides
    # the slides' rounded ε would give 0.66 and 0.91 in rounds 2 and 3
    assert [round(0.5 * np.log((1 - e) / e), 2) for e in (0.30, 0.21, 0.14)] == [0.42, 0.66, 0.91]
    assert [int(np.sum(h.predict(X) != y)) for h in r.stumps] == [3, 3, 3]
    np.testing.assert_allclose(sorted(set(np.round(r.D[1], 12))), [1 / 14, 1 / 6])
    np.testing.assert_allclose(sorted(set(np.round(r.D[2], 12))), [1 / 22, 7 / 66, 1 / 6])
    np.testing.assert_allclose(r.Z, [0.9165, 0.8207, 0.6863], atol=1e-4)
    assert r.bound[-1] == pytest.approx(0.516, abs=1e-3)
    assert r.gamma_bound[-1] == pytest.approx(0.602, abs=1e-3)
    assert r.training_error[-1] == 0.0
    np.testing.assert_array_equal(r.predict(X), y)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_recursion_matches_numpy_implementation(seed):
    X, y = _moons(60, seed)
    T = 15
    r = adaboost(X, y, T)
    ref = numpy_adaboost(X, y, T)
    assert r.n_rounds == T
    np.testing.assert_allclose(r.epsilons, ref["eps"], rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(r.alphas, ref["alpha"], rtol=1e-10)
    np.testing.assert_allclose(r.Z, ref["Z"], rtol=1e-10)
    np.testing.assert_allclose(r.D, np.array(ref["D"]), rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(r.D[0], np.full(60, 1 / 60))
    np.testing.assert_allclose(r.D.sum(axis=1), 1.0)
    np.testing.assert_array_equal(r.training_error, ref["err"])


@pytest.mark.parametrize("seed", [0, 3])
def test_bounds_hold_in_every_round(seed):
    X, y = _moons(200, seed)
    r = adaboost(X, y, 80)
    assert np.all(r.training_error <= r.bound + 1e-12)
    assert np.all(r.bound <= r.gamma_bound + 1e-12)
    np.testing.assert_allclose(r.Z, 2 * np.sqrt(r.epsilons * (1 - r.epsilons)), rtol=1e-10)
    np.testing.assert_allclose(r.bound, np.cumprod(r.Z))
    # step 1 of the proof: D_{T} unrolls to exp(-y f_{T-1}) / (m Π_{t<T} Z_t)
    f = r.decision_function(X, rounds=r.n_rounds - 1)
    np.testing.assert_allclose(r.D[-1], np.exp(-y * f) / (len(y) * r.bound[-2]), rtol=1e-9)
    # training_error is the 0-1 error of predict after each round
    for t in (1, 10, r.n_rounds):
        assert r.training_error[t - 1] == np.mean(r.predict(X, rounds=t) != y)
    # after each reweighting the mistakes of h_t hold exactly half the mass
    for t in range(r.n_rounds - 1):
        assert r.D[t + 1][r.stumps[t].predict(X) != y].sum() == pytest.approx(0.5)


def test_epsilon_zero_stops_with_capped_alpha():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([1.0, 1.0, -1.0, -1.0])
    r = adaboost(X, y, 10)
    assert r.n_rounds == 1 and r.epsilons[0] == 0.0
    assert r.alphas[0] == pytest.approx(ALPHA_CAP) and ALPHA_CAP == pytest.approx(11.51, abs=0.01)
    assert r.stopped == "epsilon = 0 at round 1 (alpha capped at 11.51)"
    assert r.training_error[0] == 0.0 and r.Z[0] == pytest.approx(np.exp(-ALPHA_CAP))


def test_epsilon_half_discards_the_round():
    X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])  # XOR: every stump errs 1/2
    y = np.array([1.0, 1.0, -1.0, -1.0])
    r = adaboost(X, y, 5)
    assert r.n_rounds == 0 and r.D.shape == (0, 4)
    assert r.stopped == "epsilon >= 1/2 at round 1 (round discarded)"
    np.testing.assert_array_equal(r.decision_function(X), np.zeros(4))
    # a stump that stops helping later: the custom learner below has an edge only twice
    calls = []

    def learner(Xa, ya, D):
        calls.append(1)
        return decision_stump(Xa, ya, D) if len(calls) <= 2 else _Const()

    Xm, ym = _moons(50, 0)
    r2 = adaboost(Xm, ym, 10, weak_learner=learner)
    assert r2.n_rounds == 2 and r2.stopped == "epsilon >= 1/2 at round 3 (round discarded)"


class _Const:
    def predict(self, X):
        return np.ones(len(X))


def test_custom_learner_equals_the_presorted_fast_path():
    X, y = _moons(80, 5)
    fast = adaboost(X, y, 20)
    slow = adaboost(X, y, 20, weak_learner=lambda Xa, ya, D: decision_stump(Xa, ya, D))
    np.testing.assert_array_equal(fast.alphas, slow.alphas)
    np.testing.assert_array_equal(fast.D, slow.D)
    np.testing.assert_array_equal(fast.predict(X), slow.predict(X))


def test_close_to_scikit_learn():
    sk_ens = pytest.importorskip("sklearn.ensemble")
    from sklearn.tree import DecisionTreeClassifier

    X, y = _moons(600, 7)
    Xt, yt = _moons(3000, 8)
    T = 100
    ours = adaboost(X, y, T)
    kw = {"estimator": DecisionTreeClassifier(max_depth=1), "n_estimators": T}
    if "algorithm" in inspect.signature(sk_ens.AdaBoostClassifier).parameters:
        kw["algorithm"] = "SAMME"
    sk = sk_ens.AdaBoostClassifier(**kw).fit(X, y)
    tr_o, te_o = np.mean(ours.predict(X) != y), np.mean(ours.predict(Xt) != yt)
    tr_s, te_s = np.mean(sk.predict(X) != y), np.mean(sk.predict(Xt) != yt)
    assert abs(tr_o - tr_s) < 0.04 and abs(te_o - te_s) < 0.03
    assert te_o < 0.2


def test_deterministic_and_frozen():
    X, y = _moons(40, 1)
    a, b = adaboost(X, y, 5), adaboost(X, y, 5)
    np.testing.assert_array_equal(a.D, b.D)
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.stopped = "x"


@pytest.mark.parametrize("T", [0, -3, 2.5, 10**12, "5", None, True])
def test_bad_T(T):
    X, y = toy_example()
    with pytest.raises((ValueError, TypeError), match="T"):
        adaboost(X, y, T)


@pytest.mark.parametrize(
    "y_bad",
    [
        np.array([0.0, 1] * 5),
        np.ones(10),
        np.array([1.0, -1] * 4 + [2.0, 1]),
        np.array([1.0, -1] * 4 + [np.nan, 1]),
        np.array([1.0, -1]),
    ],
)
def test_bad_labels(y_bad):
    X, _ = toy_example()
    with pytest.raises(ValueError, match="y"):
        adaboost(X, y_bad, 3)


def test_bad_X_and_learner():
    X, y = toy_example()
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="X"):
        adaboost(Xn, y, 3)
    with pytest.raises(TypeError, match="weak_learner"):
        adaboost(X, y, 3, weak_learner="stump")
    with pytest.raises(ValueError, match="weak_learner"):
        adaboost(X, y, 3, weak_learner=lambda Xa, ya, D: _Zeros())
    with pytest.raises(TypeError, match="weak_learner"):
        adaboost(X, y, 3, weak_learner=lambda Xa, ya, D: None)
    r = adaboost(X, y, 3)
    with pytest.raises(ValueError, match="X"):
        r.predict(np.ones((3, 5)))
    with pytest.raises(ValueError, match="rounds"):
        r.predict(X, rounds=4)


class _Zeros:
    def predict(self, X):
        return np.zeros(len(X))
