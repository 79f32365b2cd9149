"""Chapter 04: the one-vs-all failure of Example 17.1 and all-pairs ties.

Each builder returns an :class:`~kmlteach.widgets._base.Explorer`; ``explorer.state``
holds what the last redraw computed (tests read it), ``explorer.controls`` the controls
(tests set their ``value``).
"""

from __future__ import annotations

from collections import OrderedDict

import ipywidgets as W
import numpy as np

from ..._render import bound_by_axes, paint_markers, region_layer, title_row
from ...datasets import three_balls
from ...multiclass import (
    all_pairs,
    erm_halfspace_2d,
    least_squares_learner,
    multiclass_svm_sgd,
    one_vs_all,
    stump_learner,
)
from ...plots import CLASS_COLORS, class_points, figure, label_axes
from ...plots.ch01 import hyperplane_segment
from ...plots.ch04.reductions import BALLS_XLIM, BALLS_YLIM, grid_points, region_rgba
from .._base import Explorer, plural, slider
from .._drag import Drag
from .._predict import choice_buttons, predict_mode

__all__ = ["make_ova_failure", "make_ava_ties", "ring_classes", "CLASS2_CENTRE"]

HANDLE_RADIUS = 1.8  # the dashed circle around class 1's centre in make_ava_ties
GRID = 90  # region cells (~5 px at display size); the grid costs compute on every update
#: centre of class 2's disc in ``datasets.three_balls`` before the widget's shift
CLASS2_CENTRE = (0.0, 5.0)


def _on_step(v: float, step: float) -> float:
    """``v`` rounded to the slider's step (the browser's slider would snap it anyway)."""
    return round(round(float(v) / step) * step, 10)


def _draw_classes(ax, k, s=26):
    arts = []
    for c in range(k):
        arts.append(
            class_points(
                ax, c, [], [], s=s, edgecolors="white", linewidths=0.5, zorder=3, label=f"class {c + 1}"
            )
        )
    paint_markers(*arts)  # repainted on every frame (the regions under them change)
    return arts


def _set_classes(arts, X, yi):
    for c, art in enumerate(arts):
        P = X[yi == c]
        art.set_offsets(P if len(P) else np.zeros((0, 2)))


def _draw_regions(ax, xlim, ylim):
    """One opaque layer for the class regions and the tied cells (repainted per update). The
    coloured layer is the Axes' frame: no spines (locating a spine measures the ticks, on
    every frame) and no tick marks (they would touch the repainted layer's edge)."""
    for side in ax.spines.values():
        side.set_visible(False)
    ax.tick_params(length=0)
    return region_layer(ax, (xlim[0], xlim[1], ylim[0], ylim[1]))


# ---------------------------------------------------------------------------------------
# one-vs-all failure (UML Example 17.1)
# ---------------------------------------------------------------------------------------


