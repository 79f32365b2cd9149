"""Agg blitting for the widgets' figures: redraw only what an update changed.

A full ``savefig`` of a widget's figure costs 40–200 ms, mostly ticks and text that never
change. :class:`Blitter` draws the figure once, freezes its layout, keeps the pixels of
what does not change (the *background*) and, per update, restores them and paints only
the *dynamic* artists on top, in full-draw order, then encodes the PNG.

Dynamic artists are found automatically (an ``update`` need not know about blitting):

* an artist whose ``stale`` flag is set after ``update`` (every matplotlib setter sets
  it: ``set_data``, ``set_offsets``, ``set_text``, ``set_height``, ...) or that did not
  exist at the last draw is dynamic from then on;
* an Axes whose view limits, scales, position or 3-D view angles changed is redrawn
  as a whole (its ticks move); a 3-D Axes with any changed child likewise;
* an artist that a full draw paints *after* a dynamic one and that overlaps it is
  dynamic too, or the blitted image would differ from a full draw;
* when an artist that is part of the background changes or disappears, the
  background is redrawn (one full-cost frame), with the new dynamic set hidden.

The background is drawn with the dynamic artists' ``draw`` shadowed (not ``animated``,
which Axes ignore for images, nor invisible, which moves titles), so ``restore_region``
+ painting the dynamic artists in draw order equals a full ``canvas.draw()`` pixel for
pixel (tested per widget). After mutating an attribute without a setter, set
``artist.stale = True``. An artist with a ``kml_bound`` (a callable giving a display
``Bbox`` of all it paints; :func:`bound_by_axes`) is located by it, not measured.
"""

from __future__ import annotations

import struct
import zlib

import numpy as np
from matplotlib.axes import Axes
from matplotlib.axis import Axis
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.lines import Line2D
from matplotlib.spines import Spine
from matplotlib.text import Text
from matplotlib.transforms import Bbox

__all__ = ["Blitter", "encode_png", "bound_by_axes"]

_SENTINEL = "\x00kml-unset\x00"
_PAD = 1.5  # pixels of antialiasing slack around every region


def _skip(renderer) -> None:
    """``draw`` of a dynamic artist while the background is drawn."""


def bound_by_axes(art, ax) -> None:
    """Let the blitter locate ``art`` (clipped to ``ax``) by the Axes' box, unmeasured."""
    art.kml_bound = lambda: ax.bbox


def _chunk(tag: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)


def encode_png(canvas: FigureCanvasAgg) -> bytes:
    """The canvas's current pixels as an 8-bit RGB PNG.

    Rows are stored unfiltered and deflated at level 1: on these mostly flat line-art
    images that is as small as Pillow's ``compress_level=1`` (within ~10 %) and about
    40 % faster. Any PNG decoder reads it (the tests decode it with Pillow). The RGB
    bytes are taken from the pixels viewed as little-endian 32-bit words (R in the low
    byte), three whole-plane shifts: copying ``rgba[..., :3]`` byte by byte took 4 ms of a
    1200 × 450 frame, this 1 ms.
    """
    rgba = np.asarray(canvas.buffer_rgba())
    h, w = rgba.shape[:2]
    px = np.ascontiguousarray(rgba).view("<u4").reshape(h, w)
    rows = np.empty((h, 1 + 3 * w), dtype=np.uint8)
    rows[:, 0] = 0                                   # filter type "None" on every row
    rgb = rows[:, 1:].reshape(h, w, 3)
    rgb[..., 0] = px                                 # (the uint8 cast keeps the low byte)
    rgb[..., 1] = px >> 8
    rgb[..., 2] = px >> 16
    head = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", head)
            + _chunk(b"IDAT", zlib.compress(rows, 1)) + _chunk(b"IEND", b""))


