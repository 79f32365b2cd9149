"""Fast text, one mechanism: every string is drawn once by Agg into a bitmap and pasted.

Matplotlib 3.11 rasterises every glyph of a ``Text`` on each draw: about 1 ms per short
label (3 ms on a loaded machine), so a heat map with 49 written values costs 50–70 ms per
frame. Here each distinct (string, style, dpi) is drawn once into a small RGBA bitmap
(with its path effects), kept in the layer's one bounded cache
(:data:`kmlteach._render.cache.CACHE`) and afterwards pasted with ``renderer.draw_image``
(~10 µs). Agg snaps glyphs to whole pixels anyway, so a pasted text looks the same as a
drawn one; a blitted frame and a full redraw both paste, so they stay identical.

Everything textual that a widget repaints is built on :class:`StampText`:

* :func:`stamp` / :func:`stamp_axis` — existing texts (titles, tick and axis labels,
  legend entries) drawn from the cache; :func:`stamp_text` — a new one (``ax.text``);
* :func:`label` — a label that moves with a point (``set_position``), offset in points;
* :func:`text_row` / :func:`title_row` — a row of short strings at data positions (one
  artist, ``set_texts``); :class:`TextGroup` — many stamped texts painted as one artist.

A text with a bbox patch is drawn as an ordinary ``Text`` (its bitmap would need the
patch's private state).
"""

from __future__ import annotations

import numpy as np
from matplotlib.artist import Artist
from matplotlib.backends.backend_agg import RendererAgg
from matplotlib.text import Text
from matplotlib.transforms import Bbox, IdentityTransform, ScaledTranslation

from ._mpl import multialignment
from .cache import CACHE

__all__ = [
    "StampText",
    "stamp",
    "stamp_axis",
    "stamp_text",
    "label",
    "text_row",
    "title_row",
    "TextRow",
    "TextGroup",
    "detached_texts",
]

_EMPTY = (None, 0, 0)


def _renderer_of(artist, renderer=None):
    """The renderer to measure with: the given one, else the figure's Agg canvas's."""
    if renderer is not None:
        return renderer
    fig = artist.get_figure(root=True)
    get = getattr(getattr(fig, "canvas", None), "get_renderer", None)
    return get() if get is not None else None


def _style(t: Text) -> tuple:
    """What a text's bitmap depends on besides its string, colour and the dpi."""
    fp = t.get_fontproperties()
    effects = tuple((type(e).__name__, str(sorted(vars(e).items()))) for e in t.get_path_effects())
    # rotation to the degree: a 3-D axis label turns with the view, and a bitmap half a
    # degree off is indistinguishable from a fresh one
    return (
        hash(fp),
        fp.get_size_in_points(),
        round(float(t.get_rotation())) % 360,
        t.get_horizontalalignment(),
        t.get_verticalalignment(),
        multialignment(t),
        t.get_linespacing(),
        effects,
    )


