"""Pixel layers: what changes on every frame of a widget, painted straight into the Agg
canvas rather than through ``imshow`` (which resamples in floating point) or through
matplotlib's general draw path.

* :func:`region_layer` — an opaque RGBA grid (class regions, heat maps, word images)
  upsampled nearest-neighbour in NumPy and copied into the canvas;
* :func:`paint_cached` — a marker collection that does not change (the training points
  over a region layer that does) rendered once into a transparent layer and blended per
  frame;
* :func:`paint_markers` — a marker collection that moves on every frame, painted by the
  same single Agg call as a direct draw without the per-draw measuring of its marker.

Texts are in :mod:`kmlteach._render.text`. All draw the same pixels in a blitted frame and
in a full redraw (the widget tests compare them); on a non-Agg renderer (SVG, PDF) they
fall back to ``draw_image`` and the artists' own ``draw``.
"""

from __future__ import annotations

import numpy as np
from matplotlib.artist import Artist
from matplotlib.backends.backend_agg import RendererAgg
from matplotlib.path import Path
from matplotlib.transforms import Affine2D, Bbox

from ._mpl import marker_scale_factor

__all__ = ["RegionLayer", "region_layer", "paint_cached", "paint_markers", "agg_buffer", "set_gc_clip"]


def agg_buffer(renderer):
    """The RGBA pixels of an Agg renderer as a writable (H, W, 4) array (None elsewhere)."""
    if not isinstance(renderer, RendererAgg):
        return None
    return np.asarray(renderer.buffer_rgba())


def set_gc_clip(gc, art) -> None:
    """Clip ``gc`` as ``art`` clips (what ``Artist.draw`` methods do first)."""
    if art.get_clip_on():
        if art.get_clip_box() is not None:
            gc.set_clip_rectangle(art.get_clip_box())
        gc.set_clip_path(art.get_clip_path())
    else:
        gc.set_clip_rectangle(None)
        gc.set_clip_path(None)


