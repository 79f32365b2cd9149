"""Base classes for the thin scikit-learn-style estimators (HardSVM, KernelPCA, ...).

scikit-learn is an *optional* dependency of the course (it is the oracle in the tests,
not something a student needs). When it is installed the estimators inherit from
``sklearn.base.BaseEstimator`` and the mixins, so ``clone``, pipelines and
``check_estimator`` work; without it they fall back to a minimal base with the same
``get_params``/``set_params`` behaviour, so the functions-first API never depends on
scikit-learn. The estimators' input checks are in :mod:`kmlteach._validation`
(``validate_data``, scikit-learn's own checks when it is installed).
"""

from __future__ import annotations

import inspect

__all__ = [
    "BaseEstimator",
    "ClassifierMixin",
    "TransformerMixin",
    "HAVE_SKLEARN",
    "check_is_fitted",
    "keep_params",
]

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


def keep_params(estimator, arguments: dict) -> None:
    """Store an estimator's constructor arguments as attributes of the same names.

    scikit-learn's rule for ``__init__``: no logic and no validation, every parameter kept
    as given (``fit`` checks them). Called as ``keep_params(self, locals())``.
    """
    for name, value in arguments.items():
        if name != "self":
            setattr(estimator, name, value)
