"""Exercises of chapter 08 (boosting and ensembles; SL boosting/bagging, UML §10.2, §18.2).

Weighted stump error, one AdaBoost round, the training-error bound, the out-of-bag
error from bootstrap indices, the gain of a split, and the minimiser of Z(α).

Only the code of each exercise's record in ``records/ch08.toml`` (see :mod:`.record`): the
reference implementation, the visible cases and any catalogued mistake's wrong implementation.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from .model import Case


def _labels(r, m):
    y = np.where(r.random(m) < 0.5, 1.0, -1.0)
    y[0], y[1] = 1.0, -1.0
    return y


def _dist(r, m):
    w = r.random(m) + 0.05
    return w / w.sum()


# 08.stump_error — weighted error of one stump --------------------------------------------


def stump_error(X, y, D, feature, threshold, sign):
    """Σ_i D_i 1[h(x_i) ≠ y_i] for h(x) = sign if x_feature ≤ threshold else −sign."""
    X = np.asarray(X, dtype=float)
    pred = np.where(X[:, feature] <= threshold, sign, -sign)
    return float(np.sum(np.asarray(D, dtype=float)[pred != np.asarray(y)]))


def _stump_cases():
    r = np.random.default_rng(81)
    X0 = np.array([[1.0], [2.0], [3.0], [4.0]])
    y0 = np.array([1.0, 1.0, -1.0, -1.0])
    cases = [
        Case((X0, y0, np.full(4, 0.25), 0, 2.5, 1.0), label="a perfect stump: error 0"),
        Case((X0, y0, np.full(4, 0.25), 0, 2.5, -1.0), label="the same stump, sign flipped"),
        Case((X0, y0, np.array([0.1, 0.2, 0.3, 0.4]), 0, 3.0, 1.0), label="x_j = θ goes to the ≤ side"),
        Case((X0, y0, np.array([0.7, 0.1, 0.1, 0.1]), 0, 0.5, -1.0), label="non-uniform D"),
    ]
    for m, d in ((8, 2), (15, 3), (30, 4)):
        X = np.round(r.normal(size=(m, d)), 2)
        j = int(r.integers(d))
        cases.append(
            Case(
                (
                    X,
                    _labels(r, m),
                    _dist(r, m),
                    j,
                    float(X[int(r.integers(m)), j]),
                    float(r.choice([-1.0, 1.0])),
                ),
                label=f"{m} random points in {d} dimensions, a threshold at one of them",
            )
        )
    return cases


# 08.adaboost_round — D update, ε, α, Z ------------------------------------------------------


def adaboost_round(D, y, h):
    """One AdaBoost round from D_t and the weak hypothesis's predictions h = h_t(x_i):
    ε = Σ D_i 1[h_i ≠ y_i], α = ½ ln((1 − ε)/ε), Z = Σ D_i exp(−α y_i h_i),
    D_next = D exp(−α y h) / Z. Returns (D_next, ε, α, Z)."""
    D = np.asarray(D, dtype=float)
    y = np.asarray(y, dtype=float)
    h = np.asarray(h, dtype=float)
    eps = float(np.sum(D[h != y]))
    alpha = 0.5 * np.log((1.0 - eps) / eps)
    w = D * np.exp(-alpha * y * h)
    Z = float(w.sum())
    return w / Z, eps, float(alpha), Z


def _round_cases():
    r = np.random.default_rng(82)
    y10 = np.array([1.0, 1.0, 1.0, 1.0, 1.0, -1.0, -1.0, -1.0, -1.0, -1.0])
    h10 = y10.copy()
    h10[[0, 1, 2]] *= -1
    cases = [
        Case((np.full(10, 0.1), y10, h10), label="the slides' round 1: 3 of 10 wrong, ε = 0.3"),
        Case(
            (np.array([0.5, 0.25, 0.25]), np.array([1.0, -1.0, 1.0]), np.array([1.0, 1.0, 1.0])),
            label="non-uniform D, one mistake of weight 1/4",
        ),
    ]
    for m in (6, 12, 25):
        y = _labels(r, m)
        h = y.copy()
        wrong = r.choice(m, size=max(1, m // 4), replace=False)
        h[wrong] *= -1
        cases.append(Case((_dist(r, m), y, h), label=f"{m} points, random D, {len(wrong)} mistakes"))
    return cases


# 08.training_bound — Π Z_t and exp(−2 Σ γ_t²) ------------------------------------------------


def training_bound(epsilons):
    """(Π_t 2√(ε_t(1 − ε_t)), exp(−2 Σ_t γ_t²)) with γ_t = ½ − ε_t (SL, AdaBoost analysis)."""
    e = np.asarray(epsilons, dtype=float)
    gamma = 0.5 - e
    return float(np.prod(2.0 * np.sqrt(e * (1.0 - e)))), float(np.exp(-2.0 * np.sum(gamma**2)))


def _bound_cases():
    r = np.random.default_rng(83)
    cases = [
        Case((np.array([3 / 10, 3 / 14, 3 / 22]),), label="the slides' toy example"),
        Case((np.array([0.5]),), label="ε = ½: no progress, both bounds equal 1"),
        Case((np.full(20, 0.4),), label="20 rounds of γ = 0.1"),
    ]
    for T in (5, 40):
        cases.append(Case((np.round(r.uniform(0.05, 0.49, size=T), 3),), label=f"{T} rounds of random ε < ½"))
    return cases


# 08.oob_error — the out-of-bag error from bootstrap indices ----------------------------------


def oob_error(predictions, samples, y):
    """Out-of-bag error of a bagged ±1 ensemble.

    ``predictions[b, i]`` is member b's prediction (±1) on training point i and
    ``samples[b]`` the m indices of its bootstrap sample. Point i's OOB vote sums the
    predictions of the members whose sample does not contain i; the vote says +1 iff
    the sum is > 0 (a tie goes to −1, the first class, as in ``ensembles.bagging``).
    The error is the fraction of wrong votes among the points that have at least one
    OOB member.
    """
    P = np.asarray(predictions, dtype=float)
    S = np.asarray(samples)
    y = np.asarray(y, dtype=float)
    B, m = P.shape
    oob = np.ones((B, m), dtype=bool)
    for b in range(B):
        oob[b, S[b]] = False
    votes = np.sum(np.where(oob, P, 0.0), axis=0)
    has = oob.any(axis=0)
    pred = np.where(votes > 0, 1.0, -1.0)
    return float(np.mean(pred[has] != y[has]))


def _oob_cases():
    r = np.random.default_rng(84)
    y4 = np.array([1.0, -1.0, 1.0, -1.0])
    P4 = np.array([[1.0, -1.0, -1.0, -1.0], [1.0, 1.0, 1.0, 1.0], [-1.0, -1.0, 1.0, 1.0]])
    S4 = np.array([[0, 0, 1, 1], [2, 3, 3, 2], [0, 1, 2, 0]])
    cases = [
        Case((P4, S4, y4), label="3 members, 4 points (point 3 is OOB for members 0 and 2)"),
        Case(
            (
                np.array([[1.0, 1.0, 1.0], [-1.0, -1.0, 1.0]]),
                np.array([[2, 2, 2], [2, 2, 2]]),
                np.array([-1.0, 1.0, 1.0]),
            ),
            label="tied OOB votes say -1; point 2 is in every sample and left out",
        ),
    ]
    for B, m in ((5, 8), (15, 20), (40, 30)):
        y = _labels(r, m)
        P = np.where(r.random((B, m)) < 0.75, y, -y)
        cases.append(
            Case((P, r.integers(0, m, size=(B, m)), y), label=f"{B} members, {m} points, random samples")
        )
    return cases


# 08.split_gain — training-error, entropy and Gini gain of a split (UML §18.2) ----------------


def impurity(a, criterion):
    """C(a) for the fraction a of positive labels: "error" min(a, 1 − a), "entropy"
    −a log₂ a − (1 − a) log₂(1 − a) (0 log 0 = 0), "gini" 2a(1 − a)."""
    a = float(a)
    if criterion == "error":
        return min(a, 1.0 - a)
    if criterion == "gini":
        return 2.0 * a * (1.0 - a)
    return float(-sum(p * np.log2(p) for p in (a, 1.0 - a) if p > 0))


def split_gain(y, left, criterion):
    """Gain of splitting labels y (±1) into y[left] and y[~left]:
    C(P[y = 1]) − (m_L/m) C(P_L[y = 1]) − (m_R/m) C(P_R[y = 1])."""
    y = np.asarray(y, dtype=float)
    left = np.asarray(left, dtype=bool)
    m = len(y)
    gain = impurity(np.mean(y > 0), criterion)
    for side in (left, ~left):
        if side.any():
            gain -= side.sum() / m * impurity(np.mean(y[side] > 0), criterion)
    return float(gain)


def _gain_cases():
    r = np.random.default_rng(85)
    y8 = np.array([1.0, 1.0, 1.0, -1.0, -1.0, -1.0, -1.0, 1.0])
    L8 = np.array([True, True, True, True, False, False, False, False])
    cases = []
    for crit in ("error", "entropy", "gini"):
        cases.append(Case((y8, L8, crit), label=f"8 labels, 3+/1− left and 1+/3− right, {crit}"))
    L8_unequal = np.array([True, True, False, False, False, False, False, False])
    cases.append(
        Case(
            (y8, L8_unequal, "gini"), label="2 points left, 6 right: each side weighs its share of the points"
        )
    )
    cases.append(
        Case(
            (y8, np.zeros(8, bool), "gini"),
            label="an empty left side: the right side is the whole node, gain 0",
        )
    )
    cases.append(
        Case(
            (np.array([1.0, 1.0, -1.0, -1.0]), np.array([True, True, False, False]), "entropy"),
            label="a perfect split of a balanced node: gain 1 bit",
        )
    )
    for m, crit in ((10, "error"), (17, "entropy"), (30, "gini"), (25, "entropy")):
        cases.append(
            Case((_labels(r, m), r.random(m) < 0.4, crit), label=f"{m} random labels, a random split, {crit}")
        )
    return cases


# 08.best_alpha — the minimiser of Z(α), also for a weak learner that may abstain ------------


def best_alpha(w_correct, w_wrong, w_abstain=0.0):
    """Minimiser of Z(α) = w_abstain + w_correct e^{−α} + w_wrong e^{α} and the minimum:
    α* = ½ ln(w_correct / w_wrong), Z* = w_abstain + 2√(w_correct w_wrong). Without
    abstentions (w_correct = 1 − ε, w_wrong = ε) this is AdaBoost's α_t and Z_t."""
    alpha = 0.5 * np.log(w_correct / w_wrong)
    return float(alpha), float(w_abstain + 2.0 * np.sqrt(w_correct * w_wrong))