def _extent(artist, renderer) -> Bbox:
    """Pixels an artist paints: its window extent, widened by its line width and, for
    marker collections, by the largest marker's radius."""
    offsets = artist.get_offsets() if hasattr(artist, "get_offsets") else None
    if offsets is not None and hasattr(artist, "get_sizes"):     # markers: their centres
        offsets = np.asarray(offsets, dtype=float).reshape(-1, 2)
        offsets = offsets[np.all(np.isfinite(offsets), axis=1)]
        if not len(offsets):
            return Bbox([[0.0, 0.0], [0.0, 0.0]])
        xy = artist.get_offset_transform().transform(offsets)
        pts = np.array([xy.min(axis=0), xy.max(axis=0)])
    elif isinstance(artist, Line2D):                               # NaN-safe: hidden lines
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


def _ext(bbox) -> tuple:
    """``(x0, y0, x1, y1)`` of a Bbox with x0 ≤ x1 and y0 ≤ y1 (as ``Bbox.overlaps`` sees it)."""
    x0, y0, x1, y1 = (float(v) for v in bbox.extents)
    return min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)


def _is3d(ax) -> bool:
    return getattr(ax, "name", "") == "3d"


def _signature(ax) -> tuple:
    """What moves every artist of an Axes: limits, scales, position, 3-D view."""
    return (tuple(ax.viewLim.bounds), tuple(ax.get_position().bounds), ax.get_xscale(),
            ax.get_yscale(), getattr(ax, "elev", None), getattr(ax, "azim", None),
            getattr(ax, "roll", None), ax.get_visible())


def _edge_spines(dynamic) -> set:
    """The spines painted over the dynamic artists below them (zorder < 2.5): dynamic from
    the first draw, since such an artist (a band, an image, a curve) that later reaches its
    axes' edge would overlap them and cost a full redraw (one slow frame per widget)."""
    owners = {u.axes for u in dynamic if getattr(u, "axes", None) is not None
              and not isinstance(u, Axes) and u.get_zorder() < 2.5}
    return {s for ax in owners for s in ax.spines.values() if s.get_visible()}


def _axes_children(ax) -> list:
    """An Axes's children in the order ``Axes.draw`` paints them (patch first)."""
    kids = [a for a in ax.get_children() if a is not ax.patch]
    if not ax.axison:
        kids = [a for a in kids if a not in ax.spines.values() and not isinstance(a, Axis)]
    kids.sort(key=lambda a: a.get_zorder())  # stable, as in Axes.draw
    head = [ax.patch] if (ax.axison and ax.get_frame_on()) else []
    return head + kids


