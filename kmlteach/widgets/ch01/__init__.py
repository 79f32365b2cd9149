"""Widgets of chapter 01: the margin explorer and the soft-margin λ (:mod:`.margins`), the
loss gallery and SGD convergence (:mod:`.sgd`).

Each builder returns an :class:`~kmlteach.widgets._base.Explorer`; ``explorer.state``
holds what the last redraw computed (tests read it), ``explorer.controls`` the
controls (tests set their ``value``).
"""

from .margins import default_margin_points, make_lambda_explorer, make_margin_explorer, soft_margin_points
from .sgd import make_loss_gallery, make_sgd_explorer

__all__ = [
    "default_margin_points",
    "make_margin_explorer",
    "make_lambda_explorer",
    "make_loss_gallery",
    "make_sgd_explorer",
    "soft_margin_points",
]