def _alpha_cases():
    r = np.random.default_rng(86)
    cases = [
        Case((0.7, 0.3), label="ε = 0.3 (the slides' first round)"),
        Case((19 / 22, 3 / 22), label="ε = 3/22"),
        Case((0.5, 0.5), label="ε = ½: α = 0, Z = 1"),
        Case((0.5, 0.2, 0.3), label="a learner that abstains on 30 % of the mass"),
        Case((0.3, 0.6, 0.1), label="more weight wrong than right: α < 0"),
    ]
    for _ in range(3):
        w = r.dirichlet([2.0, 1.0, 1.0])
        cases.append(Case((float(w[0]), float(w[1]), float(w[2])), label="random weights that sum to 1"))
    return cases


# Catalogued mistakes (wrong implementations the records' ``mistakes`` name) -------------


def _stump_strict(X, y, D, feature, threshold, sign):
    return stump_error(X, y, D, feature, np.nextafter(threshold, -np.inf), sign)


def _stump_no_sign(X, y, D, feature, threshold, sign):
    return stump_error(X, y, D, feature, threshold, 1.0)


def _stump_unweighted(X, y, D, feature, threshold, sign):
    return stump_error(X, y, np.full(len(y), 1.0 / len(y)), feature, threshold, sign)


def _round(D, y, h, *, normalise=True, samme=False, sign=-1.0, unweighted=False):
    D, y, h = (np.asarray(v, dtype=float) for v in (D, y, h))
    eps = float(np.mean(h != y)) if unweighted else float(np.sum(D[h != y]))
    alpha = (1.0 if samme else 0.5) * np.log((1.0 - eps) / eps)
    w = D * np.exp(sign * alpha * y * h)
    Z = float(w.sum())
    return (w / Z if normalise else w), eps, float(alpha), Z