def _raster(proto: Text, renderer, text: str, ha=None, va=None):
    """RGBA pixels (rows top-down) of a copy of ``proto`` showing ``text`` (and alignment),
    anchored at the centre of a scratch canvas, and that anchor."""
    t = Text(0, 0, text)
    t.update_from(proto)  # colour, font, alignment, rotation, path effects
    t.set_figure(proto.get_figure(root=True))
    t.set_visible(True)
    t.set_clip_on(False)
    t.set_horizontalalignment(ha or proto.get_horizontalalignment())
    t.set_verticalalignment(va or proto.get_verticalalignment())
    fs = proto.get_fontsize() * renderer.dpi / 72
    side = int(4 * fs * (max(max(map(len, text.split("\n"))), text.count("\n")) + 4)) + 8
    scratch = RendererAgg(side, side, renderer.dpi)
    t.set_transform(IdentityTransform())
    t.set_position((side // 2, side // 2))
    t.draw(scratch)
    return np.asarray(scratch.buffer_rgba()), side // 2, side // 2


def _crop(raster):
    """(crop rows bottom-up, dx, dy): the inked part and its lower-left corner's offset
    from the anchor in display pixels; (None, 0, 0) when nothing is inked."""
    rgba, ax0, ay0 = raster
    rows = np.flatnonzero(rgba[:, :, 3].any(axis=1))
    cols = np.flatnonzero(rgba[:, :, 3].any(axis=0))
    if not len(rows):
        return _EMPTY
    r0, r1, c0, c1 = rows[0], rows[-1] + 1, cols[0], cols[-1] + 1
    return (np.ascontiguousarray(rgba[r0:r1, c0:c1][::-1]), int(c0 - ax0), int(rgba.shape[0] - r1 - ay0))


def _text_width(proto: Text, renderer, text: str) -> float:
    w, _, _ = renderer.get_text_width_height_descent(text, proto.get_fontproperties(), ismath=False)
    return float(w)


def _glyph(proto: Text, renderer, ch: str, head: tuple):
    """(crop, dx, dy, advance) of one character drawn left/baseline-aligned."""

    def make():
        adv = _text_width(proto, renderer, ch + ch) - _text_width(proto, renderer, ch)
        return (*_crop(_raster(proto, renderer, ch, "left", "baseline")), adv)

    return CACHE.get(("glyph", ch, *head, renderer.dpi), make)


def _baseline(proto: Text, renderer, font: tuple) -> float:
    """Vertical offset of the baseline from the anchor for the text's alignment."""
    va = proto.get_verticalalignment()

    def make():
        base = _crop(_raster(proto, renderer, "0", "left", "baseline"))[2]
        return float(_crop(_raster(proto, renderer, "0", "left", va))[2] - base)

    return CACHE.get(("baseline", *font, va, renderer.dpi), make)


class StampText(Text):
    """A ``Text`` drawn from the bitmap cache (see the module docstring).

    Position, visibility and zorder behave as for ``Text`` (it is not clipped); the string
    and style select the cached bitmap.
    """

    def bitmap(self, renderer) -> tuple:
        """``(crop, dx, dy)``: the text's inked pixels (rows bottom-up, None when nothing is
        inked) and their lower-left corner's offset from the text's anchor, in pixels."""
        text = self.get_text()
        colour = (str(self.get_color()), self.get_alpha())
        style = _style(self)
        key = ("text", text, *colour, *style, float(renderer.dpi))

        def make():
            simple = (
                style[2] == 0 and not style[-1] and "\n" not in text and "$" not in text and len(text) > 1
            )
            return (
                self._compose(renderer, colour + style[:2])
                if simple
                else _crop(_raster(self, renderer, text))
            )

        return CACHE.get(key, make)

    def _compose(self, renderer, head: tuple):
        """A one-line string from cached single-character bitmaps, placed at the
        characters' advances (no kerning: numbers and short labels)."""
        text = self.get_text()
        glyphs = [_glyph(self, renderer, ch, head) for ch in text]
        pen, placed = 0.0, []
        for crop, dx, dy, adv in glyphs:
            placed.append((crop, int(round(pen)) + dx, dy))
            pen += adv
        width = pen - glyphs[-1][3] + _text_width(self, renderer, text[-1])
        shift_x = {"left": 0.0, "center": -width / 2, "right": -width}[self.get_horizontalalignment()]
        shift_y = _baseline(self, renderer, head[2:])
        placed = [(c, x, y) for c, x, y in placed if c is not None]
        if not placed:
            return _EMPTY
        x0 = min(x for _, x, _ in placed)
        y0 = min(y for _, _, y in placed)
        x1 = max(x + c.shape[1] for c, x, _ in placed)
        y1 = max(y + c.shape[0] for c, _, y in placed)
        out = np.zeros((y1 - y0, x1 - x0, 4), dtype=np.uint8)
        for c, x, y in placed:  # rows bottom-up, as draw_image wants them
            dst = out[y - y0 : y - y0 + c.shape[0], x - x0 : x - x0 + c.shape[1]]
            np.copyto(dst, c, where=c[:, :, 3:4] > dst[:, :, 3:4])
        return (out, x0 + int(round(shift_x)), y0 + int(round(shift_y)))

    def _plain(self) -> bool:
        return self.get_bbox_patch() is not None

    def get_window_extent(self, renderer=None, dpi=None):
        """The inked pixels of the cached bitmap (measuring the text again would cost as
        much as drawing it)."""
        renderer = _renderer_of(self, renderer)
        if (
            renderer is None
            or (dpi is not None and dpi != renderer.dpi)
            or not self.get_text()
            or self._plain()
        ):
            return Text.get_window_extent(self, renderer, dpi)
        crop, dx, dy = self.bitmap(renderer)
        x, y = self.get_transform().transform(self.get_unitless_position())
        if crop is None or not (np.isfinite(x) and np.isfinite(y)):
            return Bbox.from_bounds(x, y, 0, 0)
        return Bbox.from_bounds(int(round(x)) + dx, int(round(y)) + dy, crop.shape[1], crop.shape[0])

    def draw(self, renderer):
        if self._plain():
            return Text.draw(self, renderer)
        if self.get_visible() and self.get_text():
            crop, dx, dy = self.bitmap(renderer)
            x, y = self.get_transform().transform(self.get_unitless_position())
            if crop is not None and np.isfinite(x) and np.isfinite(y):
                gc = renderer.new_gc()
                renderer.draw_image(gc, int(round(x)) + dx, int(round(y)) + dy, crop)
                gc.restore()
        self.stale = False


def stamp_text(ax, x, y, s, **kw) -> StampText:
    """``ax.text`` returning a :class:`StampText` (same keyword arguments)."""
    t = StampText(x, y, s, **kw)
    if not t.is_transform_set():
        t.set_transform(ax.transData)
    ax.add_artist(t)
    return t


def stamp(*texts) -> None:
    """Make existing ``Text`` artists (titles, tick labels, axis labels, legend entries)
    draw from the bitmap cache; a no-op on ones that already do. Matplotlib creates these
    texts itself, so they are converted in place: a :class:`StampText` only overrides
    ``draw`` and ``get_window_extent`` and keeps every attribute of the ``Text``."""
    for t in texts:
        if type(t) is Text:
            t.__class__ = StampText


def stamp_axis(axis) -> None:
    """Stamp an ``Axis``'s label and the labels of the ticks it has now (call again after
    changing the number of ticks: new ticks come with plain labels)."""
    stamp(axis.label, *(lab for tk in axis.get_major_ticks() for lab in (tk.label1, tk.label2)))


def label(
    ax, text: str, xy, offset=(0.0, 0.0), size: float = 8.0, ha: str = "left", transform=None, **kw
) -> StampText:
    """``text`` at ``xy`` (data coordinates, or ``transform``'s) shifted by ``offset``
    points, its left edge (``ha="left"``) or centre (``ha="center"``) and its baseline
    there; move it with ``set_position``. Other keywords go to the ``Text``."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"text must be a non-empty string, got {text!r}")
    if ha not in ("left", "center"):
        raise ValueError(f"ha must be 'left' or 'center', got {ha!r}")
    base = ax.transData if transform is None else transform
    shift = ScaledTranslation(offset[0] / 72, offset[1] / 72, ax.get_figure(root=True).dpi_scale_trans)
    return stamp_text(
        ax, xy[0], xy[1], text, fontsize=size, ha=ha, va="baseline", transform=base + shift, **kw
    )


class TextGroup(Artist):
    """Stamped texts painted as one artist: the blitter measures and orders one unit, not
    a hundred. The group is stale when one of its texts is (a changed text marks it, as a
    child marks its Axes). ``within``: an artist whose extent holds every text (else their
    union is measured)."""

    def __init__(self, ax, texts, zorder: float, within=None):
        super().__init__()
        self.texts = texts
        self.within = within
        self.axes = ax
        self.set_figure(ax.get_figure(root=False))
        self.set_zorder(zorder)
        ax.add_artist(self)
        self.set_clip_on(False)

    @property
    def stale(self) -> bool:
        return Artist.stale.fget(self) or any(t.stale for t in getattr(self, "texts", ()))

    @stale.setter
    def stale(self, val: bool) -> None:
        Artist.stale.fset(self, val)
        if not val:
            for t in getattr(self, "texts", ()):
                t.stale = False

    def get_window_extent(self, renderer=None):
        if self.within is not None:
            return self.within.get_window_extent(renderer)
        boxes = [t.get_window_extent(renderer) for t in self.texts if t.get_visible() and t.get_text()]
        return Bbox.union(boxes) if boxes else Bbox([[0.0, 0.0], [0.0, 0.0]])

    def draw(self, renderer):
        """Paste each shown text's bitmap as ``StampText.draw`` does, the positions
        transformed in one call per transform."""
        shown = [t for t in self.texts if t.get_visible() and t.get_text()] if self.get_visible() else []
        by_transform: dict = {}
        for t in shown:
            by_transform.setdefault(id(t.get_transform()), []).append(t)
        gc = renderer.new_gc()
        for texts in by_transform.values():
            xy = texts[0].get_transform().transform(np.array([t.get_unitless_position() for t in texts]))
            for t, (x, y) in zip(texts, xy):
                crop, dx, dy = t.bitmap(renderer)
                if crop is not None and np.isfinite(x) and np.isfinite(y):
                    renderer.draw_image(gc, int(round(x)) + dx, int(round(y)) + dy, crop)
        gc.restore()
        self.stale = False


def detached_texts(ax, n: int, **kw) -> list:
    """``n`` empty stamped texts of ``ax`` (``ax.text`` keywords) that are not among its
    children: a :class:`TextGroup` paints them."""
    out = []
    for _ in range(n):
        t = StampText(0.0, 0.0, "", **kw)
        t.set_figure(ax.get_figure(root=False))
        t.axes = ax
        if "transform" not in kw:
            t.set_transform(ax.transData)
        out.append(t)
    return out


class TextRow(Artist):
    """Strings at (``xs[t]``, ``y``), one artist (see :func:`text_row`)."""

    def __init__(self, xs, y, fontsize, weight, ha):
        super().__init__()
        self.xs, self.y = list(xs), float(y)
        self.proto = StampText(0, 0, "", fontsize=fontsize, fontweight=weight, ha=ha, va="baseline")
        self.lift = 0.3 * fontsize  # points from the row's y down to the baseline
        self.texts = [("", None)] * len(self.xs)
        self.set_zorder(3)

    def set_texts(self, texts) -> None:
        """``[(string, colour), ...]`` in the order of ``xs`` ("" draws nothing)."""
        texts = [(str(s), c) for s, c in texts] + [("", None)] * (len(self.xs) - len(texts))
        self.texts = texts[: len(self.xs)]
        self.stale = True

    def _placed(self, renderer):
        tr = self.get_transform() if self.is_transform_set() else self.axes.transData
        pts = tr.transform(np.array([(x, self.y) for x in self.xs], dtype=float).reshape(-1, 2))
        lift = self.lift * renderer.dpi / 72.0
        p = self.proto
        for (s, c), (px, py) in zip(self.texts, pts):
            if s and np.isfinite(px) and np.isfinite(py):
                p.set_text(s)
                p.set_color(c)
                crop, dx, dy = p.bitmap(renderer)
                if crop is not None:
                    yield crop, int(round(px)) + dx, int(round(py - lift)) + dy

    def get_window_extent(self, renderer=None):
        renderer = _renderer_of(self, renderer)
        boxes = [(x, y, x + c.shape[1], y + c.shape[0]) for c, x, y in self._placed(renderer)]
        if not boxes:
            return Bbox([[0.0, 0.0], [0.0, 0.0]])
        a = np.array(boxes, dtype=float)
        return Bbox([[a[:, 0].min(), a[:, 1].min()], [a[:, 2].max(), a[:, 3].max()]]).padded(2.0)

    def draw(self, renderer):
        if self.get_visible():
            gc = renderer.new_gc()
            for crop, x, y in self._placed(renderer):
                renderer.draw_image(gc, x, y, crop)
            gc.restore()
        self.stale = False


def text_row(
    ax, xs, y: float, fontsize: float = 12, weight: str = "normal", transform=None, ha: str = "center"
) -> TextRow:
    """Strings at (``xs[t]``, ``y``) (data coordinates, or ``transform``'s), aligned ``ha``
    and vertically centred on the lower-case letters, set with
    ``row.set_texts([(string, colour), ...])``; "" draws nothing."""
    row = TextRow(xs, y, float(fontsize), weight, ha)
    ax.add_artist(row)
    row.proto.set_figure(ax.get_figure(root=True))
    if transform is None:
        row.set_clip_box(ax.bbox)
    else:
        row.set_transform(transform)
        row.set_clip_on(False)
    return row


def title_row(ax, loc: str = "right", fontsize: float = 10, weight: str = "normal") -> TextRow:
    """A one-string :func:`text_row` where ``ax.set_title(..., loc=loc)`` would write (the
    title itself is set to a blank of the same size, so the layout keeps room for it)."""
    ax.set_title(" ", loc=loc, fontsize=fontsize, fontweight=weight)
    x = {"left": 0.0, "center": 0.5, "right": 1.0}[loc]
    lift = ScaledTranslation(0.0, (6.0 + 0.3 * fontsize) / 72.0, ax.get_figure(root=True).dpi_scale_trans)
    row = text_row(ax, [x], 1.0, fontsize, weight, transform=ax.transAxes + lift, ha=loc)
    row.set_zorder(3.1)  # after the (blank) title texts, which it covers
    return row
