"""Chapter 01: the margin explorer (drag the points) and the soft-margin λ explorer."""

from __future__ import annotations

import ipywidgets as W
import numpy as np

from ..._render import label
from ...plots import OKABE_ITO, figure, label_axes, rings
from ...plots.ch01 import band_polygon, hyperplane_segment
from ...svm import hard_svm, perceptron, soft_svm
from .._base import Explorer, class_scatters, data_or_example, plural, slider
from .._drag import Drag
from .._predict import ChoiceSet, predict_mode, same_set

__all__ = ["default_margin_points", "make_margin_explorer", "make_lambda_explorer", "soft_margin_points"]

LIM = (-3.0, 3.0)


def default_margin_points():
    """Twelve hand-placed points in [-3, 3]², linearly separable with a visible margin."""
    X = np.array(
        [
            [-2.0, 1.5],
            [-1.5, -0.5],
            [-2.5, -1.5],
            [-0.5, 2.2],
            [-1.0, 0.6],
            [-2.2, 0.2],
            [1.6, -0.4],
            [2.3, 1.2],
            [0.8, -1.8],
            [1.9, -2.1],
            [0.9, 0.4],
            [2.4, -0.9],
        ]
    )
    y = np.array([-1.0] * 6 + [1.0] * 6)
    return X, y


def soft_margin_points(m: int = 40, seed: int = 1):
    """Two overlapping Gaussian clouds (not separable) for the λ widget."""
    rng = np.random.default_rng(seed)
    y = np.where(np.arange(m) % 2 == 0, 1.0, -1.0)
    X = rng.normal(scale=0.9, size=(m, 2)) + np.outer(y, [0.9, 0.6])
    return np.clip(X, -2.9, 2.9), y


def _plane_axes(width: float, title: str = ""):
    """A figure with one square [-3, 3]² axes, labelled, for the widgets of this chapter."""
    fig, ax = figure(width, 4.8)
    ax.set_xlim(LIM)
    ax.set_ylim(LIM)
    ax.set_aspect("equal")
    label_axes(ax, "$x_1$", "$x_2$", title or None)
    return fig, ax


def _set_offsets(art, pts):
    art.set_offsets(pts if len(pts) else np.zeros((0, 2)))


def _set_line(line, w, b, offset=0.0, xlim=LIM, ylim=LIM):
    xs, ys = hyperplane_segment(w, b, xlim, ylim, offset)
    line.set_data(xs, ys)


def _show_hyperplane(w, b, hyper, m_lo, m_hi, band):
    """Move the hyperplane, its two margin lines and the band polygon to (w, b)."""
    _set_line(hyper, w, b)
    _set_line(m_lo, w, b, -1.0)
    _set_line(m_hi, w, b, 1.0)
    poly = band_polygon(w, b, LIM, LIM)
    band.set_xy(poly if len(poly) >= 3 else np.zeros((3, 2)))


def _hide(*lines):
    for ln in lines:
        ln.set_data([np.nan], [np.nan])


_HARD_CACHE: dict = {}


def _hard_cached(X, y):
    """``hard_svm(X, y)``, or None when the sample is not separable, remembered per sample:
    dragging a point back and forth revisits the same positions (the slider's 0.05 grid), and
    an inseparable sample is the slow case of the solver (it tries the libsvm form first)."""
    key = (X.tobytes(), y.tobytes())
    if key not in _HARD_CACHE:
        if len(_HARD_CACHE) >= 512:
            _HARD_CACHE.clear()
        try:
            _HARD_CACHE[key] = hard_svm(X, y)
        except ValueError:
            _HARD_CACHE[key] = None
    return _HARD_CACHE[key]


def _fmt(v, nd=3):
    return f"{v:.{nd}f}"


def _on_grid(v):
    """Coordinates on the 0.05 grid of the point sliders (and of a drag)."""
    return np.round(np.asarray(v, dtype=float) * 20) / 20


