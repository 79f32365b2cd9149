"""Matplotlib helpers for the course.

Conventions (docs/design.md): a plot helper takes ``ax=None`` and returns the Axes; it
never calls ``plt.show()``. Colours come from one colour-blind-safe palette
(Okabe–Ito) and classes are told apart by marker shape as well as colour.
Chapter-specific helpers live in ``kmlteach/plots/chNN.py``.
"""

from ._style import (
    CLASS_COLORS,
    CLASS_MARKERS,
    OKABE_ITO,
    binary_points,
    class_points,
    class_style,
    figure,
    get_ax,
    label_axes,
    rings,
    scatter_classes,
    show,
)

__all__ = [
    "OKABE_ITO",
    "CLASS_COLORS",
    "CLASS_MARKERS",
    "class_style",
    "figure",
    "get_ax",
    "label_axes",
    "scatter_classes",
    "class_points",
    "binary_points",
    "rings",
    "show",
]
