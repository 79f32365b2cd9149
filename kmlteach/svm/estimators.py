"""scikit-learn style estimators :class:`HardSVM` and :class:`SoftSVM` (thin wrappers
around :func:`kmlteach.svm.hard_svm` and :func:`kmlteach.svm.soft_svm`). Re-exported by
:mod:`kmlteach.svm`; import them from there.
"""

from __future__ import annotations

import numpy as np

from kmlteach._estimator import BaseEstimator, ClassifierMixin, check_is_fitted, keep_params
from kmlteach._validation import check_bool, check_positive, check_rng, validate_data
from kmlteach.svm.hard import _hard_svm
from kmlteach.svm.soft import _soft_svm

__all__ = ["HardSVM", "SoftSVM"]


# --------------------------------------------------------------------------------------
# estimators
# --------------------------------------------------------------------------------------


class _LinearBinary(ClassifierMixin, BaseEstimator):
    """Shared fit/predict plumbing: any two labels are mapped to -1/+1."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False  # binary only
        return tags

    def _fit_labels(self, X, y):
        """The one validation pass of ``fit``: X checked, labels read, -1/+1 targets."""
        X, classes, idx = validate_data(self, X, y, max_classes=2)
        self.classes_ = classes
        return X, np.where(idx == 1, 1.0, -1.0)

    def _set_linear(self, w, b):
        self.coef_ = np.asarray(w, dtype=np.float64).reshape(1, -1)
        self.intercept_ = np.array([float(b)])

    def decision_function(self, X):
        """``<w, x> + b`` for each row of X (positive means ``classes_[1]``)."""
        check_is_fitted(self)
        Xa = validate_data(self, X, reset=False)
        return Xa @ self.coef_[0] + self.intercept_[0]

    def predict(self, X):
        """``classes_[1]`` where the decision function is > 0, else ``classes_[0]``."""
        scores = self.decision_function(X)
        return self.classes_[(scores > 0).astype(np.int64)]


class HardSVM(_LinearBinary):
    """Hard-margin linear SVM (UML (15.2)/(15.3)) as a scikit-learn style classifier.

    Parameters
    ----------
    homogeneous : bool, default=False   no bias (hyperplanes through the origin)

    Attributes
    ----------
    coef_ (1, d), intercept_ (1,), classes_ (2,), support_ (int indices), margin_,
    dual_coef_ (α, shape (m,)).

    ``fit`` raises ``ValueError`` ("not linearly separable") when no separating
    hyperplane exists.
    """

    def __init__(self, homogeneous=False):
        keep_params(self, locals())

    def fit(self, X, y):
        X, ypm = self._fit_labels(X, y)
        r = _hard_svm(X, ypm, check_bool(self.homogeneous, "homogeneous"))
        self._set_linear(r.w, r.b)
        self.support_ = r.support
        self.margin_ = r.margin
        self.dual_coef_ = r.alpha
        return self


class SoftSVM(_LinearBinary):
    """Soft-margin linear SVM minimising UML (15.12) ``(λ/2)||w||² + mean hinge``.

    Parameters
    ----------
    lam : float > 0, default=0.01
    homogeneous : bool, default=False   (False: with an unregularised bias b)

    Attributes
    ----------
    coef_ (1, d), intercept_ (1,), classes_ (2,), objective_, dual_coef_ (α, (m,)).
    """

    def __init__(self, lam=0.01, homogeneous=False):
        keep_params(self, locals())

    def fit(self, X, y):
        X, ypm = self._fit_labels(X, y)
        r = _soft_svm(
            X, ypm, check_positive(self.lam, "lam"), check_bool(self.homogeneous, "homogeneous"), check_rng(0)
        )
        self._set_linear(r.w, r.b)
        self.objective_ = r.objective
        self.dual_coef_ = r.alpha
        return self
