"""Word images of chapter 05 (UML §17.3's OCR example): a word as a strip of letter images,
with the decoded letters under it (the wrong ones marked) and the true word below.

``draw_word(ax, ...)`` draws the artists once and ``set_word(artists, ...)`` shows a word in
them; the static figure :func:`plot_word` is the two in a row, and the widgets of
:mod:`kmlteach.widgets.ch05` call :func:`set_word` on every update.
"""

from __future__ import annotations

import numpy as np

from .._style import OKABE_ITO, get_ax

__all__ = ["LETTERS", "word_strip", "draw_word", "set_word", "plot_word", "plot_samples"]

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


def draw_word(ax, r_max: int, letter_shape=(16, 8), aligned: bool = True) -> dict:
    """Artists of a word panel for up to ``r_max`` letters, filled by :func:`set_word`:
    the letter images (letter t spans x in [t - 0.5, t + 0.5), as column t of
    :func:`plot_viterbi_table`), a row of decoded letters under them, the wrong ones in
    vermillion *and* underlined, and a row with the true word in grey."""
    from ..._render import region_layer, text_row

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


def set_word(art, x, labels=None, truth=None, key=None, mark: bool = True) -> None:
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
    art = draw_word(ax, r, letter_shape, aligned)
    set_word(art, x, labels, truth)
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
