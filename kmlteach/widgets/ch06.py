"""Widgets of chapter 06 (ranking, UML §17.4): reorder items, watch Kendall and NDCG.

Each builder returns an :class:`~kmlteach.widgets._base.Explorer`; ``explorer.state``
holds what the last redraw computed and ``explorer.controls`` the controls.
"""

from __future__ import annotations

import ipywidgets as W
import numpy as np

from .. import ranking as R
from .._render import label
from ..plots import OKABE_ITO, figure, label_axes
from ..plots.ch06 import ITEM_NAMES, RELEVANCE_COLORS, legend_with_grades, ranked_list_data
from ._base import Explorer, int_slider, slider
from ._drag import Drag
from ._predict import NumberGuess, predict_mode, within

__all__ = ["DEFAULT_RELEVANCE", "DEFAULT_SCORES", "make_ranking_explorer"]

#: six items A–F with graded relevance (0 = irrelevant … 3 = perfect) and a first guess
DEFAULT_RELEVANCE = np.array([3.0, 0.0, 2.0, 1.0, 0.0, 2.0])
DEFAULT_SCORES = np.array([0.6, 0.9, 0.2, 0.5, 0.1, 0.7])


def _fmt_perm(p) -> str:
    return "(" + ", ".join(str(int(v)) for v in p) + ")"


