"""Chapter 09 plots: NORMA (HSS2 Algorithm 2.1) on a stream."""

from __future__ import annotations

import numpy as np

from .._style import OKABE_ITO, class_points, class_style, label_axes

__all__ = ["norma_history", "draw_norma", "set_norma"]


# --- NORMA (HSS2 Algorithm 2.1) ------------------------------------------------------------


def norma_history(res, y, budget=None) -> np.ndarray:
    """Coefficients of every iterate of a :func:`kmlteach.online.norma` run.

    Row t − 1 holds the coefficients of f_{t+1} (after t steps): the term added at step s
    is a_s = −η_s l'_s and every later step u multiplies it by (1 − η_u λ), so its
    coefficient after step t is a_s Π_{u=s+1..t} (1 − η_u λ); with a budget τ only the
    last τ terms are kept. The last row equals ``res.coef``.
    """
    from ...online import norma_loss

    y = np.asarray(y, dtype=float)
    n = len(y)
    _, der = norma_loss(res.loss, res.predictions, y)
    a = -res.eta * der
    logd = np.cumsum(np.log1p(-res.eta * res.lam))  # Σ_{u ≤ t} log(1 − η_u λ)
    t = np.arange(n)[:, None]
    s = np.arange(n)[None, :]
    C = np.where(s <= t, a[None, :] * np.exp(logd[:, None] - logd[None, :]), 0.0)
    if budget is not None:
        C[s <= t - budget] = 0.0
    return C


BOUND_LABEL = "Novikoff bound (R/γ)²"
NO_BOUND_LABEL = "no Novikoff bound: it holds for the linear perceptron, λ = 0, no budget"


def draw_norma(ax_plane, ax_mist, X, y, lim: float = 1.6):
    """Draw the NORMA stream picture (points seen, expansion terms sized by |coef|, the
    boundary f = 0) and the mistakes panel. Returns the artists."""
    arts = {"seen": {}}
    empty = np.empty(0)
    for lab, k in ((-1.0, 0), (1.0, 1)):
        arts["seen"][lab] = class_points(ax_plane, k, empty, empty, s=10, alpha=0.45, lw=0, zorder=2)
        arts[f"terms{int(lab)}"] = class_points(
            ax_plane,
            k,
            empty,
            empty,
            s=np.empty(0),
            edgecolors="white",
            linewidths=0.5,
            zorder=3,
            label=f"term k(x_s, ·), y = {int(lab):+d}",
        )
    (arts["now"],) = ax_plane.plot(
        [], [], "o", ms=15, mfc="none", mec=OKABE_ITO["black"], mew=1.8, zorder=5, label="point x_t just seen"
    )
    (arts["l0"],) = ax_plane.plot([], [], color=OKABE_ITO["black"], lw=2, label="f = 0")
    ax_plane.set_xlim(-lim, lim)
    ax_plane.set_ylim(-lim, lim)
    ax_plane.set_aspect("equal")
    from matplotlib.lines import Line2D

    proxies = [
        Line2D(
            [],
            [],
            ls="",
            marker=class_style(k)["marker"],
            ms=9,
            color=class_style(k)["color"],
            label=f"term of a point with y = {lab:+d}",
        )
        for k, lab in ((0, -1), (1, 1))
    ]
    ax_plane.legend(
        handles=proxies + [arts["now"], arts["l0"]],
        fontsize=7.5,
        ncol=2,
        loc="upper center",
        bbox_to_anchor=(0.5, -0.13),
    )
    label_axes(ax_plane, "$x_1$", "$x_2$", "NORMA: marker area ∝ |coefficient|")
    (arts["curve"],) = ax_mist.plot([], [], color=OKABE_ITO["blue"], lw=2, label="mistakes so far")
    (arts["dot"],) = ax_mist.plot([], [], "o", color=OKABE_ITO["vermillion"], ms=7)
    arts["bound"] = ax_mist.axhline(
        0,
        color=OKABE_ITO["vermillion"],
        ls="--",
        lw=1.5,
    )
    # the bound's name is written by its line (or says why there is none), not in the legend:
    # a legend entry for a line that is not drawn misleads, and a legend that changes is
    # repainted with every frame of a widget
    arts["bound_text"] = ax_mist.text(
        0.98, 0.97, "", transform=ax_mist.transAxes, ha="right", va="top", fontsize=8, zorder=3
    )
    ax_mist.set_xlim(0, len(y) + 1)
    ax_mist.set_yscale("log")
    ax_mist.legend(fontsize=7.5, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=2)
    label_axes(ax_mist, "step t", "mistakes ($y_t f_t(x_t) \\leq 0$)", "mistakes")
    return arts


def set_norma(arts, X, y, C, mistakes, t: int, lines, bound: float, size_scale: float) -> None:
    """Show the stream after t steps: points 1..t, f_{t+1}'s terms, its boundary ``lines``,
    the mistake curve and the bound (all set on every call)."""
    c = C[t - 1]
    for lab in (-1.0, 1.0):
        seen = np.flatnonzero(y[:t] == lab)
        arts["seen"][lab].set_offsets(X[seen])
        keep = seen[c[seen] != 0.0]
        arts[f"terms{int(lab)}"].set_offsets(X[keep])
        arts[f"terms{int(lab)}"].set_sizes(12 + size_scale * np.abs(c[keep]))
    arts["now"].set_data([X[t - 1, 0]], [X[t - 1, 1]])
    arts["l0"].set_data(*lines)
    arts["dot"].set_data([t], [mistakes[t - 1]])
    arts["curve"].set_data(np.arange(1, len(y) + 1), mistakes)
    arts["bound"].set_ydata([bound, bound])
    applies = bool(np.isfinite(bound))
    arts["bound_text"].set_text(f"dashed: {BOUND_LABEL} = {bound:.1f}" if applies else NO_BOUND_LABEL)
    arts["bound_text"].set_color(OKABE_ITO["vermillion"] if applies else "0.35")
