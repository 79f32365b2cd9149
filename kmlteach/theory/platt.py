"""From scores to probabilities: Platt scaling (Platt 1999; Lin, Lin & Weng 2007).

A large-margin classifier outputs a score f(x) whose sign is the prediction; its size is not
a probability. Platt fits a sigmoid to held-out scores,

    P(y = +1 | f) = 1 / (1 + exp(A f + B))          (A < 0 when larger scores mean +1),

by maximum likelihood, with one change that keeps (A, B) finite even when the scores separate
the classes: the targets are not the labels 1 and 0 but

    t₊ = (N₊ + 1) / (N₊ + 2)   for a positive,    t₋ = 1 / (N₋ + 2)   for a negative,

(N₊, N₋ the numbers of positives and negatives: a Bayesian prior of one pseudo-example of each
class, Platt 1999 §2.2). The objective, with p_i = 1/(1 + exp(A f_i + B)),

    F(A, B) = − Σ_i [t_i log p_i + (1 − t_i) log(1 − p_i)],

is convex; we minimise it by Newton's method with a backtracking line search, the algorithm
Lin, Lin & Weng (2007) give as a corrected version of Platt's pseudo-code (every log(1 + e^u)
evaluated without overflow), to a gradient at rounding level. scikit-learn's sigmoid
calibration (``CalibratedClassifierCV(method="sigmoid")``) minimises the same F with L-BFGS.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from kmlteach._validation import as_vector, check_binary_labels, check_int

__all__ = ["PlattScaling", "platt_scaling"]


class PlattScaling(NamedTuple):
    """(A, B) of Platt's sigmoid P(y = +1 | f) = 1/(1 + exp(A f + B)); unpacks as a pair."""

    A: float
    B: float

    def probability(self, scores) -> np.ndarray:
        """P(y = +1 | f) = 1/(1 + exp(A f + B)) for each score f (computed without overflow)."""
        f = as_vector(scores, "scores", min_length=0)
        u = self.A * f + self.B
        e = np.exp(-np.abs(u))
        return np.where(u >= 0, e / (1.0 + e), 1.0 / (1.0 + e))


def _objective(f, t, A, B):
    """F(A, B) = Σ log(1 + e^u) − (1 − t) u with u = A f + B; log(1 + e^u) = max(u, 0) +
    log(1 + e^{−|u|}) never overflows."""
    u = A * f + B
    return float(np.sum(np.maximum(u, 0.0) + np.log1p(np.exp(-np.abs(u))) - (1.0 - t) * u))


def platt_scaling(scores, y, max_iter=200) -> PlattScaling:
    """Fit Platt's sigmoid P(y = +1 | f) = 1/(1 + exp(A f + B)) to scores and labels ±1.

    Maximum likelihood with Platt's targets (N₊ + 1)/(N₊ + 2) for the positives and
    1/(N₋ + 2) for the negatives (Platt 1999), by Newton's method with backtracking (Lin, Lin &
    Weng 2007), started at A = 0, B = log((N₋ + 1)/(N₊ + 1)). Equal to scikit-learn's sigmoid
    calibration (``sklearn.calibration._sigmoid_calibration``) to about 1e-6.

    Fit it on scores the classifier did **not** train on (a validation split or
    cross-validation): on its own training points an SVM's scores are too confident.

    Parameters
    ----------
    scores : array of shape (n,)
        Real-valued scores f(x_i), e.g. an SVM's ``decision_function``; not all equal.
    y : array of shape (n,)
        Labels in {-1, +1}, both present.
    max_iter : int, default=200
        Newton steps at most (about 10 are needed).

    Returns
    -------
    PlattScaling
        The pair ``(A, B)`` (unpack it: ``A, B = platt_scaling(scores, y)``), with
        ``.probability(f)`` for new scores. A < 0 when larger scores go with +1.

    Examples
    --------
    >>> import numpy as np
    >>> from kmlteach.theory import platt_scaling
    >>> scores = np.array([-2.0, -1.2, -0.4, 0.1, 0.3, 0.9, 1.5, 2.2])
    >>> y = np.array([-1, -1, 1, -1, 1, -1, 1, 1])
    >>> A, B = platt_scaling(scores, y)
    >>> print(f"A = {A:.3f}, B = {B:.3f}")
    A = -0.646, B = 0.118
    >>> np.round(platt_scaling(scores, y).probability([-1.0, 0.0, 1.0]), 3)
    array([0.318, 0.471, 0.629])
    """
    f = as_vector(scores, "scores")
    yy = check_binary_labels(y, "y", n=f.shape[0], of="one per entry of scores")
    max_iter = check_int(max_iter, "max_iter")
    # the scores scaled to max |f| = 1 (Newton is invariant under it; the tolerances are not)
    s = float(np.max(np.abs(f)))
    g = f / s if s > 0 else f
    if np.ptp(g) == 0.0:
        raise ValueError(
            "scores must not all be equal: P(y = +1 | f) would depend on A f + B only, and A is not determined"
        )
    pos = yy > 0
    n_pos = float(np.count_nonzero(pos))
    n_neg = float(f.shape[0]) - n_pos
    t = np.where(pos, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0))
    A, B = 0.0, float(np.log((n_neg + 1.0) / (n_pos + 1.0)))
    F = _objective(g, t, A, B)
    n = float(f.shape[0])
    for _ in range(int(max_iter)):
        u = A * g + B
        e = np.exp(-np.abs(u))
        p = np.where(u >= 0, e / (1.0 + e), 1.0 / (1.0 + e))  # P(y = +1)
        q = np.where(u >= 0, 1.0 / (1.0 + e), e / (1.0 + e))  # P(y = -1) = 1 - p, without cancellation
        d1 = t - p  # dF/du = t - p
        g1, g2 = float(g @ d1), float(d1.sum())
        if max(abs(g1), abs(g2)) <= 1e-13 * n:
            break
        d2 = p * q
        h11, h22, h21 = float(g * g @ d2) + 1e-12, float(d2.sum()) + 1e-12, float(g @ d2)
        det = h11 * h22 - h21 * h21
        dA = -(h22 * g1 - h21 * g2) / det
        dB = -(-h21 * g1 + h11 * g2) / det
        slope = g1 * dA + g2 * dB
        step = 1.0
        while step >= 1e-12:
            A2, B2 = A + step * dA, B + step * dB
            F2 = _objective(g, t, A2, B2)
            if F2 <= F + 1e-4 * step * slope:
                break
            step /= 2.0
        else:  # no decrease along the Newton direction: at the minimum to rounding
            break
        A, B, F = A2, B2, F2
    return PlattScaling(A / s, B)
