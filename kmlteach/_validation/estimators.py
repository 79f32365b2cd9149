"""The one validation pass of a scikit-learn style estimator's ``fit``/``predict``.

:func:`validate_data` is the only place an estimator checks its data. With scikit-learn
installed it runs scikit-learn's own ``validate_data`` (the behaviour and messages that
``check_estimator`` and scikit-learn users expect: complex or object data refused, a
column-vector ``y`` ravelled with a ``DataConversionWarning``, ``n_features_in_`` set on
``fit`` and checked afterwards), adds the course's one extra condition on the converted
array (squared norms must not overflow) and names the argument in every message; without
scikit-learn the course's own :func:`check_X` does the same job. Labels are then read once.
The estimator passes the checked arrays to the solvers' unchecked cores, so ``fit`` never
converts or checks its data twice.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from .arrays import check_bounded, check_X
from .labels import check_multiclass_labels

NO_Y = object()


def validate_data(
    estimator,
    X: Any,
    y: Any = NO_Y,
    *,
    reset: bool = True,
    min_classes: int = 2,
    max_classes: int | None = None,
):
    """Check ``X`` (and class labels ``y``) for ``estimator``: returns ``X`` as a C-contiguous
    float64 matrix, or ``(X, classes, y_index)`` when ``y`` is given (``classes`` sorted as
    ``np.unique``, ``y_index`` int64 positions in it). ``reset=True`` (``fit``) records
    ``n_features_in_``; ``reset=False`` (``predict``, ``transform``) checks X against it.
    """
    from kmlteach._estimator import HAVE_SKLEARN

    name = type(estimator).__name__
    if HAVE_SKLEARN:
        X, y = _sklearn(estimator, X, y, reset)
        X = check_bounded(X, "X")
    else:
        X = check_X(X, "X")
        if reset:
            estimator.n_features_in_ = X.shape[1]
        elif X.shape[1] != estimator.n_features_in_:
            raise ValueError(
                f"X has {X.shape[1]} features, but {name} is expecting "
                f"{estimator.n_features_in_} features as input"
            )
    if y is NO_Y:
        return X
    if y is None:
        raise ValueError(f"{name} requires y to be passed, but the target y is None")
    ya = np.asarray(y)
    if ya.dtype.kind == "f" and ya.ndim == 1 and np.all(np.isfinite(ya)) and np.any(ya != np.round(ya)):
        raise ValueError("Unknown label type: continuous values in y; y must hold class labels")
    classes, idx = check_multiclass_labels(y, "y", n=X.shape[0], min_classes=1)
    if classes.size < min_classes:
        raise ValueError(f"y must contain at least {min_classes} classes, got 1 class ({classes[0]!r})")
    if max_classes is not None and classes.size > max_classes:
        raise ValueError(
            f"Only binary classification is supported: y must contain exactly "
            f"{max_classes} classes, got {classes.size}"
        )
    return X, classes, idx


def _sklearn(estimator, X, y, reset):
    from sklearn.utils.validation import validate_data as sk_validate

    try:
        if y is NO_Y:
            return sk_validate(estimator, X, reset=reset, dtype=np.float64, order="C"), y
        return sk_validate(estimator, X, y, reset=reset, dtype=np.float64, order="C")
    except (ValueError, TypeError) as exc:
        # keep scikit-learn's wording (its checks look for it) and name the argument,
        # as every error of the course does
        if "inconsistent numbers of samples" in str(exc):
            raise type(exc)(f"X and y: {exc}") from None
        if re.search(r"\b[Xy]\b", str(exc)):
            raise
        raise type(exc)(f"{_culprit(X, y)}: {exc}") from None


def _culprit(X, y) -> str:
    """Which argument scikit-learn refused: y when X alone passes its checks."""
    if y is NO_Y:
        return "X"
    from sklearn.utils import check_array

    try:
        check_array(X, dtype=np.float64)
    except (ValueError, TypeError):
        return "X"
    return "y"
