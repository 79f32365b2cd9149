"""Reductions from multiclass to binary classification (UML §17.1, lecture slides):
one-vs-all and all-pairs (majority vote or tournament); error-correcting output codes
are in ``ecoc.py``, small demonstration binary learners in ``learners.py``.

A *binary learner* is either

* an estimator with ``fit(X, y)`` (copied with ``sklearn.base.clone`` when it is a
  scikit-learn estimator, else ``copy.deepcopy``), or
* a function ``learner(X, y_pm1) -> scorer`` where ``scorer`` is a callable
  ``scorer(X) -> scores``, an object with one of the methods below, or a result with
  fields ``w`` (and optionally ``b``) such as those of :mod:`kmlteach.svm`.

It is always fitted on labels in {-1, +1} (float). The real-valued score of a fitted
learner is ``decision_function(X)``, else ``2 predict_proba(X)[:, +1 column] - 1``
(a monotone map of ``predict_proba[:, 1]`` that puts the threshold at 0), else
``predict(X)`` (±1), else ``X @ w + b``. Positive means "the +1 side".
"""

from __future__ import annotations

import copy
import itertools
from dataclasses import dataclass

import numpy as np

from kmlteach._validation import (
    _describe,
    check_choice,
    check_learner,
    check_multiclass_labels,
    check_X,
)

__all__ = ["Decision", "OneVsAll", "one_vs_all", "AllPairs", "all_pairs"]


# ---------------------------------------------------------------------------------------
# binary learners
# ---------------------------------------------------------------------------------------


def _copy_learner(learner):
    if hasattr(learner, "get_params"):
        try:
            from sklearn.base import clone

            return clone(learner)
        except Exception:  # not a scikit-learn estimator after all
            pass
    return copy.deepcopy(learner)


def _fit_binary(learner, X, t):
    """Fit a copy of ``learner`` on (X, t) with t in {-1, +1}; return the fitted scorer."""
    if hasattr(learner, "fit"):
        est = _copy_learner(learner)
        est.fit(X, t)
        return est
    out = learner(X, t)
    if out is None:
        raise TypeError(
            "learner(X, y) returned None; it must return a scorer (a callable or "
            "an object with decision_function / predict_proba / predict)"
        )
    return out


def _binary_scores(fitted, X) -> np.ndarray:
    """Real-valued scores of a fitted binary learner, positive = the +1 side."""
    if hasattr(fitted, "decision_function"):
        s = fitted.decision_function(X)
    elif hasattr(fitted, "predict_proba"):
        P = np.asarray(fitted.predict_proba(X), dtype=float)
        col = 1
        cls = getattr(fitted, "classes_", None)
        if cls is not None and 1 in list(np.asarray(cls).tolist()):
            col = list(np.asarray(cls).tolist()).index(1)
        s = 2.0 * P[:, col] - 1.0
    elif hasattr(fitted, "predict"):
        s = fitted.predict(X)
    elif hasattr(fitted, "w"):  # a kmlteach result such as svm.perceptron's
        w = np.asarray(fitted.w, dtype=float).ravel()
        if w.shape[0] != X.shape[1]:
            raise ValueError(f"the binary learner's w has {w.shape[0]} entries for {X.shape[1]} features")
        s = X @ w + float(getattr(fitted, "b", 0.0) or 0.0)
    elif callable(fitted):
        s = fitted(X)
    else:
        raise TypeError(
            f"the fitted learner has no decision_function, predict_proba or predict "
            f"and is not callable: {_describe(fitted)}"
        )
    s = np.asarray(s, dtype=float).reshape(-1)
    if s.shape[0] != X.shape[0]:
        raise ValueError(f"the binary learner returned {s.shape[0]} scores for {X.shape[0]} points")
    if not np.all(np.isfinite(s)):
        raise ValueError("the binary learner returned NaN or infinite scores")
    return s


@dataclass(frozen=True)
class Decision:
    """A multiclass decision with its ties made explicit.

    ``labels`` (original labels), ``index`` (0-based class indices), ``scores`` (m, k)
    (what the argmax ran on: OvA scores, AvA votes, ECOC −Hamming distances),
    ``ties`` (bool mask of points where several classes reached the maximum, or a
    tournament match was drawn), ``candidates`` (m, k) bool (classes at the maximum),
    ``rule`` (how ties were broken).

    Source: UML §17.1 (ties go to the smallest index).
    """

    labels: np.ndarray
    index: np.ndarray
    scores: np.ndarray
    ties: np.ndarray
    candidates: np.ndarray
    rule: str


