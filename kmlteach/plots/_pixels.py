"""Fast pixel artists for the widgets: what changes on every frame of a widget is painted
straight into the Agg canvas rather than through ``imshow`` (which resamples in floating
point) or one ``Text`` per label (which lays the string out on every draw).

* :func:`region_layer` — an opaque RGBA grid (class regions, heat maps, word images)
  upsampled nearest-neighbour in NumPy and copied into the canvas;
* :func:`letter_row` — a row of short strings (letters, numbers) at data positions, each
  rendered once by FreeType, cached as a coverage bitmap, and blended per frame;
* :func:`paint_cached` — a marker collection that does not change (the training points
  over a region layer that does) rendered once into a transparent layer and blended per
  frame;
* :func:`paint_markers` — a marker collection that moves on every frame, painted by the
  same single Agg call as a direct draw without the per-draw measuring of its marker.

All draw the same pixels in a blitted frame and in a full redraw (the widget tests compare
them); on a non-Agg renderer (SVG, PDF) they fall back to ``draw_image`` and ``Text``.
"""

from __future__ import annotations

import numpy as np

__all__ = ["region_layer", "letter_row", "title_row", "paint_cached", "paint_markers"]


def region_layer(ax, extent, zorder: float = 0.0):
    """A region layer for widgets: an artist painting an (n, n) uint8 RGBA grid (from
    :func:`region_rgba`, row 0 at the bottom) over ``extent`` = (x0, x1, y0, y1), upsampled
    nearest-neighbour in NumPy straight onto the renderer; ``imshow`` resamples in floating
    point and costs about four times as much per frame. Update it with ``set_data``."""
    art = _region_class()(extent, zorder)
    ax.add_artist(art)
    art.set_clip_box(ax.bbox)
    return art


_REGION_CLASS: list = []


def _agg_buffer(renderer):
    """The RGBA pixels of an Agg renderer as a writable (H, W, 4) array (None elsewhere)."""
    try:
        from matplotlib.backends.backend_agg import RendererAgg
    except ImportError:  # pragma: no cover
        return None
    if not isinstance(renderer, RendererAgg):
        return None
    return np.asarray(renderer.buffer_rgba())


