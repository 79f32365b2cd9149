"""Figures of chapter 04: the reductions' decision regions, halfspaces, ties and code matrices
(:mod:`.reductions`), the Kesler vectors and constraints of one example (:mod:`.kesler`).

Pure helpers: ``ax=None`` in, Axes out. A picture that a widget updates is drawn once by
``draw_<name>(ax, ...)``, which returns its artists, and moved by ``set_<name>(artists, ...)``;
the static ``plot_<name>`` is the two in a row.
"""

from .kesler import (
    draw_constraints,
    draw_kesler,
    kesler_title,
    plot_constraint_scores,
    plot_kesler_example,
    set_constraints,
    set_kesler,
)
from .reductions import (
    BALLS_XLIM,
    BALLS_YLIM,
    grid_points,
    plot_classes,
    plot_code,
    plot_halfspaces,
    plot_linear_regions,
    plot_ova,
    plot_pairwise,
    plot_regions,
    region_image,
    region_rgba,
    tie_image,
)

__all__ = [
    "BALLS_XLIM",
    "BALLS_YLIM",
    "grid_points",
    "region_image",
    "tie_image",
    "region_rgba",
    "plot_classes",
    "plot_regions",
    "plot_halfspaces",
    "plot_ova",
    "plot_linear_regions",
    "plot_pairwise",
    "plot_code",
    "draw_kesler",
    "set_kesler",
    "kesler_title",
    "plot_kesler_example",
    "draw_constraints",
    "set_constraints",
    "plot_constraint_scores",
]
