"""Bagging with the out-of-bag error (SL ensembles slides, after Breiman 1996).

Bootstrap aggregating: draw B bootstrap samples (m indices drawn uniformly with
replacement from the m training points), fit one copy of the learner on each, and
predict by plurality vote. A point is *out of bag* (OOB) for a member whose sample
missed it — probability (1 − 1/m)^m ≈ e^{−1} ≈ 0.37 — so the vote of the members that
did not see a point is an estimate of the ensemble's error on new data, for free.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from kmlteach._jit import thread_map
from kmlteach._validation import (
    _describe,
    check_bootstraps,
    check_int,
    check_learner,
    check_multiclass_labels,
    check_rng,
    check_X,
)

__all__ = ["BaggingResult", "bagging"]

_MAX_ENTRIES = 200_000_000


@dataclass(frozen=True, eq=False)
class BaggingResult:
    """A bagged ensemble (also the base of :class:`RandomForestResult`).

    Attributes
    ----------
    estimators : tuple of B fitted members (each with ``.predict`` giving original labels)
    classes : array (k,) of the labels, as ``np.unique(y)``
    samples : array (B, m) of int
        Row b holds the bootstrap indices member b was fitted on.
    oob_error : float
        0–1 error of the OOB vote over the points that are out of bag for at least one
        member (NaN if there is none); ties in a vote go to the first class.
    oob_error_path : array (B,)
        The same for the ensemble of the first n members, n = 1..B.
    n_oob : int
        Number of training points with at least one OOB member (those scored).
    n_never_oob : int
        Points in every bootstrap sample, left out of ``oob_error`` (m − n_oob).

    Source: SL bagging.
    """

    estimators: tuple
    classes: np.ndarray
    samples: np.ndarray
    oob_error: float
    oob_error_path: np.ndarray
    n_oob: int
    n_never_oob: int
    n_features: int

    def votes(self, X, n_estimators: int | None = None) -> np.ndarray:
        """(n, k) vote counts of the first ``n_estimators`` members (all by default)."""
        X = check_X(X, "X", n_cols=self.n_features, bounded=False)
        B = (
            len(self.estimators)
            if n_estimators is None
            else check_int(n_estimators, "n_estimators", minimum=1, maximum=len(self.estimators))
        )
        V = np.zeros((X.shape[0], len(self.classes)))
        rows = np.arange(X.shape[0])
        for est in self.estimators[:B]:
            np.add.at(V, (rows, self._member_indices(est, X)), 1.0)
        return V

    def predict(self, X, n_estimators: int | None = None) -> np.ndarray:
        """Plurality vote of the first ``n_estimators`` members (ties → first class)."""
        return self.classes[np.argmax(self.votes(X, n_estimators), axis=1)]

    def _member_indices(self, est, X: np.ndarray) -> np.ndarray:
        return _label_indices(est.predict(X), self.classes, X.shape[0])


def _label_indices(pred, classes: np.ndarray, n: int) -> np.ndarray:
    """Class indices of a member's predictions; ValueError if it invents a label."""
    pred = np.asarray(pred).reshape(-1)
    if pred.shape[0] != n:
        raise ValueError(f"a member of the learner returned {pred.shape[0]} predictions for {n} points")
    pos = np.clip(np.searchsorted(classes, pred), 0, len(classes) - 1)
    if not np.all(classes[pos] == pred):
        raise ValueError(
            "the learner's predictions must be labels of y (members predict the original labels)"
        )
    return pos.astype(np.int64)


def _fit_member(learner, X: np.ndarray, y: np.ndarray):
    """Fit a fresh copy of ``learner`` (clone / deepcopy) or call ``learner(X, y)``."""
    if hasattr(learner, "fit"):
        est = None
        if hasattr(learner, "get_params"):
            try:
                from sklearn.base import clone  # optional: only for scikit-learn estimators

                est = clone(learner)
            except Exception:
                est = None
        est = copy.deepcopy(learner) if est is None else est
        fitted = est.fit(X, y)
        model = est if fitted is None else fitted
    else:
        model = learner(X, y)
    if not hasattr(model, "predict"):
        raise TypeError(f"learner must give a model with .predict(X), got {_describe(model)}")
    return model