def make_ova_failure(
    n: int = 100, seed: int = 0, T: int = 20_000, eta: float = 0.1, predict: bool = False
) -> Explorer:
    """Example 17.1 live: move, resize and reweigh class 2; compare one-vs-all with ERM
    halfspaces (left) with a linear multiclass predictor trained by SGD (right).

    Drag class 2's disc (dashed circle) with the mouse to move it, drag its rim to
    resize it; the sliders do the same from the keyboard.
    Controls: ``dx``, ``dy`` (shift of class 2's disc), ``radius`` (its radius),
    ``mass`` (its share of the n points). State: ``ova_class2_error``,
    ``ova_error``, ``linear_class2_error``, ``linear_error``, ``h2_constant`` (the ERM
    for "class 2 vs rest" is a constant classifier), ``ties`` (training points where
    OvA had to break a tie), ``W`` (the SGD weights), ``ova_class_errors`` (per class).

    ``predict=True``: the student first guesses which class one-vs-all loses (the class
    it gets most wrong, or "none" when it gets every class at least 90 % right); the left
    panel's regions, boundaries and title stay hidden until *Reveal*
    (:mod:`kmlteach.widgets._predict`).
    """
    xlim, ylim = BALLS_XLIM, BALLS_YLIM
    G = grid_points(xlim, ylim, GRID)
    fig, (axL, axR) = figure(10.2, 4.6, ncols=2)
    regL = _draw_regions(axL, xlim, ylim)
    regR = _draw_regions(axR, xlim, ylim)
    lines = [
        axL.plot([], [], ls="--", lw=1.8, color=CLASS_COLORS[c], label=f"$h_{c + 1}$ boundary")[0]
        for c in range(3)
    ]
    ptsL, ptsR = _draw_classes(axL, 3), _draw_classes(axR, 3)
    arrows = [
        axR.plot(
            [], [], lw=2.2, color=CLASS_COLORS[c], marker="o", markevery=[1], ms=5, label=f"$w_{c + 1}$"
        )[0]
        for c in range(3)
    ]
    origin = axR.plot([0], [0], "k+", ms=8, zorder=1.9)[0]  # under the arrows drawn from it
    c2 = np.array(CLASS2_CENTRE)
    # class 2's disc as a dashed polyline: cheaper to locate on every frame than a Circle patch
    ring = np.exp(2j * np.pi * np.linspace(0.0, 1.0, 97))
    discs = [ax.plot([], [], ls="--", lw=1.2, color=CLASS_COLORS[1], zorder=2.5)[0] for ax in (axL, axR)]
    for ax in (axL, axR):
        ax.set_xlim(xlim)
        ax.set_ylim(ylim)
    # everything over the region layers is repainted with them on every frame, and clipped to
    # its Axes: the blitter locates it by the Axes' box rather than measuring it every frame
    for art in lines + ptsL + arrows + [origin, discs[0]]:
        bound_by_axes(art, axL if art.axes is axL else axR)
    for art in ptsR + [discs[1]]:
        bound_by_axes(art, axR)
    # static titles on the left, the changing error on the right (fewer glyphs per frame)
    label_axes(axL, "$x_1$", "$x_2$")
    label_axes(axR, "$x_1$", "$x_2$")
    axL.set_title("one-vs-all, ERM halfspaces", loc="left", fontsize=10)
    axR.set_title("linear predictor (SGD, §17.2.5)", loc="left", fontsize=10)
    # the changing titles are cached bitmaps (few distinct strings; see kmlteach._render.text)
    titleL = title_row(axL, "right", 10, "bold")
    titleR = title_row(axR, "right", 10, "bold")
    axL.scatter(
        [np.nan], [np.nan], marker="s", s=50, color=(0.25, 0.25, 0.25, 0.45), label="tie (→ smallest index)"
    )
    # legends below the axes: the regions under them change with every update
    axL.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), fontsize=8, ncol=4, frameon=False)
    axR.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), fontsize=8, ncol=3, frameon=False)

    controls = {
        "dx": slider("shift class 2 → x₁", 0.0, -3.0, 3.0, 0.05, readout_format=".2f"),
        "dy": slider("shift class 2 → x₂", 0.0, -2.0, 2.5, 0.05, readout_format=".2f"),
        "radius": slider("radius of class 2", 1.0, 0.3, 1.4, 0.05, readout_format=".2f"),
        "mass": slider("mass of class 2", 0.2, 0.05, 0.6, 0.05, readout_format=".2f"),
    }

    # (dx, dy, radius, mass) -> both models, least recently used dropped first: dragging
    # back over a path costs no fit (~70 KB a key)
    fits: OrderedDict = OrderedDict()

    def fitted(key):
        if key in fits:
            fits.move_to_end(key)
            return fits[key]
        X, y = three_balls(n, seed, shift=key[:2], radius2=key[2], mass2=key[3])
        ova = one_vs_all(X, y, erm_halfspace_2d)
        decG = ova.decide(G)
        res = multiclass_svm_sgd(X, y, eta=eta, T=T, seed=seed)
        fits[key] = (
            X,
            y,
            ova,
            ova.decide(X),
            region_rgba(decG.index, GRID, decG.ties),
            res,
            region_rgba(np.argmax(G @ res.W.T, axis=1), GRID),
        )
        if len(fits) > 512:
            fits.popitem(last=False)
        return fits[key]

    def update(ex: Explorer) -> None:
        c = ex.controls
        X, y, ova, dec, rgbaL, res, rgbaR = fitted(
            (c["dx"].value, c["dy"].value, c["radius"].value, c["mass"].value)
        )
        circle = complex(c2[0] + c["dx"].value, c2[1] + c["dy"].value) + c["radius"].value * ring
        for d in discs:
            d.set_data(circle.real, circle.imag)
        yi = y - 1
        regL.set_data(rgbaL)
        for h, ln in zip(ova.estimators, lines):
            if np.any(h.w):
                ln.set_data(*hyperplane_segment(h.w, h.b, xlim, ylim))
            else:
                ln.set_data([np.nan], [np.nan])
        regR.set_data(rgbaR)
        scale = 3.0 / max(float(np.max(np.linalg.norm(res.W, axis=1))), 1e-12)
        for wc, ar in zip(res.W, arrows):
            ar.set_data([0, scale * wc[0]], [0, scale * wc[1]])
        _set_classes(ptsL, X, yi)
        _set_classes(ptsR, X, yi)
        pred_lin = res.predict(X)
        st = ex.state
        st["X"], st["y"] = X, y
        st["ova_class_errors"] = [float(np.mean(dec.labels[y == c] != c)) for c in (1, 2, 3)]
        st["ova_class2_error"] = float(np.mean(dec.labels[y == 2] != 2))
        st["ova_error"] = float(np.mean(dec.labels != y))
        st["linear_class2_error"] = float(np.mean(pred_lin[y == 2] != 2))
        st["linear_error"] = float(np.mean(pred_lin != y))
        st["h2_constant"] = not bool(np.any(ova.estimators[1].w))
        st["ties"] = int(dec.ties.sum())
        st["W"] = res.W.copy()
        h2 = (
            "h₂ is the constant −1 (no halfspace beats it)"
            if st["h2_constant"]
            else "h₂ is a proper halfspace"
        )
        errs = st["ova_class_errors"]
        worst = int(np.argmax(errs))
        st["ova_worst_class"] = worst + 1 if errs[worst] >= 0.1 else None
        by_class = ", ".join(f"class {c + 1} <b>{100 * e:.0f}%</b>" for c, e in enumerate(errs))
        if st["ova_worst_class"] is None:
            where = "one-vs-all gets every class at least 90 % right"
        elif worst == 1:
            where = "the failure is on class 2, the middle class"
        else:
            where = f"the failure has moved to <b>class {worst + 1}</b>"
        ex.set_readout(
            f"one-vs-all errors by class: {by_class} — {where}<br>"
            f"class-2 error: one-vs-all <b>{100 * st['ova_class2_error']:.0f}%</b>, linear predictor "
            f"<b>{100 * st['linear_class2_error']:.0f}%</b> &nbsp;|&nbsp; overall error: one-vs-all "
            f"{100 * st['ova_error']:.1f}%, linear {100 * st['linear_error']:.1f}%<br>{h2}; "
            f"{plural(st['ties'], 'training point')} tied (each goes to the smallest tied class index)"
        )
        titleL.set_texts(
            [
                (
                    f"class {worst + 1}: {100 * errs[worst]:.0f}% wrong"
                    if worst != 1 and errs[worst] >= 0.1
                    else f"class 2: {100 * st['ova_class2_error']:.0f}% wrong",
                    "black",
                )
            ]
        )
        titleR.set_texts([(f"class 2: {100 * st['linear_class2_error']:.0f}% wrong", "black")])

    ex = Explorer(
        fig,
        controls,
        update,
        per_row=2,
        title="Example 17.1: where one-vs-all loses the middle class",
        css_class="kml-ova-failure",
    )

    def press(ev):
        for ax in (axL, axR):
            if ex.drag.inside(ax, ev):
                centre = c2 + [controls["dx"].value, controls["dy"].value]
                p = ex.drag.xy(ax, ev)
                rho = float(np.hypot(*(p - centre))) / controls["radius"].value
                if abs(rho - 1.0) <= 0.15:  # on the rim: resize
                    return ("resize", ax)
                if rho < 1.0:  # inside: move
                    return ("move", ax, p - centre)
        return None

    def move(token, ev):
        ax = token[1]
        p = ex.drag.xy(ax, ev)
        if token[0] == "resize":
            centre = c2 + [controls["dx"].value, controls["dy"].value]
            r = controls["radius"]
            r.value = float(np.clip(_on_step(float(np.hypot(*(p - centre))), r.step), r.min, r.max))
            return
        dx, dy = (_on_step(v, controls["dx"].step) for v in p - token[2] - c2)
        with ex.hold():
            for name, v in (("dx", dx), ("dy", dy)):
                s_ = controls[name]
                s_.value = float(np.clip(v, s_.min, s_.max))

    Drag(ex, press, move)
    if predict:

        def loser(ex_):
            errs = ex_.state["ova_class_errors"]
            return "none" if max(errs) < 0.1 else f"class {int(np.argmax(errs)) + 1}"

        predict_mode(
            ex,
            choice_buttons(["class 1", "class 2", "class 3", "none"], None, "OvA loses:", "76px"),
            loser,
            [regL, *lines, titleL],
            "which class will one-vs-all get most wrong (or none: every class ≥ 90 % right)?",
            item_id="04.p_loser",
            readout_lines=5,
        )
    return ex


