"""The only module of :mod:`kmlteach._render` that reads matplotlib's private attributes.

Each function names the attribute, why no public API gives it, and what breaks if a
matplotlib release renames it (the tests of ``tests/test_widgets_blit.py`` and
``tests/test_plots_pixels.py`` fail; nothing fails silently: every access has a fallback).
"""

from __future__ import annotations

__all__ = ["multialignment", "marker_scale_factor"]


def multialignment(text) -> str | None:
    """A ``Text``'s multi-line alignment: part of what a cached bitmap of it depends on.
    Matplotlib has ``set_multialignment`` but no public getter (3.11)."""
    get = getattr(text, "_get_multialignment", None)
    return get() if get is not None else None


def marker_scale_factor(collection) -> float:
    """The factor a sized collection applies to √size (``_CollectionWithSizes._factor``: 1 for
    ``PathCollection``; no public getter, 3.11). ``paint_markers`` scales the marker path by it
    exactly as ``PathCollection.draw`` does."""
    return float(getattr(type(collection), "_factor", 1.0))