# ---------------------------------------------------------------------------------------
# margin explorer (hard SVM vs perceptron)
# ---------------------------------------------------------------------------------------


def make_margin_explorer(X=None, y=None, predict: bool = False) -> Explorer:
    """Move points and watch the max-margin hyperplane, its band and support vectors.

    Drag a point with the mouse (it becomes the selected point), or pick it in the
    drop-down and move it with the sliders (keyboard).
    Controls: ``point`` (which point to move), ``x1``/``x2`` (its coordinates),
    ``label`` (its class), ``perceptron`` (show the batch perceptron's separator).
    State: ``X``, ``y``, ``separable``, ``w``, ``b``, ``margin``, ``support`` (the solver's),
    ``on_margin`` (every point with y(⟨w, x⟩ + b) = 1, ringed),
    ``perceptron_w``, ``perceptron_b``, ``perceptron_updates``.

    ``predict=True``: whenever the points change the student first ticks the points that
    will lie on the margin (scored right when the set is exactly ``on_margin``); the
    hyperplane, its band and the rings stay hidden until *Reveal*
    (:mod:`kmlteach.widgets._predict`).
    """
    X, y = data_or_example(X, y, default_margin_points)
    m = len(y)

    fig, ax = _plane_axes(7.4, "hard-SVM (black) and perceptron (orange)")
    from matplotlib.patches import Polygon

    band = Polygon(np.zeros((3, 2)), closed=True, color=OKABE_ITO["grey"], alpha=0.2, lw=0, zorder=0)
    ax.add_patch(band)
    (hyper,) = ax.plot([], [], color=OKABE_ITO["black"], lw=2, label="max-margin hyperplane")
    (m_lo,) = ax.plot([], [], color=OKABE_ITO["black"], lw=1, ls="--")
    (m_hi,) = ax.plot([], [], color=OKABE_ITO["black"], lw=1, ls="--", label=r"$\langle w,x\rangle+b=\pm1$")
    (perc,) = ax.plot([], [], color=OKABE_ITO["orange"], lw=2, ls="-.", label="perceptron")
    scat = class_scatters(ax, X, y)
    sv = rings(ax, [], [], OKABE_ITO["black"], 1.5, s=190, zorder=4, label="on the margin")
    sel = rings(ax, [], [], OKABE_ITO["green"], 2.2, s=320, zorder=5, label="selected point")
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=9, frameon=False)
    # index labels, so that "point k" in the drop-down can be found on the figure
    tags = [label(ax, str(j), X[j], offset=(9.0, 6.0), color=OKABE_ITO["black"], zorder=6) for j in range(m)]

    options = [(f"point {i}", i) for i in range(m)]
    controls = {
        "point": W.Dropdown(options=options, value=0, description="move", layout=W.Layout(width="210px")),
        "x1": slider("x₁", float(X[0, 0]), LIM[0], LIM[1], 0.05, readout_format=".2f", width="260px"),
        "x2": slider("x₂", float(X[0, 1]), LIM[0], LIM[1], 0.05, readout_format=".2f", width="260px"),
        "label": W.ToggleButtons(
            options=[("−1", -1.0), ("+1", 1.0)],
            value=float(y[0]),
            description="label",
            style={"button_width": "42px", "description_width": "initial"},
            layout=W.Layout(margin="0 0 0 16px"),  # apart from the drop-down, buttons on its line
        ),
        "perceptron": W.Checkbox(value=True, description="show perceptron", indent=False),
    }

    def update(ex: Explorer) -> None:
        c = ex.controls
        i = c["point"].value
        if ex.state.get("selected") != i:
            # a new point was selected: move the controls to it, do not move the point
            ex._busy = True
            c["x1"].value, c["x2"].value = float(X[i, 0]), float(X[i, 1])
            c["label"].value = float(y[i])
            ex._busy = False
            ex.state["selected"] = i
        else:
            # on the sliders' 0.05 grid: a value the browser sends back rounded differently
            # (0.6499999999999999 for 0.65) is the same point, the same question
            X[i] = _on_grid(np.array([c["x1"].value, c["x2"].value]))
            y[i] = c["label"].value
        for lab, art in scat.items():
            _set_offsets(art, X[y == lab])
        sel.set_offsets(X[i : i + 1])
        for j, t in enumerate(tags):
            t.set_position(X[j])
        st = ex.state
        st["X"], st["y"] = X.copy(), y.copy()
        both = np.unique(y).size == 2
        res = _hard_cached(X, y) if both else None
        st["separable"] = res is not None
        if res is not None:
            st.update(
                w=res.w.copy(),
                b=float(res.b),
                margin=float(res.margin),
                support=np.asarray(res.support).copy(),
                # every point with y(<w, x> + b) = 1, a support vector or not: with four points
                # on the margin the solver may need three (α = 0 for the fourth)
                on_margin=np.flatnonzero(np.abs(y * (X @ res.w + res.b) - 1.0) <= 1e-6),
            )
            _show_hyperplane(res.w, res.b, hyper, m_lo, m_hi, band)
            _set_offsets(sv, X[st["on_margin"]])
        else:
            st.update(
                w=None, b=None, margin=None, support=np.zeros(0, dtype=int), on_margin=np.zeros(0, dtype=int)
            )
            _hide(hyper, m_lo, m_hi)
            band.set_xy(np.zeros((3, 2)))
            _set_offsets(sv, np.zeros((0, 2)))
        # the batch perceptron on (x, 1): a non-homogeneous separator
        if c["perceptron"].value and both:
            Xa = np.c_[X, np.ones(m)]
            p = perceptron(Xa, y, max_updates=5000)
            st.update(
                perceptron_w=p.w[:2].copy(),
                perceptron_b=float(p.w[2]),
                perceptron_updates=int(p.n_updates),
                perceptron_converged=bool(p.converged),
            )
            _set_line(perc, p.w[:2], p.w[2])
        else:
            st.update(
                perceptron_w=None, perceptron_b=None, perceptron_updates=None, perceptron_converged=None
            )
            _hide(perc)
        if res is not None:
            txt = (
                f"margin γ = <b>{_fmt(res.margin)}</b> &nbsp; ‖w‖ = {_fmt(np.linalg.norm(res.w))}"
                f" &nbsp; on the margin: {', '.join(str(int(s)) for s in st['on_margin'])}"
                f" (support vectors: {', '.join(str(int(s)) for s in res.support)})"
            )
        elif not both:
            txt = "<b>only one class left</b>: give some point the other label"
        else:
            txt = (
                "<b>not linearly separable</b>: the hard-SVM program (15.2) has no feasible "
                "point; see the soft-margin widget below"
            )
        if st["perceptron_updates"] is not None:
            txt += f"<br>perceptron: {plural(st['perceptron_updates'], 'update')}" + (
                "" if st["perceptron_converged"] else " (stopped: no separator found)"
            )
        ex.set_readout(txt)

    ex = Explorer(
        fig,
        controls,
        update,
        layout_rows=[["point", "label", "perceptron"], ["x1", "x2"]],
        title="Margin explorer",
        css_class="kml-margin-explorer",
    )

    def press(ev):
        j = ex.drag.nearest(ax, X, ev)
        if j is not None and j != controls["point"].value:
            controls["point"].value = j  # selects it; the point does not move
        return j

    def move(j, ev):
        # on the sliders' 0.05 grid (the browser's slider would snap the value anyway)
        x1, x2 = np.clip(_on_grid(ex.drag.xy(ax, ev)), LIM[0], LIM[1])
        with ex.hold():
            controls["x1"].value, controls["x2"].value = float(x1), float(x2)

    Drag(ex, press, move)
    # a fixed-height readout: the figure must not move under a drag when the text changes
    ex.fix_readout_height(3)
    if predict:
        predict_mode(
            ex,
            ChoiceSet(range(m), description="support vectors:"),
            lambda ex_: [int(i) for i in ex_.state["on_margin"]],
            [band, hyper, m_lo, m_hi, sv],
            "which points will lie on the margin, y(⟨w, x⟩ + b) = 1 (the support vectors)?",
            score=same_set,
            watch=lambda ex_: (ex_.state["X"].tobytes(), ex_.state["y"].tobytes()),
            item_id="01.p_support",
            readout_lines=5,
        )
    return ex


