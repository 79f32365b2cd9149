"""Arrays: conversion to C-contiguous float64, finiteness, shapes, magnitude bounds
(the part of the validation gate every array argument goes through; see
:mod:`kmlteach._validation`)."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np


def _describe(obj: Any) -> str:
    if isinstance(obj, np.ndarray):
        return f"an array of shape {obj.shape} and dtype {obj.dtype}"
    text = repr(obj)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{type(obj).__name__} {text}"


def _to_float_array(a: Any, name: str) -> np.ndarray:
    if a is None:
        raise TypeError(f"{name} must be an array of numbers, got None")
    if isinstance(a, (str, bytes)):
        raise TypeError(f"{name} must be an array of numbers, got {_describe(a)}")
    try:
        arr = np.asarray(a)
    except Exception as exc:  # ragged lists etc.
        raise ValueError(f"{name} could not be read as a numeric array: {exc}") from None
    if arr.dtype == object:
        if any(isinstance(v, (str, bytes)) for v in arr.flat):
            raise TypeError(f"{name} must hold numbers, got strings in {_describe(a)}")
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"{name} must be a rectangular array of numbers, got {_describe(a)}") from None
    if arr.dtype.kind == "c":
        raise TypeError(f"{name} must be real-valued, got complex dtype {arr.dtype}")
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must hold numbers, got dtype {arr.dtype}")
    # (np.ascontiguousarray would turn a 0-d array into shape (1,) and hide a scalar)
    out = np.asarray(arr, dtype=np.float64)
    return out if out.flags.c_contiguous else out.copy(order="C")


def _check_finite(arr: np.ndarray, name: str) -> None:
    # Fast path (as scikit-learn does): a finite sum proves every entry is finite, without
    # allocating a boolean array; only an inf/NaN sum (or overflow) needs the full check.
    with np.errstate(over="ignore", invalid="ignore"):
        if np.isfinite(np.sum(arr)):
            return
    if not np.all(np.isfinite(arr)):
        bad = int(np.size(arr) - np.count_nonzero(np.isfinite(arr)))
        raise ValueError(f"{name} contains {bad} NaN or infinite value(s); all entries must be finite")


def as_matrix(
    a: Any,
    name: str = "X",
    *,
    min_rows: int = 1,
    min_cols: int = 1,
    n_cols: int | None = None,
    finite: bool = True,
) -> np.ndarray:
    """Return ``a`` as a C-contiguous float64 matrix, or raise naming ``name``."""
    arr = _to_float_array(a, name)
    if arr.ndim != 2:
        raise ValueError(
            f"{name} must be a 2-D array (n_samples, n_features), got {arr.ndim}-D "
            f"with shape {arr.shape}" + ("; use X.reshape(-1, 1) for one feature" if arr.ndim == 1 else "")
        )
    if arr.shape[0] < min_rows:
        raise ValueError(f"{name} must have at least {min_rows} row(s), got shape {arr.shape}")
    if arr.shape[1] < min_cols:
        raise ValueError(f"{name} must have at least {min_cols} column(s), got shape {arr.shape}")
    if n_cols is not None and arr.shape[1] != n_cols:
        raise ValueError(
            f"{name} must have {n_cols} columns (as in the training data), got shape {arr.shape}"
        )
    if finite:
        _check_finite(arr, name)
    return arr


def as_vector(
    a: Any,
    name: str,
    *,
    length: int | None = None,
    min_length: int = 1,
    finite: bool = True,
    of: str | None = None,
) -> np.ndarray:
    """Return ``a`` as a C-contiguous float64 vector, or raise naming ``name``; ``of`` names
    where a required ``length`` comes from (e.g. "one per row of X"), so that a length
    mismatch names both arguments."""
    if isinstance(a, numbers.Number) and not isinstance(a, bool):
        a = [a]
    arr = _to_float_array(a, name)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array, got shape {arr.shape}")
    if length is not None and arr.shape[0] != length:
        raise ValueError(
            f"{name} must have length {length}" + (f" ({of})" if of else "") + f", got length {arr.shape[0]}"
        )
    if arr.shape[0] < min_length:
        raise ValueError(
            f"{name} must have at least {min_length} entr{'y' if min_length == 1 else 'ies'}, "
            f"got {arr.shape[0]}"
        )
    if finite:
        _check_finite(arr, name)
    return arr


def as_array(a: Any, name: str, *, finite: bool = True) -> np.ndarray:
    """Return ``a`` (a number or an array of any shape) as float64, or raise naming ``name``."""
    if isinstance(a, bool):
        raise TypeError(f"{name} must be a number or an array of numbers, got bool {a}")
    arr = _to_float_array(a, name)
    if finite:
        _check_finite(arr, name)
    return arr


# |x| beyond this makes ||x||² (and <w, x> for any reasonable w) overflow float64
MAX_FEATURE = 1e150


def check_X(X: Any, name: str = "X", *, bounded: bool = True, **kw) -> np.ndarray:
    """A finite, non-empty float64 design matrix of shape (m, d). With ``bounded`` (the
    default) its squared row norms must be finite too: the margin-based solvers need
    ||x_i||² or <w, x_i>. Scale-free learners (stumps, trees) pass ``bounded=False``."""
    arr = as_matrix(X, name, **kw)
    if bounded:
        check_bounded(arr, name)
    return arr


def check_bounded(arr: np.ndarray, name: str = "X") -> np.ndarray:
    """A float64 matrix whose squared row norms cannot overflow (see :func:`check_X`)."""
    if arr.size:
        big = float(np.max(np.abs(arr)))
        if big * np.sqrt(arr.shape[1]) > MAX_FEATURE:
            raise ValueError(
                f"{name} has entries up to {big:.3g}: squared norms would overflow; "
                f"rescale {name} (e.g. standardise each feature)"
            )
    return arr


def check_square(K: Any, name: str = "K", *, symmetric: bool = False, tol: float = 1e-8) -> np.ndarray:
    """A finite square float64 matrix (optionally symmetric up to ``tol``)."""
    arr = as_matrix(K, name)
    if arr.shape[0] != arr.shape[1]:
        raise ValueError(f"{name} must be square, got shape {arr.shape}")
    if symmetric:
        scale = max(1.0, float(np.max(np.abs(arr))))
        if not np.allclose(arr, arr.T, rtol=0, atol=tol * scale):
            raise ValueError(
                f"{name} must be symmetric (a Gram matrix), got max |K - K.T| = "
                f"{float(np.max(np.abs(arr - arr.T))):.3g}"
            )
    return arr


def check_same_length(**arrays: Any) -> int:
    """All given sequences have one common length; returns it."""
    if not arrays:
        raise TypeError("check_same_length needs at least one named sequence")
    lengths = {}
    for k, v in arrays.items():
        try:
            lengths[k] = len(v)
        except TypeError:
            raise TypeError(f"{k} must be a sequence or array, got {_describe(v)}") from None
    if len(set(lengths.values())) > 1:
        desc = ", ".join(f"{k} has {n}" for k, n in lengths.items())
        raise ValueError(f"lengths must agree: {desc}")
    return next(iter(lengths.values()))


def check_finite_result(name: str, *arrays) -> None:
    """Raise a ValueError blaming argument ``name`` when an iterative method's output
    overflowed (a step size or a 1/λ so large that the iterates left float64); a solver
    must never return inf or NaN weights as if they were an answer."""
    for a in arrays:
        if a is not None and not np.all(np.isfinite(a)):
            raise ValueError(
                f"{name} is too large for this data: the iterates overflowed to inf/NaN; use a smaller {name}"
            )


def check_finite_output(names: str, *arrays) -> None:
    """Raise a ValueError naming the arguments ``names`` (e.g. "w or b") when a direct
    computation overflowed: a huge but finite input must not come back as inf or NaN."""
    for a in arrays:
        if a is not None and not np.all(np.isfinite(a)):
            raise ValueError(f"the result overflowed to inf/NaN: {names} is too large; rescale {names}")


def check_overflow(result, message: str) -> None:
    """Raise ``ValueError(message)`` when a computed ``result`` overflowed to inf/NaN; the
    message names the argument that was too large (e.g. "beta = 50 is too large ...")."""
    if not np.all(np.isfinite(result)):
        raise ValueError(message)


def check_w_X(w: Any, X: Any, w_name: str = "w", X_name: str = "X") -> tuple[np.ndarray, np.ndarray]:
    """A weight vector ``w`` with one entry per column of the design matrix ``X``."""
    Xa = check_X(X, X_name)
    wa = as_vector(w, w_name, length=Xa.shape[1], of=f"one per column of {X_name}")
    return wa, Xa
