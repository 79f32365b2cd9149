"""The Kesler construction of chapter 04 (UML §17.2): the k−1 vectors x_ij of one example as a
heat map, and the constraints ⟨W, x_ij⟩ > 0 as bars.

``draw_kesler(ax, ...)`` / ``draw_constraints(ax, ...)`` draw the artists once;
``set_kesler`` / ``set_constraints`` show an example in them. The static figures
:func:`plot_kesler_example` and :func:`plot_constraint_scores` are the two in a row; the widget
:func:`kmlteach.widgets.ch04.make_kesler_view` calls the ``set_*`` functions on every step.
"""

from __future__ import annotations

import numpy as np

from ..._render import region_layer, text_row
from .._style import OKABE_ITO, get_ax, label_axes

__all__ = [
    "draw_kesler",
    "set_kesler",
    "kesler_title",
    "plot_kesler_example",
    "draw_constraints",
    "set_constraints",
    "plot_constraint_scores",
]


def draw_kesler(emb, ax, lim: float | None = None) -> dict:
    """Artists of a Kesler heat map (k−1 rows × kn columns) to be filled by
    :func:`set_kesler`; ``lim`` fixes the colour scale (default: max |Z|). The map
    and its numbers are pixel artists (:mod:`kmlteach._render`): a widget repaints
    them on every step at a fraction of an ``imshow`` and a dozen ``Text``s."""
    k, n = emb.n_classes, emb.n_features
    lim = float(lim if lim is not None else max(np.max(np.abs(emb.Z)), 1e-12))
    ax.set_xlim(-0.5, k * n - 0.5)
    ax.set_ylim(k - 1.5, -0.5)
    layer = region_layer(ax, (-0.5, k * n - 0.5, k - 1.5, -0.5))  # y0: the bottom row
    seps = [ax.axvline(b * n - 0.5, color="k", lw=1.5) for b in range(1, k)]
    for side in ax.spines.values():  # the heat map is its own frame (see ch05's table)
        side.set_visible(False)
    ax.tick_params(length=0)
    numbers = [text_row(ax, range(k * n), r, fontsize=9) for r in range(k - 1)]
    # row names are plain texts rather than tick labels: they change with the example, and a
    # changed tick label repaints the whole axis in a widget
    ax.set_yticks(range(k - 1))
    ax.set_yticklabels([])
    rownames = [
        ax.text(-0.012, r, "", ha="right", va="center", fontsize=10, transform=ax.get_yaxis_transform())
        for r in range(k - 1)
    ]
    ax.set_xticks([b * n + (n - 1) / 2 for b in range(k)])
    ax.set_xticklabels([f"block {b + 1}" for b in range(k)])
    label_axes(ax, "coordinate of $\\mathbb{R}^{kn}$ (block c multiplies $w_c$)", "vector")
    ax.yaxis.labelpad = 24  # left of the row names
    return {"ax": ax, "layer": layer, "numbers": numbers, "lim": lim, "rownames": rownames, "seps": seps}


def set_kesler(art, emb, i: int, title: str | None = None) -> np.ndarray:
    """Show the Kesler vectors $x_{ij}$ of example i; returns them (rows). ``title``: the
    Axes' title (default :func:`kesler_title`; ``False`` leaves the title alone)."""
    from matplotlib import colormaps

    rows = np.flatnonzero((emb.example == i) & (emb.t > 0))
    Z = emb.Z[rows]
    lim = art["lim"]
    if art.get("shown") != i:
        art["rgba"] = colormaps["PuOr"](np.clip((Z + lim) / (2 * lim), 0.0, 1.0), bytes=True)[::-1]
        art["shown"] = i  # (the layer's row 0 is the bottom one)
    art["layer"].set_data(art["rgba"])
    for r, row in enumerate(art["numbers"]):
        row.set_texts(
            [(f"{v:.1f}" if v != 0 else "", "white" if abs(v) > 0.55 * lim else "black") for v in Z[r]]
        )
    a = emb.label[rows[0]]
    ax = art["ax"]
    for t, j in zip(art["rownames"], emb.competitor[rows]):
        t.set_text(f"$x_{{{a + 1},{j + 1}}}$")
    if title is not False:
        ax.set_title(title or kesler_title(i, a))
    return Z