# ---------------------------------------------------------------------------------------
# soft margin: the λ slider
# ---------------------------------------------------------------------------------------


def make_lambda_explorer(X=None, y=None, lam: float = 0.1) -> Explorer:
    """Soft-SVM with a bias: slide λ and watch the margin widen and violations appear.

    The objective is (λ/2)‖w‖² + (1/m) Σ hinge(y(⟨w,x⟩+b)) (UML (15.12) with a bias).
    State: ``lam``, ``w``, ``b``, ``margin_width`` (= 2/‖w‖), ``violations`` (indices
    with y(⟨w,x⟩+b) < 1), ``errors`` (misclassified), ``mean_hinge``, ``objective``.
    """
    if X is None:
        X, y = soft_margin_points()
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)

    fig, ax = _plane_axes(7.4)
    from matplotlib.patches import Polygon

    band = Polygon(np.zeros((3, 2)), closed=True, color=OKABE_ITO["grey"], alpha=0.2, lw=0, zorder=0)
    ax.add_patch(band)
    (hyper,) = ax.plot([], [], color=OKABE_ITO["black"], lw=2, label="soft-SVM hyperplane")
    (m_lo,) = ax.plot([], [], color=OKABE_ITO["black"], lw=1, ls="--")
    (m_hi,) = ax.plot([], [], color=OKABE_ITO["black"], lw=1, ls="--", label="margin ±1")
    class_scatters(ax, X, y)
    viol = rings(
        ax,
        [],
        [],
        OKABE_ITO["vermillion"],
        1.5,
        s=170,
        marker="s",
        zorder=4,
        label=r"violation: $y f(x) < 1$",
    )
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=9, frameon=False)
    title = ax.set_title("")

    controls = {
        "lam": slider("λ (regularisation)", lam, -3, 1, 0.1, log=True, readout_format=".3f", width="380px")
    }

    def update(ex: Explorer) -> None:
        lam_ = float(ex.controls["lam"].value)
        res = soft_svm(X, y, lam_, homogeneous=False)
        w, b = np.asarray(res.w, dtype=float), float(res.b)
        f = X @ w + b
        marg = y * f
        v = np.flatnonzero(marg < 1 - 1e-9)
        err = np.flatnonzero(marg <= 0)
        nw = float(np.linalg.norm(w))
        st = ex.state
        st.update(
            lam=lam_,
            w=w.copy(),
            b=b,
            margin_width=2 / nw if nw > 0 else np.inf,
            violations=v,
            errors=err,
            mean_hinge=float(np.mean(np.maximum(0, 1 - marg))),
            objective=float(res.objective),
        )
        _show_hyperplane(w, b, hyper, m_lo, m_hi, band)
        _set_offsets(viol, X[v])
        title.set_text(f"λ = {lam_:.3f}: margin width 2/‖w‖ = {st['margin_width']:.2f}")
        ex.set_readout(
            f"λ = <b>{lam_:.3f}</b> &nbsp; margin width 2/‖w‖ = <b>{st['margin_width']:.3f}</b> &nbsp; "
            f"margin violations: <b>{len(v)}</b>/{len(y)} &nbsp; training errors: {len(err)} &nbsp; "
            f"mean hinge = {st['mean_hinge']:.3f} &nbsp; objective = {st['objective']:.4f}"
        )

    return Explorer(
        fig, controls, update, title="Soft margin: the role of λ", css_class="kml-lambda-explorer"
    )


# ---------------------------------------------------------------------------------------
# loss gallery
# ---------------------------------------------------------------------------------------
