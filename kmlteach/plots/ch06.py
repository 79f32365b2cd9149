"""Plots of chapter 06 (ranking, UML §17.4): a ranked list, the assignment problem, curves."""

from __future__ import annotations

import numpy as np

from ._style import OKABE_ITO, get_ax, label_axes

__all__ = [
    "RELEVANCE_COLORS",
    "ranked_list_data",
    "plot_ranked_list",
    "plot_assignment",
    "plot_learning_curves",
    "ITEM_NAMES",
    "legend_with_grades",
]

#: colour of relevance grade 0, 1, 2, 3, ... (light to dark; colour-blind safe)
RELEVANCE_COLORS = [
    OKABE_ITO["grey"],
    OKABE_ITO["sky"],
    OKABE_ITO["blue"],
    OKABE_ITO["vermillion"],
    OKABE_ITO["purple"],
]
ITEM_NAMES = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _relevance_color(g: float) -> str:
    return RELEVANCE_COLORS[int(min(max(round(g), 0), len(RELEVANCE_COLORS) - 1))]


def legend_with_grades(ax, max_grade: int, **kw):
    """The axes' legend plus one colour patch per relevance grade 0..max_grade."""
    from matplotlib.patches import Patch

    handles, labels = ax.get_legend_handles_labels()
    grades = range(int(min(max_grade, len(RELEVANCE_COLORS) - 1)) + 1)
    handles += [Patch(facecolor=RELEVANCE_COLORS[g], edgecolor="black", lw=0.6) for g in grades]
    labels += [f"relevance {g}" for g in grades]
    return ax.legend(handles, labels, **kw)


def _text_on(rgba) -> str:
    """Black or white, whichever has the higher contrast ratio on the colour ``rgba``."""
    lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in rgba[:3]]
    lum = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    return "black" if (lum + 0.05) / 0.05 >= 1.05 / (lum + 0.05) else "white"


def ranked_list_data(y_pred, y_true):
    """Items in the predicted order (best first): their indices and relevances, and the
    relevances of the ideal order."""
    from ..ranking import permutation

    y_pred = np.asarray(y_pred, dtype=float)
    y_true = np.asarray(y_true, dtype=float)
    order = np.argsort(-permutation(y_pred), kind="stable")  # position r first
    ideal = np.sort(y_true)[::-1]
    return order, y_true[order], ideal


def plot_ranked_list(y_pred, y_true, k=None, ax=None, title=None, names=None):
    """Bars: the true relevance of the item at each predicted rank (rank 1 = top).

    Outlined steps show the ideal order (relevances sorted), the dotted line the discount
    1/log₂(1 + rank) that weights each rank in the DCG, and a shaded area the ranks
    beyond the top k that the truncated NDCG ignores.
    """
    ax = get_ax(ax, 6, 3.4)
    names = names or ITEM_NAMES
    order, rel, ideal = ranked_list_data(y_pred, y_true)
    r = len(rel)
    ranks = np.arange(1, r + 1)
    ax.bar(ranks, rel, color=[_relevance_color(g) for g in rel], edgecolor="black", lw=0.6)
    # each bar's grade written above it (colour is not the only cue), and a relevance-0 bar,
    # which has no height, shown as a grey dash on the axis
    for x, g in zip(ranks, rel):
        ax.annotate(
            f"{g:g}", (x, g), xytext=(0, 3), textcoords="offset points", ha="center", va="bottom", fontsize=8
        )
    zero = rel == 0
    ax.scatter(
        ranks[zero],
        rel[zero],
        marker="_",
        s=520,
        linewidths=4,
        color=RELEVANCE_COLORS[0],
        zorder=4,
        clip_on=False,
    )
    ax.step(ranks, ideal, where="mid", color=OKABE_ITO["black"], lw=1.2, ls="--", label="ideal order")
    top = max(1.0, float(np.max(ideal)))
    ax.plot(
        ranks,
        top * 1 / np.log2(ranks + 1),
        ":",
        color=OKABE_ITO["green"],
        lw=2,
        label=r"discount $1/\log_2(1+\mathrm{rank})$ (scaled)",
    )
    if k is not None and k < r:
        ax.axvspan(
            k + 0.5, r + 0.5, color=OKABE_ITO["grey"], alpha=0.18, lw=0, zorder=0, label="outside the top k"
        )
    ax.set_xticks(ranks, [f"{i}\n{names[j % len(names)]}" for i, j in zip(ranks, order)])
    ax.set_xlim(0.5, r + 0.5)
    ax.set_ylim(0, top * 1.6)
    legend_with_grades(ax, int(np.max(ideal)), fontsize=8, loc="upper right", ncol=2)
    label_axes(ax, "predicted rank (1 = top) and item", "true relevance", title)
    return ax


def plot_assignment(A, v, ax=None, title=None, values: bool = False, fmt: str = ".0f"):
    """Heat map of a cost matrix with the chosen cell of every row framed; ``values`` writes
    each cost in its cell (``fmt``), in black or white, whichever contrasts more with the
    cell's colour (WCAG's relative luminance)."""
    ax = get_ax(ax, 4.2, 3.8)
    A = np.asarray(A, dtype=float)
    im = ax.imshow(A, cmap="cividis")
    ax.figure.colorbar(im, ax=ax, shrink=0.8, label="cost $A_{ij}$")
    r = A.shape[0]
    if values:
        for (i, j), a in np.ndenumerate(A):
            ax.text(j, i, format(a, fmt), ha="center", va="center", fontsize=9, color=_text_on(im.to_rgba(a)))
    from matplotlib.patches import Rectangle

    for i, j in enumerate(np.asarray(v)):
        ax.add_patch(
            Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, edgecolor=OKABE_ITO["vermillion"], lw=2.5)
        )
    ax.set_xticks(range(r), [str(j + 1) for j in range(r)])
    ax.set_yticks(range(r), [str(i + 1) for i in range(r)])
    label_axes(ax, "worker j (position)", "task i (item)", title)
    return ax


def plot_learning_curves(t, curves: dict, ax=None, title=None, ylabel="held-out loss"):
    """One line per name in ``curves`` (values at the step numbers ``t``)."""
    ax = get_ax(ax, 6, 3.6)
    styles = [
        (OKABE_ITO["blue"], "-", "o"),
        (OKABE_ITO["vermillion"], "--", "^"),
        (OKABE_ITO["green"], "-.", "s"),
        (OKABE_ITO["purple"], ":", "D"),
    ]
    for (name, values), (c, ls, mk) in zip(curves.items(), styles):
        ax.plot(t, values, color=c, ls=ls, marker=mk, ms=4, lw=2, label=name)
    ax.set_xscale("log")
    ax.legend(fontsize=8)
    label_axes(ax, "SGD steps T", ylabel, title)
    return ax
