"""Widgets of chapter 04: the one-vs-all failure of Example 17.1 and all-pairs ties
(:mod:`.reductions`, drawn with :mod:`kmlteach.plots.ch04.reductions`), the Kesler embedding of
one example (:mod:`.kesler`, drawn with :mod:`kmlteach.plots.ch04.kesler`)."""

from .kesler import kesler_points, make_kesler_view
from .reductions import CLASS2_CENTRE, make_ava_ties, make_ova_failure, ring_classes

__all__ = [
    "kesler_points",
    "make_kesler_view",
    "CLASS2_CENTRE",
    "make_ava_ties",
    "make_ova_failure",
    "ring_classes",
]