def _region_class():
    if _REGION_CLASS:
        return _REGION_CLASS[0]
    from matplotlib.artist import Artist
    from matplotlib.transforms import Bbox

    class RegionLayer(Artist):
        def __init__(self, extent, zorder):
            super().__init__()
            self.extent = tuple(float(v) for v in extent)
            self.rgba = np.zeros((1, 1, 4), dtype=np.uint8)
            self._index: tuple = ()
            self.set_zorder(zorder)

        def set_data(self, rgba) -> None:
            self.rgba = np.ascontiguousarray(rgba, dtype=np.uint8)
            self.stale = True     # (what is painted over it — frame, lines — the blitter
                                  # repaints with it: widgets/_blit.py)

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
            if not self._index or self._index[0] != (w, h, n_r, n_c):   # pixel -> grid cell
                cols = np.minimum((np.arange(w) + 0.5) * n_c // w, n_c - 1).astype(np.intp)
                rows = np.minimum((np.arange(h) + 0.5) * n_r // h, n_r - 1).astype(np.intp)
                self._index = ((w, h, n_r, n_c), rows, cols)
            _, rows, cols = self._index
            buf = _agg_buffer(renderer)
            clip = self.get_clip_box()
            if buf is None or clip is None:
                gc = renderer.new_gc()
                self._set_gc_clip(gc)
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
                    block = np.take(np.take(px, rows[y0 - b:y1 - b][::-1], axis=0),
                                    cols[x0 - a:x1 - a], axis=1)
                    buf.view(np.uint32)[H - y1:H - y0, x0:x1, 0] = block
            self.stale = False

    _REGION_CLASS.append(RegionLayer)
    return RegionLayer


def letter_row(ax, xs, y: float, fontsize: float = 12, weight: str = "normal", transform=None,
               ha: str = "center"):
    """Strings at (``xs[t]``, ``y``) (data coordinates, or ``transform``'s), aligned ``ha``
    and vertically centred on the lower-case letters, set with
    ``art.set_texts([(string, colour), ...])``; "" draws nothing. The bitmap of each string
    is cached, so a string that comes back costs a copy, not a layout."""
    art = _letters_class()(list(xs), float(y), float(fontsize), weight, ha)
    ax.add_artist(art)
    if transform is None:
        art.set_clip_box(ax.bbox)
    else:
        art.set_transform(transform)
        art.set_clip_on(False)
    return art


def title_row(ax, loc: str = "right", fontsize: float = 10, weight: str = "normal"):
    """A one-string :func:`letter_row` where ``ax.set_title(..., loc=loc)`` would write (the
    title itself is set to a blank of the same size, so the layout keeps room for it)."""
    from matplotlib.transforms import ScaledTranslation

    ax.set_title(" ", loc=loc, fontsize=fontsize, fontweight=weight)
    x = {"left": 0.0, "center": 0.5, "right": 1.0}[loc]
    lift = ScaledTranslation(0.0, (6.0 + 0.3 * fontsize) / 72.0, ax.figure.dpi_scale_trans)
    row = letter_row(ax, [x], 1.0, fontsize, weight, transform=ax.transAxes + lift, ha=loc)
    row.set_zorder(3.1)           # after the (blank) title texts, which it covers
    return row


_LETTERS_CLASS: list = []
_SPRITES: dict = {}


def _sprite(s: str, size: float, weight: str, dpi: float):
    """Coverage bitmap (h, w) in [0, 1] of ``s`` as Agg's text renderer draws it, and the
    pixels of it below the baseline."""
    key = (s, size, weight, dpi)
    if key not in _SPRITES:
        from matplotlib.backends.backend_agg import get_hinting_flag
        from matplotlib.font_manager import FontProperties, findfont, get_font

        prop = FontProperties(size=size, weight=weight)
        font = get_font(findfont(prop))
        font.clear()
        font.set_size(size, dpi)
        font.set_text(s, 0.0, flags=get_hinting_flag())
        font.draw_glyphs_to_bitmap(antialiased=True)
        _SPRITES[key] = (np.asarray(font.get_image(), dtype=np.float32) / 255.0,
                         font.get_descent() / 64.0)
    return _SPRITES[key]


def _letters_class():
    if _LETTERS_CLASS:
        return _LETTERS_CLASS[0]
    from matplotlib.artist import Artist
    from matplotlib.colors import to_rgb
    from matplotlib.text import Text
    from matplotlib.transforms import Bbox

    class LetterRow(Artist):
        def __init__(self, xs, y, fontsize, weight, ha):
            super().__init__()
            self.xs, self.y, self.fontsize, self.weight, self.ha = xs, y, fontsize, weight, ha
            self.texts = [("", None)] * len(xs)
            self.set_zorder(3)

        def set_texts(self, texts) -> None:
            # colours as 0-255 RGB once here, not on every frame
            texts = [(str(s), 255.0 * np.array(to_rgb(c))) for s, c in texts] + \
                [("", None)] * (len(self.xs) - len(texts))
            self.texts = texts[:len(self.xs)]
            self.stale = True

        def _placed(self, dpi):
            tr = self.get_transform() if self.is_transform_set() else self.axes.transData
            pts = tr.transform([(x, self.y) for x in self.xs])
            base = 0.3 * self.fontsize * dpi / 72.0        # baseline below the row's centre
            for (s, c), (px, py) in zip(self.texts, pts):
                if s:
                    cov, descent = _sprite(s, self.fontsize, self.weight, dpi)
                    top = py - base - descent + cov.shape[0]   # display y of the bitmap's top
                    left = {"center": px - cov.shape[1] / 2, "left": px, "right": px - cov.shape[1]}[self.ha]
                    yield s, c, left, top, cov

        def get_window_extent(self, renderer=None):
            dpi = self.figure.dpi
            boxes = [(left, top - b.shape[0], left + b.shape[1], top)
                     for _, _, left, top, b in self._placed(dpi)]
            if not boxes:
                return Bbox([[0.0, 0.0], [0.0, 0.0]])
            a = np.array(boxes)
            return Bbox([[a[:, 0].min(), a[:, 1].min()], [a[:, 2].max(), a[:, 3].max()]]).padded(2.0)

        def draw(self, renderer):
            if not self.get_visible():
                return
            buf = _agg_buffer(renderer)
            if buf is None:                  # other renderers: ordinary texts
                for (s, c), x in zip(self.texts, self.xs):
                    if s:
                        tr = self.get_transform() if self.is_transform_set() else self.axes.transData
                        t = Text(x, self.y, s, color=c / 255.0, fontsize=self.fontsize, fontweight=self.weight,
                                 ha=self.ha, va="center", transform=tr)
                        t.set_figure(self.figure)
                        t.draw(renderer)
                self.stale = False
                return
            H, Wd = buf.shape[:2]
            for s, c, left, top, cov in self._placed(renderer.dpi):
                h, w = cov.shape
                x0, y0 = int(round(left)), int(round(H - top))   # top-left, rows down
                xa, ya, xb, yb = max(x0, 0), max(y0, 0), min(x0 + w, Wd), min(y0 + h, H)
                if xb <= xa or yb <= ya:
                    continue
                a = cov[ya - y0:yb - y0, xa - x0:xb - x0, None]
                region = buf[ya:yb, xa:xb, :3]
                region[...] = np.round(region * (1.0 - a) + c * a)
            self.stale = False

    _LETTERS_CLASS.append(LetterRow)
    return LetterRow


def _paint_key(art, shape, dpi) -> tuple:
    """What the pixels of a marker collection depend on: canvas, clip box, marker centres
    in pixels, sizes, colours, line widths."""
    xy = art.get_offset_transform().transform(np.asarray(art.get_offsets(), dtype=float))
    clip = art.get_clip_box()
    return (shape, float(dpi), None if clip is None else tuple(np.round(clip.extents, 3)),
            np.round(xy, 3).tobytes(), np.asarray(art.get_sizes()).tobytes(),
            np.asarray(art.get_facecolor()).tobytes(), np.asarray(art.get_edgecolor()).tobytes(),
            np.asarray(art.get_linewidth()).tobytes(), art.get_alpha())


def paint_cached(*artists) -> None:
    """Paint each marker collection (``ax.scatter``'s ``PathCollection``) from a cache: it
    is drawn once by Agg into a transparent canvas, its covered pixels kept, and every
    later draw blends them over the canvas (within 2 of 255 of a direct draw, on an opaque
    canvas), a fraction of a millisecond where a few hundred markers with edges cost
    2–5 ms. Meant for points that stay put while a layer under them changes (a widget
    repaints them on every frame); the cache is rebuilt when the markers move, resize or
    change colour. Other renderers (SVG, PDF) draw them as usual."""
    from matplotlib.backends.backend_agg import RendererAgg

    for art in artists:
        if not hasattr(art, "get_offsets") or not hasattr(art, "get_sizes"):
            raise ValueError(f"artists must be marker collections (ax.scatter), got {type(art).__name__}")
        direct, state = art.draw, {}

        def draw(renderer, _art=art, _direct=direct, _state=state):
            buf = _agg_buffer(renderer)
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
    """One marker path, size, face and edge colour, line width, no hatch, no dashes: what
    Agg's ``draw_markers`` paints in one call."""
    return (len(art.get_paths()) == 1 and len(np.atleast_1d(art.get_sizes())) == 1
            and len(art.get_facecolor()) == 1 and len(art.get_edgecolor()) == 1
            and len(np.atleast_1d(art.get_linewidths())) == 1 and art.get_hatch() is None
            and all(ls[1] is None for ls in art.get_linestyles())
            and not art.get_path_effects() and art.get_sketch_params() is None)


def paint_markers(*artists) -> None:
    """Paint each marker collection (``ax.scatter``'s ``PathCollection`` with one size and
    one colour) with the one ``draw_markers`` call that its own ``draw`` makes, minus the
    per-draw check that the marker is smaller than the figure (it measures the marker
    path's Bézier extents: 0.5–1.5 ms per collection, more than the painting). The same
    call with the same arguments: the same pixels. Meant for points that move on every
    frame of a widget. Mixed sizes or colours, and other renderers, draw as usual."""
    from matplotlib.backends.backend_agg import RendererAgg
    from matplotlib.path import Path
    from matplotlib.transforms import Affine2D

    for art in artists:
        if not hasattr(art, "get_offsets") or not hasattr(art, "get_sizes"):
            raise ValueError(f"artists must be marker collections (ax.scatter), got {type(art).__name__}")
        direct = art.draw

        def draw(renderer, _art=art, _direct=direct):
            if (not isinstance(renderer, RendererAgg) or not _art.get_visible() or not _uniform(_art)
                    or _art.have_units()):
                return _direct(renderer)
            if len(_art.get_offsets()):
                _art.update_scalarmappable()
                transform, offset_trf, offsets, paths = _art._prepare_points()
                # PathCollection.draw's set_sizes(sizes, dpi), without marking the artist stale
                scale = float(np.sqrt(np.atleast_1d(_art.get_sizes())[0])) * renderer.dpi / 72.0 * _art._factor
                gc = renderer.new_gc()
                _art._set_gc_clip(gc)
                gc.set_snap(_art.get_snap())
                if _art._joinstyle:
                    gc.set_joinstyle(_art._joinstyle)
                if _art._capstyle:
                    gc.set_capstyle(_art._capstyle)
                gc.set_foreground(tuple(_art.get_edgecolor()[0]), isRGBA=True)
                gc.set_linewidth(_art._linewidths[0])
                gc.set_dashes(*_art._linestyles[0])
                gc.set_antialiased(_art._antialiaseds[0])
                gc.set_url(_art._urls[0])
                renderer.draw_markers(gc, paths[0], (Affine2D().scale(scale) + transform).frozen(),
                                      Path(offsets), offset_trf, tuple(_art.get_facecolor()[0]))
                gc.restore()
            _art.stale = False

        art.draw = draw
