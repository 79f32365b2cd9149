"""What the blitter measures: the pixels an artist paints, and the order and grouping in
which a full draw paints the artists (:class:`kmlteach._render.blit.Blitter`)."""

from __future__ import annotations

import numpy as np
from matplotlib.axes import Axes
from matplotlib.axis import Axis
from matplotlib.lines import Line2D
from matplotlib.transforms import Bbox

__all__ = ["extent", "ext", "is3d", "signature", "edge_spines", "axes_children", "bound_by_axes"]


def bound_by_axes(art, ax) -> None:
    """Let the blitter locate ``art`` (clipped to ``ax``) by the Axes' box, unmeasured."""
    art.kml_bound = lambda: ax.bbox


def extent(artist, renderer) -> Bbox:
    """Pixels an artist paints: its window extent, widened by its line width and, for
    marker collections, by the largest marker's radius."""
    offsets = artist.get_offsets() if hasattr(artist, "get_offsets") else None
    if offsets is not None and hasattr(artist, "get_sizes"):  # markers: their centres
        offsets = np.asarray(offsets, dtype=float).reshape(-1, 2)
        offsets = offsets[np.all(np.isfinite(offsets), axis=1)]
        if not len(offsets):
            return Bbox([[0.0, 0.0], [0.0, 0.0]])
        xy = artist.get_offset_transform().transform(offsets)
        pts = np.array([xy.min(axis=0), xy.max(axis=0)])
    elif isinstance(artist, Line2D):  # NaN-safe: hidden lines
        xy = np.asarray(artist.get_xydata(), dtype=float).reshape(-1, 2)
        xy = xy[np.all(np.isfinite(xy), axis=1)]
        if not len(xy):
            return Bbox([[0.0, 0.0], [0.0, 0.0]])
        xy = artist.get_transform().transform(xy)
        pts = np.array([xy.min(axis=0), xy.max(axis=0)])
    else:
        pts = np.asarray(artist.get_window_extent(renderer).get_points(), dtype=float)
    pad = 0.0
    lw = getattr(artist, "get_linewidth", None)
    if lw is not None:
        pad += float(np.max(np.atleast_1d(lw()), initial=0.0)) * renderer.points_to_pixels(1.0)
    sizes = getattr(artist, "get_sizes", None)
    if sizes is not None and len(np.atleast_1d(sizes())):  # marker area in points²
        pad += np.sqrt(float(np.max(sizes()))) * renderer.points_to_pixels(1.0)
    ms = getattr(artist, "get_markersize", None)
    if ms is not None and artist.get_marker() not in (None, "None", "none", "", " "):
        pad += float(ms()) * renderer.points_to_pixels(1.0)
    return Bbox(pts).padded(pad)


def ext(bbox) -> tuple:
    """``(x0, y0, x1, y1)`` of a Bbox with x0 ≤ x1 and y0 ≤ y1 (as ``Bbox.overlaps`` sees it)."""
    x0, y0, x1, y1 = (float(v) for v in bbox.extents)
    return min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)


def is3d(ax) -> bool:
    return getattr(ax, "name", "") == "3d"


def signature(ax) -> tuple:
    """What moves every artist of an Axes: limits, scales, position, 3-D view."""
    return (
        tuple(ax.viewLim.bounds),
        tuple(ax.get_position().bounds),
        ax.get_xscale(),
        ax.get_yscale(),
        getattr(ax, "elev", None),
        getattr(ax, "azim", None),
        getattr(ax, "roll", None),
        ax.get_visible(),
    )


def edge_spines(dynamic) -> set:
    """The spines painted over the dynamic artists below them (zorder < 2.5): dynamic from
    the first draw, since such an artist (a band, an image, a curve) that later reaches its
    axes' edge would overlap them and cost a full redraw (one slow frame per widget)."""
    owners = {
        u.axes
        for u in dynamic
        if getattr(u, "axes", None) is not None and not isinstance(u, Axes) and u.get_zorder() < 2.5
    }
    return {s for ax in owners for s in ax.spines.values() if s.get_visible()}


def axes_children(ax) -> list:
    """An Axes's children in the order ``Axes.draw`` paints them (patch first)."""
    kids = [a for a in ax.get_children() if a is not ax.patch]
    if not ax.axison:
        kids = [a for a in kids if a not in ax.spines.values() and not isinstance(a, Axis)]
    kids.sort(key=lambda a: a.get_zorder())  # stable, as in Axes.draw
    head = [ax.patch] if (ax.axison and ax.get_frame_on()) else []
    return head + kids
