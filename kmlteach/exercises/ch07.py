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
