"""Exercises of chapter 07 (bipartite ranking, UML §17.5): counts, F-beta, precision@k, and
the bins of a reliability diagram (scores turned into probabilities, Platt 1999).

Only the code of each exercise's record in ``records/ch07.toml`` (see :mod:`.record`): the
reference implementation, the visible cases and any catalogued mistake's wrong implementation.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from .model import Case


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
    return (
        int(np.sum(pred & pos)),
        int(np.sum(pred & ~pos)),
        int(np.sum(~pred & pos)),
        int(np.sum(~pred & ~pos)),
    )


def _confusion_cases():
    r = np.random.default_rng(71)
    cases = [
        Case(
            (np.array([0.9, 0.2, -0.1, -0.8]), np.array([1.0, -1.0, 1.0, -1.0]), 0.0),
            label="four items, θ = 0",
        ),
        Case(
            (np.array([0.5, 0.0, -0.5]), np.array([1.0, 1.0, -1.0]), 0.0),
            label="a score equal to θ is predicted positive",
        ),
        Case((np.array([1.0, 2.0, 3.0]), np.array([1.0, -1.0, 1.0]), 10.0), label="θ above every score"),
    ]
    for n, theta in ((10, 0.0), (25, 0.5), (40, -0.3)):
        s, y = _sample(r, n)
        cases.append(Case((s, y, theta), label=f"{n} random items, θ = {theta}"))
    return cases


# 07.fbeta — F_beta ------------------------------------------------------------------------


def f_beta(y_score, y_true, theta, beta):
    """F_β = (1 + β²) a / ((1 + β²) a + b + β² c)."""
    a, b, c, _ = confusion_counts(y_score, y_true, theta)
    b2 = beta**2
    return (1 + b2) * a / ((1 + b2) * a + b + b2 * c)


def _fbeta_cases():
    r = np.random.default_rng(72)
    cases = [
        Case(
            (np.array([0.9, 0.2, -0.1, -0.8]), np.array([1.0, -1.0, 1.0, -1.0]), 0.0, 1.0),
            label="β = 1: F1 of four items",
        ),
        Case(
            (np.array([0.9, 0.8, 0.7, -0.8]), np.array([1.0, -1.0, -1.0, 1.0]), 0.0, 2.0),
            label="β = 2 weighs recall more",
        ),
        Case(
            (np.array([0.9, 0.8, 0.7, -0.8]), np.array([1.0, -1.0, -1.0, 1.0]), 0.0, 0.5),
            label="β = 0.5 weighs precision more",
        ),
    ]
    for n, theta, beta in ((12, 0.0, 1.0), (30, 0.3, 3.0), (50, -0.2, 0.25)):
        s, y = _sample(r, n)
        cases.append(Case((s, y, theta, beta), label=f"{n} random items, θ = {theta}, β = {beta}"))
    return cases


# 07.precision_at_k --------------------------------------------------------------------------


def precision_at_k(y_score, y_true, k):
    """Precision with θ = the k-th largest score (ties with it are predicted positive too)."""
    s = np.asarray(y_score, dtype=float)
    theta = np.sort(s)[::-1][k - 1]
    pred = s >= theta
    return float(np.sum(pred & (np.asarray(y_true) > 0)) / np.sum(pred))


def _patk_cases():
    r = np.random.default_rng(73)
    cases = [
        Case((np.array([0.9, 0.8, 0.1, -0.3]), np.array([1.0, -1.0, 1.0, -1.0]), 1), label="k = 1"),
        Case((np.array([0.9, 0.8, 0.1, -0.3]), np.array([1.0, -1.0, 1.0, -1.0]), 3), label="k = 3"),
        Case(
            (np.array([0.9, 0.8, 0.8, 0.1]), np.array([1.0, -1.0, 1.0, 1.0]), 2),
            label="a tie at the k-th score: all tied items count (a + b ≥ k)",
        ),
    ]
    for n, k in ((15, 5), (40, 10), (60, 1)):
        s, y = _sample(r, n)
        s = s + 1e-4 * np.arange(n)  # no ties
        cases.append(Case((s, y, k), label=f"{n} random items without ties, k = {k}"))
    return cases


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
    cases = [
        Case((np.array([0.9, 0.1, 0.5, -0.2]), np.array([1, -1, -1, 1]), 1, 1), label="a = 1, b = 1"),
        Case(
            (np.array([0.3, 0.3, 0.3]), np.array([1, 1, -1]), 1, 0),
            label="tied scores: the smaller index first",
        ),
        Case((np.array([1.0, -1.0]), np.array([1, -1]), 0, 0), label="a = b = 0: all −1"),
    ]
    for _ in range(4):
        n = int(r.integers(4, 10))
        y = np.where(r.random(n) < 0.4, 1, -1)
        y[0], y[1] = 1, -1
        P, N = int(np.sum(y > 0)), int(np.sum(y < 0))
        s, a, b = r.normal(size=n), int(r.integers(0, P + 1)), int(r.integers(0, N + 1))
        cases.append(Case((s, y, a, b), label=f"{n} random items ({P} positive), a = {a}, b = {b}"))
    return cases


# 07.reliability — the points of a reliability diagram ------------------------------------


def _bin_of(p, n_bins):
    """Bin index of each probability: [0, 1] cut into n_bins equal bins, a probability on an
    inner edge in the lower bin (0 and the first edge in bin 0, 1 in the last bin)."""
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    return np.searchsorted(edges[1:-1], p, side="left")


def reliability_bins(y_prob, y_true, n_bins):
    """(prob_true, prob_pred, counts) of the non-empty bins, in bin order: the fraction of
    positives, the mean predicted probability and the number of items in each."""
    p = np.asarray(y_prob, dtype=float)
    pos = np.asarray(y_true) > 0
    b = _bin_of(p, int(n_bins))
    counts = np.bincount(b, minlength=int(n_bins))
    full = counts > 0
    n = counts[full]
    frac = np.bincount(b, weights=pos.astype(float), minlength=int(n_bins))[full] / n
    mean = np.bincount(b, weights=p, minlength=int(n_bins))[full] / n
    return frac, mean, n


def _reliability_cases():
    r = np.random.default_rng(75)
    cases = [
        Case(
            (np.array([0.1, 0.4, 0.6, 0.9]), np.array([-1, 1, 1, 1]), 2),
            label="two bins, two items each",
        ),
        Case(
            (np.array([0.25, 0.5, 0.75, 0.1, 1.0, 0.0, 0.6]), np.array([1, -1, 1, -1, 1, -1, -1]), 4),
            label="probabilities on the edges 0.25, 0.5, 0.75 (lower bin), 0 and 1",
        ),
        Case(
            (np.array([0.05, 0.15, 0.92, 0.97, 0.85]), np.array([-1, -1, 1, 1, -1]), 5),
            label="empty bins in the middle are left out",
        ),
        Case((np.array([0.3, 0.7, 0.2]), np.array([1, -1, -1]), 1), label="one bin: every item"),
    ]
    for n, n_bins in ((40, 10), (80, 8)):
        p = np.round(r.beta(1.5, 3.0, size=n), 3)
        p = np.where(np.isclose((p * n_bins) % 1.0, 0.0), p + 0.001, p)  # no item on an edge
        y = np.where(r.random(n) < p, 1, -1)
        cases.append(Case((p, y, n_bins), label=f"{n} random probabilities, {n_bins} bins"))
    return cases


# Catalogued mistakes (wrong implementations the records' ``mistakes`` name) -------------


def _confusion_swapped_bc(y_score, y_true, theta):
    a, b, c, d = confusion_counts(y_score, y_true, theta)
    return a, c, b, d


def _confusion_strict(y_score, y_true, theta):
    s = np.asarray(y_score, dtype=float)
    return confusion_counts(np.where(s == theta, -np.inf, s), y_true, theta)


def _confusion_theta_zero(y_score, y_true, theta):
    return confusion_counts(y_score, y_true, 0.0)


def _fbeta_swapped_bc(y_score, y_true, theta, beta):
    a, b, c, _ = confusion_counts(y_score, y_true, theta)
    b2 = beta**2
    return (1 + b2) * a / ((1 + b2) * a + b2 * b + c)


def _fbeta_beta_not_squared(y_score, y_true, theta, beta):
    return f_beta(y_score, y_true, theta, np.sqrt(beta))


def _fbeta_f1(y_score, y_true, theta, beta):
    return f_beta(y_score, y_true, theta, 1.0)


def _patk_exactly_k(y_score, y_true, k):
    top = np.argsort(-np.asarray(y_score, dtype=float), kind="stable")[:k]
    return float(np.sum(np.asarray(y_true)[top] > 0) / k)


def _patk_recall(y_score, y_true, k):
    s, pos = np.asarray(y_score, dtype=float), np.asarray(y_true) > 0
    pred = s >= np.sort(s)[::-1][k - 1]
    return float(np.sum(pred & pos) / np.sum(pos))


def _patk_off_by_one(y_score, y_true, k):
    return precision_at_k(y_score, y_true, min(k + 1, len(y_score)))


def _patk_strict(y_score, y_true, k):
    s = np.asarray(y_score, dtype=float)
    pred = s > np.sort(s)[::-1][k - 1]
    with np.errstate(invalid="ignore"):  # k = 1: nothing above the top score, 0/0 as a student gets
        return float(np.sum(pred & (np.asarray(y_true) > 0)) / np.sum(pred))


def _labelling(y_score, y_true, a, b, *, worst_negatives=False, ties_last=False, zero=False, overall=False):
    mu, y = np.asarray(y_score, dtype=float), np.asarray(y_true)
    v = (np.zeros if zero else lambda n: -np.ones(n))(y.shape[0])
    if overall:
        v[np.argsort(-mu, kind="stable")[: a + b]] = 1.0
        return v

    def order(idx, sign):
        if ties_last:
            return idx[np.argsort(sign * mu[idx], kind="stable")[::-1]]
        return idx[np.argsort(-sign * mu[idx], kind="stable")]

    v[order(np.flatnonzero(y > 0), 1.0)[:a]] = 1.0
    v[order(np.flatnonzero(y < 0), -1.0 if worst_negatives else 1.0)[:b]] = 1.0
    return v


_fixed_ab_overall = partial(_labelling, overall=True)
_fixed_ab_worst_negatives = partial(_labelling, worst_negatives=True)
_fixed_ab_ties_last = partial(_labelling, ties_last=True)
_fixed_ab_zero_one = partial(_labelling, zero=True)


def _reliability_mean_labels(y_prob, y_true, n_bins):
    p = np.asarray(y_prob, dtype=float)
    b = _bin_of(p, int(n_bins))
    _, mean, n = reliability_bins(y_prob, y_true, n_bins)
    full = np.bincount(b, minlength=int(n_bins)) > 0
    labels = np.bincount(b, weights=np.asarray(y_true, dtype=float), minlength=int(n_bins))[full] / n
    return labels, mean, n


def _reliability_keep_empty(y_prob, y_true, n_bins):
    p = np.asarray(y_prob, dtype=float)
    b = _bin_of(p, int(n_bins))
    counts = np.bincount(b, minlength=int(n_bins))
    safe = np.maximum(counts, 1)
    pos = (np.asarray(y_true) > 0).astype(float)
    return (
        np.bincount(b, weights=pos, minlength=int(n_bins)) / safe,
        np.bincount(b, weights=p, minlength=int(n_bins)) / safe,
        counts,
    )


def _reliability_upper_edge(y_prob, y_true, n_bins):
    p = np.asarray(y_prob, dtype=float)
    n_bins = int(n_bins)
    b = np.minimum(np.floor(p * n_bins).astype(int), n_bins - 1)
    counts = np.bincount(b, minlength=n_bins)
    full = counts > 0
    pos = (np.asarray(y_true) > 0).astype(float)
    return (
        np.bincount(b, weights=pos, minlength=n_bins)[full] / counts[full],
        np.bincount(b, weights=p, minlength=n_bins)[full] / counts[full],
        counts[full],
    )
