"""Widgets of chapter 04: the one-vs-all failure of Example 17.1 and all-pairs ties
(:mod:`._ch04.ova`), the Kesler embedding of one example (:mod:`._ch04.kesler`).

The builders live in :mod:`kmlteach.widgets._ch04`; this module is their public home
(:func:`~kmlteach.widgets._base.republish`).
"""

from ._base import republish
from ._ch04 import kesler, ova

__all__ = republish(__name__, ova, kesler)