_round_not_renormalised = partial(_round, normalise=False)
_round_samme = partial(_round, samme=True)
_round_update_sign = partial(_round, sign=1.0)
_round_unweighted_eps = partial(_round, unweighted=True)


def _bound_no_two(epsilons):
    e = np.asarray(epsilons, dtype=float)
    return float(np.prod(np.sqrt(e * (1.0 - e)))), training_bound(e)[1]


def _bound_sum(epsilons):
    e = np.asarray(epsilons, dtype=float)
    return float(np.sum(2.0 * np.sqrt(e * (1.0 - e)))), training_bound(e)[1]


def _bound_gamma_not_squared(epsilons):
    e = np.asarray(epsilons, dtype=float)
    return training_bound(e)[0], float(np.exp(-2.0 * np.sum(0.5 - e)))


def _oob(predictions, samples, y, *, in_bag=False, members=None, all_points=False, ties_up=False):
    P, S, y = np.asarray(predictions, dtype=float), np.asarray(samples), np.asarray(y, dtype=float)
    B, m = P.shape
    oob = np.ones((B, m), dtype=bool)
    for b in range(B):
        oob[b, S[b]] = False
    if in_bag:
        oob = ~oob
    if members is not None:
        oob[members:] = False
    votes = np.sum(np.where(oob, P, 0.0), axis=0)
    has = np.ones(m, dtype=bool) if all_points else oob.any(axis=0)
    pred = np.where(votes >= 0 if ties_up else votes > 0, 1.0, -1.0)
    return float(np.mean(pred[has] != y[has]))