class Blitter:
    """Blitted rendering of one ``Figure`` (see the module docstring).

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    dpi : int
        Pixels per inch of the PNG (the figure's dpi is set to it).
    """

    def __init__(self, fig, dpi: int = 100):
        self.fig = fig
        fig.set_dpi(dpi)
        self.canvas = FigureCanvasAgg(fig)
        self.dynamic: set = set()    # units painted on every update
        self.whole: set = set()      # Axes painted as one unit
        self.bg = None
        self.regions: dict = {}      # unit -> Bbox of the static units (at background time)
        self._boxes: dict = {}       # the same as (x0, y0, x1, y1) tuples, for _closure
        self._boxes_of = None        # ... of this regions dict
        self.dyn_regions: dict = {}  # unit -> Bbox of the dynamic units (when they last changed)
        self.in_bg: set = set()      # units whose pixels are in the background
        self.drawn = False           # the first (layout) draw happened
        self.primed = False          # prime_texts ran before the first draw
        self.sigs: dict = {}
        self.axes_seen: list = []
        self.layout = fig.get_layout_engine()
        self.full_draws = 0          # background (full-cost) draws so far
        self.last_was_full = True

    # -- the units a full draw paints, in order ------------------------------------------
    def units(self) -> list:
        fig = self.fig
        kids = [a for a in fig.get_children() if a is not fig.patch]
        kids.sort(key=lambda a: a.get_zorder())
        out = []
        for a in kids:
            if isinstance(a, Axes) and a not in self.whole and not _is3d(a):
                out.extend(_axes_children(a))
            else:
                out.append(a)
        return out

    def _region(self, unit, renderer) -> Bbox:
        try:
            # an Axis's tight box already holds its tick marks and labels; a clipped
            # artist paints nothing outside its clip box (clipping is exact), so only
            # the unclipped sides get the antialiasing slack
            pad = 0.0 if isinstance(unit, Axis) else _PAD
            if isinstance(unit, (Axes, Axis)):
                bb = unit.get_tightbbox(renderer)
                if bb is None:                      # nothing to draw (no ticks, no label)
                    return Bbox([[0.0, 0.0], [0.0, 0.0]])
            elif getattr(unit, "kml_bound", None) is not None:
                bb = unit.kml_bound()               # a cheap box the widget vouches for
            else:
                bb = _extent(unit, renderer)
            pts = np.asarray(bb.get_points(), dtype=float)
            if not np.all(np.isfinite(pts)):
                raise ValueError("no finite extent")
            bb = Bbox(pts).padded(pad)
            if not isinstance(unit, (Axes, Axis)) and unit.get_clip_on() and unit.get_clip_box() is not None:
                bb = (Bbox.intersection(Bbox(unit.get_clip_box().get_points()), bb)
                      or Bbox([[0.0, 0.0], [0.0, 0.0]]))
            return bb
        except Exception:  # noqa: BLE001 - unknown extent: assume it covers everything
            return Bbox(self.fig.bbox.get_points())

    # -- background ------------------------------------------------------------------------
    def _draw_background(self, units) -> None:
        # skip the dynamic units by shadowing their ``draw`` (not ``set_visible``: layout
        # helpers such as the title placement look at what is visible)
        hidden = [(u, vars(u).get("draw")) for u in units if u in self.dynamic]
        for u, _ in hidden:
            u.draw = _skip
        try:
            self.canvas.draw()
        finally:
            for u, own in hidden:
                if own is None:
                    del u.draw
                else:
                    u.draw = own
        self.bg = self.canvas.copy_from_bbox(self.fig.bbox)
        renderer = self.canvas.get_renderer()
        self.in_bg = {u for u in units if u not in self.dynamic}
        self.regions = {u: self._region(u, renderer) for u in self.in_bg if u.get_visible()}
        self.full_draws += 1

    def _dyn_region(self, u, renderer) -> Bbox:
        """Region of a dynamic unit, recomputed only when it changed (an Axes redrawn
        whole keeps the extent it had when it became dynamic, padded: its tick labels
        move by a few pixels at most; a spine keeps its first one: it moves only with its
        Axes's limits or position, which make the Axes whole, and measuring it lays out
        the ticks, 1 ms per spine, while a pixel layer marks its frame stale every frame)."""
        r = self.dyn_regions.get(u)
        if r is None or (u.stale and not isinstance(u, (Axes, Spine))):
            r = self.dyn_regions[u] = self._region(u, renderer)
            if isinstance(u, Axes):
                r = self.dyn_regions[u] = r.padded(2 * _PAD)
        return r

    def _closure(self, units, renderer) -> set:
        """Static units painted after a dynamic one that they overlap (``Bbox.overlaps`` on
        plain tuples: a few hundred tests per frame, 3 ms as ``Bbox`` calls)."""
        if self._boxes_of is not self.regions:
            self._boxes = {u: _ext(r) for u, r in self.regions.items()}
            self._boxes_of = self.regions
        boxes = self._boxes
        extra: set = set()
        dyn: list = []
        for u in units:
            if u in self.dynamic or u in extra:
                if u.get_visible():
                    dyn.append(_ext(self._dyn_region(u, renderer)))
            elif dyn and u in boxes:
                x0, y0, x1, y1 = r = boxes[u]
                for a0, b0, a1, b1 in dyn:
                    if x0 <= a1 and a0 <= x1 and y0 <= b1 and b0 <= y1:
                        extra.add(u)
                        dyn.append(r)
                        break
        return extra

    def _reset(self) -> None:
        """Start over: new axes appeared (the widget rebuilt its figure)."""
        self.fig.set_layout_engine(self.layout)
        self.dynamic.clear()
        self.whole.clear()
        self.dyn_regions.clear()
        self.in_bg = set()
        self.drawn = False
        self.bg = None

    def _clear_stale(self, units) -> None:
        for u in units:
            u.stale = False
        for ax in self.fig.axes:
            ax.stale = False
        self.fig.stale = False

    # -- public ------------------------------------------------------------------------------
    def prime_texts(self):
        """Before the first render: mark everything clean and blank every text, so that the
        next ``update`` (same values) marks stale exactly the artists it touches, texts
        included even when they do not change; returns a callable restoring the texts it
        did not touch."""
        self._clear_stale(self.units())
        self.primed = True
        texts = [u for u in self.units() if isinstance(u, Text)]
        saved = {t: t.get_text() for t in texts}
        for t in texts:
            t._text = _SENTINEL

        def restore():
            for t, s in saved.items():
                if t._text == _SENTINEL:
                    t._text = s
        return restore

    def render(self) -> bytes:
        """PNG of the figure as it is now (blitted when the background allows it)."""
        fig = self.fig
        axes = list(fig.axes)
        if axes != self.axes_seen:
            if self.axes_seen:
                self._reset()
            self.axes_seen = axes
        if not self.drawn:
            # first draw: the layout engine places everything (it measures, it does not
            # draw, so skipping the artists already known to be dynamic is harmless);
            # then the layout is frozen and the dynamic artists painted on top
            self.drawn = True
            units = self.units()
            self.dynamic = {u for u in units if u.stale} if self.primed else set()
            self.dynamic |= _edge_spines(self.dynamic)
            renderer = self.canvas.get_renderer()
            engine = fig.get_layout_engine()
            if engine is not None:
                engine.execute(fig)             # what the draw would do first, done once here
                fig.set_layout_engine("none")
            for ax in axes:                     # what Axes.draw does first (fixed aspect)
                if ax.get_axes_locator() is None:
                    ax.apply_aspect()
            # the static units overlapping a dynamic one below them are found before drawing,
            # so the background is usually drawn once (construction: one full draw, not two)
            self.regions = {u: self._region(u, renderer) for u in units
                            if u not in self.dynamic and u.get_visible()}
            self.dynamic |= self._closure(units, renderer)
            self._draw_background(units)
            self.dyn_regions.clear()            # measured again on the drawn figure
            extra = self._closure(units, renderer)
            if extra:                           # something moved in the draw (a legend placed)
                self.dynamic |= extra
                self._draw_background(units)
            self.sigs = {ax: _signature(ax) for ax in axes}
            for u in units:
                if u in self.dynamic and u.get_visible():
                    u.draw(renderer)
            self.last_was_full = True
            self._clear_stale(units)
            return encode_png(self.canvas)
        need = self.bg is None
        for ax in axes:
            sig = _signature(ax)
            if self.sigs.get(ax) != sig:
                if ax in self.sigs and ax not in self.whole:
                    self.whole.add(ax)
                    need = True
                self.sigs[ax] = sig
        units = self.units()
        present = set(units)
        for u in units:
            if u in self.dynamic:
                continue
            if u not in self.in_bg:          # new artist: paint it on top, no redraw needed
                self.dynamic.add(u)
            elif u.stale:             # part of the background changed
                self.dynamic.add(u)
                need = True
        if any(u not in present for u in self.in_bg):   # a background artist went away
            need = True
        self.dynamic &= present
        for u in [u for u in self.dyn_regions if u not in self.dynamic]:
            del self.dyn_regions[u]
        renderer = self.canvas.get_renderer()
        extra = self._closure(units, renderer)
        if extra:
            self.dynamic |= extra
            need = True
        if need:
            self._draw_background(units)
        else:
            self.canvas.restore_region(self.bg)
        self.last_was_full = need
        for u in units:
            if u in self.dynamic and u.get_visible():
                u.draw(renderer)
        self._clear_stale(units)
        return encode_png(self.canvas)

    def full_png(self) -> bytes:
        """PNG of a full redraw of the current state (everything drawn, nothing restored)."""
        self.canvas.draw()
        png = encode_png(self.canvas)
        self._clear_stale(self.units())
        return png