class RegionLayer(Artist):
    """An (n, n) uint8 RGBA grid (row 0 at the bottom) over ``extent`` = (x0, x1, y0, y1);
    see :func:`region_layer`."""

    def __init__(self, extent, zorder):
        super().__init__()
        self.extent = tuple(float(v) for v in extent)
        self.rgba = np.zeros((1, 1, 4), dtype=np.uint8)
        self._index: tuple = ()
        self.set_zorder(zorder)

    def set_data(self, rgba) -> None:
        self.rgba = np.ascontiguousarray(rgba, dtype=np.uint8)
        self.stale = True

    def _box(self):
        x0, x1, y0, y1 = self.extent
        (a, b), (c, d) = self.axes.transData.transform([(x0, y0), (x1, y1)])
        return int(round(a)), int(round(b)), int(round(c)), int(round(d))

    def get_window_extent(self, renderer=None):
        a, b, c, d = self._box()
        return Bbox([[a, b], [c, d]])

    def draw(self, renderer):
        if not self.get_visible():
            return
        a, b, c, d = self._box()
        w, h = c - a, d - b
        n_r, n_c = self.rgba.shape[:2]
        if not self._index or self._index[0] != (w, h, n_r, n_c):  # pixel -> grid cell
            cols = np.minimum((np.arange(w) + 0.5) * n_c // w, n_c - 1).astype(np.intp)
            rows = np.minimum((np.arange(h) + 0.5) * n_r // h, n_r - 1).astype(np.intp)
            self._index = ((w, h, n_r, n_c), rows, cols)
        _, rows, cols = self._index
        buf = agg_buffer(renderer)
        clip = self.get_clip_box()
        if buf is None or clip is None:
            gc = renderer.new_gc()
            set_gc_clip(gc, self)
            renderer.draw_image(gc, a, b, self.rgba[rows][:, cols])
            gc.restore()
        else:
            # opaque pixels: copy them into the canvas (what draw_image would blend)
            H, Wd = buf.shape[:2]
            cx0, cy0, cx1, cy1 = (int(round(v)) for v in clip.extents)
            x0, x1 = max(a, cx0, 0), min(c, cx1, Wd)
            y0, y1 = max(b, cy0, 0), min(d, cy1, H)
            if x1 > x0 and y1 > y0:
                # 32-bit pixels, bottom row last; rows, then columns (a fifth of the
                # time of one 2-D fancy-index gather, the same pixels)
                px = self.rgba.view(np.uint32)[..., 0]
                block = np.take(
                    np.take(px, rows[y0 - b : y1 - b][::-1], axis=0), cols[x0 - a : x1 - a], axis=1
                )
                buf.view(np.uint32)[H - y1 : H - y0, x0:x1, 0] = block
        self.stale = False


def region_layer(ax, extent, zorder: float = 0.0) -> RegionLayer:
    """An artist painting an (n, n) uint8 RGBA grid (row 0 at the bottom) over ``extent`` =
    (x0, x1, y0, y1), upsampled nearest-neighbour in NumPy straight onto the renderer;
    ``imshow`` resamples in floating point and costs about four times as much per frame.
    Update it with ``set_data``."""
    art = RegionLayer(extent, zorder)
    ax.add_artist(art)
    art.set_clip_box(ax.bbox)
    return art


def _paint_key(art, shape, dpi) -> tuple:
    """What the pixels of a marker collection depend on: canvas, clip box, marker centres
    in pixels, sizes, colours, line widths."""
    xy = art.get_offset_transform().transform(np.asarray(art.get_offsets(), dtype=float))
    clip = art.get_clip_box()
    return (
        shape,
        float(dpi),
        None if clip is None else tuple(np.round(clip.extents, 3)),
        np.round(xy, 3).tobytes(),
        np.asarray(art.get_sizes()).tobytes(),
        np.asarray(art.get_facecolor()).tobytes(),
        np.asarray(art.get_edgecolor()).tobytes(),
        np.asarray(art.get_linewidth()).tobytes(),
        art.get_alpha(),
    )


def _check_markers(artists) -> None:
    for art in artists:
        if not hasattr(art, "get_offsets") or not hasattr(art, "get_sizes"):
            raise ValueError(f"artists must be marker collections (ax.scatter), got {type(art).__name__}")


def paint_cached(*artists) -> None:
    """Paint each marker collection (``ax.scatter``'s ``PathCollection``) from a layer: it
    is drawn once by Agg into a transparent canvas, its covered pixels kept, and every
    later draw blends them over the canvas (within 2 of 255 of a direct draw, on an opaque
    canvas), a fraction of a millisecond where a few hundred markers with edges cost
    2–5 ms. Meant for points that stay put while a layer under them changes; the layer is
    rebuilt when the markers move, resize or change colour (one per artist, kept on it).
    Other renderers (SVG, PDF) draw them as usual."""
    _check_markers(artists)
    for art in artists:
        direct, state = art.draw, {}

        def draw(renderer, _art=art, _direct=direct, _state=state):
            buf = agg_buffer(renderer)
            if buf is None or not _art.get_visible():
                return _direct(renderer)
            key = _paint_key(_art, buf.shape, renderer.dpi)
            if _state.get("key") != key:
                off = RendererAgg(buf.shape[1], buf.shape[0], renderer.dpi)
                _direct(off)
                layer = np.asarray(off.buffer_rgba()).reshape(-1, 4)
                idx = np.flatnonzero(layer[:, 3])
                a = layer[idx, 3:4].astype(np.float32) / 255.0
                _state.update(key=key, idx=idx, src=layer[idx, :3].astype(np.float32) * a, keep=1.0 - a)
            flat = buf.reshape(-1, 4)
            idx = _state["idx"]
            flat[idx, :3] = np.round(_state["src"] + flat[idx, :3] * _state["keep"])
            _art.stale = False

        art.draw = draw


def _uniform(art) -> bool:
    """One marker path, size, face and edge colour, line width, no hatch, no dashes, no
    units, affine transforms: what Agg's ``draw_markers`` paints in one call."""
    return (
        len(art.get_paths()) == 1
        and len(np.atleast_1d(art.get_sizes())) == 1
        and len(art.get_facecolor()) == 1
        and len(art.get_edgecolor()) == 1
        and len(np.atleast_1d(art.get_linewidths())) == 1
        and art.get_hatch() is None
        and all(ls[1] is None for ls in art.get_linestyles())
        and not art.get_path_effects()
        and art.get_sketch_params() is None
        and not art.have_units()
        and art.get_transform().is_affine
        and art.get_offset_transform().is_affine
    )


def _paint_markers(art, renderer) -> None:
    """``PathCollection.draw`` for one uniform marker (see :func:`paint_markers`)."""
    art.update_scalarmappable()
    offsets = np.ma.filled(np.ma.asarray(art.get_offsets(), dtype=float), np.nan)
    # PathCollection.draw's set_sizes(sizes, dpi), without marking the artist stale
    scale = float(np.sqrt(np.atleast_1d(art.get_sizes())[0])) * renderer.dpi / 72.0 * marker_scale_factor(art)
    gc = renderer.new_gc()
    set_gc_clip(gc, art)
    gc.set_snap(art.get_snap())
    if art.get_joinstyle():
        gc.set_joinstyle(art.get_joinstyle())
    if art.get_capstyle():
        gc.set_capstyle(art.get_capstyle())
    gc.set_foreground(tuple(art.get_edgecolor()[0]), isRGBA=True)
    gc.set_linewidth(np.atleast_1d(art.get_linewidths())[0])
    gc.set_dashes(*art.get_linestyles()[0])
    gc.set_antialiased(np.atleast_1d(art.get_antialiased())[0])
    gc.set_url(art.get_urls()[0])
    renderer.draw_markers(
        gc,
        art.get_paths()[0],
        (Affine2D().scale(scale) + art.get_transform()).frozen(),
        Path(offsets),
        art.get_offset_transform(),
        tuple(art.get_facecolor()[0]),
    )
    gc.restore()


def paint_markers(*artists) -> None:
    """Paint each marker collection (``ax.scatter``'s ``PathCollection`` with one size and
    one colour) with the one ``draw_markers`` call that its own ``draw`` makes, minus the
    per-draw check that the marker is smaller than the figure (it measures the marker
    path's Bézier extents: 0.5–1.5 ms per collection, more than the painting). The same
    call with the same arguments: the same pixels. Meant for points that move on every
    frame of a widget. Mixed sizes or colours, and other renderers, draw as usual."""
    _check_markers(artists)
    for art in artists:
        direct = art.draw

        def draw(renderer, _art=art, _direct=direct):
            if not isinstance(renderer, RendererAgg) or not _art.get_visible() or not _uniform(_art):
                return _direct(renderer)
            if len(_art.get_offsets()):
                _paint_markers(_art, renderer)
            _art.stale = False

        art.draw = draw
