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
  background is redrawn (one full-cost frame), with the new dynamic set hidden;
* before the first frame, :meth:`Blitter.prime` runs the widget's update once more on the
  same values with every artist marked clean and every text (a :class:`TextGroup`'s too)
  blanked: what it sets is dynamic from the first frame. An update that sets every
  artist from the state on every call (the plain way to write one) therefore never
  costs a full frame later; nothing else is asked of a widget.

The background is drawn with the dynamic artists' ``draw`` shadowed (not ``animated``,
which Axes ignore for images, nor invisible, which moves titles), so ``restore_region``
+ painting the dynamic artists in draw order equals a full ``canvas.draw()`` pixel for
pixel (tested per widget). After mutating an attribute without a setter, set
``artist.stale = True``. An artist with a ``kml_bound`` (a callable giving a display
``Bbox`` of all it paints; :func:`bound_by_axes`) is located by it, not measured.
"""

from __future__ import annotations

import numpy as np
from matplotlib.axes import Axes
from matplotlib.axis import Axis
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.spines import Spine
from matplotlib.text import Text
from matplotlib.transforms import Bbox

from .png import encode_png
from .regions import axes_children, edge_spines, ext, extent, is3d, signature
from .text import TextGroup

__all__ = ["Blitter"]

_SENTINEL = "\x00kml-unset\x00"
_PAD = 1.5  # pixels of antialiasing slack around every region


def _skip(renderer) -> None:
    """``draw`` of a dynamic artist while the background is drawn."""


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
        self.dynamic: set = set()  # units painted on every update
        self.whole: set = set()  # Axes painted as one unit
        self.bg = None
        self.regions: dict = {}  # unit -> Bbox of the static units (at background time)
        self._boxes: dict = {}  # the same as (x0, y0, x1, y1) tuples, for _closure
        self._boxes_of = None  # ... of this regions dict
        self.dyn_regions: dict = {}  # unit -> Bbox of the dynamic units (when they last changed)
        self.in_bg: set = set()  # units whose pixels are in the background
        self.drawn = False  # the first (layout) draw happened
        self.primed = False  # prime_texts ran before the first draw
        self.sigs: dict = {}
        self.axes_seen: list = []
        self.layout = fig.get_layout_engine()
        self.full_draws = 0  # background (full-cost) draws so far
        self.last_was_full = True

    # -- the units a full draw paints, in order ------------------------------------------
    def units(self) -> list:
        fig = self.fig
        kids = [a for a in fig.get_children() if a is not fig.patch]
        kids.sort(key=lambda a: a.get_zorder())
        out = []
        for a in kids:
            if isinstance(a, Axes) and a not in self.whole and not is3d(a):
                out.extend(axes_children(a))
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
                if bb is None:  # nothing to draw (no ticks, no label)
                    return Bbox([[0.0, 0.0], [0.0, 0.0]])
            elif getattr(unit, "kml_bound", None) is not None:
                bb = unit.kml_bound()  # a cheap box the widget vouches for
            else:
                bb = extent(unit, renderer)
            pts = np.asarray(bb.get_points(), dtype=float)
            if not np.all(np.isfinite(pts)):
                raise ValueError("no finite extent")
            bb = Bbox(pts).padded(pad)
            if not isinstance(unit, (Axes, Axis)) and unit.get_clip_on() and unit.get_clip_box() is not None:
                bb = Bbox.intersection(Bbox(unit.get_clip_box().get_points()), bb) or Bbox(
                    [[0.0, 0.0], [0.0, 0.0]]
                )
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
            self._boxes = {u: ext(r) for u, r in self.regions.items()}
            self._boxes_of = self.regions
        boxes = self._boxes
        extra: set = set()
        dyn: list = []
        for u in units:
            if u in self.dynamic or u in extra:
                if u.get_visible():
                    dyn.append(ext(self._dyn_region(u, renderer)))
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
    def prime(self, update) -> None:
        """Learn which artists an update touches: run ``update()`` (the widget's update, on
        the values it was built with) with every artist marked clean and every text blanked
        (:meth:`prime_texts`); what it touches is painted on every frame from the first
        render on, the rest goes into the background."""
        restore = self.prime_texts()
        try:
            update()
        finally:
            restore()

    def prime_texts(self):
        """Before the first render: mark everything clean and blank every text, so that the
        next ``update`` (same values) marks stale exactly the artists it touches, texts
        included even when they do not change (``set_text`` marks a text stale only when its
        string changes; the texts of a :class:`TextGroup` count as its own); returns a
        callable restoring the texts it did not touch, and leaving them, and what holds
        them, as clean as they were."""
        units = self.units()
        texts = [u for u in units if isinstance(u, Text)]
        texts += [t for u in units if isinstance(u, TextGroup) for t in u.texts]
        saved = {t: t.get_text() for t in texts}
        for t in texts:
            t.set_text(_SENTINEL)
        self._clear_stale(units)
        self.primed = True

        def restore():
            holders = [*self.units(), *texts, *self.fig.axes, self.fig]
            flags = [(a, a.stale) for a in holders]
            for t, s in saved.items():
                if t.get_text() == _SENTINEL:
                    t.set_text(s)
            for a, flag in flags:
                a.stale = flag

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
            self.dynamic |= edge_spines(self.dynamic)
            renderer = self.canvas.get_renderer()
            engine = fig.get_layout_engine()
            if engine is not None:
                engine.execute(fig)  # what the draw would do first, done once here
                fig.set_layout_engine("none")
            for ax in axes:  # what Axes.draw does first (fixed aspect)
                if ax.get_axes_locator() is None:
                    ax.apply_aspect()
            # the static units overlapping a dynamic one below them are found before drawing,
            # so the background is usually drawn once (construction: one full draw, not two)
            self.regions = {
                u: self._region(u, renderer) for u in units if u not in self.dynamic and u.get_visible()
            }
            self.dynamic |= self._closure(units, renderer)
            self._draw_background(units)
            self.dyn_regions.clear()  # measured again on the drawn figure
            extra = self._closure(units, renderer)
            if extra:  # something moved in the draw (a legend placed)
                self.dynamic |= extra
                self._draw_background(units)
            self.sigs = {ax: signature(ax) for ax in axes}
            for u in units:
                if u in self.dynamic and u.get_visible():
                    u.draw(renderer)
            self.last_was_full = True
            self._clear_stale(units)
            return encode_png(self.canvas)
        need = self.bg is None
        for ax in axes:
            sig = signature(ax)
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
            if u not in self.in_bg:  # new artist: paint it on top, no redraw needed
                self.dynamic.add(u)
            elif u.stale:  # part of the background changed
                self.dynamic.add(u)
                need = True
        if any(u not in present for u in self.in_bg):  # a background artist went away
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
