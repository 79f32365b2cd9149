"""Widgets of chapter 04: the one-vs-all failure of Example 17.1 and all-pairs ties
(:mod:`._ch04.ova`), the Kesler embedding of one example (:mod:`._ch04.kesler`).

The parts live in :mod:`kmlteach.widgets._ch04`; this module is their public
home. Each builder returns an :class:`~kmlteach.widgets._base.Explorer`; ``explorer.state``
holds what the last redraw computed (tests read it), ``explorer.controls`` the controls
(tests set their ``value``).
"""

from ._base import set_public_home
from ._ch04.kesler import kesler_points, make_kesler_view
from ._ch04.ova import CLASS2_CENTRE, make_ava_ties, make_ova_failure, ring_classes

__all__ = [
    "make_ova_failure",
    "make_ava_ties",
    "make_kesler_view",
    "ring_classes",
    "kesler_points",
    "CLASS2_CENTRE",
]

set_public_home(__name__, __all__)  # tools listing widgets/ch*.py find the builders here
