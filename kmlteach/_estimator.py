"""Base classes for the thin scikit-learn-style estimators (HardSVM, KernelPCA, ...).

scikit-learn is an *optional* dependency of the course (it is the oracle in the tests,
not something a student needs). When it is installed the estimators inherit from
``sklearn.base.BaseEstimator`` and the mixins, so ``clone``, pipelines and
``check_estimator`` work; without it they fall back to a minimal base with the same
``get_params``/``set_params`` behaviour, so the functions-first API never depends on
scikit-learn.
"""

from __future__ import annotations

import inspect

__all__ = ["BaseEstimator", "ClassifierMixin", "TransformerMixin", "HAVE_SKLEARN", "check_is_fitted",
           "sklearn_validate"]

try:
    from sklearn.base import BaseEstimator, ClassifierMixin, TransformerMixin
    from sklearn.utils.validation import check_is_fitted

    HAVE_SKLEARN = True
except ImportError:  # pragma: no cover - exercised only without scikit-learn
    HAVE_SKLEARN = False

    class BaseEstimator:  # type: ignore[no-redef]
        """Minimal stand-in for ``sklearn.base.BaseEstimator``."""

        @classmethod
        def _get_param_names(cls):
            sig = inspect.signature(cls.__init__)
            return sorted(p for p in sig.parameters if p != "self")

        def get_params(self, deep=True):
            return {k: getattr(self, k) for k in self._get_param_names()}

        def set_params(self, **params):
            for k, v in params.items():
                if k not in self._get_param_names():
                    raise ValueError(f"invalid parameter {k!r} for {type(self).__name__}")
                setattr(self, k, v)
            return self

        def __repr__(self):
            args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
            return f"{type(self).__name__}({args})"

    class ClassifierMixin:  # type: ignore[no-redef]
        _estimator_type = "classifier"

        def score(self, X, y):
            import numpy as np

            return float(np.mean(self.predict(X) == np.asarray(y)))

    class TransformerMixin:  # type: ignore[no-redef]
        def fit_transform(self, X, y=None, **fit_params):
            return self.fit(X, y, **fit_params).transform(X)

    def check_is_fitted(estimator, attributes=None):  # type: ignore[no-redef]
        fitted = [k for k in vars(estimator) if k.endswith("_") and not k.startswith("__")]
        if not fitted:
            raise ValueError(f"This {type(estimator).__name__} instance is not fitted yet; call fit first")


_NO_Y = object()


def sklearn_validate(estimator, X, y=_NO_Y, *, reset=True):
    """scikit-learn's own input checks, when scikit-learn is installed.

    ``sklearn.utils.validation.validate_data`` gives the estimators exactly the behaviour
    (and the messages) that scikit-learn users and ``check_estimator`` expect: complex
    or object data rejected with scikit-learn's errors, a column-vector ``y`` ravelled
    with a ``DataConversionWarning``, ``n_features_in_`` set on ``fit`` (``reset=True``)
    and checked on ``predict`` (``reset=False``). The course's own validation gate runs
    afterwards, unchanged. Without scikit-learn the inputs are returned as they are.
    """
    if not HAVE_SKLEARN:
        return X if y is _NO_Y else (X, y)
    import re

    import numpy as np
    from sklearn.utils.validation import validate_data

    try:
        if y is _NO_Y:
            return validate_data(estimator, X, reset=reset, dtype=np.float64)
        return validate_data(estimator, X, y, reset=reset, dtype=np.float64)
    except (ValueError, TypeError) as exc:
        # keep scikit-learn's wording (its checks look for it) and name the argument,
        # as every error of the course does
        if "inconsistent numbers of samples" in str(exc):
            raise type(exc)(f"X and y: {exc}") from None
        if re.search(r"\b[Xy]\b", str(exc)):
            raise
        raise type(exc)(f"{_culprit(X, y)}: {exc}") from None


def _culprit(X, y):
    """Which argument scikit-learn refused: y when X alone passes its checks."""
    if y is _NO_Y:
        return "X"
    import numpy as np
    from sklearn.utils import check_array

    try:
        check_array(X, dtype=np.float64)
    except (ValueError, TypeError):
        return "X"
    return "y"
