"""Plots of chapter 09 (HSS2 §2.2.2-2.5): data (:mod:`.common`), precomputed solution paths
and the pictures of the ν-SVM and one-class SVM (:mod:`.svm`), of NORMA (:mod:`.norma`), of
the margin losses and Rademacher averages (:mod:`.theory`).

Every picture is built by a ``draw_*(ax, ...)`` function that draws once and returns its
artists, and a ``set_*(artists, ...)`` function that moves them to another state (another
ν, σ, step t). A static figure is ``draw_*`` followed by one ``set_*``; a widget calls
``set_*`` on every change, so the two always show the same thing. Level sets
{f = c} are precomputed as line paths (:func:`level_lines`), not contour sets.
"""

from .._style import show
from .common import level_lines, nu_data, oneclass_data, plane_grid, smooth_rgba, stream_data
from .norma import draw_norma, norma_history, set_norma
from .svm import draw_nu, draw_oneclass, nu_path, oneclass_path, set_nu, set_oneclass
from .theory import (
    draw_loss,
    draw_rademacher,
    margin_losses,
    rademacher_data,
    rademacher_path,
    set_loss,
    set_rademacher,
)

__all__ = [
    "show",
    "nu_data",
    "oneclass_data",
    "stream_data",
    "plane_grid",
    "level_lines",
    "nu_path",
    "draw_nu",
    "set_nu",
    "oneclass_path",
    "draw_oneclass",
    "set_oneclass",
    "norma_history",
    "draw_norma",
    "set_norma",
    "smooth_rgba",
    "margin_losses",
    "draw_loss",
    "set_loss",
    "rademacher_data",
    "rademacher_path",
    "draw_rademacher",
    "set_rademacher",
]
