"""Bipartite performance measures: confusion counts, precision/recall family, curves.

UML §17.5. Labels are y ∈ {−1, +1}^r and predictions are real scores y'. A threshold θ
turns scores into labels: **item i is predicted positive iff y'_i ≥ θ** (scikit-learn's
convention for its curves; the book writes sign(y'_i − θ) and leaves sign(0) open).
The four counts of (17.11) are

    a = true positives, b = false positives, c = false negatives, d = true negatives.

0/0 cases (documented per function) follow scikit-learn's default: a ratio with a
zero denominator is ``zero_division`` (default 0.0); AUC and average precision need
both classes and raise otherwise.

Tie rule for the top-k measures. Precision@k must predict **at least** k positives
(UML: a + b ≥ k): θ is the k-th largest score, so every item tied with it is
predicted positive. Recall@k may predict **at most** k positives (a + b ≤ k): if the
items tied with the k-th largest score do not all fit, the whole tied group is
predicted negative.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from kmlteach._validation import check_scores

from ._jit import jit
from ._validation import _check_real_scalar, check_int, check_positive

__all__ = [
    "ConfusionCounts",
    "confusion_counts",
    "precision",
    "recall",
    "specificity",
    "balanced_accuracy",
    "f_beta",
    "f1",
    "zero_one_loss",
    "precision_at_k",
    "recall_at_k",
    "precision_recall_curve",
    "roc_curve",
    "average_precision",
    "auc",
    "PRCurve",
    "ROCCurve",
    "reliability_curve",
    "ReliabilityCurve",
]


class ConfusionCounts(NamedTuple):
    """(a, b, c, d) of UML (17.11): true/false positives, false/true negatives."""

    a: int
    b: int
    c: int
    d: int


class PRCurve(NamedTuple):
    """Points of the precision/recall curve, one per distinct score threshold (UML §17.5)."""

    precision: np.ndarray
    recall: np.ndarray
    thresholds: np.ndarray


class ROCCurve(NamedTuple):
    """Points of the ROC curve: false and true positive rates per distinct threshold.

    Source: UML §17.5.
    """

    fpr: np.ndarray
    tpr: np.ndarray
    thresholds: np.ndarray


def _theta(theta) -> float:
    return _check_real_scalar(theta, "theta")


def _zd(zero_division) -> float:
    v = _check_real_scalar(zero_division, "zero_division")
    if not 0.0 <= v <= 1.0:
        raise ValueError(f"zero_division must lie in [0, 1], got {zero_division!r}")
    return v


def _counts(y_score, y_true, theta) -> ConfusionCounts:
    pred = y_score >= theta
    pos = y_true > 0
    a = int(np.count_nonzero(pred & pos))
    b = int(np.count_nonzero(pred & ~pos))
    c = int(np.count_nonzero(~pred & pos))
    return ConfusionCounts(a, b, c, y_true.shape[0] - a - b - c)


def confusion_counts(y_score, y_true, theta: float = 0.0) -> ConfusionCounts:
    """The counts (a, b, c, d) of UML (17.11); item i is predicted positive iff y_score_i ≥ θ.

    Examples
    --------
    >>> confusion_counts([0.9, 0.2, -0.1, -0.8], [1, -1, 1, -1])
    ConfusionCounts(a=1, b=1, c=1, d=1)
    """
    y_score, y_true = check_scores(y_score, y_true)
    return _counts(y_score, y_true, _theta(theta))


def _ratio(num, den, zero_division) -> float:
    return float(zero_division) if den == 0 else num / den


def precision(y_score, y_true, theta: float = 0.0, zero_division: float = 0.0) -> float:
    """a/(a+b): the fraction of predicted positives that are positive.

    With no predicted positive (a + b = 0) returns ``zero_division`` (default 0.0,
    scikit-learn's ``precision_score`` default).
    """
    a, b, _, _ = confusion_counts(y_score, y_true, theta)
    return _ratio(a, a + b, _zd(zero_division))


def recall(y_score, y_true, theta: float = 0.0, zero_division: float = 0.0) -> float:
    """a/(a+c) (sensitivity); ``zero_division`` when y_true has no positive.

    Source: UML §17.5, Eq. (17.11).
    """
    a, _, c, _ = confusion_counts(y_score, y_true, theta)
    return _ratio(a, a + c, _zd(zero_division))


def specificity(y_score, y_true, theta: float = 0.0, zero_division: float = 0.0) -> float:
    """d/(d+b); ``zero_division`` when y_true has no negative. Source: UML §17.5, Eq. (17.11)."""
    _, b, _, d = confusion_counts(y_score, y_true, theta)
    return _ratio(d, d + b, _zd(zero_division))


def balanced_accuracy(y_score, y_true, theta: float = 0.0) -> float:
    """½(a/(a+c) + d/(d+b)), the average of sensitivity and specificity (UML §17.5).

    Needs both classes in y_true (else ValueError): like scikit-learn's
    ``balanced_accuracy_score`` it is undefined with one class.
    """
    y_score, y_true = check_scores(y_score, y_true, require_both=True)
    a, b, c, d = _counts(y_score, y_true, _theta(theta))
    return 0.5 * (a / (a + c) + d / (d + b))


def f_beta(y_score, y_true, theta: float = 0.0, beta: float = 1.0, zero_division: float = 0.0) -> float:
    """F_β = (1+β²)a / ((1+β²)a + b + β²c) (UML §17.5); β² weighs recall vs precision.

    When (1+β²)a + b + β²c = 0 (no positive in y_true and none predicted) returns
    ``zero_division`` (default 0.0, as scikit-learn's ``fbeta_score``).
    """
    beta = check_positive(beta, "beta")
    a, b, c, _ = confusion_counts(y_score, y_true, theta)
    if beta <= 1.0:
        b2 = beta * beta
        return _ratio((1 + b2) * a, (1 + b2) * a + b + b2 * c, _zd(zero_division))
    # divide through by β² (β² may overflow): (1/β² + 1)a / ((1/β² + 1)a + b/β² + c)
    ib2 = (1.0 / beta) ** 2
    return _ratio((ib2 + 1) * a, (ib2 + 1) * a + ib2 * b + c, _zd(zero_division))


def f1(y_score, y_true, theta: float = 0.0, zero_division: float = 0.0) -> float:
    """F₁ = 2a/(2a+b+c), the harmonic mean of precision and recall. Source: UML §17.5."""
    return f_beta(y_score, y_true, theta, 1.0, zero_division)


def zero_one_loss(y_score, y_true, theta: float = 0.0) -> float:
    """The average zero-one loss (b + c)/(a + b + c + d).

    (UML §17.5 prints (b + d)/(a + b + c + d); the errors are the false positives b
    and the false negatives c, so the numerator is b + c.)
    """
    a, b, c, d = confusion_counts(y_score, y_true, theta)
    return (b + c) / (a + b + c + d)


def _kth_largest(y_score, k):
    return np.partition(y_score, y_score.shape[0] - k)[y_score.shape[0] - k]


def precision_at_k(y_score, y_true, k: int) -> float:
    """Precision when at least k items are predicted positive (UML §17.5).

    θ = the k-th largest score, so a + b ≥ k (ties at the k-th score are all
    predicted positive) and the value is a/(a+b).
    """
    y_score, y_true = check_scores(y_score, y_true)
    k = check_int(k, "k", minimum=1, maximum=y_true.shape[0])
    a, b, _, _ = _counts(y_score, y_true, _kth_largest(y_score, k))
    return a / (a + b)


def recall_at_k(y_score, y_true, k: int, zero_division: float = 0.0) -> float:
    """Recall when at most k items are predicted positive (UML §17.5).

    The items scoring above the k-th largest score are predicted positive, and the
    ones tied with it too if they all fit (a + b ≤ k). ``zero_division`` when y_true
    has no positive.
    """
    y_score, y_true = check_scores(y_score, y_true)
    k = check_int(k, "k", minimum=1, maximum=y_true.shape[0])
    zd = _zd(zero_division)
    s = _kth_largest(y_score, k)
    if np.count_nonzero(y_score >= s) <= k:
        pred = y_score >= s
    else:
        pred = y_score > s
    a = int(np.count_nonzero(pred & (y_true > 0)))
    return _ratio(a, int(np.count_nonzero(y_true > 0)), zd)


# ----------------------------------------------------------------------------------
# Curves: one pass over the scores sorted in decreasing order
# ----------------------------------------------------------------------------------


@jit(warmup=lambda: (np.array([0.9, 0.5, 0.5, 0.1]), np.array([1.0, -1.0, 1.0, -1.0])))
def _curve_kernel(s, y):
    """For scores s sorted decreasingly with labels y: at each distinct score (the
    threshold θ = s), the counts tp = a and fp = b of the items with score ≥ θ."""
    n = s.shape[0]
    tps = np.empty(n, np.int64)
    fps = np.empty(n, np.int64)
    thr = np.empty(n)
    m = 0
    tp = 0
    fp = 0
    for i in range(n):
        if y[i] > 0:
            tp += 1
        else:
            fp += 1
        if i == n - 1 or s[i + 1] != s[i]:
            tps[m] = tp
            fps[m] = fp
            thr[m] = s[i]
            m += 1
    return tps[:m], fps[:m], thr[:m]


def _curve(y_score, y_true):
    order = np.argsort(-y_score, kind="stable")
    return _curve_kernel(np.ascontiguousarray(y_score[order]), np.ascontiguousarray(y_true[order]))


def _pr_points(y_score, y_true, undefined: str):
    """Precision, recall and threshold at each distinct score, highest threshold first."""
    y_score, y_true = check_scores(y_score, y_true)
    if not np.any(y_true > 0):
        raise ValueError(f"y_true has no positive label: {undefined}")
    tps, fps, thr = _curve(y_score, y_true)
    return tps / (tps + fps), tps / tps[-1], thr


def precision_recall_curve(y_score, y_true) -> PRCurve:
    """Precision and recall at every distinct threshold (the PR curve, UML §17.5).

    Returns ``(precision, recall, thresholds)`` as scikit-learn's
    ``precision_recall_curve`` (``drop_intermediate=False``): thresholds are the
    distinct scores in increasing order, and a last point (precision 1, recall 0)
    without threshold is appended. y_true needs at least one positive.
    """
    prec, rec, thr = _pr_points(y_score, y_true, "the recall is 0/0 at every threshold")
    return PRCurve(np.r_[prec[::-1], 1.0], np.r_[rec[::-1], 0.0], thr[::-1].copy())


def roc_curve(y_score, y_true) -> ROCCurve:
    """False- and true-positive rates at every distinct threshold (the ROC curve).

    Returns ``(fpr, tpr, thresholds)`` as scikit-learn's ``roc_curve`` with
    ``drop_intermediate=False``: thresholds decrease, starting at +inf (nothing
    predicted positive, the point (0, 0)). fpr = b/(b+d) = 1 − specificity,
    tpr = a/(a+c) = recall. Needs both classes.
    """
    y_score, y_true = check_scores(y_score, y_true, require_both=True)
    tps, fps, thr = _curve(y_score, y_true)
    return ROCCurve(np.r_[0.0, fps / fps[-1]], np.r_[0.0, tps / tps[-1]], np.r_[np.inf, thr])


def average_precision(y_score, y_true) -> float:
    """AP = Σ_n (R_n − R_{n−1}) P_n over the distinct thresholds (tied scores grouped).

    scikit-learn's ``average_precision_score`` definition (no interpolation): the
    precision at each threshold weighted by the recall it adds (UML §17.5's precision
    and recall (17.11) at every threshold). Needs a positive.

    Only thresholds equal to a positive's score add recall, so we sort the positive and
    the negative scores separately (no argsort of the whole sample): at the k-th
    distinct positive score v_k (descending), a_k positives and b_k = #{negatives ≥ v_k}
    (a binary search) are predicted positive, and AP = Σ_k (a_k − a_{k−1})/P · a_k/(a_k + b_k).
    """
    y_score, y_true = check_scores(y_score, y_true)
    pos_mask = y_true > 0
    if not np.any(pos_mask):
        raise ValueError("y_true has no positive label: average precision is undefined")
    pos = np.sort(y_score[pos_mask])[::-1]
    neg = np.sort(y_score[~pos_mask])
    last = np.r_[pos[1:] != pos[:-1], True]  # last position of each tied run
    a = np.flatnonzero(last) + 1.0  # positives >= v_k
    v = pos[last]
    b = neg.size - np.searchsorted(neg, v, side="left")  # negatives >= v_k
    return float(np.sum(np.diff(np.r_[0.0, a]) * (a / (a + b))) / pos.size)


def auc(y_score, y_true) -> float:
    """Area under the ROC curve = P(score of a random positive > that of a random
    negative) + ½ P(tie) (the Mann–Whitney statistic; scikit-learn's
    ``roc_auc_score``; the ROC curve of UML §17.5's confusion counts). Needs both classes.

    Computed from the sorted negative scores: each positive counts the negatives
    strictly below it plus half of those tied with it (two binary searches).
    """
    y_score, y_true = check_scores(y_score, y_true, require_both=True)
    pos_mask = y_true > 0
    pos = y_score[pos_mask]
    neg = np.sort(y_score[~pos_mask])
    lo = np.searchsorted(neg, pos, side="left")
    hi = np.searchsorted(neg, pos, side="right")
    return float(
        (np.sum(lo, dtype=np.float64) + 0.5 * np.sum(hi - lo, dtype=np.float64)) / (pos.size * neg.size)
    )


class ReliabilityCurve(NamedTuple):
    """Points of a reliability diagram, one per non-empty bin (see :func:`reliability_curve`);
    the first two fields are those of scikit-learn's ``calibration_curve``."""

    prob_true: np.ndarray
    prob_pred: np.ndarray
    counts: np.ndarray


def reliability_curve(y_prob, y_true, n_bins: int = 10) -> ReliabilityCurve:
    """The points of a reliability diagram: predicted probability against observed frequency.

    [0, 1] is cut into ``n_bins`` equal bins; for each bin that holds a prediction,
    ``prob_pred`` is the mean predicted probability of its items, ``prob_true`` the fraction of
    them that are positive and ``counts`` how many there are. A calibrated predictor (e.g. SVM
    scores through :func:`kmlteach.theory.platt_scaling`) has its points near the diagonal
    prob_true = prob_pred. A probability equal to an inner bin edge goes to the lower bin, and
    empty bins are left out: the first two fields equal scikit-learn's
    ``calibration_curve(y_true, y_prob, n_bins=n_bins)`` (strategy "uniform").

    Parameters
    ----------
    y_prob : array of shape (n,), predicted probabilities P(y = +1) in [0, 1]
    y_true : array of shape (n,), labels in {-1, +1}
    n_bins : int >= 1, default=10

    Returns
    -------
    ReliabilityCurve
        ``(prob_true, prob_pred, counts)``, each of shape (number of non-empty bins,).

    Examples
    --------
    >>> reliability_curve([0.1, 0.2, 0.8, 0.9], [-1, 1, 1, 1], n_bins=2)
    ReliabilityCurve(prob_true=array([0.5, 1. ]), prob_pred=array([0.15, 0.85]), counts=array([2, 2]))
    """
    y_prob, y_true = check_scores(y_prob, y_true, name="y_prob")
    if np.any(y_prob < 0.0) or np.any(y_prob > 1.0):
        raise ValueError(
            f"y_prob must hold probabilities in [0, 1], got values from {y_prob.min():.3g} to {y_prob.max():.3g}"
        )
    n_bins = check_int(n_bins, "n_bins", minimum=1, maximum=1_000_000)
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    bins = np.searchsorted(edges[1:-1], y_prob)
    total = np.bincount(bins, minlength=n_bins)
    sums = np.bincount(bins, weights=y_prob, minlength=n_bins)
    hits = np.bincount(bins, weights=(y_true > 0).astype(np.float64), minlength=n_bins)
    keep = total > 0
    return ReliabilityCurve(hits[keep] / total[keep], sums[keep] / total[keep], total[keep])


def __dir__():
    return sorted(__all__)
