"""Exercises of chapter 08 (boosting and ensembles; SL boosting/bagging, UML §10.2, §18.2).

Weighted stump error, one AdaBoost round, the training-error bound, the out-of-bag
error from bootstrap indices, the gain of a split, and the minimiser of Z(α).

The hints are tiered: each exercise stores a list of hints in order of increasing
help. ``hint(id)`` prints them numbered (a list that prints as numbered lines).
"""

from __future__ import annotations

import numpy as np

from .core import Case, Exercise, allclose, register
from .quiz import Question, register_question


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
    cases = [Case((X0, y0, np.full(4, 0.25), 0, 2.5, 1.0), label="a perfect stump: error 0"),
             Case((X0, y0, np.full(4, 0.25), 0, 2.5, -1.0), label="the same stump, sign flipped"),
             Case((X0, y0, np.array([0.1, 0.2, 0.3, 0.4]), 0, 3.0, 1.0),
                  label="x_j = θ goes to the ≤ side"),
             Case((X0, y0, np.array([0.7, 0.1, 0.1, 0.1]), 0, 0.5, -1.0), label="non-uniform D")]
    for m, d in ((8, 2), (15, 3), (30, 4)):
        X = np.round(r.normal(size=(m, d)), 2)
        j = int(r.integers(d))
        cases.append(Case((X, _labels(r, m), _dist(r, m), j, float(X[int(r.integers(m)), j]),
                           float(r.choice([-1.0, 1.0])))))
    return cases


