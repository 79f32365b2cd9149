"""Exercises of chapter 07 (bipartite ranking, UML §17.5): counts, F-beta, precision@k."""

from __future__ import annotations

import numpy as np

from .core import Case, Exercise, allclose, exact, register
from .quiz import Question, register_question


def _sample(r, n, pos=0.3):
    y = np.where(r.random(n) < pos, 1.0, -1.0)
    y[0], y[1] = 1.0, -1.0
    return np.round(r.normal(size=n) + 0.8 * y, 2), y


# 07.confusion — (a, b, c, d) of (17.11) ----------------------------------------------------

def confusion_counts(y_score, y_true, theta):
    """(a, b, c, d): true positives, false positives, false negatives, true negatives,
    where item i is predicted positive iff y_score[i] >= theta."""
    pred = np.asarray(y_score) >= theta
    pos = np.asarray(y_true) > 0
    return (int(np.sum(pred & pos)), int(np.sum(pred & ~pos)),
            int(np.sum(~pred & pos)), int(np.sum(~pred & ~pos)))


def _as_tuple(got):
    try:
        return tuple(int(v) for v in got)
    except (TypeError, ValueError):
        return got


def _confusion_cases():
    r = np.random.default_rng(71)
    cases = [Case((np.array([0.9, 0.2, -0.1, -0.8]), np.array([1.0, -1.0, 1.0, -1.0]), 0.0),
                  label="four items, θ = 0"),
             Case((np.array([0.5, 0.0, -0.5]), np.array([1.0, 1.0, -1.0]), 0.0),
                  label="a score equal to θ is predicted positive"),
             Case((np.array([1.0, 2.0, 3.0]), np.array([1.0, -1.0, 1.0]), 10.0), label="θ above every score")]
    for n, theta in ((10, 0.0), (25, 0.5), (40, -0.3)):
        s, y = _sample(r, n)
        cases.append(Case((s, y, theta)))
    return cases


register(Exercise(
    id="07.confusion", title="the confusion counts (a, b, c, d) (UML (17.11))",
    reference=confusion_counts, cases=_confusion_cases, compare=exact(), prepare=_as_tuple,
    minutes=5,
    hint=(
        'Thresholding at θ splits the items into predicted positive (score ≥ θ) and '
        'negative; crossing with the true labels gives the four counts of UML (17.11).',
        'a = true positives, b = false positives (predicted +, truly −), c = false '
        'negatives, d = true negatives. Two boolean arrays are enough.',
        "Build two boolean arrays: pred = y_score >= theta and pos = y_true > 0. Then "
        "a = sum(pred & pos), b = sum(pred & ~pos), c = sum(~pred & pos), d = sum(~pred & ~pos).",
    ),
    solution=("def confusion_counts(y_score, y_true, theta):\n    pred = y_score >= theta\n"
              "    pos = y_true > 0\n    return (int(np.sum(pred & pos)), int(np.sum(pred & ~pos)),\n"
              "            int(np.sum(~pred & pos)), int(np.sum(~pred & ~pos)))\n"),
))


# 07.fbeta — F_beta ------------------------------------------------------------------------

def f_beta(y_score, y_true, theta, beta):
    """F_β = (1 + β²) a / ((1 + β²) a + b + β² c)."""
    a, b, c, _ = confusion_counts(y_score, y_true, theta)
    b2 = beta ** 2
    return (1 + b2) * a / ((1 + b2) * a + b + b2 * c)


def _fbeta_cases():
    r = np.random.default_rng(72)
    cases = [Case((np.array([0.9, 0.2, -0.1, -0.8]), np.array([1.0, -1.0, 1.0, -1.0]), 0.0, 1.0),
                  label="β = 1: F1 of four items"),
             Case((np.array([0.9, 0.8, 0.7, -0.8]), np.array([1.0, -1.0, -1.0, 1.0]), 0.0, 2.0),
                  label="β = 2 weighs recall more"),
             Case((np.array([0.9, 0.8, 0.7, -0.8]), np.array([1.0, -1.0, -1.0, 1.0]), 0.0, 0.5),
                  label="β = 0.5 weighs precision more")]
    for n, theta, beta in ((12, 0.0, 1.0), (30, 0.3, 3.0), (50, -0.2, 0.25)):
        s, y = _sample(r, n)
        cases.append(Case((s, y, theta, beta)))
    return cases