class _Reduction:
    """Common interface. After fitting (and after every ``predict``), ``ties`` is the
    boolean mask of the points of the last predicted X (at first: the training X)
    whose decision was a tie, ``tied_classes`` the (m, k) mask of the classes that
    tied, and ``rule`` says how ties were broken."""

    classes: np.ndarray

    def __init__(self, classes, estimators, n_features):
        self.classes = classes
        self.estimators = estimators
        self.n_features = n_features

    def _X(self, X):
        return check_X(X, "X", n_cols=self.n_features)

    def predict(self, X) -> np.ndarray:
        """Predicted labels; also sets ``ties``, ``tied_classes`` and ``rule``."""
        dec = self.decide(X)
        self.ties, self.tied_classes, self.rule = dec.ties, dec.candidates, dec.rule
        return dec.labels

    def tie_mask(self, X) -> np.ndarray:
        """Boolean mask of the points of X whose decision was a tie."""
        return self.decide(X).ties

    def _argmax_decision(self, S: np.ndarray, rule: str) -> Decision:
        """The class of the largest score of each row of S (smallest index among ties),
        with the rows that tied and the classes at the maximum."""
        at_max = S == np.max(S, axis=1)[:, None]
        idx = np.argmax(S, axis=1)
        return Decision(self.classes[idx], idx, S, at_max.sum(axis=1) > 1, at_max, rule)

    def _record_training_ties(self, X):
        self.predict(X)
        return self

    def score(self, X, y) -> float:
        return float(np.mean(self.predict(X) == np.asarray(y)))


# ---------------------------------------------------------------------------------------
# one-vs-all (UML §17.1)
# ---------------------------------------------------------------------------------------


class OneVsAll(_Reduction):
    """Fitted one-vs-all model: ``estimators[i]`` separates class i (+1) from the rest.

    Source: UML §17.1.1.
    """

    def decision_function(self, X) -> np.ndarray:
        """(m, k) scores h_i(x)."""
        X = self._X(X)
        return np.column_stack([_binary_scores(e, X) for e in self.estimators])

    def decide(self, X) -> Decision:
        return self._argmax_decision(
            self.decision_function(X),
            "argmax of the k scores; ties go to the smallest class index (first in classes)",
        )


def one_vs_all(X, y, learner) -> OneVsAll:
    """One-versus-all reduction (UML §17.1).

    For each class i, a copy of ``learner`` is fitted on S_i: label +1 for the examples
    of class i, −1 for all others. Prediction: h(x) = argmax_i h_i(x) on the real-valued
    scores when the learner has them (Eq. (17.1) applied to confidences), with ties
    going to the class that comes first in ``np.unique(y)`` (the smallest-index rule
    of §17.1). ``decide(X)`` reports the ties.

    Parameters
    ----------
    X : ndarray (m, d)
    y : labels (at least 2 classes)
    learner : binary learner (see the module docstring)

    Returns
    -------
    OneVsAll with ``.predict(X)``, ``.decision_function(X)``, ``.decide(X)``,
    ``.classes``, ``.estimators``, ``.ties`` (mask of tied points of the last predicted X,
    initially the training X), ``.tie_mask(X)``, ``.rule``.
    """
    X = check_X(X, "X")
    classes, yi = check_multiclass_labels(y, "y", n=X.shape[0])
    learner = check_learner(learner, returns="a scorer (y_pm1: labels -1/+1)")
    ests = [_fit_binary(learner, X, np.where(yi == i, 1.0, -1.0)) for i in range(len(classes))]
    return OneVsAll(classes, ests, X.shape[1])._record_training_ties(X)


# ---------------------------------------------------------------------------------------
# all pairs (UML §17.1; slides: vote and tournament)
# ---------------------------------------------------------------------------------------


def _votes(P) -> np.ndarray:
    """Wins per class from antisymmetric pairwise scores (m, k, k) with a zero diagonal:
    Σ_{j≠i} [P_ij > 0] + ½ [P_ij = 0], one column at a time (sums of halves: exact in any
    order); a masked float sum over the (m, k, k) array took 12 ms on 8 100 grid points."""
    m, k = P.shape[:2]
    V = np.zeros((m, k))
    for i in range(k):
        for j in range(k):
            if j != i:
                s = P[:, i, j]
                V[:, i] += (s > 0) + 0.5 * (s == 0)
    return V


