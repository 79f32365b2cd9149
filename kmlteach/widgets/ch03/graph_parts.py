"""Parts of the diffusion explorer (:mod:`.graphs`): the value boxes, the tick labels of
the heat map as stamped texts, and the heat map itself as a pixel grid."""

from __future__ import annotations

import numpy as np
from matplotlib.artist import Artist
from matplotlib.transforms import Bbox

from ..._render import detached_texts

NMAX = 10
TICK_PAD = 7.0  # points from the axes edge to a tick label (Matplotlib's tick size + pad)


def _value_box(width: float = 30.0, height: float = 12.0):
    """A rounded white box (points) as a marker path, and its scatter size."""
    from matplotlib.patches import BoxStyle

    path = BoxStyle("round", pad=0.0, rounding_size=2.5)(-width / 2, -height / 2, width, height, 1.0)
    return path, width**2  # MarkerStyle scales the longer side to √s points


def _tick_labels(ax, fig, side: str, **kw) -> list:
    """NMAX stamped texts placed like the tick labels of ``side`` ("bottom", "left", "right")."""
    from matplotlib.transforms import ScaledTranslation

    dx, dy = {"bottom": (0, -TICK_PAD), "left": (-TICK_PAD, 0), "right": (TICK_PAD, 0)}[side]
    base = ax.get_xaxis_transform() if side == "bottom" else ax.get_yaxis_transform()
    shift = ScaledTranslation(dx / 72, dy / 72, fig.dpi_scale_trans)
    align = {
        "bottom": dict(ha="center", va="top"),
        "left": dict(ha="right", va="center_baseline"),
        "right": dict(ha="left", va="center_baseline"),
    }[side]
    x0 = 0.0 if side in ("left", "bottom") else 1.0
    texts = detached_texts(ax, NMAX, transform=base + shift, fontsize=10, clip_on=False, **align, **kw)
    for t in texts:
        t.set_x(x0)
    return texts


class _Grid(Artist):
    """An n × n heat map over a fixed data square, pasted as pixels (nearest cell, like
    ``imshow``): a tenth of the cost of resampling an ``AxesImage`` on every update."""

    def __init__(self, ax, cmap, norm, lo: float, hi: float):
        super().__init__()
        self.axes, self.cmap, self.norm, self.lo, self.hi = ax, cmap, norm, lo, hi
        self.A = np.zeros((1, 1))
        self.set_figure(ax.get_figure(root=False))
        self.set_zorder(0)
        ax.add_artist(self)
        self.set_clip_on(False)

    def set_data(self, A) -> None:
        self.A = np.asarray(A, dtype=float)
        self.stale = True

    def _pixels(self):
        """Pixel edges (x0, y0, x1, y1) of the square: rows run down from data y = lo."""
        (x0, y0), (x1, y1) = self.axes.transData.transform([(self.lo, self.hi), (self.hi, self.lo)])
        return int(round(x0)), int(round(y0)), int(round(x1)), int(round(y1))

    def draw(self, renderer):
        if self.get_visible():
            x0, y0, x1, y1 = self._pixels()
            n = self.A.shape[0]
            widths = np.diff(np.round(np.linspace(0, x1 - x0, n + 1)).astype(int))
            heights = np.diff(np.round(np.linspace(0, y1 - y0, n + 1)).astype(int))
            # one uint32 per pixel, cells repeated into blocks; rows bottom-up for draw_image
            rgba = np.ascontiguousarray(self.cmap(self.norm(self.A), bytes=True)[::-1]).view(np.uint32)[
                ..., 0
            ]
            px = np.repeat(np.repeat(rgba, heights, axis=0), widths, axis=1)
            gc = renderer.new_gc()
            renderer.draw_image(gc, x0, y0, px.view(np.uint8).reshape(*px.shape, 4))
            gc.restore()
        self.stale = False

    def get_window_extent(self, renderer=None):
        x0, y0, x1, y1 = self._pixels()
        return Bbox([[x0, y0], [x1, y1]])
