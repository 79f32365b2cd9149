"""Widgets of chapter 01: the margin explorer and the soft-margin λ (:mod:`._ch01.margins`), the
loss gallery and SGD convergence (:mod:`._ch01.sgd`).

The parts live in :mod:`kmlteach.widgets._ch01`; this module is their public
home. Each builder returns an :class:`~kmlteach.widgets._base.Explorer`; ``explorer.state``
holds what the last redraw computed (tests read it), ``explorer.controls`` the
controls (tests set their ``value``).
"""

from ._base import set_public_home
from ._ch01.margins import (
    default_margin_points,
    make_lambda_explorer,
    make_margin_explorer,
    soft_margin_points,
)
from ._ch01.sgd import make_loss_gallery, make_sgd_explorer

__all__ = [
    "default_margin_points",
    "make_margin_explorer",
    "make_lambda_explorer",
    "make_loss_gallery",
    "make_sgd_explorer",
    "soft_margin_points",
]

set_public_home(__name__, __all__)  # tools listing widgets/ch*.py find the builders here
