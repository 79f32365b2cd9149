"""The one validation gate: every public function checks its inputs here.

Jitted kernels accept only C-contiguous ``float64``/``int64`` arrays and plain
scalars; a wrong type reaching them produces a long Numba ``TypingError``, and a NaN
produces a silently wrong answer. So every public function converts and checks its
arguments with these helpers *before* any kernel runs. Errors are ``ValueError``
(wrong value, shape or content) or ``TypeError`` (wrong kind of object) and always
name the argument, what was received and what was expected.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable
from typing import Any

import numpy as np

__all__ = [
    "as_matrix",
    "as_vector",
    "check_X",
    "check_Xy",
    "check_binary_labels",
    "check_multiclass_labels",
    "check_positive",
    "check_nonnegative",
    "check_int",
    "check_probability",
    "check_choice",
    "check_square",
    "check_rng",
    "check_same_length",
    "check_string",
]


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
            raise ValueError(
                f"{name} must be a rectangular array of numbers, got {_describe(a)}"
            ) from None
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


def as_matrix(a: Any, name: str = "X", *, min_rows: int = 1, min_cols: int = 1,
              n_cols: int | None = None, finite: bool = True) -> np.ndarray:
    """Return ``a`` as a C-contiguous float64 matrix, or raise naming ``name``."""
    arr = _to_float_array(a, name)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array (n_samples, n_features), got {arr.ndim}-D "
                         f"with shape {arr.shape}" + ("; use X.reshape(-1, 1) for one feature"
                                                      if arr.ndim == 1 else ""))
    if arr.shape[0] < min_rows:
        raise ValueError(f"{name} must have at least {min_rows} row(s), got shape {arr.shape}")
    if arr.shape[1] < min_cols:
        raise ValueError(f"{name} must have at least {min_cols} column(s), got shape {arr.shape}")
    if n_cols is not None and arr.shape[1] != n_cols:
        raise ValueError(f"{name} must have {n_cols} columns (as in the training data), "
                         f"got shape {arr.shape}")
    if finite:
        _check_finite(arr, name)
    return arr


def as_vector(a: Any, name: str, *, length: int | None = None, min_length: int = 1,
              finite: bool = True, of: str | None = None) -> np.ndarray:
    """Return ``a`` as a C-contiguous float64 vector, or raise naming ``name``; ``of`` names
    where a required ``length`` comes from (e.g. "one per row of X"), so that a length
    mismatch names both arguments."""
    if isinstance(a, numbers.Number) and not isinstance(a, bool):
        a = [a]
    arr = _to_float_array(a, name)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array, got shape {arr.shape}")
    if length is not None and arr.shape[0] != length:
        raise ValueError(f"{name} must have length {length}" + (f" ({of})" if of else "")
                         + f", got length {arr.shape[0]}")
    if arr.shape[0] < min_length:
        raise ValueError(f"{name} must have at least {min_length} entr{'y' if min_length == 1 else 'ies'}, "
                         f"got {arr.shape[0]}")
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
    if bounded and arr.size:
        big = float(np.max(np.abs(arr)))
        if big * np.sqrt(arr.shape[1]) > MAX_FEATURE:
            raise ValueError(f"{name} has entries up to {big:.3g}: squared norms would overflow; "
                             f"rescale {name} (e.g. standardise each feature)")
    return arr


def check_binary_labels(y: Any, name: str = "y", *, n: int | None = None,
                        require_both: bool = True, of: str | None = None) -> np.ndarray:
    """Labels in {-1, +1} as float64; both classes present unless ``require_both=False``."""
    arr = as_vector(y, name, length=n, of=of)
    values = np.unique(arr)
    if not np.all(np.isin(values, (-1.0, 1.0))):
        shown = ", ".join(f"{v:g}" for v in values[:6])
        raise ValueError(f"{name} must contain only the labels -1 and +1, got values {{{shown}}}"
                         + (" (convert 0/1 labels with y = 2*y - 1)" if set(values) <= {0.0, 1.0} else ""))
    if require_both and values.size < 2:
        raise ValueError(f"{name} must contain both classes -1 and +1, got only {values[0]:+g}")
    return arr


def check_multiclass_labels(y: Any, name: str = "y", *, n: int | None = None, min_classes: int = 2,
                            of: str = "one label per row of X") -> tuple[np.ndarray, np.ndarray]:
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


def check_Xy(X: Any, y: Any, *, binary: bool = True, X_name: str = "X",
             y_name: str = "y") -> tuple[np.ndarray, np.ndarray]:
    """Check a design matrix and binary labels of matching length."""
    Xa = check_X(X, X_name)
    if binary:
        ya = check_binary_labels(y, y_name, n=Xa.shape[0], of=f"one per row of {X_name}")
    else:
        ya = check_multiclass_labels(y, y_name, n=Xa.shape[0], of=f"one label per row of {X_name}")
    return Xa, ya


def _check_real_scalar(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, np.floating, np.integer)):
        raise TypeError(f"{name} must be a real number, got {_describe(value)}")
    try:
        v = float(value)
    except OverflowError:
        raise ValueError(f"{name} must be finite, got an integer too large for a float") from None
    if not np.isfinite(v):
        raise ValueError(f"{name} must be finite, got {v}")
    return v


def check_positive(value: Any, name: str) -> float:
    """A finite real number > 0."""
    v = _check_real_scalar(value, name)
    if v <= 0:
        raise ValueError(f"{name} must be positive, got {value!r}")
    return v


def check_nonnegative(value: Any, name: str) -> float:
    """A finite real number >= 0."""
    v = _check_real_scalar(value, name)
    if v < 0:
        raise ValueError(f"{name} must be non-negative, got {value!r}")
    return v


# counts (iterations, sizes, classes): larger values cannot be held in memory or run
MAX_COUNT = 2**31 - 1


def check_int(value: Any, name: str, *, minimum: int | None = 1, maximum: int | None = None) -> int:
    """An integer (not bool) within [minimum, maximum]; ``maximum`` defaults to
    ``MAX_COUNT`` (2³¹ − 1): a count beyond it is a mistake, not a request."""
    if maximum is None:
        maximum = MAX_COUNT
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, np.integer)):
        if isinstance(value, (float, np.floating)) and float(value).is_integer():
            value = int(value)
        else:
            raise TypeError(f"{name} must be an integer, got {_describe(value)}")
    v = int(value)
    shown = f"{v:.3g}" if abs(v) > 10**15 else str(v)
    if minimum is not None and v < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {shown}")
    if maximum is not None and v > maximum:
        raise ValueError(f"{name} must be at most {maximum}, got {shown}")
    return v


def check_probability(value: Any, name: str, *, open_left: bool = False,
                      open_right: bool = False) -> float:
    """A number in [0, 1] (ends optionally open)."""
    v = _check_real_scalar(value, name)
    lo_ok = v > 0 if open_left else v >= 0
    hi_ok = v < 1 if open_right else v <= 1
    if not (lo_ok and hi_ok):
        lo = "(" if open_left else "["
        hi = ")" if open_right else "]"
        raise ValueError(f"{name} must lie in {lo}0, 1{hi}, got {value!r}")
    return v


def check_choice(value: Any, name: str, choices: Iterable[str]) -> str:
    """One of a fixed set of strings."""
    choices = tuple(choices)
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}; got {value!r}")
    return value


def check_square(K: Any, name: str = "K", *, symmetric: bool = False, tol: float = 1e-8) -> np.ndarray:
    """A finite square float64 matrix (optionally symmetric up to ``tol``)."""
    arr = as_matrix(K, name)
    if arr.shape[0] != arr.shape[1]:
        raise ValueError(f"{name} must be square, got shape {arr.shape}")
    if symmetric:
        scale = max(1.0, float(np.max(np.abs(arr))))
        if not np.allclose(arr, arr.T, rtol=0, atol=tol * scale):
            raise ValueError(f"{name} must be symmetric (a Gram matrix), got max |K - K.T| = "
                             f"{float(np.max(np.abs(arr - arr.T))):.3g}")
    return arr


def check_rng(seed: Any, name: str = "seed") -> np.random.Generator:
    """``seed`` (None, int >= 0 or a Generator) -> ``np.random.Generator``."""
    if seed is None or isinstance(seed, np.random.Generator):
        return np.random.default_rng(seed)
    if isinstance(seed, bool) or not isinstance(seed, (numbers.Integral, np.integer)):
        raise TypeError(f"{name} must be None or a non-negative integer, got {_describe(seed)}")
    if int(seed) < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {seed}")
    return np.random.default_rng(int(seed))


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


def check_string(value: Any, name: str, *, allow_empty: bool = True) -> str:
    """A ``str`` (optionally non-empty)."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string, got {_describe(value)}")
    if not allow_empty and value == "":
        raise ValueError(f"{name} must be a non-empty string")
    return value


def check_finite_result(name: str, *arrays) -> None:
    """Raise a ValueError blaming argument ``name`` when an iterative method's output
    overflowed (a step size or a 1/λ so large that the iterates left float64); a solver
    must never return inf or NaN weights as if they were an answer."""
    for a in arrays:
        if a is not None and not np.all(np.isfinite(a)):
            raise ValueError(f"{name} is too large for this data: the iterates overflowed to "
                             f"inf/NaN; use a smaller {name}")


def check_finite_output(names: str, *arrays) -> None:
    """Raise a ValueError naming the arguments ``names`` (e.g. "w or b") when a direct
    computation overflowed: a huge but finite input must not come back as inf or NaN."""
    for a in arrays:
        if a is not None and not np.all(np.isfinite(a)):
            raise ValueError(f"the result overflowed to inf/NaN: {names} is too large; rescale {names}")