def make_ranking_explorer(y_true=None, scores=None, k: int = 3, predict: bool = False) -> Explorer:
    """Move each item's predicted score and watch π(y'), the Kendall-tau, 0–1 and NDCG losses.

    Drag a bar sideways to move its item to another rank (the scores are permuted so
    that the new order holds); the score sliders do the same from the keyboard.

    Controls: ``s0`` … ``s{r-1}`` (predicted score of item A, B, …), ``k`` (top-k of
    the NDCG discount), ``ideal`` (button: set each score to its true relevance / 4, or / the
    largest relevance when that is more, so that it fits the sliders' 0 to 1: the order of
    the relevances, ties included).
    State: ``scores``, ``permutation`` (π(y'), 1-based), ``order`` (items best first),
    ``kendall``, ``ndcg``, ``zero_one``, ``k``, ``item_rank`` (the rank under which each
    item's name is drawn), ``zero_ranks`` (ranks whose bar has relevance 0, drawn as a dash).

    ``predict=True``: whenever the order of the scores changes the student first guesses the
    Kendall-tau loss from the scores and the relevances in the sliders' labels (scored right
    within 0.05); the ranked bars and the readout stay hidden until *Reveal*
    (:mod:`kmlteach.widgets._predict`). A score moved without changing the order (ties
    included) asks nothing new: the losses are the same, and a revealed result stays shown.
    """
    y_true = DEFAULT_RELEVANCE.copy() if y_true is None else np.asarray(y_true, dtype=float)
    scores = (DEFAULT_SCORES.copy() if scores is None else np.asarray(scores, dtype=float))[: len(y_true)]
    r = len(y_true)
    names = ITEM_NAMES[:r]

    fig, ax = figure(6.4, 4.0)
    ranks = np.arange(1, r + 1)
    bars = ax.bar(ranks, np.zeros(r), edgecolor="black", lw=0.6)
    ideal = np.sort(y_true)[::-1]
    ax.step(ranks, ideal, where="mid", color=OKABE_ITO["black"], lw=1.2, ls="--", label="ideal order")
    top = max(1.0, float(ideal[0]))
    ax.plot(
        ranks,
        top / np.log2(ranks + 1),
        ":",
        color=OKABE_ITO["green"],
        lw=2,
        label=r"discount $1/\log_2(1+\mathrm{rank})$ (scaled)",
    )
    from matplotlib.patches import Rectangle

    # the full height of the axes (x in data, y in axes units); the legend sits above the
    # axes, so moving the shade never repaints it
    shade = Rectangle(
        (r + 0.5, 0),
        0,
        1,
        transform=ax.get_xaxis_transform(),
        color=OKABE_ITO["grey"],
        alpha=0.2,
        lw=0,
        zorder=0,
        label="ignored (beyond top k)",
    )
    ax.add_patch(shade)
    ax.set_xlim(0.5, r + 0.5)
    ax.set_ylim(0, top * 1.2)
    ax.set_yticks(np.arange(int(top) + 1))
    # rank numbers as fixed tick labels (a blank second line keeps room for the item names);
    # the item names and each bar's relevance are stamped labels that move with the items,
    # so a reorder repaints a few markers, not the whole x axis
    ax.set_xticks(ranks, [f"{i}\n " for i in ranks])
    under = ax.get_xaxis_transform()
    letters = [
        label(
            ax,
            names[j],
            (j + 1, 0.0),
            offset=(0.0, -27.0),
            size=10,
            ha="center",
            transform=under,
            clip_on=False,
            zorder=4,
        )
        for j in range(r)
    ]
    grades = [
        label(ax, f"{int(y_true[j])}", (j + 1, y_true[j]), offset=(0.0, 4.5), size=8, ha="center", zorder=4)
        for j in range(r)
    ]
    # a relevance-0 bar has no height: a grey dash on the axis shows it is there
    zero_mark = ax.scatter(
        [], [], marker="_", s=520, linewidths=4, color=RELEVANCE_COLORS[0], zorder=4, clip_on=False
    )
    legend_with_grades(
        ax, int(ideal[0]), fontsize=8, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=3, frameon=False
    )
    label_axes(ax, "predicted rank (1 = top) and item", "true relevance")

    controls = {
        f"s{i}": slider(
            f"score {names[i]} (rel. {int(y_true[i])})",
            float(scores[i]),
            0.0,
            1.0,
            0.01,
            readout_format=".2f",
            width="300px",
        )
        for i in range(r)
    }
    controls["k"] = int_slider("NDCG top k", int(min(k, r)), 1, r, width="260px")
    # the sliders run from 0 to 1: the relevances scaled into that range keep their order
    scale = max(4.0, float(y_true.max()))
    ideal_btn = W.Button(
        description="ideal order",
        tooltip=f"set every score to its relevance / {scale:g}: the relevances' own order, ties kept",
    )

    def scores_of(ex: Explorer) -> np.ndarray:
        # rounded: a value the browser sends back as 0.6499999999999999 is 0.65, and a tie
        # stays a tie
        return np.round([float(ex.controls[f"s{i}"].value) for i in range(r)], 9)

    def update(ex: Explorer) -> None:
        s = scores_of(ex)
        kk = int(ex.controls["k"].value)
        order, rel, _ = ranked_list_data(s, y_true)
        for bar, g in zip(bars, rel):
            bar.set_height(g)
            bar.set_color(RELEVANCE_COLORS[int(min(g, len(RELEVANCE_COLORS) - 1))])
            bar.set_edgecolor("black")
        at = np.empty(r)
        at[order] = ranks  # the rank of every item
        for j in range(r):
            letters[j].set_position((at[j], 0.0))
            grades[j].set_position((at[j], y_true[j]))
        zero_mark.set_offsets(np.c_[ranks, rel][rel == 0])
        ex.state["item_rank"] = at.astype(int)  # where each item's name is drawn
        ex.state["zero_ranks"] = ranks[rel == 0]  # the ranks with a zero-height bar
        shade.set_x(kk + 0.5)
        shade.set_width(max(r - kk, 0))
        st = ex.state
        st.update(
            scores=s,
            k=kk,
            order=order,
            permutation=R.permutation(s),
            kendall=R.kendall_tau_loss(s, y_true),
            ndcg=R.ndcg_loss(s, y_true, k=kk),
            ndcg_full=R.ndcg_loss(s, y_true),
            zero_one=R.zero_one_ranking_loss(s, y_true),
        )
        ex.set_readout(
            f"π(y') = {_fmt_perm(st['permutation'])} &nbsp; order (best first): "
            f"<b>{' '.join(names[j] for j in order)}</b><br>"
            f"Kendall-tau loss = <b>{st['kendall']:.3f}</b> &nbsp; NDCG loss (top {kk}) = "
            f"<b>{st['ndcg']:.3f}</b> &nbsp; (all ranks: {st['ndcg_full']:.3f}) &nbsp; "
            f"0–1 ranking loss = {st['zero_one']:.0f}"
        )

    ex = Explorer(
        fig,
        controls,
        update,
        layout_rows=[[f"s{i}" for i in range(0, r, 2)], [f"s{i}" for i in range(1, r, 2)], ["k"]],
        title="Reorder the items",
        css_class="kml-ranking-explorer",
    )

    def set_ideal(_btn=None):
        with ex.hold():
            for i in range(r):
                ex.controls[f"s{i}"].value = float(y_true[i]) / scale

    ideal_btn.on_click(set_ideal)

    def press(ev):
        if not ex.drag.inside(ax, ev):
            return None
        pos = int(np.clip(round(float(ex.drag.xy(ax, ev)[0])), 1, r))
        return int(ex.state["order"][pos - 1])  # the item under the pointer

    def move(item, ev):
        target = int(np.clip(round(float(ex.drag.xy(ax, ev)[0])), 1, r))
        order = [int(j) for j in ex.state["order"]]
        if order.index(item) == target - 1:
            return
        order.remove(item)
        order.insert(target - 1, item)
        s = scores_of(ex)
        ranked = np.sort(s)[::-1]
        if len(np.unique(ranked)) < r:  # ties: spread the scores so the order is strict
            ranked = np.round(np.linspace(0.9, 0.1, r), 2)
        with ex.hold():
            for pos_, j in enumerate(order):
                ex.controls[f"s{j}"].value = float(ranked[pos_])

    Drag(ex, press, move)
    ex.controls["ideal"] = ideal_btn
    ex.children = ex.children[:-2] + (ideal_btn,) + ex.children[-2:]
    if predict:
        predict_mode(
            ex,
            NumberGuess("guess: Kendall-tau loss", 0, 1),
            lambda ex_: ex_.state["kendall"],
            [*bars, *grades, zero_mark],
            "what is the Kendall-tau loss of the order these scores give?",
            score=within(0.05),
            # the question is the order (with its ties), not the scores: every loss is a
            # function of it, so a move that keeps the order keeps the revealed answer
            watch=lambda ex_: tuple(np.unique(scores_of(ex_), return_inverse=True)[1].tolist()),
            item_id="06.p_kendall",
        )
    return ex
