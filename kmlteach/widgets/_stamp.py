"""Texts that a widget rewrites on every update, drawn from a bitmap cache.

Matplotlib 3.11 lays out and rasterises every glyph of a ``Text`` on each draw: about
1 ms per short label, so a heat map with 49 written values costs 50–70 ms per frame,
more than everything else in the widget. A :class:`StampText` renders each distinct
(string, style) once into a small RGBA bitmap (with its bbox patch and path effects)
and afterwards pastes that bitmap with ``renderer.draw_image`` (~10 µs). Agg snaps
glyphs to whole pixels anyway, so the pasted text looks the same as a drawn one; the
blitted frame and a full redraw both paste, so they stay identical pixel for pixel.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
from matplotlib.backends.backend_agg import RendererAgg
from matplotlib.text import Text
from matplotlib.transforms import Bbox, IdentityTransform

__all__ = ["StampText", "stamp_text", "stamp", "stamp_axis"]

_CACHE: OrderedDict = OrderedDict()
_CACHE_SIZE = 4096


def _key(t: Text, dpi: float) -> tuple:
    bbox = t.get_bbox_patch()
    box = None if bbox is None else (bbox.get_boxstyle().__class__.__name__, str(vars(bbox.get_boxstyle())),
                                     bbox.get_facecolor(), bbox.get_edgecolor(), bbox.get_alpha())
    effects = tuple((type(e).__name__, str(sorted(vars(e).items()))) for e in t.get_path_effects())
    fp = t.get_fontproperties()
    # rotation to the degree: a 3-D axis label turns with the view, and a bitmap half a
    # degree off is indistinguishable from a fresh one
    return (t.get_text(), str(t.get_color()), t.get_alpha(), hash(fp), fp.get_size_in_points(),
            round(float(t.get_rotation())) % 360,
            t.get_horizontalalignment(), t.get_verticalalignment(), t._multialignment,
            t._linespacing, box, effects, float(dpi))


def _raster(proto: Text, renderer, text: str, ha=None, va=None):
    """RGBA pixels (rows top-down) of ``proto`` drawn with ``text`` (and alignment)
    anchored at the centre of a scratch canvas, and that anchor."""
    if text == proto.get_text() and ha is None and va is None:
        t = proto
    else:
        t = Text(0, 0, text)
        t.update_from(proto)
        t.set_figure(proto.get_figure(root=True))
        t.set_horizontalalignment(ha or proto.get_horizontalalignment())
        t.set_verticalalignment(va or proto.get_verticalalignment())
    fs = proto.get_fontsize() * renderer.dpi / 72
    w = int(4 * fs * (max(map(len, text.split("\n"))) + 4)) + 8
    h = int(4 * fs * (text.count("\n") + 4)) + 8
    w = h = max(w, h)
    scratch = RendererAgg(w, h, renderer.dpi)
    ax0, ay0 = w // 2, h // 2
    saved = (t.get_transform(), t.get_position(), t._transformSet, t._renderer)
    try:
        t.set_transform(IdentityTransform())
        t.set_position((ax0, ay0))
        Text.draw(t, scratch)
    finally:
        t.set_transform(saved[0])
        t._transformSet = saved[2]
        t.set_position(saved[1])
        t._renderer = saved[3]
    return np.asarray(scratch.buffer_rgba()), ax0, ay0


def _crop(raster):
    """(crop rows bottom-up, dx, dy): the inked part and its lower-left corner's offset
    from the anchor in display pixels; (None, 0, 0) when nothing is inked."""
    rgba, ax0, ay0 = raster
    rows = np.flatnonzero(rgba[:, :, 3].any(axis=1))
    cols = np.flatnonzero(rgba[:, :, 3].any(axis=0))
    if not len(rows):
        return (None, 0, 0)
    r0, r1, c0, c1 = rows[0], rows[-1] + 1, cols[0], cols[-1] + 1
    return (np.ascontiguousarray(rgba[r0:r1, c0:c1][::-1]), int(c0 - ax0), int(rgba.shape[0] - r1 - ay0))


def _text_width(proto: Text, renderer, text: str) -> float:
    w, _, _ = renderer.get_text_width_height_descent(text, proto.get_fontproperties(), ismath=False)
    return float(w)


_GLYPHS: dict = {}


def _glyph(proto: Text, renderer, ch: str, style: tuple):
    """(crop, dx, dy, advance) of one character drawn left/baseline-aligned."""
    key = (ch, style[:4], style[-1])     # colour, alpha, font, size, dpi
    hit = _GLYPHS.get(key)
    if hit is None:
        adv = _text_width(proto, renderer, ch + ch) - _text_width(proto, renderer, ch)
        hit = _GLYPHS[key] = (*_crop(_raster(proto, renderer, ch, "left", "baseline")), adv)
    return hit


_BASELINES: dict = {}


def _baseline(proto: Text, renderer, style: tuple) -> float:
    """Vertical offset of the baseline from the anchor for the text's alignment."""
    key = (style[2:4], proto.get_verticalalignment(), style[-1])
    hit = _BASELINES.get(key)
    if hit is None:
        ref = "0"
        base = _crop(_raster(proto, renderer, ref, "left", "baseline"))[2]
        aligned = _crop(_raster(proto, renderer, ref, "left", proto.get_verticalalignment()))[2]
        hit = _BASELINES[key] = float(aligned - base)
    return hit


