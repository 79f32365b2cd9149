"""How an exercise compares a student's value with the expected one, by name.

An exercise record (``records/chNN.toml``) names its comparison and post-processing as
data — ``compare = "exact"``, ``compare = { kind = "allclose", rtol = 1e-9, atol =
1e-12 }``, ``prepare = "float_array"`` — so that the student edition, which ships the
records but no exercise code, compares exactly as the instructor's checker does. The
named *predicates* detect catalogued mistakes from the two values alone
(``mistakes = [{ name, predicate = "negated", explain }]``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = [
    "allclose",
    "exact",
    "comparator",
    "preparer",
    "predicate",
    "COMPARATORS",
    "PREPARERS",
    "PREDICATES",
]

Comparator = Callable[[Any, Any], bool]


def _is_numeric_sequence(seq: Any) -> bool:
    return all(isinstance(v, (int, float, np.number)) and not isinstance(v, bool) for v in seq)


def allclose(rtol: float = 1e-7, atol: float = 1e-9) -> Comparator:
    """Compare numbers / arrays / tuples of them with ``np.allclose`` (shapes must agree)."""

    def compare(expected: Any, got: Any) -> bool:
        if isinstance(expected, (tuple, list)) and not _is_numeric_sequence(expected):
            if not isinstance(got, (tuple, list)) or len(got) != len(expected):
                return False
            return all(compare(e, g) for e, g in zip(expected, got))
        try:
            e = np.asarray(expected, dtype=float)
            g = np.asarray(got, dtype=float)
        except (TypeError, ValueError):
            return False
        return e.shape == g.shape and bool(np.allclose(e, g, rtol=rtol, atol=atol))

    return compare


def exact() -> Comparator:
    """Compare with ``==`` (arrays element-wise, shapes must agree)."""

    def compare(expected: Any, got: Any) -> bool:
        if isinstance(expected, np.ndarray) or isinstance(got, np.ndarray):
            e, g = np.asarray(expected), np.asarray(got)
            return e.shape == g.shape and bool(np.all(e == g))
        return bool(expected == got)

    return compare


def _gram_of(got: Any, expected: Any, same_shape: bool, rtol: float, atol: float) -> bool:
    """``got gotᵀ`` equals ``expected expectedᵀ``: the same rows up to an orthogonal map."""
    try:
        g = np.asarray(got, dtype=float)
    except (TypeError, ValueError):
        return False
    e = np.asarray(expected, dtype=float)
    if g.ndim != 2 or g.shape[0] != e.shape[0] or (same_shape and g.shape != e.shape):
        return False
    return bool(np.allclose(g @ g.T, e @ e.T, rtol=rtol, atol=atol))


def same_inner_products(expected: Any, got: Any) -> bool:
    """Feature maps in any order, with signs flipped or extra zero columns: Ψ Ψᵀ agrees."""
    return _gram_of(got, expected, False, 1e-9, 1e-9)


def same_embedding(expected: Any, got: Any) -> bool:
    """Embeddings equal up to the sign of each axis: Z Zᵀ and the shape agree."""
    return _gram_of(got, expected, True, 1e-6, 1e-8)


COMPARATORS: dict[str, Callable[..., Comparator]] = {
    "allclose": allclose,
    "exact": exact,
    "same_inner_products": lambda: same_inner_products,
    "same_embedding": lambda: same_embedding,
}


def _int_tuple(got: Any) -> Any:
    try:
        return tuple(int(v) for v in got)
    except (TypeError, ValueError):
        return got


PREPARERS: dict[str, Callable[[Any], Any]] = {
    "array": np.asarray,
    "float_array": lambda got: np.asarray(got, dtype=float),
    "int_array": lambda got: np.asarray(got, dtype=np.int64),
    "int_tuple": _int_tuple,
}


def _negated(expected: Any, got: Any) -> bool:
    try:
        e = np.asarray(expected, dtype=float)
        return bool(np.any(e != 0)) and allclose()(-e, got)
    except (TypeError, ValueError):
        return False


def _transposed(expected: Any, got: Any) -> bool:
    try:
        e = np.asarray(expected, dtype=float)
        return e.ndim == 2 and e.shape[0] != e.shape[1] and allclose()(e.T, got)
    except (TypeError, ValueError):
        return False


PREDICATES: dict[str, Callable[[Any, Any], bool]] = {"negated": _negated, "transposed": _transposed}
"""Mistakes recognisable from (expected, got) alone; a record names them with ``predicate``."""


def comparator(spec: Any, where: str = "compare") -> Comparator:
    """The comparator a record names: absent (allclose), a name, or ``{kind, **options}``."""
    if spec is None:
        return allclose()
    if isinstance(spec, str):
        spec = {"kind": spec}
    if not isinstance(spec, dict) or spec.get("kind") not in COMPARATORS:
        raise ValueError(f"{where}: unknown comparison {spec!r} (known: {', '.join(COMPARATORS)})")
    options = {k: v for k, v in spec.items() if k != "kind"}
    try:
        return COMPARATORS[spec["kind"]](**options)
    except TypeError:
        raise ValueError(f"{where}: bad options {options!r} for {spec['kind']!r}") from None


def preparer(name: Any, where: str = "prepare") -> Callable[[Any], Any]:
    """The post-processing a record names (absent: the value as returned)."""
    if name is None:
        return lambda got: got
    if name not in PREPARERS:
        raise ValueError(f"{where}: unknown preparation {name!r} (known: {', '.join(PREPARERS)})")
    return PREPARERS[name]


def predicate(name: Any, where: str = "predicate") -> Callable[[Any, Any], bool]:
    """The named mistake detector ``(expected, got) -> bool``."""
    if name not in PREDICATES:
        raise ValueError(f"{where}: unknown predicate {name!r} (known: {', '.join(PREDICATES)})")
    return PREDICATES[name]