def bagging(X, y, learner, n_estimators=10, seed=0) -> BaggingResult:
    """Bagging (SL ensembles slides; Breiman 1996) with the out-of-bag error.

    Parameters
    ----------
    X : array (m, d)
    y : array (m,) of any sortable labels (at least two classes)
    learner : estimator or callable
        As in :func:`kmlteach.multiclass.one_vs_all`: an object with ``fit(X, y)``
        (a scikit-learn estimator is copied with ``sklearn.base.clone``, anything else
        with ``copy.deepcopy``) or a function ``learner(X, y)`` returning a model with
        ``.predict(X)``. Members are fitted on the original labels and must predict them.
    n_estimators : int ≥ 1
        B, the number of bootstrap samples and members.
    seed : int or None
        Seeds the bootstrap samples.

    Returns
    -------
    BaggingResult
        ``.predict(X)``, ``.oob_error``, ``.estimators``, ``.samples``,
        ``.oob_error_path``, ``.n_oob``, ``.n_never_oob``, ``.votes(X)``.
    """
    X = check_X(X, bounded=False)
    classes, yi = check_multiclass_labels(y, "y", n=X.shape[0])
    y_orig = np.asarray(y)
    learner = check_learner(learner, returns="a model with .predict")
    B = check_bootstraps(n_estimators, "n_estimators", X.shape[0], _MAX_ENTRIES)
    rng = check_rng(seed)

    def fit(idx, _rng):
        model = _fit_member(learner, X[idx], y_orig[idx])
        return model, _label_indices(model.predict(X), classes, X.shape[0])

    fields = _bag(X.shape[0], len(classes), yi, B, rng, fit)
    return BaggingResult(classes=classes, n_features=X.shape[1], **fields)


def _bag(
    m: int, k: int, yi: np.ndarray, B: int, rng: np.random.Generator, fit: Callable, seeded: bool = False
) -> dict:
    """Draw B bootstrap samples, fit each member, and track the OOB vote.

    ``fit(idx, rng)`` returns (model, class indices of its predictions on all m points).
    With ``seeded`` each sample is followed by one draw ``rng.integers(0, 2**31 - 1)``,
    the member's seed (all drawn first, in that order), and ``fit(idx, seed)`` runs on
    several threads (:func:`kmlteach._jit.thread_map`): same members, any thread count.
    """
    samples = np.empty((B, m), dtype=np.int64)
    if seeded:
        seeds = []
        for b in range(B):
            samples[b] = rng.integers(0, m, size=m)
            seeds.append(int(rng.integers(0, 2**31 - 1)))
        fitted = thread_map(lambda b: fit(samples[b], seeds[b]), range(B))
    else:
        fitted = []
        for b in range(B):
            samples[b] = rng.integers(0, m, size=m)
            fitted.append(fit(samples[b], rng))
    V = np.zeros((m, k))
    rows = np.arange(m)
    path = np.empty(B)
    members = []
    for b, (model, pred) in enumerate(fitted):
        members.append(model)
        out = np.ones(m, dtype=bool)
        out[samples[b]] = False
        V[rows[out], pred[out]] += 1.0
        scored = V.sum(axis=1) > 0
        path[b] = np.mean(np.argmax(V[scored], axis=1) != yi[scored]) if scored.any() else np.nan
    n_oob = int(np.sum(V.sum(axis=1) > 0))
    return {
        "estimators": tuple(members),
        "samples": samples,
        "oob_error": float(path[-1]),
        "oob_error_path": path,
        "n_oob": n_oob,
        "n_never_oob": m - n_oob,
    }
