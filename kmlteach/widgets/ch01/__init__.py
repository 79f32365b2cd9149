"""Widgets of chapter 01: the margin explorer and the soft-margin λ (:mod:`.margins`), the
loss gallery and SGD convergence (:mod:`.sgd`)."""

from .margins import default_margin_points, make_lambda_explorer, make_margin_explorer, soft_margin_points
from .sgd import T_CHOICES, make_loss_gallery, make_sgd_explorer

__all__ = [
    "default_margin_points",
    "make_lambda_explorer",
    "make_margin_explorer",
    "soft_margin_points",
    "T_CHOICES",
    "make_loss_gallery",
    "make_sgd_explorer",
]
