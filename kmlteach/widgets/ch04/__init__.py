"""Widgets of chapter 04: the one-vs-all failure of Example 17.1 and all-pairs ties
(:mod:`.ova`), the Kesler embedding of one example (:mod:`.kesler`).

Each builder returns an :class:`~kmlteach.widgets._base.Explorer`; ``explorer.state``
holds what the last redraw computed (tests read it), ``explorer.controls`` the controls
(tests set their ``value``).
"""

from .kesler import kesler_points, make_kesler_view
from .ova import CLASS2_CENTRE, make_ava_ties, make_ova_failure, ring_classes

__all__ = [
    "make_ova_failure",
    "make_ava_ties",
    "make_kesler_view",
    "ring_classes",
    "kesler_points",
    "CLASS2_CENTRE",
]
