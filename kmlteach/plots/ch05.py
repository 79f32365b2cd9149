"""Figures of chapter 05: word images, the Viterbi table M, transition weights, noise sweep.

Pure helpers: ``ax=None`` in, Axes out; no ``plt.show()``.
"""

from __future__ import annotations

import numpy as np

from ._style import OKABE_ITO, get_ax, label_axes

__all__ = ["word_strip", "plot_word", "plot_samples", "plot_viterbi_table", "plot_transitions",
           "plot_noise_sweep", "LETTERS"]

LETTERS = "abcdefghijklmnopqrstuvwxyz"


def word_strip(x, letter_shape=(16, 8), gap: int = 1) -> np.ndarray:
    """Letter images (r, h*w) side by side with ``gap`` blank columns: (h, r*(w+gap)-gap)."""
    h, w = letter_shape
    x = np.asarray(x, dtype=float)
    r = x.shape[0]
    out = np.full((h, r * (w + gap) - gap), np.nan)
    for t in range(r):
        out[:, t * (w + gap): t * (w + gap) + w] = x[t].reshape(h, w)
    return out


def plot_word(x, letter_shape=(16, 8), labels=None, truth=None, ax=None, aligned: bool = False):
    """One word image; letter t spans x in [t - 0.5, t + 0.5) so that it lines up with
    column t of :func:`plot_viterbi_table`. ``labels`` (ints or str) are written under the
    letters, in vermillion where they differ from ``truth``. ``aligned`` stretches the
    image to the Axes (for stacking above the table)."""
    h, w = letter_shape
    r = len(x)
    ax = get_ax(ax, 1 + 0.6 * r, 1.6)
    strip = np.hstack([word_strip(x, letter_shape), np.full((h, 1), np.nan)])
    ax.imshow(strip, cmap="gray_r", vmin=0, vmax=1, interpolation="nearest",
              extent=(-0.5, r - 0.5, h, 0), aspect="auto" if aligned else 1 / (w + 1))
    ax.set_xticks(np.arange(r) - 0.5 / (w + 1))
    set_word_labels(ax, labels, truth)
    ax.set_yticks([])
    ax.tick_params(length=0)
    return ax


def set_word_labels(ax, labels, truth=None):
    """Write ``labels`` under the letters of a :func:`plot_word` image, in vermillion
    where they differ from ``truth``."""
    if labels is None:
        ax.set_xticklabels([])
        return
    labs = [LETTERS[k] if not isinstance(k, str) else k for k in labels]
    ax.set_xticklabels(labs, fontsize=13)
    if truth is not None:
        for tick, a, b in zip(ax.get_xticklabels(), labs, truth):
            b = LETTERS[b] if not isinstance(b, str) else b
            tick.set_color(OKABE_ITO["vermillion"] if a != b else "black")


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


def plot_viterbi_table(M, backpointers, tau: int, labels=None, top: int = 5, ax=None,
                       letters: str = LETTERS):
    """Heat map of M[s, τ] − max_s' M[s', τ] (q, r) up to column ``tau`` (0-based), the current column framed,
    arrows from the best predecessor I[s, tau] of its ``top`` best cells; with
    ``labels`` (the backtracked path) drawn as a bold line."""
    M = np.asarray(M, dtype=float)
    q, r = M.shape
    ax = get_ax(ax, 1.2 + 0.8 * r, 6)
    # each column relative to its best cell, so that every column shows its contrast
    rel = M - M.max(axis=0, keepdims=True)
    shown = np.where(np.arange(r)[None, :] <= tau, rel, np.nan)
    im = ax.imshow(shown, cmap="viridis", aspect="auto", interpolation="nearest",
                   vmin=min(-1e-9, float(np.nanmin(rel))), vmax=0)
    ax.set_yticks(np.arange(q))
    ax.set_yticklabels(list(letters[:q]), fontsize=8)
    ax.set_xticks(np.arange(r))
    ax.set_xticklabels([f"τ={t + 1}" for t in range(r)])
    ax.set_xlim(-0.5, r - 0.5)
    ax.set_ylim(q - 0.5, -0.5)
    viterbi_overlay(ax, M, backpointers, tau, labels, top)
    label_axes(ax, "position in the word", "letter s (row of M)")
    return ax, im


def viterbi_overlay(ax, M, backpointers, tau: int, labels=None, top: int = 5) -> list:
    """The parts of :func:`plot_viterbi_table` that move with τ: the frame of column
    ``tau``, the arrows from the best predecessors of its ``top`` best cells, the best
    cell and (with ``labels``) the backtracked path. Returns the artists drawn."""
    M = np.asarray(M, dtype=float)
    q, r = M.shape
    arts = [ax.add_patch(_frame(tau, q))]
    if tau >= 1:
        best = np.argsort(-M[:, tau], kind="stable")[:top]
        for s in best:
            sp = backpointers[s, tau]
            arts.append(ax.annotate("", xy=(tau - 0.3, s), xytext=(tau - 0.7, sp),
                                    arrowprops=dict(arrowstyle="->", color="white", lw=1.2)))
        arts += ax.plot([tau], [best[0]], marker="o", ms=9, mfc="none", mec=OKABE_ITO["orange"], mew=2)
    if labels is not None:
        arts += ax.plot(np.arange(r), labels, color=OKABE_ITO["orange"], lw=3, marker="o", ms=7)
    return arts


def _frame(tau, q):
    from matplotlib.patches import Rectangle

    return Rectangle((tau - 0.5, -0.5), 1, q, fill=False, ec=OKABE_ITO["vermillion"], lw=2.5)


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
    ax.figure.colorbar(im, ax=ax, shrink=0.8, label="weight of the bigram")
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