_oob_single_tree = partial(_oob, members=1)
_oob_in_bag = partial(_oob, in_bag=True)
_oob_all_points = partial(_oob, all_points=True)
_oob_ties_up = partial(_oob, ties_up=True)


def _gain(y, left, criterion, *, parent_counts=False, weights=True, nats=False, average=False):
    y, left = np.asarray(y, dtype=float), np.asarray(left, dtype=bool)
    m = len(y)
    C = (
        (lambda a: impurity(a, criterion) * np.log(2.0))
        if nats and criterion == "entropy"
        else (lambda a: impurity(a, criterion))
    )
    gain = C(np.mean(y > 0))
    for side in (left, ~left):
        if side.any():
            a = np.sum(y[side] > 0) / (m if parent_counts else side.sum())
            gain -= (0.5 if average else side.sum() / m if weights else 1.0) * C(a)
    return float(gain)


_gain_parent_counts = partial(_gain, parent_counts=True)
_gain_unweighted = partial(_gain, weights=False)
_gain_nats = partial(_gain, nats=True)
_gain_average = partial(_gain, average=True)


def _alpha_samme(w_correct, w_wrong, w_abstain=0.0):
    a, z = best_alpha(w_correct, w_wrong, w_abstain)
    return 2 * a, z


def _alpha_no_abstain(w_correct, w_wrong, w_abstain=0.0):
    return best_alpha(w_correct, w_wrong, 0.0)


def _alpha_one_minus_wrong(w_correct, w_wrong, w_abstain=0.0):
    return best_alpha(1.0 - w_wrong, w_wrong, 0.0)


def _alpha_sign(w_correct, w_wrong, w_abstain=0.0):
    a, z = best_alpha(w_correct, w_wrong, w_abstain)
    return -a, z
