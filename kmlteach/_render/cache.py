"""The rendering layer's one cache: bitmaps of texts (and anything else that is drawn once
and pasted on every frame), least recently used dropped first, bounded in bytes.

Keys are tuples whose first item names the kind of entry (``"text"``, ``"glyph"``, ...), so
that the kinds share the budget without colliding.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["BitmapCache", "CACHE"]


def _size(value: Any) -> int:
    """Bytes held by an entry: its arrays (tuples are searched one level deep)."""
    items = value if isinstance(value, tuple) else (value,)
    return 64 + sum(v.nbytes for v in items if isinstance(v, np.ndarray))


class BitmapCache:
    """A least-recently-used mapping bounded by ``max_bytes`` (arrays counted by size).

    Parameters
    ----------
    max_bytes : int
        Entries are dropped, least recently used first, while the total exceeds it.
    """

    def __init__(self, max_bytes: int = 64 * 2**20):
        if not isinstance(max_bytes, int) or max_bytes <= 0:
            raise ValueError(f"max_bytes must be a positive int, got {max_bytes!r}")
        self.max_bytes = max_bytes
        self.nbytes = 0
        self._data: OrderedDict = OrderedDict()

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, key) -> bool:
        return key in self._data

    def get(self, key, make: Callable[[], Any]) -> Any:
        """The entry of ``key``, made by ``make()`` and stored on a miss."""
        data = self._data
        hit = data.get(key, _MISSING)
        if hit is not _MISSING:
            data.move_to_end(key)
            return hit
        value = make()
        data[key] = value
        self.nbytes += _size(value)
        while self.nbytes > self.max_bytes and len(data) > 1:
            _, old = data.popitem(last=False)
            self.nbytes -= _size(old)
        return value

    def clear(self) -> None:
        self._data.clear()
        self.nbytes = 0

    def keys(self) -> list:
        """The keys, least recently used first."""
        return list(self._data)

    def count(self, kind: str) -> int:
        """Entries of one kind (the first item of their key)."""
        return sum(1 for k in self._data if k[0] == kind)


_MISSING = object()

CACHE = BitmapCache()
"""The cache every fast artist of :mod:`kmlteach._render` draws from (64 MiB at most)."""