register(Exercise(
    id="08.stump_error", minutes=10, title="the weighted error of a decision stump (SL AdaBoost)",
    reference=stump_error, cases=_stump_cases, compare=allclose(),
    hint=[
        "First compute the stump's predictions for all points at once, then add up the weights "
        "D_i of the points where the prediction differs from y_i.",
        "pred = np.where(X[:, feature] <= threshold, sign, -sign) — note the ≤: a point exactly "
        "at the threshold gets the label `sign`.",
        "return np.sum(D[pred != y]). With uniform D = 1/m this is the ordinary training error.",
    ],
    solution=("def stump_error(X, y, D, feature, threshold, sign):\n"
              "    pred = np.where(X[:, feature] <= threshold, sign, -sign)\n"
              "    return float(np.sum(D[pred != y]))\n"),
))


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
    cases = [Case((np.full(10, 0.1), y10, h10), label="the slides' round 1: 3 of 10 wrong, ε = 0.3"),
             Case((np.array([0.5, 0.25, 0.25]), np.array([1.0, -1.0, 1.0]), np.array([1.0, 1.0, 1.0])),
                  label="non-uniform D, one mistake of weight 1/4")]
    for m in (6, 12, 25):
        y = _labels(r, m)
        h = y.copy()
        wrong = r.choice(m, size=max(1, m // 4), replace=False)
        h[wrong] *= -1
        cases.append(Case((_dist(r, m), y, h)))
    return cases


register(Exercise(
    id="08.adaboost_round", minutes=15, title="one round of AdaBoost: ε, α, Z and the new D (SL AdaBoost)",
    reference=adaboost_round, cases=_round_cases, compare=allclose(),
    hint=[
        "Follow the order of the algorithm: the error ε of h under D, then α from ε, then the "
        "unnormalised new weights, then Z as their sum.",
        "eps = np.sum(D[h != y]); alpha = 0.5 * np.log((1 - eps) / eps). A correct point "
        "(y_i h_i = +1) is multiplied by e^{-α}, a wrong one by e^{+α}.",
        "w = D * np.exp(-alpha * y * h); Z = w.sum(); return w / Z, eps, alpha, Z. "
        "Check: after the update the wrong points hold exactly half of the mass.",
    ],
    solution=("def adaboost_round(D, y, h):\n    eps = np.sum(D[h != y])\n"
              "    alpha = 0.5 * np.log((1 - eps) / eps)\n    w = D * np.exp(-alpha * y * h)\n"
              "    Z = w.sum()\n    return w / Z, eps, alpha, Z\n"),
))


# 08.training_bound — Π Z_t and exp(−2 Σ γ_t²) ------------------------------------------------

def training_bound(epsilons):
    """(Π_t 2√(ε_t(1 − ε_t)), exp(−2 Σ_t γ_t²)) with γ_t = ½ − ε_t (SL, AdaBoost analysis)."""
    e = np.asarray(epsilons, dtype=float)
    gamma = 0.5 - e
    return float(np.prod(2.0 * np.sqrt(e * (1.0 - e)))), float(np.exp(-2.0 * np.sum(gamma ** 2)))


def _bound_cases():
    r = np.random.default_rng(83)
    cases = [Case((np.array([3 / 10, 3 / 14, 3 / 22]),), label="the slides' toy example"),
             Case((np.array([0.5]),), label="ε = ½: no progress, both bounds equal 1"),
             Case((np.full(20, 0.4),), label="20 rounds of γ = 0.1")]
    for T in (5, 40):
        cases.append(Case((np.round(r.uniform(0.05, 0.49, size=T), 3),)))
    return cases


register(Exercise(
    id="08.training_bound", minutes=10, title="AdaBoost's training-error bound (SL AdaBoost analysis)",
    reference=training_bound, cases=_bound_cases, compare=allclose(),
    hint=[
        "Each round contributes a factor Z_t = 2√(ε_t(1 − ε_t)); the first bound is their product. "
        "The second one only needs the edges γ_t = ½ − ε_t.",
        "np.prod(2 * np.sqrt(eps * (1 - eps))) and np.exp(-2 * np.sum((0.5 - eps) ** 2)).",
        "Return the two numbers as a tuple (product first). The first is never larger than the "
        "second because 1 − x ≤ e^{−x} with x = 4γ_t².",
    ],
    solution=("def training_bound(epsilons):\n    eps = np.asarray(epsilons)\n"
              "    prod_z = np.prod(2 * np.sqrt(eps * (1 - eps)))\n"
              "    return prod_z, np.exp(-2 * np.sum((0.5 - eps) ** 2))\n"),
))


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
    cases = [Case((P4, S4, y4), label="3 members, 4 points (point 3 is OOB for members 0 and 2)"),
             Case((np.array([[1.0, 1.0, 1.0], [-1.0, -1.0, 1.0]]), np.array([[2, 2, 2], [2, 2, 2]]),
                   np.array([-1.0, 1.0, 1.0])),
                  label="tied OOB votes say -1; point 2 is in every sample and left out")]
    for B, m in ((5, 8), (15, 20), (40, 30)):
        y = _labels(r, m)
        P = np.where(r.random((B, m)) < 0.75, y, -y)
        cases.append(Case((P, r.integers(0, m, size=(B, m)), y)))
    return cases


register(Exercise(
    id="08.oob_error", minutes=20, title="the out-of-bag error of bagging (SL bagging)",
    reference=oob_error, cases=_oob_cases, compare=allclose(),
    hint=[
        "Build a boolean mask oob[b, i] that is True when point i is NOT in member b's bootstrap "
        "sample; only those members may vote on point i.",
        "oob = np.ones((B, m), bool); for each b: oob[b, samples[b]] = False. Then "
        "votes = np.sum(np.where(oob, predictions, 0), axis=0).",
        "Keep only the points with oob.any(axis=0); predict +1 where votes > 0, else −1 (a tie "
        "says −1), and return the mean of (prediction != y) over those points.",
    ],
    solution=("def oob_error(predictions, samples, y):\n    B, m = predictions.shape\n"
              "    oob = np.ones((B, m), dtype=bool)\n    for b in range(B):\n"
              "        oob[b, samples[b]] = False\n"
              "    votes = np.sum(np.where(oob, predictions, 0.0), axis=0)\n"
              "    has = oob.any(axis=0)\n    pred = np.where(votes > 0, 1.0, -1.0)\n"
              "    return np.mean(pred[has] != y[has])\n"),
))


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
    cases.append(Case((y8, np.zeros(8, bool), "gini"), label="an empty side: gain 0"))
    cases.append(Case((np.array([1.0, 1.0, -1.0, -1.0]), np.array([True, True, False, False]), "entropy"),
                      label="a perfect split of a balanced node: gain 1 bit"))
    for m, crit in ((10, "error"), (17, "entropy"), (30, "gini"), (25, "entropy")):
        cases.append(Case((_labels(r, m), r.random(m) < 0.4, crit)))
    return cases


register(Exercise(
    id="08.split_gain", minutes=15, title="the gain of a split: training error, entropy, Gini (UML §18.2)",
    reference=split_gain, cases=_gain_cases, compare=allclose(),
    hint=[
        "Write one helper C(a) of the fraction a of positive labels, for the three criteria; the "
        "gain is C at the node minus the size-weighted C of the two children.",
        "error: min(a, 1 − a); entropy: −a·log2(a) − (1 − a)·log2(1 − a), where a term with a "
        "zero probability counts 0; gini: 2a(1 − a).",
        "gain = C(mean(y > 0)) − Σ over side in (left, ~left) of side.sum()/m · C(mean(y[side] > 0)), "
        "skipping a side that is empty.",
    ],
    solution=("def split_gain(y, left, criterion):\n    def C(a):\n"
              "        if criterion == 'error':\n            return min(a, 1 - a)\n"
              "        if criterion == 'gini':\n            return 2 * a * (1 - a)\n"
              "        return -sum(p * np.log2(p) for p in (a, 1 - a) if p > 0)\n"
              "    gain = C(np.mean(y > 0))\n    for side in (left, ~left):\n"
              "        if side.any():\n"
              "            gain -= side.sum() / len(y) * C(np.mean(y[side] > 0))\n"
              "    return gain\n"),
))


# 08.best_alpha — the minimiser of Z(α), also for a weak learner that may abstain ------------

def best_alpha(w_correct, w_wrong, w_abstain=0.0):
    """Minimiser of Z(α) = w_abstain + w_correct e^{−α} + w_wrong e^{α} and the minimum:
    α* = ½ ln(w_correct / w_wrong), Z* = w_abstain + 2√(w_correct w_wrong). Without
    abstentions (w_correct = 1 − ε, w_wrong = ε) this is AdaBoost's α_t and Z_t."""
    alpha = 0.5 * np.log(w_correct / w_wrong)
    return float(alpha), float(w_abstain + 2.0 * np.sqrt(w_correct * w_wrong))


def _alpha_cases():
    r = np.random.default_rng(86)
    cases = [Case((0.7, 0.3), label="ε = 0.3 (the slides' first round)"),
             Case((19 / 22, 3 / 22), label="ε = 3/22"),
             Case((0.5, 0.5), label="ε = ½: α = 0, Z = 1"),
             Case((0.5, 0.2, 0.3), label="a learner that abstains on 30 % of the mass"),
             Case((0.3, 0.6, 0.1), label="more weight wrong than right: α < 0")]
    for _ in range(3):
        w = r.dirichlet([2.0, 1.0, 1.0])
        cases.append(Case((float(w[0]), float(w[1]), float(w[2]))))
    return cases


register(Exercise(
    id="08.best_alpha", minutes=20, title="why α = ½ ln((1 − ε)/ε): minimise Z(α) (SL AdaBoost proof)",
    reference=best_alpha, cases=_alpha_cases, compare=allclose(),
    hint=[
        "Split Z(α) = Σ_i D_i exp(−α y_i h_i) into three groups: y_i h_i = +1 (weight w_correct), "
        "−1 (w_wrong) and 0 (w_abstain). Z is a convex function of α; set its derivative to 0.",
        "Z'(α) = −w_correct e^{−α} + w_wrong e^{α} = 0 gives e^{2α} = w_correct / w_wrong.",
        "α* = 0.5 * np.log(w_correct / w_wrong); put it back: e^{α*} = √(w_correct/w_wrong), so "
        "Z(α*) = w_abstain + 2√(w_correct · w_wrong). Return (α*, Z(α*)).",
    ],
    solution=("def best_alpha(w_correct, w_wrong, w_abstain=0.0):\n"
              "    alpha = 0.5 * np.log(w_correct / w_wrong)\n"
              "    return alpha, w_abstain + 2 * np.sqrt(w_correct * w_wrong)\n"),
))


# the recap quiz (UML §10.1-10.2, SL boosting and bagging) ---------------------------------

_RECAP = [
    ("In round t, AdaBoost's weak hypothesis has weighted error ε_t = 0.25. By which factor "
     "(before normalising) is the weight of a misclassified point multiplied?",
     ["√3 ≈ 1.73", "3", "1/√3 ≈ 0.58", "0.75"], 0,
     "The factor is e^{α_t} with α_t = ½ ln((1 − ε)/ε) = ½ ln 3, so e^{α_t} = √3; a correct "
     "point is multiplied by 1/√3."),
    ("Right after the update D_t → D_{t+1}, how much of the mass of D_{t+1} sits on the points "
     "that h_t misclassified?",
     ["ε_t", "exactly ½", "1 − ε_t", "it depends on the data"], 1,
     "ε e^{α} / Z = ε√((1−ε)/ε) / (2√(ε(1−ε))) = ½: h_t itself is a coin flip under D_{t+1}, so "
     "the next round must find something new."),
    ("The rounds had edges γ_t = ½ − ε_t. Which statement about the training error of "
     "sign(Σ α_t h_t) is guaranteed?",
     ["it is ≤ Σ_t ε_t", "it decreases every round", "it is ≤ Π_t Z_t ≤ exp(−2 Σ_t γ_t²)",
      "it equals Π_t Z_t"], 2,
     "The bound Π Z_t falls every round (each Z_t < 1), but the training error itself may go "
     "up for a round; it only stays below the bound."),
    ("Bagging a learner helps most when the learner is …",
     ["stable, like least squares on a few features", "unstable, like a fully grown decision tree",
      "already a majority vote", "trained on the whole sample each time"], 1,
     "Averaging many bootstrap versions removes variance; a stable learner has little variance "
     "to remove, so its bagged version looks like the single model."),
    ("About which fraction of the training points is out of bag for one bootstrap sample of "
     "size m (m large)?",
     ["1/m", "about 10 %", "about 37 % (≈ e^{−1})", "about 63 %"], 2,
     "A point is missed by all m draws with probability (1 − 1/m)^m → e^{−1} ≈ 0.368."),
]

for _i, (_prompt, _choices, _answer, _why) in enumerate(_RECAP, 1):
    register_question(Question(id=f"08.q{_i}", prompt=_prompt, choices=tuple(_choices),
                               answer=_answer, explanation=_why))
