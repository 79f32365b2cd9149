"""The Viterbi table M of UML §17.3: M[s, τ] per letter s and position τ, each column shown
relative to its best cell, the back-pointers of the current column and the backtracked path.

``draw_viterbi_table(ax, ...)`` draws the artists once (with the colour bar of
:func:`viterbi_colorbar`, the one place it is drawn) and ``set_viterbi_table(artists, ...)``
fills them for one step; the static figure :func:`plot_viterbi_table` is the two in a row,
and the widget :func:`kmlteach.widgets.ch05.make_viterbi_trace` calls
:func:`set_viterbi_table` on every step.
"""

from __future__ import annotations

import numpy as np

from .._style import OKABE_ITO, get_ax, label_axes
from .words import LETTERS

__all__ = [
    "draw_viterbi_table",
    "set_viterbi_table",
    "viterbi_colorbar",
    "plot_viterbi_table",
    "COLORBAR_LABEL",
]


COLORBAR_LABEL = "M[s, τ] − max over s of M[·, τ]  (0 = best)"


def viterbi_colorbar(ax, norm, cax=None):
    """The colour bar of the table M (:data:`COLORBAR_LABEL`, whole-number ticks): beside
    ``ax``, or in ``cax`` when the figure's layout is fixed (the widget)."""
    from matplotlib.cm import ScalarMappable
    from matplotlib.ticker import MaxNLocator

    where = {"cax": cax} if cax is not None else {"ax": ax, "shrink": 0.85, "pad": 0.02}
    cb = ax.figure.colorbar(ScalarMappable(norm=norm, cmap="viridis"), label=COLORBAR_LABEL, **where)
    cb.dividers.set_visible(False)  # no edges drawn; an empty collection has no extent
    # whole-number ticks: "−12.5"-wide labels pushed the label off the widget's fixed-size figure
    cb.locator = MaxNLocator(nbins=5, integer=True)
    cb.update_ticks()
    return cb


def draw_viterbi_table(ax, q: int, r_max: int, vmin: float, letters: str = LETTERS, cax=None) -> dict:
    """Artists of the table M of UML §17.3 (q letters × up to ``r_max`` positions), filled by
    :func:`set_viterbi_table`. Each column is shown relative to its best cell (0 = best,
    yellow; down to ``vmin``, dark), with a colour bar (:func:`viterbi_colorbar`, in ``cax``
    when given); columns not filled yet are white."""
    from matplotlib.colors import Normalize
    from matplotlib.patches import Rectangle

    from ..._render import region_layer

    norm = Normalize(vmin=min(float(vmin), -1e-9), vmax=0.0)
    ax.set_xlim(-0.5, r_max - 0.5)
    ax.set_ylim(q - 0.5, -0.5)
    layer = region_layer(ax, (-0.5, r_max - 0.5, q - 0.5, -0.5))  # y0 is the bottom row (z)
    frame = ax.add_patch(
        Rectangle((-0.5, -0.5), 0.9, q - 0.1, fill=False, lw=2.5, zorder=3, ec=OKABE_ITO["vermillion"])
    )  # inset: never clipped
    arrows = ax.add_artist(_arrow_class()())
    arrows.set_clip_box(ax.bbox)
    path = ax.plot(
        [], [], color=OKABE_ITO["orange"], lw=3, marker="o", ms=7, zorder=4, label="backtracked path"
    )[0]
    best = ax.plot(
        [],
        [],
        ls="none",
        marker="o",
        ms=11,
        mfc="none",
        mec=OKABE_ITO["vermillion"],
        mew=2.2,
        zorder=5,
        label="best cell of column τ",
    )[0]
    ax.set_yticks(np.arange(q))
    ax.set_yticklabels(list(letters[:q]), fontsize=8)
    ax.set_xticks(np.arange(r_max))
    ax.set_xticklabels([f"{t + 1}" for t in range(r_max)], fontsize=9)
    label_axes(ax, "position τ in the word", "letter s (row of M)")
    for side in ax.spines.values():  # the heat map is its own frame
        side.set_visible(False)
    ax.tick_params(length=0)  # (tick marks would touch the repainted map's edge)
    colorbar = viterbi_colorbar(ax, norm, cax)
    return {
        "ax": ax,
        "layer": layer,
        "frame": frame,
        "arrows": arrows,
        "path": path,
        "best": best,
        "norm": norm,
        "colorbar": colorbar,
        "q": q,
        "r_max": r_max,
        "shown": None,
    }