register(Exercise(
    id="07.fbeta", title="the F-beta score (UML §17.5)",
    reference=f_beta, cases=_fbeta_cases, compare=allclose(),
    minutes=6,
    hint=(
        'F_β is a weighted harmonic mean of precision and recall, where 1/recall gets β² '
        'times the weight of 1/precision (UML §17.5).',
        'Write precision and recall in terms of a, b, c and simplify; F_1 = 2a/(2a + b + '
        'c) is the case β = 1.',
        "Reuse your confusion counts. With b2 = beta**2 the score is "
        "(1 + b2)·a / ((1 + b2)·a + b + b2·c); for beta = 1 it is the F1 score 2a/(2a + b + c).",
    ),
    solution=("def f_beta(y_score, y_true, theta, beta):\n"
              "    a, b, c, d = confusion_counts(y_score, y_true, theta)\n    b2 = beta ** 2\n"
              "    return (1 + b2) * a / ((1 + b2) * a + b + b2 * c)\n"),
))


# 07.precision_at_k --------------------------------------------------------------------------

def precision_at_k(y_score, y_true, k):
    """Precision with θ = the k-th largest score (ties with it are predicted positive too)."""
    s = np.asarray(y_score, dtype=float)
    theta = np.sort(s)[::-1][k - 1]
    pred = s >= theta
    return float(np.sum(pred & (np.asarray(y_true) > 0)) / np.sum(pred))


def _patk_cases():
    r = np.random.default_rng(73)
    cases = [Case((np.array([0.9, 0.8, 0.1, -0.3]), np.array([1.0, -1.0, 1.0, -1.0]), 1), label="k = 1"),
             Case((np.array([0.9, 0.8, 0.1, -0.3]), np.array([1.0, -1.0, 1.0, -1.0]), 3), label="k = 3"),
             Case((np.array([0.9, 0.8, 0.8, 0.1]), np.array([1.0, -1.0, 1.0, 1.0]), 2),
                  label="a tie at the k-th score: all tied items count (a + b ≥ k)")]
    for n, k in ((15, 5), (40, 10), (60, 1)):
        s, y = _sample(r, n)
        s = s + 1e-4 * np.arange(n)             # no ties
        cases.append(Case((s, y, k)))
    return cases


register(Exercise(
    id="07.precision_at_k", title="precision at k (UML §17.5)",
    reference=precision_at_k, cases=_patk_cases, compare=allclose(),
    minutes=8,
    hint=(
        'precision@k measures the precision when the threshold admits at least k items: θ'
        ' is the k-th largest score (UML §17.5).',
        'Find that θ, predict positive every item with score ≥ θ (ties with the k-th '
        'score are included, so a + b can exceed k), and return a/(a + b).',
        "Sort the scores in decreasing order and take θ = the k-th of them. Every item with "
        "score ≥ θ is predicted positive (so ties with the k-th score count too: a + b ≥ k). "
        "Return a/(a + b).",
    ),
    solution=("def precision_at_k(y_score, y_true, k):\n    theta = np.sort(y_score)[::-1][k - 1]\n"
              "    pred = y_score >= theta\n    return np.sum(pred & (y_true > 0)) / np.sum(pred)\n"),
))


# Concept checks (predict, then reveal) and the recap quiz --------------------------------

register_question(Question(
    id="07.c_theta", kind="concept",
    prompt="Lower the threshold θ. The recall",
    choices=("never decreases", "never increases", "can go either way"),
    answer=0,
    explanation=("Lowering θ only adds predicted positives: a can only grow while a + c (the "
                 "number of positives) stays fixed."),
))
register_question(Question(
    id="07.c_fraud", kind="concept",
    prompt=("A soft-SVM is trained on 25 000 transactions, 0.1 % of them fraudulent. How many "
            "of the 25 000 test transactions will it flag at threshold 0?"),
    choices=("none", "about 25", "about 250", "thousands"),
    answer=0,
    explanation=("None: on these data the SGD soft-SVM's line ⟨w, (x, 1)⟩ = 0 lies beyond every "
                 "test transaction, so it says 'benign' everywhere — a zero-one loss of about "
                 "0.001 and no fraud caught, as the table below shows."),
))
register_question(Question(
    id="07.q1",
    prompt="a = 6, b = 2, c = 4. What is F₁? (a number)",
    choices=(), answer=2 / 3, tol=1e-3,
    explanation="F₁ = 2a / (2a + b + c) = 12/18 = 0.667.",
))
register_question(Question(
    id="07.q2",
    prompt=("0.1 % of the transactions are fraudulent. What is the zero-one loss of the rule "
            "'everything is benign'? (a number)"),
    choices=(), answer=0.001, tol=1e-6,
    explanation="It is wrong exactly on the frauds: 0.001 — and its recall is 0.",
))
register_question(Question(
    id="07.q3",
    prompt="F_β with β = 2 favours",
    choices=("recall", "precision", "neither"),
    answer=0,
    explanation=("1/F_β is a weighted mean of 1/P and 1/R with 1/R weighted β² = 4 times as "
                 "much: a missed positive costs 4 false alarms."),
))
register_question(Question(
    id="07.q4",
    prompt="precision@k as defined here puts the threshold θ at",
    choices=("0", "the k-th largest score, items tied with it included",
             "the k-th smallest score", "the median score"),
    answer=1,
    explanation="At least k items are predicted positive: a + b ≥ k (UML §17.5).",
))
register_question(Question(
    id="07.q5",
    prompt=("In the fraud demo the precision@10 model flags nothing at θ = 0, yet its "
            "precision@10 equals the F₁ model's. Why?"),
    choices=("precision@k looks only at the k best scores, not at the threshold 0, and the two "
             "models order the transactions almost identically",
             "it learned a better ranking than the F₁ model", "precision@k ignores the labels",
             "a rounding coincidence"),
    answer=0,
    explanation=("Its direction is the F₁ model's to a fraction of a degree; only its bias "
                 "differs, and precision@k does not see the bias."),
))


