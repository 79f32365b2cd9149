"""Figures of chapter 05: word images, the Viterbi table M, transition weights, noise sweep.

Pure helpers: ``ax=None`` in, Axes out; no ``plt.show()``.
"""

from __future__ import annotations

import numpy as np

from ._style import OKABE_ITO, get_ax, label_axes

__all__ = [
    "word_strip",
    "plot_word",
    "plot_samples",
    "plot_viterbi_table",
    "plot_transitions",
    "plot_noise_sweep",
    "LETTERS",
    "word_panel",
    "update_word_panel",
    "viterbi_panel",
    "update_viterbi_panel",
]

LETTERS = "abcdefghijklmnopqrstuvwxyz"


def word_strip(x, letter_shape=(16, 8), gap: int = 1) -> np.ndarray:
    """Letter images (r, h*w) side by side with ``gap`` blank columns: (h, r*(w+gap)-gap)."""
    h, w = letter_shape
    x = np.asarray(x, dtype=float)
    r = x.shape[0]
    out = np.full((h, r * (w + gap) - gap), np.nan)
    for t in range(r):
        out[:, t * (w + gap) : t * (w + gap) + w] = x[t].reshape(h, w)
    return out


#: vertical layout of a word panel (data units; the letter images span y in [0, 1])
_ROW_DECODED, _ROW_UNDERLINE, _ROW_TRUE, _WORD_YLIM = -0.42, -0.78, -1.3, (-1.7, 1.04)


def word_panel(ax, r_max: int, letter_shape=(16, 8), aligned: bool = True) -> dict:
    """Artists of a word panel for up to ``r_max`` letters, filled by :func:`update_word_panel`:
    the letter images (letter t spans x in [t - 0.5, t + 0.5), as column t of
    :func:`plot_viterbi_table`), a row of decoded letters under them, the wrong ones in
    vermillion *and* underlined, and a row with the true word in grey."""
    from .._render import region_layer, text_row

    h, w = letter_shape
    ax.set_xlim(-0.5, r_max - 0.5)
    ax.set_ylim(*_WORD_YLIM)
    if not aligned:
        ax.set_aspect((w + 1) / h)
    layer = region_layer(ax, (-0.5, r_max - 0.5, 0.0, 1.0))
    dec = text_row(ax, range(r_max), _ROW_DECODED, fontsize=13)
    true = text_row(ax, range(r_max), _ROW_TRUE, fontsize=11)
    under = ax.plot([], [], color=OKABE_ITO["vermillion"], lw=2.0, solid_capstyle="butt")[0]
    rows = {
        "decoded": ax.text(-0.62, _ROW_DECODED, "decoded", ha="right", va="center", fontsize=9),
        "true": ax.text(-0.62, _ROW_TRUE, "true", ha="right", va="center", fontsize=9, color="0.35"),
    }
    ax.set_xticks([])
    ax.set_yticks([])
    for side in ax.spines.values():
        side.set_visible(False)
    return {
        "ax": ax,
        "layer": layer,
        "decoded": dec,
        "true": true,
        "underline": under,
        "rows": rows,
        "r_max": r_max,
        "shape": tuple(letter_shape),
        "shown": None,
    }


def update_word_panel(art, x, labels=None, truth=None, key=None, mark: bool = True) -> None:
    """Show word image ``x`` (r, h*w) with ``labels`` (ints or str, "" for none yet) and the
    true word ``truth``; ``key`` identifies the image (it is repainted only when it changes);
    ``mark``: flag the decoded letters that differ from the truth."""
    r_max = art["r_max"]
    if key is None or art["shown"] != key:
        strip = word_strip(x, art["shape"])
        h, w = art["shape"]
        full = np.full((h, r_max * (w + 1)), np.nan)
        full[:, : strip.shape[1]] = strip
        grey = np.where(np.isnan(full), 0.0, np.clip(full, 0.0, 1.0))
        rgba = np.empty(full.shape + (4,), dtype=np.uint8)
        rgba[..., :3] = np.round(255 * (1.0 - grey))[..., None]
        rgba[..., 3] = 255
        art["rgba"] = rgba[::-1]  # the layer's row 0 is the bottom one
        art["shown"] = key
    # every part is set on every call (the image only recomputed for a new key)
    art["layer"].set_data(art["rgba"])
    labs = [
        "" if k is None else (LETTERS[k] if not isinstance(k, str) else k)
        for k in (labels if labels is not None else [])
    ]
    tru = [LETTERS[k] if not isinstance(k, str) else k for k in truth] if truth is not None else []
    wrong, row = [], []
    for t in range(r_max):
        a = labs[t] if t < len(labs) else ""
        b = tru[t] if t < len(tru) else ""
        bad = mark and bool(a) and bool(b) and a != b
        wrong += [t] if bad else []
        row.append((a, OKABE_ITO["vermillion"] if bad else "black"))
    art["decoded"].set_texts(row)
    art["true"].set_texts([(b, "0.35") for b in tru])
    xs = np.array([[t - 0.3, t + 0.3, np.nan] for t in wrong]).ravel()
    art["underline"].set_data(xs, np.full(len(xs), _ROW_UNDERLINE))
    art["underline"].set_visible(bool(wrong))  # an empty line has no place to repaint