def set_viterbi_table(art, M, backpointers, tau: int, labels=None, top: int = 5) -> None:
    """Fill columns 0..``tau`` (0-based) of the table, frame column ``tau``, draw the
    back-pointers of its ``top`` best cells — each arrow starts at a cell (s, τ) and points
    back to its best predecessor I[s, τ] in column τ − 1 — ring the best cell, and with
    ``labels`` (the backtracked path) draw the path."""
    from matplotlib import colormaps

    M = np.asarray(M, dtype=float)
    q, r = M.shape
    key = (id(M), M.shape, tau)
    if art["shown"] != key:
        rel = M - M.max(axis=0, keepdims=True)
        rgba = np.full((q, art["r_max"], 4), 255, dtype=np.uint8)
        rgba[:, : tau + 1] = colormaps["viridis"](art["norm"](rel[:, : tau + 1]), bytes=True)
        art["rgba"] = rgba[::-1]
        art["shown"] = key
    art["layer"].set_data(art["rgba"])  # on every call: see set_word
    art["frame"].set_xy((tau - 0.45, -0.45))
    order = np.argsort(-M[:, tau], kind="stable")
    arrows = []
    if tau >= 1:
        # each shaft runs from the cell to the centre of its predecessor; the head sits 30 %
        # of the way, near the column boundary, so arrows sharing a predecessor keep apart
        cells = order[:top]
        preds = np.asarray(backpointers)[cells, tau]
        arrows = [(tau - 0.25, float(s_), tau - 1.0, float(p_), 0.3) for s_, p_ in zip(cells, preds)]
    art["arrows"].set_arrows(arrows)
    art["best"].set_data([tau], [order[0]])
    if labels is not None:
        art["path"].set_data(np.arange(r), np.asarray(labels))
    art["path"].set_visible(labels is not None)


def plot_viterbi_table(M, backpointers, tau: int, labels=None, top: int = 5, ax=None, letters: str = LETTERS):
    """Heat map of M[s, τ] − max_s' M[s', τ] (q, r) up to column ``tau`` (0-based) with a
    colour bar, the current column framed, its best cell ringed, back-pointer arrows from its
    ``top`` best cells to their best predecessors I[s, τ] in column τ − 1, and with ``labels``
    (the backtracked path) the path as a bold line. Returns the Axes and the artists."""
    M = np.asarray(M, dtype=float)
    q, r = M.shape
    ax = get_ax(ax, 1.2 + 0.8 * r, 6)
    rel = M - M.max(axis=0, keepdims=True)
    art = draw_viterbi_table(ax, q, r, float(rel.min()), letters)
    set_viterbi_table(art, M, backpointers, tau, labels, top)
    return ax, art


_ARROW_CLASS: list = []


def _arrow_class():
    """An artist drawing back-pointer arrows (white with a dark outline, visible on every
    colour of the table). An arrow (x0, y0, x1, y1, at) runs from (x0, y0) to (x1, y1) with
    its head at the fraction ``at`` of the way; heads are laid out in pixels at draw time,
    so they keep their shape whatever the Axes' aspect."""
    if _ARROW_CLASS:
        return _ARROW_CLASS[0]
    from matplotlib.artist import Artist
    from matplotlib.path import Path
    from matplotlib.transforms import Bbox, IdentityTransform

    from ..._render import set_gc_clip

    class BackPointers(Artist):
        HEAD, HALF = 9.0, 4.5  # arrow head length and half-width, pixels

        def __init__(self):
            super().__init__()
            self.arrows: list = []
            self.set_zorder(4.5)

        def set_arrows(self, arrows) -> None:
            self.arrows = [tuple(float(v) for v in a) for a in arrows]
            self.set_visible(bool(self.arrows))  # nothing to draw: no place to repaint
            self.stale = True

        def _paths(self):
            verts, codes, heads, hcodes = [], [], [], []
            tr = self.axes.transData
            for x0, y0, x1, y1, at in self.arrows:
                p0, p1 = tr.transform([(x0, y0), (x1, y1)])
                d = p1 - p0
                d = d / max(float(np.hypot(*d)), 1e-9)
                n = np.array([-d[1], d[0]])
                tip = p0 + at * (p1 - p0)
                base = tip - self.HEAD * d
                verts += [p0, p1]
                codes += [Path.MOVETO, Path.LINETO]
                heads += [tip, base + self.HALF * n, base - self.HALF * n, tip]
                hcodes += [Path.MOVETO, Path.LINETO, Path.LINETO, Path.CLOSEPOLY]
            return (
                Path(np.array(verts), codes) if verts else None,
                Path(np.array(heads), hcodes) if heads else None,
            )

        def get_window_extent(self, renderer=None):
            shaft, head = self._paths()
            if shaft is None:
                return Bbox([[0.0, 0.0], [0.0, 0.0]])
            pts = np.vstack([shaft.vertices, head.vertices])
            return Bbox([pts.min(axis=0), pts.max(axis=0)]).padded(3.0)

        def draw(self, renderer):
            if not self.get_visible() or not self.arrows:
                self.stale = False
                return
            shaft, head = self._paths()
            ident = IdentityTransform()
            for color, lw, face in (("#222222", 3.2, (0.13, 0.13, 0.13, 1.0)), ("white", 1.4, (1, 1, 1, 1))):
                gc = renderer.new_gc()
                set_gc_clip(gc, self)
                gc.set_foreground(color)
                gc.set_linewidth(lw)
                gc.set_joinstyle("miter")
                renderer.draw_path(gc, shaft, ident)
                renderer.draw_path(gc, head, ident, face)
                gc.restore()
            self.stale = False

    _ARROW_CLASS.append(BackPointers)
    return BackPointers
