"""Set kernels |A ∩ B| (HSS1 §1.4.1) and R-convolution kernels (HSS1 Eq. (1.36)),
with the example relation "x splits into a prefix and a suffix".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from kmlteach._validation import _describe, check_string

__all__ = ["set_kernel", "set_features", "prefix_suffix_splits", "convolution_kernel"]


# ---------------------------------------------------------------------------------------
# sets and R-convolution


def _as_set(A: Any, name: str) -> frozenset:
    if isinstance(A, (str, bytes)) or not isinstance(A, (set, frozenset, list, tuple, np.ndarray)):
        raise TypeError(
            f"{name} must be a set (or list/tuple) of hashable items, got {_describe(A)}"
            + ("; use set(word) for the set of its letters" if isinstance(A, str) else "")
        )
    items = A.tolist() if isinstance(A, np.ndarray) else A
    try:
        return frozenset(items)
    except TypeError:
        raise TypeError(f"{name} must hold hashable items (numbers, strings, tuples)") from None


def set_kernel(A, B) -> int:
    """Set kernel of HSS1 §1.4.1: ``k(A, B) = Σ_{x∈A, y∈B} 1[x = y] = |A ∩ B|``.

    Lists and tuples are read as sets (duplicates ignored).
    """
    return len(_as_set(A, "A") & _as_set(B, "B"))


def set_features(sets: Sequence, alphabet: Sequence | None = None):
    """Feature map of the set kernel: ``Φ(A) = Σ_{x ∈ A} e_x``, a **sum** of simplex vertices.

    (HSS1 §1.4.1 calls it an average in the prose, but only the sum gives
    ``<Φ(A), Φ(B)> = |A ∩ B|``.) Returns ``(Phi, alphabet)``; the default alphabet is
    the sorted union of the sets.
    """
    if isinstance(sets, (str, bytes, set, frozenset)) or not isinstance(sets, (list, tuple)):
        raise TypeError(f"sets must be a list of sets, got {_describe(sets)}")
    if not sets:
        raise ValueError("sets is empty; give at least one set")
    S = [_as_set(A, f"sets[{i}]") for i, A in enumerate(sets)]
    if alphabet is None:
        try:
            alphabet = sorted(set().union(*S))
        except TypeError:
            alphabet = sorted(set().union(*S), key=repr)
    else:
        if not hasattr(alphabet, "__iter__"):
            raise TypeError(f"alphabet must be a sequence or set of elements, got {_describe(alphabet)}")
        alphabet = (
            list(_as_set(alphabet, "alphabet")) if isinstance(alphabet, (set, frozenset)) else list(alphabet)
        )
        missing = set().union(*S) - set(alphabet)
        if missing:
            raise ValueError(f"alphabet lacks the items {sorted(map(repr, missing))[:5]} of sets")
    col = {v: j for j, v in enumerate(alphabet)}
    Phi = np.zeros((len(S), len(alphabet)))
    for i, A in enumerate(S):
        for v in A:
            Phi[i, col[v]] += 1.0
    return Phi, list(alphabet)


def prefix_suffix_splits(x: str) -> list[tuple[str, str]]:
    """The relation "z = (u, v) with u + v = x": all |x| + 1 splits of a string.

    Source: HSS1 Eq. (1.36), R-convolution.
    """
    x = check_string(x, "x")
    return [(x[:i], x[i:]) for i in range(len(x) + 1)]


def _decompose(relation, obj, name):
    """R⁻¹(obj) as a list of tuples; a failure names the argument that was decomposed."""
    try:
        return [tuple(z) for z in relation(obj)]
    except TypeError as exc:
        raise TypeError(
            f"relation({name}) must return a list of decompositions (tuples of parts); "
            f"{name} may be of the wrong type: {exc}"
        ) from None


def convolution_kernel(x, y, relation: Callable, part_kernels) -> float:
    """R-convolution kernel, HSS1 Eq. (1.36) (Haussler 1999).

    ``k(x, y) = Σ_{x' ∈ R⁻¹(x)} Σ_{y' ∈ R⁻¹(y)} Π_{i=1..r} k_i(x'_i, y'_i)``.

    Parameters
    ----------
    x, y : objects
    relation : callable
        ``relation(x)`` returns the finite list R⁻¹(x) of decompositions, each a tuple
        of r parts (e.g. :func:`prefix_suffix_splits`).
    part_kernels : callable or sequence of r callables
        ``k_i(part, part')``; one callable is used for every part.

    Each part kernel is evaluated once per pair of distinct parts; the double sum is
    then ``Σ Π_i M_i`` over matrices ``M_i`` of part-kernel values.
    """
    if not callable(relation):
        raise TypeError(f"relation must be a callable returning decompositions, got {_describe(relation)}")
    dx, dy = _decompose(relation, x, "x"), _decompose(relation, y, "y")
    if not dx or not dy:
        return 0.0
    r = len(dx[0])
    if any(len(z) != r for z in dx + dy):
        raise ValueError("relation must return decompositions with the same number of parts")
    if callable(part_kernels):
        kernels = [part_kernels] * r
    else:
        kernels = list(part_kernels) if isinstance(part_kernels, (list, tuple)) else None
        if kernels is None or len(kernels) != r or not all(callable(k) for k in kernels):
            raise TypeError(
                f"part_kernels must be a callable or a list of {r} callables "
                f"(one per part), got {_describe(part_kernels)}"
            )
    total = np.ones((len(dx), len(dy)))
    for i, k in enumerate(kernels):
        px = [z[i] for z in dx]
        py = [z[i] for z in dy]
        ux = {p: a for a, p in enumerate(dict.fromkeys(px))}
        uy = {p: b for b, p in enumerate(dict.fromkeys(py))}
        M = np.array([[float(k(p, q)) for q in uy] for p in ux]).reshape(len(ux), len(uy))
        total *= M[np.ix_([ux[p] for p in px], [uy[q] for q in py])]
    return float(total.sum())
