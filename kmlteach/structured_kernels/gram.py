"""The Gram matrix of any structured kernel over a list of items."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from kmlteach._validation import _describe

__all__ = ["structured_gram"]


# ---------------------------------------------------------------------------------------


def structured_gram(
    kernel: Callable, items: Sequence, others: Sequence | None = None, **params
) -> np.ndarray:
    """Gram matrix ``K[i, j] = kernel(items[i], others[j], **params)`` for any kernel here.

    ``others`` defaults to ``items`` (then only the upper triangle is evaluated).

    Source: HSS1 §1.4.
    """
    if not callable(kernel):
        raise TypeError(f"kernel must be a callable such as ngram_kernel, got {_describe(kernel)}")
    if items is None:
        raise TypeError("items must be a list of objects, got None")
    for name, seq in (("items", items), ("others", others)):
        if seq is not None and (isinstance(seq, (str, bytes)) or not hasattr(seq, "__len__")):
            raise TypeError(f"{name} must be a list of objects, got {_describe(seq)}")
    if len(items) == 0 or (others is not None and len(others) == 0):
        raise ValueError("items and others must not be empty")
    try:
        if others is None:
            n = len(items)
            K = np.empty((n, n))
            for i in range(n):
                for j in range(i, n):
                    K[i, j] = K[j, i] = kernel(items[i], items[j], **params)
            return K
        return np.array([[kernel(a, b, **params) for b in others] for a in items], dtype=float)
    except TypeError as exc:  # the kernel refused an item: say which list it came from
        raise TypeError(
            f"items{'' if others is None else ' or others'} hold objects the kernel cannot take: {exc}"
        ) from None
