"""Plots of chapter 09 (HSS2 §2.2.2-2.5): data (:mod:`.common`), precomputed solution paths
and the axes of the ν-SVM and one-class SVM (:mod:`.svm`) and of NORMA (:mod:`.norma`).

Every picture is built by a ``*_axes(ax, ...)`` function that draws once and returns its
artists, and a ``set_*(artists, ...)`` function that moves them to another state (another
ν, σ, step t). A static figure is ``*_axes`` followed by one ``set_*``; a widget calls
``set_*`` on every change, so the two always show the same thing. Level sets
{f = c} are precomputed as line paths (:func:`level_lines`), not contour sets.
"""

from .._style import show
from .common import level_lines, nu_data, oneclass_data, plane_grid, smooth_rgba, stream_data
from .norma import norma_axes, norma_history, set_norma
from .svm import nu_axes, nu_path, oneclass_axes, oneclass_path, set_nu, set_oneclass

__all__ = [
    "show",
    "nu_data",
    "oneclass_data",
    "stream_data",
    "plane_grid",
    "level_lines",
    "nu_path",
    "nu_axes",
    "set_nu",
    "oneclass_path",
    "oneclass_axes",
    "set_oneclass",
    "norma_history",
    "norma_axes",
    "set_norma",
    "smooth_rgba",
]
