"""Widget of chapter 04: Kesler's construction of one example, and the Kesler perceptron
on it (UML §17.2; re-exported by :mod:`kmlteach.widgets.ch04`)."""

from __future__ import annotations

import numpy as np

from ..._render import bound_by_axes, stamp, title_row
from ...multiclass import kesler_embed, kesler_perceptron
from ...plots import figure
from ...plots.ch04.kesler import (
    draw_constraints,
    draw_kesler,
    kesler_title,
    set_constraints,
    set_kesler,
)
from .._base import Explorer, int_slider

__all__ = ["make_kesler_view", "kesler_points"]


# ---------------------------------------------------------------------------------------
# Kesler's construction of one example, and the Kesler perceptron on it
# ---------------------------------------------------------------------------------------


def kesler_points():
    """Twelve points in R² with labels 1, 2, 3 (separable by a linear multiclass predictor)."""
    X = np.array(
        [
            [2.0, 0.5],
            [2.5, -0.5],
            [1.5, 1.0],
            [3.0, 0.2],
            [-0.5, 2.0],
            [0.5, 2.5],
            [-1.0, 1.5],
            [0.0, 3.0],
            [-2.0, -1.5],
            [-1.0, -2.5],
            [-2.5, -0.5],
            [-1.5, -1.0],
        ]
    )
    return X, np.repeat([1, 2, 3], 4)


def make_kesler_view(X=None, y=None) -> Explorer:
    """Pick an example and see its k−1 Kesler vectors x_ij ∈ R^{kn}; step the Kesler
    perceptron and watch which constraints ⟨W, x_ij⟩ > 0 still fail.

    Controls: ``example`` (row index), ``updates`` (promote/demote pairs of the Kesler
    perceptron so far). State: ``Z`` (the example's Kesler vectors), ``scores``
    (⟨W, x_ij⟩), ``violated`` (competitors j with score <= 0), ``W``,
    ``train_errors``, ``total_updates`` (until convergence).
    """
    if X is None:
        X, y = kesler_points()
    X = np.asarray(X, dtype=float)
    emb = kesler_embed(X, y)
    k = emb.n_classes
    total = kesler_perceptron(X, y, max_epochs=1000).n_updates
    # every state of the slider is cheap: run them all once, so the bar chart gets one fixed
    # y range (changing limits would redraw the whole panel on every step)
    runs = [kesler_perceptron(X, y, max_epochs=1000, max_updates=u) for u in range(int(total) + 1)]
    all_scores = np.concatenate([emb.Z @ r.w for r in runs] + [[0.0]])
    lo, hi = float(all_scores.min()), float(all_scores.max())
    ylim = (lo - 0.1 * max(hi - lo, 1.0), hi + 0.1 * max(hi - lo, 1.0))
    fig, (axA, axB) = figure(11.0, 3.0, ncols=2, gridspec_kw={"width_ratios": [1.6, 1]})
    heat = draw_kesler(emb, axA)
    heat_title = title_row(axA, "center", 12)  # cached bitmaps of the changing title
    bars = draw_constraints(axB, k - 1)
    # the mathtext part of the title is static; the step count changes
    title = axB.set_title("$\\langle W, x_{ij}\\rangle$ (red, hatched, ×: violated)", loc="left", fontsize=10)
    # the row and competitor names change with the example, and the title is repainted with
    # the step count beside it: cached bitmaps, not a mathtext layout per frame (kmlteach._render.text)
    stamp(*heat["rownames"], *bars["names"], title)
    steps = title_row(axB, "right", 10)
    # the numbers over the heat map and the bars are repainted on every step and clipped to
    # their Axes: located by its box rather than measured (see kmlteach._render.bound_by_axes)
    for art in heat["numbers"]:
        bound_by_axes(art, axA)
    for art in bars["bars"]:
        bound_by_axes(art, axB)
    controls = {
        "example": int_slider("example", 0, 0, X.shape[0] - 1),
        "updates": int_slider("perceptron updates", 0, 0, int(total)),
    }

    def update(ex: Explorer) -> None:
        i = ex.controls["example"].value
        u = ex.controls["updates"].value
        res = runs[u]
        rows = np.flatnonzero(emb.example == i)
        Z = set_kesler(heat, emb, i, title=False)
        heat_title.set_texts([(kesler_title(i, int(emb.label[rows[0]])), "black")])
        scores = Z @ res.w
        set_constraints(bars, scores, emb.competitor[rows], int(emb.label[rows[0]]), title=False, ylim=ylim)
        steps.set_texts([(f"after {u} update(s)", "black")])
        st = ex.state
        st["Z"] = Z.copy()
        st["scores"] = scores
        st["violated"] = emb.competitor[rows][scores <= 0] + 1
        st["W"] = res.W.copy()
        st["train_errors"] = int(np.sum(res.predict(X) != np.asarray(y)))
        st["total_updates"] = int(total)
        viol = ", ".join(str(int(j)) for j in st["violated"]) or "none"
        ex.set_readout(
            f"example {i}: x = ({X[i, 0]:.1f}, {X[i, 1]:.1f}), class {int(emb.label[rows[0]]) + 1}; "
            f"violated competitors j: <b>{viol}</b> &nbsp;|&nbsp; training errors of W: "
            f"{st['train_errors']} &nbsp;|&nbsp; the perceptron converges after {total} updates"
        )

    ex = Explorer(
        fig,
        controls,
        update,
        title="Kesler's construction of one example",
        css_class="kml-kesler",
    )
    _prerender(ex, heat, heat_title, bars, steps, emb, int(total))
    return ex


def _prerender(ex, heat, heat_title, bars, steps, emb, total):
    """Every string the Kesler view can show, rendered into the bitmap caches now (names,
    numbers, titles): a first visit of an example would otherwise lay out a few mathtext
    names (~5 ms each) and new number sprites during an update. Leaves the texts as shown."""
    renderer = ex.fig.canvas.get_renderer()
    k = emb.n_classes
    for t, names in (
        (heat["rownames"][0], [f"$x_{{{a + 1},{j + 1}}}$" for a in range(k) for j in range(k)]),
        (bars["names"][0], [f"j = {j + 1}" for j in range(k)]),
    ):
        shown = t.get_text()
        for name in names:
            t.set_text(name)
            t.get_window_extent(renderer)
        t.set_text(shown)
    examples = np.unique(emb.example)
    labels = [int(emb.label[emb.example == i][0]) for i in examples]
    for row, texts in (
        (heat_title, [kesler_title(i, a) for i, a in zip(examples, labels)]),
        (steps, [f"after {u} update(s)" for u in range(total + 1)]),
        (heat["numbers"][0], sorted({f"{v:.1f}" for v in emb.Z.ravel() if v != 0})),
    ):
        shown = row.texts
        for text in texts:
            for colour in ("black", "white"):  # (the heat map's numbers are in both)
                row.set_texts([(text, colour)])
                row.get_window_extent(renderer)
        row.texts = shown
