"""scikit-learn style estimators :class:`HardSVM` and :class:`SoftSVM` (thin wrappers
around :func:`kmlteach.svm.hard_svm` and :func:`kmlteach.svm.soft_svm`). Re-exported by
:mod:`kmlteach.svm`; import them from there.
"""

from __future__ import annotations

import numpy as np

from kmlteach._estimator import BaseEstimator, ClassifierMixin, check_is_fitted, sklearn_validate
from kmlteach._validation import check_multiclass_labels, check_X
from kmlteach.svm.hard import hard_svm
from kmlteach.svm.soft import soft_svm

__all__ = ["HardSVM", "SoftSVM"]


# --------------------------------------------------------------------------------------
# estimators
# --------------------------------------------------------------------------------------

class _LinearBinary(ClassifierMixin, BaseEstimator):
    """Shared fit/predict plumbing: any two labels are mapped to -1/+1."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False   # binary only
        return tags

    @staticmethod
    def _check_X(X):
        """Our validation gate, plus the exact messages scikit-learn's checks expect for
        complex and empty input."""
        if X is not None and not isinstance(X, (str, bytes)):
            arr = np.asarray(X) if not hasattr(X, "dtype") else X
            if np.iscomplexobj(arr):
                raise ValueError("Complex data not supported: X must be real-valued")
            if getattr(arr, "dtype", None) == object:
                try:
                    arr.astype(np.float64)
                except TypeError as exc:      # e.g. a dict inside X
                    raise TypeError(f"X must hold numbers: {exc}") from None
            shape = np.shape(arr)
            if len(shape) == 1:
                raise ValueError(f"X must be a 2-D array (n_samples, n_features), got shape "
                                 f"{shape}. Reshape your data with X.reshape(-1, 1) (one "
                                 "feature) or X.reshape(1, -1) (one sample).")
            if len(shape) == 2 and shape[0] == 0:
                raise ValueError(f"Found array with 0 sample(s) (shape={shape}) while a minimum "
                                 "of 1 is required (X is empty).")
            if len(shape) == 2 and shape[1] == 0:
                raise ValueError(f"Found array with 0 feature(s) (shape={shape}) while a minimum "
                                 "of 1 is required (X has no columns).")
        return check_X(X, "X")

    def _fit_labels(self, X, y):
        X, y = sklearn_validate(self, X, y)
        X = self._check_X(X)
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None")
        ya = np.asarray(y)
        if ya.dtype.kind == "f" and ya.ndim == 1 and np.all(np.isfinite(ya)) \
                and np.any(ya != np.round(ya)):
            raise ValueError("Unknown label type: continuous values in y; y must hold class "
                             "labels (any two distinct values)")
        classes, idx = check_multiclass_labels(y, "y", n=X.shape[0], min_classes=1)
        if classes.size < 2:
            raise ValueError(f"y must contain 2 classes for binary classification, got 1 class "
                             f"({classes[0]!r})")
        if classes.size > 2:
            raise ValueError(f"Only binary classification is supported: y must contain exactly "
                             f"2 classes, got {classes.size}")
        self.classes_ = classes
        self.n_features_in_ = X.shape[1]
        return X, np.where(idx == 1, 1.0, -1.0)

    def _set_linear(self, w, b):
        self.coef_ = np.asarray(w, dtype=np.float64).reshape(1, -1)
        self.intercept_ = np.array([float(b)])

    def decision_function(self, X):
        """``<w, x> + b`` for each row of X (positive means ``classes_[1]``)."""
        check_is_fitted(self)
        Xa = self._check_X(sklearn_validate(self, X, reset=False))
        if Xa.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {Xa.shape[1]} features, but {type(self).__name__} is "
                             f"expecting {self.n_features_in_} features as input")
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
        self.homogeneous = homogeneous

    def fit(self, X, y):
        X, ypm = self._fit_labels(X, y)
        r = hard_svm(X, ypm, homogeneous=bool(self.homogeneous))
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
        self.lam = lam
        self.homogeneous = homogeneous

    def fit(self, X, y):
        X, ypm = self._fit_labels(X, y)
        r = soft_svm(X, ypm, self.lam, homogeneous=bool(self.homogeneous))
        self._set_linear(r.w, r.b)
        self.objective_ = r.objective
        self.dual_coef_ = r.alpha
        return self
