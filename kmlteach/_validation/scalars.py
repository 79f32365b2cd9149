"""Scalars and options: numbers, counts, probabilities, flags, choices, seeds, strings
and callables (see :mod:`kmlteach._validation`)."""

from __future__ import annotations

import numbers
from collections.abc import Iterable
from typing import Any

import numpy as np

from .arrays import _describe


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


def check_probability(value: Any, name: str, *, open_left: bool = False, open_right: bool = False) -> float:
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


def check_rng(seed: Any, name: str = "seed") -> np.random.Generator:
    """``seed`` (None, int >= 0 or a Generator) -> ``np.random.Generator``."""
    if seed is None or isinstance(seed, np.random.Generator):
        return np.random.default_rng(seed)
    if isinstance(seed, bool) or not isinstance(seed, (numbers.Integral, np.integer)):
        raise TypeError(f"{name} must be None or a non-negative integer, got {_describe(seed)}")
    if int(seed) < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {seed}")
    return np.random.default_rng(int(seed))


def check_string(value: Any, name: str, *, allow_empty: bool = True) -> str:
    """A ``str`` (optionally non-empty)."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string, got {_describe(value)}")
    if not allow_empty and value == "":
        raise ValueError(f"{name} must be a non-empty string")
    return value


def check_bool(value: Any, name: str) -> bool:
    """``True`` or ``False`` (NumPy's ``bool_`` too); 0/1, strings and None are refused."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {_describe(value)}")
    return bool(value)


def check_instance(value: Any, name: str, cls: type, what: str) -> Any:
    """An instance of ``cls``; ``what`` says in words what is expected."""
    if not isinstance(value, cls):
        raise TypeError(f"{name} must be {what}, got {type(value).__name__}")
    return value


def check_learner(learner: Any, name: str = "learner", *, returns: str = "a model with .predict") -> Any:
    """An estimator with ``fit(X, y)`` or a function ``learner(X, y)`` returning ``returns``."""
    if learner is None or not (hasattr(learner, "fit") or callable(learner)):
        raise TypeError(
            f"{name} must be an estimator with fit(X, y) or a function "
            f"{name}(X, y) returning {returns}, got {_describe(learner)}"
        )
    return learner


def check_real(value: Any, name: str) -> float:
    """A finite real number (not a bool)."""
    return _check_real_scalar(value, name)


def check_cutoff(k: Any, r: int, name: str = "k") -> int:
    """A cut-off position k >= 1 for a list of r items (None: all r; a larger k means all r)."""
    if k is None:
        return r
    return min(check_int(k, name, minimum=1), r)


def check_predictor(h: Any, name: str) -> Any:
    """What a learner ``name`` returned: an object with ``.predict(X)``."""
    if not hasattr(h, "predict"):
        raise TypeError(f"{name} must return an object with .predict(X), got {_describe(h)}")
    return h