class AllPairs(_Reduction):
    """Fitted all-pairs model: ``estimators[(i, j)]`` (i < j) says +1 for class i, −1 for j.

    Source: UML §17.1.2.
    """

    def __init__(self, classes, estimators, n_features, decision):
        super().__init__(classes, estimators, n_features)
        self.decision = decision
        self.pairs = list(estimators)

    def pairwise_scores(self, X) -> np.ndarray:
        """Antisymmetric (m, k, k) array: [:, i, j] = h_ij(x) for i < j, [:, j, i] = −h_ij(x)."""
        X = self._X(X)
        k = len(self.classes)
        P = np.zeros((X.shape[0], k, k))
        for (i, j), e in self.estimators.items():
            s = _binary_scores(e, X)
            P[:, i, j] = s
            P[:, j, i] = -s
        return P

    def votes(self, X) -> np.ndarray:
        """(m, k) number of pairwise contests won (a score of exactly 0 gives ½ to each)."""
        return _votes(self.pairwise_scores(X))

    def decide(self, X, decision: str | None = None) -> Decision:
        decision = (
            self.decision if decision is None else check_choice(decision, "decision", ("vote", "tournament"))
        )
        return self._decide_scores(self.pairwise_scores(X), decision)

    def _decide_scores(self, P, decision: str) -> Decision:
        """:meth:`decide` on pairwise scores already computed (a widget showing both rules
        computes them once)."""
        k = len(self.classes)
        if decision == "vote":
            return self._argmax_decision(
                _votes(P),
                "most pairwise wins (the book's sum of sign(j - i) h_ij); ties go to "
                "the smallest class index among the tied classes",
            )
        m = P.shape[0]
        rows = np.arange(m)
        bracket = [np.full(m, c, dtype=np.int64) for c in range(k)]
        drawn = np.zeros(m, dtype=bool)
        alive = np.zeros((m, k), dtype=bool)
        while len(bracket) > 1:
            nxt = []
            for a in range(0, len(bracket) - 1, 2):
                ca, cb = bracket[a], bracket[a + 1]
                s = P[rows, ca, cb]
                drawn |= s == 0
                nxt.append(np.where(s > 0, ca, np.where(s < 0, cb, np.minimum(ca, cb))))
            if len(bracket) % 2 == 1:
                nxt.append(bracket[-1])  # bye for the last one
            bracket = nxt
        idx = bracket[0]
        alive[rows, idx] = True
        return Decision(
            self.classes[idx],
            idx,
            alive.astype(float),
            drawn,
            alive,
            "knock-out tournament in class order (pairs (0,1), (2,3), ...; a bye for "
            "the last class when their number is odd); a drawn match (score exactly "
            "0) goes to the smaller class index",
        )


def all_pairs(X, y, learner, decision: str = "vote") -> AllPairs:
    """All-pairs (all-vs-all) reduction (UML §17.1; slides "AvA").

    For every pair i < j of classes (in ``np.unique`` order), a copy of ``learner`` is
    fitted on the examples of classes i (+1) and j (−1) only. Decisions:

    * ``"vote"`` — UML's rule argmax_i Σ_j sign(j − i) h_ij(x) (with sign(score) for
      real-valued learners): the class winning most pairwise contests. Ties among
      classes with equally many wins are common (e.g. three classes beating each other
      in a cycle); they go to the smallest index, and ``decide(X).ties`` marks them.
    * ``"tournament"`` — the slides' knock-out: pair the classes up, keep the winners,
      repeat. A drawn match goes to the smaller index.

    scikit-learn's ``OneVsOneClassifier`` also votes, but breaks ties with the
    normalised sum of confidences, so the two agree except on tied points.

    Returns
    -------
    AllPairs with ``.predict(X)``, ``.decide(X, decision=None)``, ``.votes(X)``,
    ``.pairwise_scores(X)``, ``.tie_mask(X)``, ``.ties`` (mask of the last predicted X,
    initially the training X), ``.classes``, ``.estimators`` (dict (i, j) -> fitted).
    """
    X = check_X(X, "X")
    classes, yi = check_multiclass_labels(y, "y", n=X.shape[0])
    learner = check_learner(learner, returns="a scorer (y_pm1: labels -1/+1)")
    decision = check_choice(decision, "decision", ("vote", "tournament"))
    ests = {}
    for i, j in itertools.combinations(range(len(classes)), 2):
        sel = (yi == i) | (yi == j)
        ests[(i, j)] = _fit_binary(learner, X[sel], np.where(yi[sel] == i, 1.0, -1.0))
    return AllPairs(classes, ests, X.shape[1], decision)._record_training_ties(X)