def kesler_title(i: int, label: int) -> str:
    """The title of the Kesler view of example ``i`` (0-based class ``label``)."""
    return f"Kesler vectors of example {i} (class {label + 1})"


def plot_kesler_example(emb, i: int, ax=None, title: str | None = None):
    """The k−1 Kesler vectors x_ij of example i as a heat map (rows j, columns = the k
    blocks of n coordinates)."""
    ax = get_ax(ax, 6.5, 2.6)
    rows = np.flatnonzero(emb.example == i)
    set_kesler(draw_kesler(emb, ax, lim=np.max(np.abs(emb.Z[rows]))), emb, i, title)
    return ax


def draw_constraints(ax, n_bars: int) -> dict:
    """Bars for :func:`set_constraints`."""
    bars = ax.bar(range(n_bars), np.zeros(n_bars), color=OKABE_ITO["green"], edgecolor="black")
    for bar in bars:
        if hasattr(bar, "set_hatchcolor"):  # matplotlib >= 3.10
            bar.set_hatchcolor("black")
    ax.axhline(0, color="k", lw=1, zorder=0.5)  # under the bars: they move, it does not
    ax.set_xticks(range(n_bars))
    ax.set_xticklabels([])
    # competitor names as plain texts (they change with the example; see draw_kesler)
    names = [
        ax.text(b, -0.03, "", ha="center", va="top", fontsize=10, transform=ax.get_xaxis_transform())
        for b in range(n_bars)
    ]
    # violated constraints also get a cross on the bar's top: visible at score 0 (W = 0,
    # where the bars have no height) and a cue that is not colour alone
    marks = ax.plot(
        [], [], ls="none", marker="X", ms=10, mfc=OKABE_ITO["vermillion"], mec="black", mew=0.8, zorder=3
    )[0]
    label_axes(ax, "competitor", "$(w_i - w_j)\\cdot x$")
    ax.xaxis.labelpad = 16  # below the competitor names
    return {"ax": ax, "bars": bars, "names": names, "marks": marks}


def set_constraints(art, scores, competitors, label: int, title: str | None = None, ylim=None):
    """Heights ⟨W, x_ij⟩ per competitor j; violated ones (<= 0) in vermillion and hatched
    (a cue that is not colour alone). ``ylim`` fixes the y range (default: fit the bars)."""
    scores = np.asarray(scores, dtype=float)
    for bar, sc in zip(art["bars"], scores):
        bar.set_height(sc)
        bar.set_facecolor(OKABE_ITO["vermillion"] if sc <= 0 else OKABE_ITO["green"])
        bar.set_hatch("//" if sc <= 0 else "")
    bad = np.flatnonzero(scores <= 0)
    art["marks"].set_data(bad, scores[bad])
    ax = art["ax"]
    if ylim is None:
        lo, hi = min(0.0, float(scores.min())), max(0.0, float(scores.max()))
        pad = 0.1 * max(hi - lo, 1.0)
        ylim = (lo - pad, hi + pad)
    if tuple(ax.get_ylim()) != tuple(ylim):  # unchanged limits: leave the axis clean
        ax.set_ylim(ylim)
    for t, j in zip(art["names"], competitors):
        t.set_text(f"j = {j + 1}")
    if title is not False:  # False: the caller owns the titles
        ax.set_title(
            f"constraints of a class-{label + 1} example (red, hatched, ×: violated)"
            if title is None
            else title
        )


def plot_constraint_scores(scores, competitors, label: int, ax=None, title: str | None = None):
    """Bars of ⟨W, x_ij⟩ = (w_i − w_j)·x per competitor j; violated ones (<= 0) in vermillion."""
    ax = get_ax(ax, 4.5, 2.6)
    art = draw_constraints(ax, len(np.atleast_1d(scores)))
    set_constraints(art, scores, competitors, label, title)
    return ax