class StampText(Text):
    """A ``Text`` drawn from a cache of rendered bitmaps (see the module docstring).

    Position, visibility, zorder and clipping-free placement behave as for ``Text``;
    the string and style select the cached bitmap.
    """

    def _bitmap(self, renderer):
        key = _key(self, renderer.dpi)
        hit = _CACHE.get(key)
        if hit is not None:
            _CACHE.move_to_end(key)
            return hit
        text = self.get_text()
        simple = (self.get_rotation() == 0 and self.get_bbox_patch() is None and not self.get_path_effects()
                  and "\n" not in text and "$" not in text and len(text) > 1)
        hit = self._compose(renderer, key) if simple else _crop(_raster(self, renderer, text))
        _CACHE[key] = hit
        if len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
        return hit

    def _compose(self, renderer, key):
        """A one-line string from cached single-character bitmaps, placed at the
        characters' advances (no kerning: numbers and short labels)."""
        style = key[1:]
        glyphs = [_glyph(self, renderer, ch, style) for ch in self.get_text()]
        pen, placed = 0.0, []
        for crop, dx, dy, adv in glyphs:
            placed.append((crop, int(round(pen)) + dx, dy))
            pen += adv
        width = pen - glyphs[-1][3] + _text_width(self, renderer, self.get_text()[-1])
        ha = self.get_horizontalalignment()
        shift_x = {"left": 0.0, "center": -width / 2, "right": -width}[ha]
        shift_y = _baseline(self, renderer, style)
        placed = [(c, x, y) for c, x, y in placed if c is not None]
        if not placed:
            return (None, 0, 0)
        x0 = min(x for _, x, _ in placed)
        y0 = min(y for _, _, y in placed)
        x1 = max(x + c.shape[1] for c, x, _ in placed)
        y1 = max(y + c.shape[0] for c, _, y in placed)
        out = np.zeros((y1 - y0, x1 - x0, 4), dtype=np.uint8)
        for c, x, y in placed:       # rows bottom-up, as draw_image wants them
            dst = out[y - y0:y - y0 + c.shape[0], x - x0:x - x0 + c.shape[1]]
            np.copyto(dst, c, where=c[:, :, 3:4] > dst[:, :, 3:4])
        return (out, x0 + int(round(shift_x)), y0 + int(round(shift_y)))

    def get_window_extent(self, renderer=None, dpi=None):
        """The inked pixels of the cached bitmap (measuring the text again would cost as
        much as drawing it)."""
        renderer = renderer or self._renderer
        if renderer is None and self.get_figure(root=True) is not None:
            renderer = self.get_figure(root=True)._get_renderer()
        if renderer is None or (dpi is not None and dpi != renderer.dpi) or not self.get_text():
            return Text.get_window_extent(self, renderer, dpi)
        crop, dx, dy = self._bitmap(renderer)
        x, y = self.get_transform().transform(self.get_unitless_position())
        if crop is None or not (np.isfinite(x) and np.isfinite(y)):
            return Bbox.from_bounds(x, y, 0, 0)
        x0, y0 = int(round(x)) + dx, int(round(y)) + dy
        return Bbox.from_bounds(x0, y0, crop.shape[1], crop.shape[0])

    def draw(self, renderer):
        if renderer is not None:
            self._renderer = renderer
        if not self.get_visible() or not self.get_text():
            return
        crop, dx, dy = self._bitmap(renderer)
        if crop is not None:
            x, y = self.get_transform().transform(self.get_unitless_position())
            if np.isfinite(x) and np.isfinite(y):
                gc = renderer.new_gc()
                renderer.draw_image(gc, int(round(x)) + dx, int(round(y)) + dy, crop)
                gc.restore()
        self.stale = False


def stamp_text(ax, x, y, s, **kw) -> StampText:
    """``ax.text`` returning a :class:`StampText` (same keyword arguments)."""
    t = StampText(x, y, s, **kw)
    ax._add_text(t)          # sets transData unless a transform was given
    return t


def stamp(*texts) -> None:
    """Make existing ``Text`` artists (titles, tick labels, axis labels) draw from the
    bitmap cache; a no-op on ones that already do."""
    for t in texts:
        if type(t) is Text:
            t.__class__ = StampText


def stamp_axis(axis) -> None:
    """Stamp an ``Axis``'s label and the labels of the ticks it has now (call again after
    changing the number of ticks: new ticks come with plain labels)."""
    stamp(axis.label, *(lab for tk in axis.get_major_ticks() for lab in (tk.label1, tk.label2)))
