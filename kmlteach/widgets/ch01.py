"""Widgets of chapter 01: the margin explorer and the soft-margin λ (:mod:`._ch01.margins`), the
loss gallery and SGD convergence (:mod:`._ch01.sgd`).

The builders live in :mod:`kmlteach.widgets._ch01`; this module is their public home
(:func:`~kmlteach.widgets._base.republish`).
"""

from ._base import republish
from ._ch01 import margins, sgd

__all__ = republish(__name__, margins, sgd)