# 07.fixed_ab — a derivation: the step of "Solving Equation (17.14)" (UML §17.5.1) ---------

def best_labelling(y_score, y_true, a, b):
    """The labelling v ∈ {±1}^r with exactly a positives and b negatives labelled +1 that
    maximises Σ_i v_i·y_score_i: +1 on the a best-scored positives and the b best-scored
    negatives (ties: the smaller index first), −1 elsewhere."""
    mu, y = np.asarray(y_score, dtype=float), np.asarray(y_true)
    pos, neg = np.flatnonzero(y > 0), np.flatnonzero(y < 0)
    pos = pos[np.argsort(-mu[pos], kind="stable")]
    neg = neg[np.argsort(-mu[neg], kind="stable")]
    v = -np.ones(y.shape[0])
    v[pos[:a]] = 1.0
    v[neg[:b]] = 1.0
    return v


def _fixed_ab_cases():
    r = np.random.default_rng(74)
    cases = [Case((np.array([0.9, 0.1, 0.5, -0.2]), np.array([1, -1, -1, 1]), 1, 1),
                  label="a = 1, b = 1"),
             Case((np.array([0.3, 0.3, 0.3]), np.array([1, 1, -1]), 1, 0),
                  label="tied scores: the smaller index first"),
             Case((np.array([1.0, -1.0]), np.array([1, -1]), 0, 0), label="a = b = 0: all −1")]
    for _ in range(4):
        n = int(r.integers(4, 10))
        y = np.where(r.random(n) < 0.4, 1, -1)
        y[0], y[1] = 1, -1
        P, N = int(np.sum(y > 0)), int(np.sum(y < 0))
        cases.append(Case((r.normal(size=n), y, int(r.integers(0, P + 1)),
                           int(r.integers(0, N + 1)))))
    return cases


register(Exercise(
    id="07.fixed_ab", title="derive the maximiser for fixed (a, b) in (17.14) (UML §17.5.1)",
    reference=best_labelling, cases=_fixed_ab_cases, compare=allclose(),
    prepare=lambda got: np.asarray(got, dtype=float),
    minutes=15,
    hint=(
        "With a and b fixed, Δ(v, y) is a constant, so only Σ_i v_i μ_i is left to "
        "maximise. Split the sum into the positives and the negatives of y.",
        "Among the positives exactly a get v_i = +1. Σ v_i μ_i = 2·Σ_{v_i = +1} μ_i − Σ_i μ_i, "
        "so which a positives should they be? The same argument for the b negatives.",
        "pos = np.flatnonzero(y_true > 0) sorted by decreasing score (np.argsort(-s, "
        "kind='stable')), likewise neg; v = -np.ones(r); v[pos[:a]] = 1; v[neg[:b]] = 1.",
    ),
    solution=("def best_labelling(y_score, y_true, a, b):\n"
              "    pos = np.flatnonzero(y_true > 0)\n    neg = np.flatnonzero(y_true < 0)\n"
              "    pos = pos[np.argsort(-y_score[pos], kind='stable')]\n"
              "    neg = neg[np.argsort(-y_score[neg], kind='stable')]\n"
              "    v = -np.ones(len(y_true))\n    v[pos[:a]] = 1.0\n    v[neg[:b]] = 1.0\n"
              "    return v\n"),
))
