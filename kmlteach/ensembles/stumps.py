"""Decision stumps as exact weighted ERM (SL, the weak learner of AdaBoost; UML §10.1.1).

A stump looks at one coordinate: h_{j,θ,s}(x) = s if x_j ≤ θ else −s, s ∈ {±1}.
Only the order of the values matters, so the weighted error of every threshold of
feature j can be read off one sweep over the points sorted by x_j, with running sums of
the weights of the positive and the negative points on the left (UML §10.1.1 describes
the same sweep for s = +1). With a presorted order the sweep costs O(d·m); sorting
adds O(d·m log m) once (AdaBoost reuses one presort in every round).

Thresholds: the midpoints between consecutive *distinct* values (equal values always land
on the same side) and θ = +inf, which puts every point on the left: the two constant
stumps h ≡ s (the same predictors as a threshold below the minimum with the sign flipped).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kmlteach._jit import jit
from kmlteach._validation import check_binary_labels, check_distribution, check_X

__all__ = ["Stump", "decision_stump", "presort"]

# Two candidate errors closer than this (relative to the total weight) count as equal,
# so that rounding in the running sums never decides between two exact ties: the first
# candidate in the scan order (constants; feature, threshold low to high, s = +1 first) wins.
_TIE = 1e-12


@dataclass(frozen=True)
class Stump:
    """A decision stump h(x) = sign if x[feature] ≤ threshold else −sign.

    Attributes
    ----------
    feature : int
        The coordinate j the stump looks at (0-based).
    threshold : float
        θ; ``+inf`` for a constant stump (predicts ``sign`` everywhere).
    sign : float
        s ∈ {+1, −1}: the label on the side x_j ≤ θ.
    error : float
        Σ_i D_i 1[h(x_i) ≠ y_i] on the training data (the minimum over all stumps).

    Source: SL boosting (decision stumps), UML §10.1.1.
    """

    feature: int
    threshold: float
    sign: float
    error: float

    def predict(self, X) -> np.ndarray:
        """±1 predictions (float) for the rows of ``X``."""
        X = check_X(X, "X", min_cols=self.feature + 1, bounded=False)
        return np.where(X[:, self.feature] <= self.threshold, self.sign, -self.sign)


def presort(X) -> np.ndarray:
    """The (d, m) int64 array whose row j sorts the points by feature j (stable).

    Source: SL boosting (the stump search over sorted features).
    """
    X = check_X(X, bounded=False)
    return np.ascontiguousarray(np.argsort(X, axis=0, kind="stable").T, dtype=np.int64)


def decision_stump(X, y, D=None) -> Stump:
    """Exact weighted ERM over decision stumps (SL AdaBoost slides; UML §10.1.1).

    Minimises Σ_i D_i 1[h(x_i) ≠ y_i] over every feature j, every threshold θ and both
    signs s of h(x) = s if x_j ≤ θ else −s.

    Parameters
    ----------
    X : array (m, d)
    y : array (m,) of labels in {−1, +1}, both present
    D : array (m,) of non-negative weights, optional
        Uniform 1/m when omitted. Not renormalised: ``error`` is Σ D_i over the mistakes.

    Returns
    -------
    Stump
        ``.feature``, ``.threshold`` (a midpoint between two consecutive distinct
        values of the feature, or +inf for the constant stump h ≡ sign), ``.sign``, ``.error``
        and ``.predict(X)``. Exact ties go to the first candidate in the order (the
        constants, then feature, threshold low to high, s = +1 before −1).

    Notes
    -----
    O(d·m log m): each feature is sorted once and swept once (see :func:`presort`).
    """
    X = check_X(X, bounded=False)
    y = check_binary_labels(y, "y", n=X.shape[0], of="one per row of X")
    D = check_distribution(D, X.shape[0])
    order = presort(X)
    return _stump_from_order(X, order, sorted_values(X, order), y, D)


def sorted_values(X: np.ndarray, order: np.ndarray) -> np.ndarray:
    """(d, m) array whose row j is feature j sorted: X[order[j], j] (contiguous)."""
    return np.ascontiguousarray(np.take_along_axis(X, order.T, axis=0).T)


def _stump_from_order(
    X: np.ndarray, order: np.ndarray, Xs: np.ndarray, y: np.ndarray, D: np.ndarray
) -> Stump:
    """The search on a presorted ``order`` and its sorted values ``Xs`` (no validation:
    callers have checked)."""
    j, theta, s = _decision_stump_kernel(Xs, order, y * D)
    j = int(j)
    pred = np.where(X[:, j] <= theta, s, -s)
    return Stump(feature=j, threshold=float(theta), sign=float(s), error=float(np.sum(D[pred != y])))


@jit(
    warmup=lambda: (
        np.array([[0.0, 1.0, 2.0], [0.0, 1.0, 2.0]]),
        np.array([[0, 1, 2], [1, 0, 2]], dtype=np.int64),
        np.array([0.3, -0.3, 0.4]),
    )
)
def _decision_stump_kernel(Xs, order, yD):
    """Sweep every feature in sorted order; return (feature, threshold, sign).

    Xs[j, k] = x_{order[j, k], j} (sorted values), yD[i] = y_i D_i (signed weights).
    """
    d, m = Xs.shape
    w_pos = 0.0
    w_neg = 0.0
    for i in range(m):
        if yD[i] > 0:
            w_pos += yD[i]
        else:
            w_neg -= yD[i]
    tol = _TIE * (w_pos + w_neg)
    # the constant stumps (θ = +inf: h = s everywhere): s = +1 errs on the negatives
    if w_neg <= w_pos + tol:
        best, best_j, best_theta, best_s = w_neg, 0, np.inf, 1.0
    else:
        best, best_j, best_theta, best_s = w_pos, 0, np.inf, -1.0
    for j in range(d):
        pos_left = 0.0
        neg_left = 0.0
        for k in range(m - 1):
            w = yD[order[j, k]]
            if w > 0:
                pos_left += w
            else:
                neg_left -= w
            a = Xs[j, k]
            b = Xs[j, k + 1]
            if a == b:  # no threshold between equal values
                continue
            theta = 0.5 * a + 0.5 * b  # (no overflow for huge values)
            if theta >= b:  # a, b adjacent floats
                theta = a
            err_plus = neg_left + (w_pos - pos_left)  # s = +1: left +1, right -1
            err_minus = pos_left + (w_neg - neg_left)  # s = -1
            if err_plus < best - tol:
                best, best_j, best_theta, best_s = err_plus, j, theta, 1.0
            if err_minus < best - tol:
                best, best_j, best_theta, best_s = err_minus, j, theta, -1.0
    return best_j, best_theta, best_s


@jit(warmup=lambda: (np.array([2.0, 1.0, 3.0]), np.arange(3), 3))
def _sort_pairs(v, r, n):
    """Sort v[:n] ascending in place, moving r[:n] along (quicksort, median of three,
    insertion sort below 16; the larger part is deferred on a stack, so O(log n) deep)."""
    stack = np.empty(128, dtype=np.int64)
    top = 0
    lo, hi = 0, n - 1
    while True:
        while hi - lo >= 16:
            mid = (lo + hi) >> 1
            if v[mid] < v[lo]:
                v[mid], v[lo] = v[lo], v[mid]
                r[mid], r[lo] = r[lo], r[mid]
            if v[hi] < v[lo]:
                v[hi], v[lo] = v[lo], v[hi]
                r[hi], r[lo] = r[lo], r[hi]
            if v[hi] < v[mid]:
                v[hi], v[mid] = v[mid], v[hi]
                r[hi], r[mid] = r[mid], r[hi]
            pivot = v[mid]
            i, k = lo, hi
            while i <= k:
                while v[i] < pivot:
                    i += 1
                while v[k] > pivot:
                    k -= 1
                if i <= k:
                    v[i], v[k] = v[k], v[i]
                    r[i], r[k] = r[k], r[i]
                    i += 1
                    k -= 1
            if k - lo < hi - i:
                stack[top], stack[top + 1] = i, hi
                hi = k
            else:
                stack[top], stack[top + 1] = lo, k
                lo = i
            top += 2
        for i in range(lo + 1, hi + 1):
            x, y = v[i], r[i]
            k = i - 1
            while k >= lo and v[k] > x:
                v[k + 1] = v[k]
                r[k + 1] = r[k]
                k -= 1
            v[k + 1] = x
            r[k + 1] = y
        if top == 0:
            return
        top -= 2
        lo, hi = stack[top], stack[top + 1]