def plot_word(x, letter_shape=(16, 8), labels=None, truth=None, ax=None, aligned: bool = False):
    """One word image; letter t spans x in [t - 0.5, t + 0.5) so that it lines up with
    column t of :func:`plot_viterbi_table`. ``labels`` (ints or str) are written under the
    letters; where they differ from ``truth`` they are vermillion and underlined, and the
    true word is written in grey below. ``aligned`` stretches the image to the Axes (for
    stacking above the table)."""
    r = len(x)
    ax = get_ax(ax, 1 + 0.6 * r, 2.0)
    art = word_panel(ax, r, letter_shape, aligned)
    update_word_panel(art, x, labels, truth)
    return ax


def plot_samples(data, n: int = 6, ax=None):
    """The first ``n`` words of an :class:`~kmlteach.datasets._ocr.OCRWords` sample."""
    h, w = data.letter_shape
    n = min(n, len(data.X))
    rmax = max(x.shape[0] for x in data.X[:n])
    width = rmax * (w + 1) - 1
    rows = []
    for x in data.X[:n]:
        s = word_strip(x, data.letter_shape)
        pad = np.full((h, width - s.shape[1]), np.nan)
        rows.append(np.hstack([s, pad]))
        rows.append(np.full((3, width), np.nan))
    ax = get_ax(ax, 0.45 * rmax + 1.5, 0.55 * n + 0.5)
    ax.imshow(np.vstack(rows[:-1]), cmap="gray_r", vmin=0, vmax=1, interpolation="nearest")
    ax.set_yticks([(h + 3) * i + h / 2 - 0.5 for i in range(n)])
    ax.set_yticklabels([f'"{wd}"' for wd in data.words[:n]], fontsize=11)
    ax.set_xticks([])
    ax.tick_params(length=0)
    for side in ax.spines.values():
        side.set_visible(False)
    return ax


def viterbi_panel(ax, q: int, r_max: int, vmin: float, letters: str = LETTERS, colorbar: bool = True) -> dict:
    """Artists of the table M of UML §17.3 (q letters × up to ``r_max`` positions), filled by
    :func:`update_viterbi_panel`. Each column is shown relative to its best cell (0 = best,
    yellow; down to ``vmin``, dark), with a colour bar; columns not filled yet are white."""
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import Normalize
    from matplotlib.patches import Rectangle

    from .._render import region_layer

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
    if colorbar:
        cb = ax.figure.colorbar(
            ScalarMappable(norm=norm, cmap="viridis"),
            ax=ax,
            shrink=0.85,
            pad=0.02,
            label="M[s, τ] − max over s of M[·, τ]  (0 = best)",
        )
        cb.dividers.set_visible(False)  # no edges drawn; an empty collection has no extent
    return {
        "ax": ax,
        "layer": layer,
        "frame": frame,
        "arrows": arrows,
        "path": path,
        "best": best,
        "norm": norm,
        "q": q,
        "r_max": r_max,
        "shown": None,
    }


def update_viterbi_panel(art, M, backpointers, tau: int, labels=None, top: int = 5) -> None:
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
    art["layer"].set_data(art["rgba"])  # on every call: see update_word_panel
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
    art = viterbi_panel(ax, q, r, float(rel.min()), letters)
    update_viterbi_panel(art, M, backpointers, tau, labels, top)
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

    from .._render import set_gc_clip

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


def plot_transitions(W_pair, ax=None, letters: str = LETTERS):
    """Learned bigram weights W_pair[a, b] (b right after a) as a diverging heat map."""
    P = np.asarray(W_pair, dtype=float)
    ax = get_ax(ax, 6.5, 5.8)
    lim = float(np.max(np.abs(P))) or 1.0
    im = ax.imshow(P, cmap="RdBu_r", vmin=-lim, vmax=lim, interpolation="nearest")
    q = P.shape[0]
    ax.set_xticks(np.arange(q))
    ax.set_xticklabels(list(letters[:q]), fontsize=8)
    ax.set_yticks(np.arange(q))
    ax.set_yticklabels(list(letters[:q]), fontsize=8)
    ax.figure.colorbar(im, ax=ax, shrink=0.8, label="weight of the bigram").dividers.set_visible(False)
    label_axes(ax, "next letter b", "previous letter a")
    return ax


def plot_noise_sweep(noise, err_chain, err_letter, ax=None):
    """Test letter error of the chain model and of independent letters against noise."""
    ax = get_ax(ax, 5.5, 3.6)
    ax.plot(noise, err_letter, marker="o", color=OKABE_ITO["blue"], label="independent letters")
    ax.plot(noise, err_chain, marker="^", color=OKABE_ITO["vermillion"], label="chain (with bigrams)")
    ax.set_ylim(0, max(max(err_letter), max(err_chain)) * 1.15 + 0.01)
    ax.grid(alpha=0.3)
    ax.legend()
    label_axes(ax, "pixel noise (std)", "test letter error")
    return ax
