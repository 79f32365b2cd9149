"""Binary learners used to demonstrate the reductions of chapter 04.

* :func:`erm_halfspace_2d` — exact empirical risk minimisation over halfspaces in the
  plane (the learner of UML Example 17.1);
* :func:`least_squares_learner` — ridge regression on ±1 targets (real-valued scores);
* :func:`stump_learner` — ERM over decision stumps (±1 outputs).

Each is a function ``learner(X, y_pm1) -> scorer`` as the reductions expect. Public
names are re-exported by :mod:`kmlteach.multiclass`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kmlteach._jit import jit
from kmlteach._validation import check_binary_labels, check_nonnegative, check_X

__all__ = [
    "erm_halfspace_2d",
    "HalfspaceERM",
    "least_squares_learner",
    "LinearScorer",
    "stump_learner",
    "Stump",
]


@dataclass(frozen=True)
class LinearScorer:
    """A fitted affine scorer x -> ⟨w, x⟩ + b (``decision_function``; ``predict`` = its sign).

    Source: UML §17.1.
    """

    w: np.ndarray
    b: float

    def decision_function(self, X) -> np.ndarray:
        X = check_X(X, "X", n_cols=self.w.shape[0])
        return X @ self.w + self.b

    def predict(self, X) -> np.ndarray:
        return np.where(self.decision_function(X) > 0, 1.0, -1.0)


def least_squares_learner(X, y, lam: float = 1e-3) -> LinearScorer:
    """A small deterministic binary learner for demonstrations: ridge regression on ±1.

    Minimises Σ_i (⟨w, x_i⟩ + b − y_i)² + λ‖w‖² (bias not penalised) in closed form.
    Any binary learner can be plugged into the reductions; this one needs no solver.

    Source: UML §17.1 (any binary learner plugs into the reductions).
    """
    X = check_X(X, "X")
    t = check_binary_labels(y, "y", n=X.shape[0], of="one per row of X")
    lam = check_nonnegative(lam, "lam")
    A = np.c_[X, np.ones(X.shape[0])]
    R = lam * np.eye(A.shape[1])
    R[-1, -1] = 0.0
    sol = np.linalg.lstsq(A.T @ A + R, A.T @ t, rcond=None)[0]
    return LinearScorer(sol[:-1].copy(), float(sol[-1]))


# ---------------------------------------------------------------------------------------
# exact ERM over halfspaces in the plane (for Example 17.1)
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class HalfspaceERM:
    """An empirical risk minimiser among halfspaces x -> sign(⟨w, x⟩ + b) in R².

    ``errors`` is its number of training mistakes; ``constant`` is True when the best
    labelling is all −1 or all +1 (w = 0). ``predict`` returns ±1 (+1 iff ⟨w,x⟩+b > 0).
    It has no ``decision_function``: used inside a reduction it votes with ±1, as the
    ERM learner of UML Example 17.1 does.
    """

    w: np.ndarray
    b: float
    errors: int
    constant: bool

    def predict(self, X) -> np.ndarray:
        X = check_X(X, "X", n_cols=2)
        return np.where(X @ self.w + self.b > 0, 1.0, -1.0)


def erm_halfspace_2d(X, y) -> HalfspaceERM:
    """Exact ERM for (non-homogeneous) halfspaces in the plane, by exhaustive search.

    Any halfspace can be moved (translated, then rotated) until its boundary passes
    through two sample points without changing the labels of the others; the points
    then lying on the boundary can be given any labelling that an affine function
    along the line can produce (all +, all −, or + on one side of a threshold). So
    trying every line through two points, both orientations, and the best such
    labelling of the points on the line — O(m³) — finds a minimiser of the number of
    mistakes, which a small perturbation of the line then realises. The constant
    labellings (all −1 first, then all +1) are tried first and kept on ties.
    Exact up to floating-point rounding in the collinearity test (exact for
    coordinates on a binary grid, as :func:`~kmlteach.datasets.three_balls` makes them).

    Parameters
    ----------
    X : ndarray (m, 2)
    y : ndarray (m,) in {−1, +1}, both classes present

    Returns
    -------
    HalfspaceERM with ``.w``, ``.b``, ``.errors``, ``.constant``, ``.predict(X)``.

    Source: UML §17.1, Example 17.1.
    """
    X = check_X(X, "X")
    if X.shape[1] != 2:
        raise ValueError(f"X must have exactly 2 columns (points in the plane), got shape {X.shape}")
    t = check_binary_labels(y, "y", n=X.shape[0], of="one per row of X")
    best_err, i, j, sigma, mode, thr = _erm_halfspace_2d_kernel(X, t)
    if i < 0:
        b = -1.0 if mode == 1 else 1.0
        return HalfspaceERM(np.zeros(2), b, int(best_err), True)
    p = X[i]
    d = X[j] - X[i]
    nvec = np.array([-d[1], d[0]])  # c(x) = n·(x − p) = d0 (x1 − p1) − d1 (x0 − p0)
    ux, uy = X[:, 0] - p[0], X[:, 1] - p[1]
    c = d[0] * uy - d[1] * ux  # the kernel's expression: same zeros
    proj = d[0] * ux + d[1] * uy
    off = c != 0
    cmin = np.min(np.abs(c[off])) if np.any(off) else 1.0
    if mode in (0, 1):
        a, const = 0.0, (0.5 * cmin if mode == 0 else -0.5 * cmin)
    else:
        spread = np.max(np.abs(proj - thr)) + 1.0
        a = 0.5 * cmin / spread * (1.0 if mode == 2 else -1.0)
        const = -a * thr
    # f(x) = σ n·(x − p) + a d·(x − p) + const
    w = sigma * nvec + a * d
    b = float(-w @ p + const)
    pred = np.where(X @ w + b > 0, 1.0, -1.0)
    return HalfspaceERM(w, b, int(np.sum(pred != t)), False)


def _erm_warmup():
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.5, 0.5]])
    return X, np.array([1.0, 1.0, -1.0, -1.0, 1.0])


@jit(warmup=_erm_warmup)
def _erm_halfspace_2d_kernel(X, t):
    m = X.shape[0]
    npos = 0
    for l in range(m):
        if t[l] > 0:
            npos += 1
    # constants: all -1 (errors = npos), then all +1 (errors = m - npos)
    best_err = npos
    bi, bj, bsig, bmode, bthr = -1, -1, 1.0, 1, 0.0
    if m - npos < best_err:
        best_err = m - npos
        bmode = 0
    pr = np.empty(m)
    lab = np.empty(m)
    ux = np.empty(m)
    uy = np.empty(m)
    tpos = np.empty(m, dtype=np.bool_)
    for l in range(m):
        tpos[l] = t[l] > 0.0
    for i in range(m):
        for l in range(m):  # offsets from the pivot, once per pivot
            ux[l] = X[l, 0] - X[i, 0]
            uy[l] = X[l, 1] - X[i, 1]
        for j in range(i + 1, m):
            dx = ux[j]
            dy = uy[j]
            if dx == 0.0 and dy == 0.0:
                continue
            # first pass: counts only, no branches (vectorised); the points on the line
            # are gathered below only for a pair that can still beat the best so far
            err_plus = 0
            n_on = 0
            for l in range(m):
                c = dx * uy[l] - dy * ux[l]
                n_on += c == 0.0
                err_plus += ((c > 0.0) & (~tpos[l])) | ((c < 0.0) & tpos[l])
            n_off = m - n_on
            if err_plus <= n_off - err_plus:
                off_err = err_plus
                sig = 1.0
            else:
                off_err = n_off - err_plus
                sig = -1.0
            if off_err >= best_err:
                continue
            n_on = 0
            for l in range(m):
                c = dx * uy[l] - dy * ux[l]
                if c == 0.0:
                    pr[n_on] = dx * ux[l] + dy * uy[l]
                    lab[n_on] = t[l]
                    n_on += 1
            # sort the points on the line by their position along it (insertion sort)
            for a in range(1, n_on):
                kp = pr[a]
                kl = lab[a]
                b = a - 1
                while b >= 0 and pr[b] > kp:
                    pr[b + 1] = pr[b]
                    lab[b + 1] = lab[b]
                    b -= 1
                pr[b + 1] = kp
                lab[b + 1] = kl
            on_pos = 0
            for a in range(n_on):
                if lab[a] > 0:
                    on_pos += 1
            # all + on the line / all −
            on_best = n_on - on_pos
            mode = 0
            thr = 0.0
            if on_pos < on_best:
                on_best = on_pos
                mode = 1
            # splits between consecutive distinct positions
            pos_before = 0
            for s in range(1, n_on):
                if lab[s - 1] > 0:
                    pos_before += 1
                if pr[s] == pr[s - 1]:
                    continue
                neg_before = s - pos_before
                pos_after = on_pos - pos_before
                neg_after = (n_on - s) - pos_after
                e_np = pos_before + neg_after  # − before, + after
                e_pn = neg_before + pos_after  # + before, − after
                if e_np < on_best:
                    on_best = e_np
                    mode = 2
                    thr = 0.5 * (pr[s - 1] + pr[s])
                if e_pn < on_best:
                    on_best = e_pn
                    mode = 3
                    thr = 0.5 * (pr[s - 1] + pr[s])
            total = off_err + on_best
            if total < best_err:
                best_err = total
                bi, bj, bsig, bmode, bthr = i, j, sig, mode, thr
    return best_err, bi, bj, bsig, bmode, bthr


# ---------------------------------------------------------------------------------------
# a second demonstration learner: decision stumps
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Stump:
    """x -> sign · (+1 if x[feature] > threshold else −1); ``errors`` on the training set.

    Source: SL boosting (decision stumps).
    """

    feature: int
    threshold: float
    sign: float
    errors: int

    def predict(self, X) -> np.ndarray:
        X = check_X(X, "X")
        if X.shape[1] <= self.feature:
            raise ValueError(f"X must have at least {self.feature + 1} columns, got shape {X.shape}")
        return self.sign * np.where(X[:, self.feature] > self.threshold, 1.0, -1.0)


def stump_learner(X, y) -> Stump:
    """ERM over decision stumps (axis-parallel halfspaces), by exhaustive search.

    Tries every feature, every threshold halfway between consecutive distinct values
    (and below the smallest), both signs; keeps the first with the fewest mistakes.
    Its ±1 outputs make the ties of the reductions easy to see.

    Source: UML §17.1; stumps as in SL boosting.
    """
    X = check_X(X, "X")
    t = check_binary_labels(y, "y", n=X.shape[0], of="one per row of X")
    best = None
    for f in range(X.shape[1]):
        v = np.unique(X[:, f])
        thr = np.r_[v[0] - 1.0, 0.5 * (v[:-1] + v[1:])]
        pred = np.where(X[:, f][None, :] > thr[:, None], 1.0, -1.0)  # (n_thr, m)
        err_pos = (pred != t[None, :]).sum(axis=1)
        for sign, errs in ((1.0, err_pos), (-1.0, X.shape[0] - err_pos)):
            i = int(np.argmin(errs))
            if best is None or errs[i] < best.errors:
                best = Stump(f, float(thr[i]), sign, int(errs[i]))
    return best
