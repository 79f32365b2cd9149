"""Widgets of chapter 03: kernel PCA with a width slider (:mod:`._ch03.kpca`), diffusion on an
editable graph (:mod:`._ch03.graphs`), the n-gram kernel between two typed strings
(:mod:`._ch03.strings`).

The builders live in :mod:`kmlteach.widgets._ch03`; this module is their public home
(:func:`~kmlteach.widgets._base.republish`).
"""

from ._base import republish
from ._ch03 import graphs, kpca, strings

__all__ = republish(__name__, kpca, graphs, strings)
