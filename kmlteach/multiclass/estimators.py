"""scikit-learn style estimator :class:`MulticlassSVM` (a thin wrapper around
:func:`kmlteach.multiclass.multiclass_svm`). Re-exported by :mod:`kmlteach.multiclass`."""

from __future__ import annotations

import numpy as np

from kmlteach._estimator import BaseEstimator, ClassifierMixin, check_is_fitted, keep_params
from kmlteach._validation import check_bool, check_int, check_positive, check_rng, validate_data
from kmlteach.multiclass.psi import check_delta, resolve_psi
from kmlteach.multiclass.sgd import _multiclass_svm

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
        keep_params(self, locals())

    def fit(self, X, y):
        # the one validation pass: data (validate_data), then each parameter once
        X, classes, yi = validate_data(self, X, y)
        if check_bool(self.fit_intercept, "fit_intercept"):
            X = np.ascontiguousarray(np.c_[X, np.ones(X.shape[0])])
        lam = check_positive(self.lam, "lam")
        T = 20 * X.shape[0] if self.T is None else check_int(self.T, "T", minimum=1)
        D = check_delta(self.delta, classes)
        psi, mv, dim = resolve_psi(None, classes.shape[0], X.shape[1])
        res = _multiclass_svm(X, classes, yi, D, psi, mv, dim, lam, T, check_rng(self.seed))
        W = res.W
        if self.fit_intercept:
            self.coef_, self.intercept_ = W[:, :-1].copy(), W[:, -1].copy()
        else:
            self.coef_, self.intercept_ = W.copy(), np.zeros(W.shape[0])
        self.classes_ = classes
        self.objective_ = res.objective
        return self

    def _scores(self, X):
        check_is_fitted(self)
        Xa = validate_data(self, X, reset=False)
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
