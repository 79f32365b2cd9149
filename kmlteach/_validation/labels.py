"""Labels: binary {-1, +1}, any hashable classes, integer label sequences, and scores
paired with labels (see :mod:`kmlteach._validation`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .arrays import _describe, as_vector, check_X


def check_binary_labels(
    y: Any, name: str = "y", *, n: int | None = None, require_both: bool = True, of: str | None = None
) -> np.ndarray:
    """Labels in {-1, +1} as float64; both classes present unless ``require_both=False``."""
    arr = as_vector(y, name, length=n, of=of)
    values = np.unique(arr)
    if not np.all(np.isin(values, (-1.0, 1.0))):
        shown = ", ".join(f"{v:g}" for v in values[:6])
        raise ValueError(
            f"{name} must contain only the labels -1 and +1, got values {{{shown}}}"
            + (" (convert 0/1 labels with y = 2*y - 1)" if set(values) <= {0.0, 1.0} else "")
        )
    if require_both and values.size < 2:
        raise ValueError(f"{name} must contain both classes -1 and +1, got only {values[0]:+g}")
    return arr


def check_multiclass_labels(
    y: Any, name: str = "y", *, n: int | None = None, min_classes: int = 2, of: str = "one label per row of X"
) -> tuple[np.ndarray, np.ndarray]:
    """Any hashable labels -> (classes sorted as ``np.unique``, int64 indices 0..k-1);
    ``of`` says where a required length ``n`` comes from (a mismatch names both arguments)."""
    if y is None or isinstance(y, (str, bytes)):
        raise TypeError(f"{name} must be a 1-D array of labels, got {_describe(y)}")
    arr = np.asarray(y)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array of labels, got shape {arr.shape}")
    if n is not None and arr.shape[0] != n:
        raise ValueError(f"{name} must have length {n} ({of}), got {arr.shape[0]}")
    if arr.shape[0] == 0:
        raise ValueError(f"{name} is empty")
    if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite labels")
    try:
        classes, idx = np.unique(arr, return_inverse=True)
    except TypeError:
        raise TypeError(f"{name} labels must be mutually comparable (e.g. all ints or all str)") from None
    if classes.size < min_classes:
        raise ValueError(f"{name} must contain at least {min_classes} classes, got {classes.size}")
    return classes, np.ascontiguousarray(idx.reshape(-1), dtype=np.int64)


def check_Xy(
    X: Any, y: Any, *, binary: bool = True, X_name: str = "X", y_name: str = "y"
) -> tuple[np.ndarray, np.ndarray]:
    """Check a design matrix and binary labels of matching length."""
    Xa = check_X(X, X_name)
    if binary:
        ya = check_binary_labels(y, y_name, n=Xa.shape[0], of=f"one per row of {X_name}")
    else:
        ya = check_multiclass_labels(y, y_name, n=Xa.shape[0], of=f"one label per row of {X_name}")
    return Xa, ya


def check_scores(
    y_score: Any,
    y_true: Any,
    name: str = "y_score",
    *,
    binary: bool = True,
    require_both: bool = False,
    min_length: int = 1,
) -> tuple[np.ndarray, np.ndarray]:
    """Scores (or predictions) ``name``, one per entry of ``y_true``, and their truth: labels
    in {-1, +1} when ``binary``, else real values (relevance) with ``min_length`` entries."""
    if binary:
        yt = check_binary_labels(y_true, "y_true", require_both=require_both)
    else:
        yt = as_vector(y_true, "y_true", min_length=min_length)
    ys = as_vector(y_score, name, length=yt.shape[0], of="one per entry of y_true")
    return ys, yt


def check_labelling(y: Any, name: str, r: int | None, q: int, rows: str = "unary") -> np.ndarray:
    """Labels 0..q-1 as int64, one per row of ``rows`` (named in a length mismatch)."""
    if y is None or isinstance(y, (str, bytes)):
        raise TypeError(f"{name} must be a 1-D array of integer labels, got {type(y).__name__}")
    arr = np.asarray(y)
    if arr.dtype.kind not in "iuf" or arr.ndim != 1:
        raise ValueError(
            f"{name} must be a 1-D array of integer labels, got shape {arr.shape} and dtype {arr.dtype}"
        )
    if r is not None and arr.shape[0] != r:
        raise ValueError(f"{name} must have length {r} (one label per row of {rows}), got {arr.shape[0]}")
    if arr.shape[0] == 0:
        raise ValueError(f"{name} is empty")
    if arr.dtype.kind == "f" and not np.all(np.isfinite(arr) & (arr == np.round(arr))):
        raise ValueError(f"{name} must contain integer labels")
    if np.any(arr < 0) or np.any(arr >= q):
        raise ValueError(
            f"{name} must contain labels in 0..{q - 1}, got values in [{arr.min():g}, {arr.max():g}]"
        )
    return np.ascontiguousarray(arr, dtype=np.int64)


def check_int_labels(y: Any, name: str) -> np.ndarray:
    """A non-empty 1-D array of integer labels as int64 (integral floats accepted)."""
    if y is None or isinstance(y, (str, bytes)):
        raise TypeError(f"{name} must be a 1-D array of integer labels, got {y!r}")
    arr = np.asarray(y)
    if arr.ndim != 1 or arr.shape[0] == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array of labels, got shape {arr.shape}")
    if arr.dtype.kind in "iu":
        return arr.astype(np.int64)
    if arr.dtype.kind == "b" or arr.dtype.kind not in "f":
        raise TypeError(f"{name} must hold integer labels 0..q-1, got dtype {arr.dtype}")
    if not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)):
        raise ValueError(f"{name} must hold integer labels 0..q-1 (no NaN, no fractions)")
    return arr.astype(np.int64)


def check_label_range(yi: np.ndarray, k: int, name: str = "y", of: str | None = None) -> None:
    """Class indices ``yi`` within 0..k-1; ``of`` says where k comes from (e.g. "w has 3 rows")."""
    if yi.size and (yi.min() < 0 or yi.max() >= k):
        raise ValueError(
            f"{name} must hold class indices in 0..{k - 1}" + (f" ({of})" if of else "") + ", got values in "
            f"{int(yi.min())}..{int(yi.max())}"
        )


def check_pm1_predictions(pred: np.ndarray, m: int, name: str) -> np.ndarray:
    """The predictions of a hypothesis returned by learner ``name``: one of {-1, +1} per row."""
    if pred.shape != (m,) or not np.all((pred == 1.0) | (pred == -1.0)):
        raise ValueError(f"{name}'s hypothesis must predict one label in {{-1, +1}} per row of X")
    return pred
