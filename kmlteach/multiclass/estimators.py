"""scikit-learn style estimator :class:`MulticlassSVM` (a thin wrapper around
:func:`kmlteach.multiclass.multiclass_svm`). Re-exported by :mod:`kmlteach.multiclass`."""

from __future__ import annotations

import numpy as np

from kmlteach._estimator import BaseEstimator, ClassifierMixin, check_is_fitted, sklearn_validate
from kmlteach._validation import check_multiclass_labels
from kmlteach.multiclass.sgd import multiclass_svm
from kmlteach.svm.estimators import (
    _LinearBinary,  # its input checks give scikit-learn's messages
)

__all__ = ["MulticlassSVM"]


class MulticlassSVM(ClassifierMixin, BaseEstimator):
    """The multiclass SVM of UML §17.2.5 (multivector Ψ) as a scikit-learn style classifier.

    Minimises (λ/2)‖W‖² + (1/m) Σ_i max_{y'} [Δ(y', y_i) + ⟨w_{y'} − w_{y_i}, x_i⟩] with the
    SGD of §15.5 (:func:`~kmlteach.multiclass.multiclass_svm`). With ``fit_intercept``
    a constant feature 1 is appended to x, so each class gets a bias b_y (regularised
    like the weights, as in liblinear's Crammer–Singer solver).

    Parameters
    ----------
    lam : float > 0, default=0.01
    T : int or None, default=None (20 m iterations)
    seed : int, default=0
    delta : None (0–1 loss) or a (k, k) cost matrix ``delta[y', y]``
    fit_intercept : bool, default=True

    Attributes
    ----------
    coef_ (k, d), intercept_ (k,), classes_ (k,), objective_, n_features_in_.
    """

    def __init__(self, lam=0.01, T=None, seed=0, delta=None, fit_intercept=True):
        self.lam = lam
        self.T = T
        self.seed = seed
        self.delta = delta
        self.fit_intercept = fit_intercept

    def _augment(self, X):
        return np.c_[X, np.ones(X.shape[0])] if self.fit_intercept else X

    def fit(self, X, y):
        X, y = sklearn_validate(self, X, y)
        X, _ = self._labels(X, y)
        res = multiclass_svm(self._augment(X), y, self.lam, T=self.T, seed=self.seed,
                             delta=self.delta)
        W = res.W
        if self.fit_intercept:
            self.coef_, self.intercept_ = W[:, :-1].copy(), W[:, -1].copy()
        else:
            self.coef_, self.intercept_ = W.copy(), np.zeros(W.shape[0])
        self.objective_ = res.objective
        return self

    def _labels(self, X, y):
        X = _LinearBinary._check_X(X)
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None")
        ya = np.asarray(y)
        continuous = ya.dtype.kind == "f" and bool(np.all(np.isfinite(ya))) and \
            not np.array_equal(ya, np.round(ya))
        if continuous:   # scikit-learn's wording
            raise ValueError("Unknown label type: continuous values in y; y must hold class labels")
        classes, _ = check_multiclass_labels(y, "y", n=X.shape[0], min_classes=1)
        if classes.size < 2:
            raise ValueError(f"y must contain at least 2 classes, got 1 class ({classes[0]!r})")
        self.classes_ = classes
        self.n_features_in_ = X.shape[1]
        return X, classes

    def _scores(self, X):
        check_is_fitted(self)
        Xa = _LinearBinary._check_X(sklearn_validate(self, X, reset=False))
        if Xa.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {Xa.shape[1]} features, but {type(self).__name__} is "
                             f"expecting {self.n_features_in_} features as input")
        return Xa @ self.coef_.T + self.intercept_

    def decision_function(self, X):
        """Scores ⟨w_y, x⟩ + b_y, shape (m, k) (columns in the order of ``classes_``); for
        two classes, scikit-learn's convention: the difference (m,), positive for ``classes_[1]``."""
        S = self._scores(X)
        return S[:, 1] - S[:, 0] if S.shape[1] == 2 else S

    def predict(self, X):
        """The class with the highest score (the first in ``classes_`` on ties)."""
        S = self._scores(X)
        return self.classes_[np.argmax(S, axis=1)]