# ---------------------------------------------------------------------------------------
# all pairs: votes, tournament, ties
# ---------------------------------------------------------------------------------------


def ring_classes(k: int = 5, m_per_class: int = 30, seed: int = 0, radius: float = 3.0):
    """k Gaussian classes (unit spread) on a circle; labels 1..k. For the ties figure."""
    rng = np.random.default_rng(seed)
    ang = 2 * np.pi * np.arange(k) / k + 0.3
    C = radius * np.c_[np.cos(ang), np.sin(ang)]
    y = np.arange(k * m_per_class) % k
    X = C[y] + rng.normal(size=(k * m_per_class, 2))
    return X, y + 1


def make_ava_ties(k: int = 5, seed: int = 0) -> Explorer:
    """All-pairs decisions on k classes in a ring: where do the votes tie?

    Controls: ``learner`` ("stumps" or "least squares"), ``decision`` ("vote" or
    "tournament"), ``cx``/``cy`` (move class 1's centre). State: ``tie_fraction``
    (share of the plotted plane where the decision was a tie), ``train_ties``,
    ``disagree_fraction`` (share of the plane where vote and tournament differ),
    ``accuracy`` (training accuracy of the chosen decision).
    """
    X0, y = ring_classes(k, seed=seed)
    yi = y - 1
    xlim, ylim = (-6.5, 6.5), (-6.0, 6.0)
    G = grid_points(xlim, ylim, GRID)
    # ≤ 480 px tall and ≤ 700 px wide: on a slide, 1.5× beside a title column
    fig, ax = figure(6.9, 4.6)
    reg = _draw_regions(ax, xlim, ylim)
    pts = _draw_classes(ax, k)
    ax.scatter([np.nan], [np.nan], marker="s", s=50, color=(0.25, 0.25, 0.25, 0.45), label="tie")
    ax.set_xlim(xlim)
    ax.set_ylim(ylim)
    label_axes(ax, "$x_1$", "$x_2$")
    ttl = title_row(ax, "center", 12)
    # class 1's handle: a dashed circle around its centre (drag inside it to move the class)
    ring = np.exp(2j * np.pi * np.linspace(0.0, 1.0, 97))
    (handle,) = ax.plot([], [], ls="--", lw=1.2, color=CLASS_COLORS[0], zorder=2.5, label="drag class 1")
    bound_by_axes(handle, ax)
    # legend beside the axes: the regions under it change with every update
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)
    base = X0[yi == 0].mean(axis=0)
    controls = {
        "learner": W.Dropdown(
            options=[("decision stumps", "stumps"), ("least squares", "lsq")],
            value="stumps",
            description="binary learner",
            style={"description_width": "initial"},
        ),
        "decision": W.ToggleButtons(
            options=[("vote", "vote"), ("tournament", "tournament")],
            value="vote",
            description="decision",
            # its label and both buttons on one line (ipywidgets 8 lays this widget out as a
            # block, so the buttons went under the label, beside the dropdown)
            style={"description_width": "initial", "button_width": "104px"},
            layout=W.Layout(
                display="flex",
                flex_flow="row nowrap",
                align_items="center",
                flex="0 0 auto",
                margin="0 0 0 12px",
            ),
        ),
        "cx": slider("class 1 centre x₁", float(round(base[0], 1)), -5.0, 5.0, 0.1, readout_format=".1f"),
        "cy": slider("class 1 centre x₂", float(round(base[1], 1)), -5.0, 5.0, 0.1, readout_format=".1f"),
    }

    fits: OrderedDict = OrderedDict()  # (learner, cx, cy) -> both rules' pictures, LRU

    def decided(learner_name: str, cx: float, cy: float) -> dict:
        """Both decision rules on the grid and the data, from one set of pairwise scores."""
        key = (learner_name, cx, cy)
        if key in fits:
            fits.move_to_end(key)
            return fits[key]
        X = X0.copy()
        X[yi == 0] += np.array([cx, cy]) - base
        model = all_pairs(X, y, stump_learner if learner_name == "stumps" else least_squares_learner)
        PG, PX = model.pairwise_scores(G), model.pairwise_scores(X)
        f = {"X": X}
        for rule in ("vote", "tournament"):
            dG, dX = model._decide_scores(PG, rule), model._decide_scores(PX, rule)
            f[rule] = {
                "rgba": region_rgba(dG.index, GRID, dG.ties),
                "index": dG.index,
                "tie_fraction": float(dG.ties.mean()),
                "train_ties": int(dX.ties.sum()),
                "accuracy": float(np.mean(dX.labels == y)),
            }
        fits[key] = f
        if len(fits) > 256:
            fits.popitem(last=False)
        return f

    def update(ex: Explorer) -> None:
        c = ex.controls
        which = c["decision"].value
        f = decided(c["learner"].value, c["cx"].value, c["cy"].value)
        d, other = f[which], f["tournament" if which == "vote" else "vote"]
        reg.set_data(d["rgba"])
        _set_classes(pts, f["X"], yi)
        circle = complex(c["cx"].value, c["cy"].value) + HANDLE_RADIUS * ring
        handle.set_data(circle.real, circle.imag)
        st = ex.state
        st["tie_fraction"] = d["tie_fraction"]
        st["train_ties"] = d["train_ties"]
        st["disagree_fraction"] = float(np.mean(d["index"] != other["index"]))
        st["accuracy"] = d["accuracy"]
        ttl.set_texts([(f"{which}: {100 * st['tie_fraction']:.1f}% of the plane tied", "black")])
        ex.set_readout(
            f"ties: <b>{100 * st['tie_fraction']:.1f}%</b> of the plane, {st['train_ties']} training "
            f"points (broken towards the smallest class index) &nbsp;|&nbsp; vote and tournament "
            f"disagree on {100 * st['disagree_fraction']:.1f}% of the plane &nbsp;|&nbsp; training "
            f"accuracy {100 * st['accuracy']:.1f}%"
        )

    ex = Explorer(
        fig,
        controls,
        update,
        per_row=2,
        title="All pairs: majority vote, tournament and ties",
        css_class="kml-ava-ties",
    )

    def press(ev):
        if not ex.drag.inside(ax, ev):
            return None
        centre = np.array([controls["cx"].value, controls["cy"].value])
        grab = ex.drag.xy(ax, ev) - centre
        return grab if float(np.hypot(*grab)) <= HANDLE_RADIUS else None

    def move(grab, ev):
        # the centre follows the pointer (on the sliders' 0.1 grid), as far as they go
        p = ex.drag.xy(ax, ev) - grab
        with ex.hold():
            for name, v in (("cx", p[0]), ("cy", p[1])):
                s_ = controls[name]
                s_.value = float(np.clip(_on_step(v, s_.step), s_.min, s_.max))

    Drag(ex, press, move)
    return ex
