"""Widgets of chapter 01: margin explorer, soft-margin λ, loss gallery, SGD convergence.

Each builder returns an :class:`~kmlteach.widgets._base.Explorer`; ``explorer.state``
holds what the last redraw computed (tests read it), ``explorer.controls`` the
controls (tests set their ``value``).
"""

from __future__ import annotations

import html

import ipywidgets as W
import numpy as np

from .. import losses as L
from ..plots import OKABE_ITO, figure, label_axes
from ..plots.ch01 import band_polygon, hyperplane_segment
from ..svm import hard_svm, perceptron, sgd_soft_svm, soft_svm
from .._render import label
from ._base import Explorer, class_scatters, int_slider, slider
from ._drag import Drag

__all__ = ["default_margin_points", "make_margin_explorer", "make_lambda_explorer",
           "make_loss_gallery", "make_sgd_explorer", "soft_margin_points"]

LIM = (-3.0, 3.0)


def default_margin_points():
    """Twelve hand-placed points in [-3, 3]², linearly separable with a visible margin."""
    X = np.array([[-2.0, 1.5], [-1.5, -0.5], [-2.5, -1.5], [-0.5, 2.2], [-1.0, 0.6], [-2.2, 0.2],
                  [1.6, -0.4], [2.3, 1.2], [0.8, -1.8], [1.9, -2.1], [0.9, 0.4], [2.4, -0.9]])
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


# ---------------------------------------------------------------------------------------
# margin explorer (hard SVM vs perceptron)
# ---------------------------------------------------------------------------------------

def make_margin_explorer(X=None, y=None) -> Explorer:
    """Move points and watch the max-margin hyperplane, its band and support vectors.

    Drag a point with the mouse (it becomes the selected point), or pick it in the
    drop-down and move it with the sliders (keyboard).
    Controls: ``point`` (which point to move), ``x1``/``x2`` (its coordinates),
    ``label`` (its class), ``perceptron`` (show the batch perceptron's separator).
    State: ``X``, ``y``, ``separable``, ``w``, ``b``, ``margin``, ``support``,
    ``perceptron_w``, ``perceptron_b``, ``perceptron_updates``.
    """
    if X is None:
        X, y = default_margin_points()
    X = np.array(X, dtype=float)
    y = np.array(y, dtype=float)
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
    sv = ax.scatter([], [], s=190, facecolors="none", edgecolors=OKABE_ITO["black"], linewidths=1.5,
                    zorder=4, label="support vectors")
    sel = ax.scatter([], [], s=320, facecolors="none", edgecolors=OKABE_ITO["green"], linewidths=2.2,
                     zorder=5, label="selected point")
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=9, frameon=False)
    # index labels, so that "point k" in the drop-down can be found on the figure
    tags = [label(ax, str(j), X[j], offset=(9.0, 6.0), color=OKABE_ITO["black"], zorder=6)
            for j in range(m)]

    options = [(f"point {i}", i) for i in range(m)]
    controls = {
        "point": W.Dropdown(options=options, value=0, description="move",
                            layout=W.Layout(width="210px")),
        "x1": slider("x₁", float(X[0, 0]), LIM[0], LIM[1], 0.05, readout_format=".2f", width="260px"),
        "x2": slider("x₂", float(X[0, 1]), LIM[0], LIM[1], 0.05, readout_format=".2f", width="260px"),
        "label": W.ToggleButtons(options=[("−1", -1.0), ("+1", 1.0)], value=float(y[0]),
                                 description="label", style={"button_width": "42px"}),
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
            X[i] = (c["x1"].value, c["x2"].value)
            y[i] = c["label"].value
        for lab, art in scat.items():
            _set_offsets(art, X[y == lab])
        sel.set_offsets(X[i:i + 1])
        for j, t in enumerate(tags):
            t.set_position(X[j])
        st = ex.state
        st["X"], st["y"] = X.copy(), y.copy()
        both = np.unique(y).size == 2
        res = _hard_cached(X, y) if both else None
        st["separable"] = res is not None
        if res is not None:
            st.update(w=res.w.copy(), b=float(res.b), margin=float(res.margin),
                      support=np.asarray(res.support).copy())
            _show_hyperplane(res.w, res.b, hyper, m_lo, m_hi, band)
            _set_offsets(sv, X[res.support])
        else:
            st.update(w=None, b=None, margin=None, support=np.zeros(0, dtype=int))
            _hide(hyper, m_lo, m_hi)
            band.set_xy(np.zeros((3, 2)))
            _set_offsets(sv, np.zeros((0, 2)))
        # the batch perceptron on (x, 1): a non-homogeneous separator
        if c["perceptron"].value and both:
            Xa = np.c_[X, np.ones(m)]
            p = perceptron(Xa, y, max_updates=5000)
            st.update(perceptron_w=p.w[:2].copy(), perceptron_b=float(p.w[2]),
                      perceptron_updates=int(p.n_updates), perceptron_converged=bool(p.converged))
            _set_line(perc, p.w[:2], p.w[2])
        else:
            st.update(perceptron_w=None, perceptron_b=None, perceptron_updates=None,
                      perceptron_converged=None)
            _hide(perc)
        if res is not None:
            txt = (f"margin γ = <b>{_fmt(res.margin)}</b> &nbsp; ‖w‖ = {_fmt(np.linalg.norm(res.w))}"
                   f" &nbsp; support vectors: {', '.join(str(int(s)) for s in res.support)}")
        elif not both:
            txt = "<b>only one class left</b>: give some point the other label"
        else:
            txt = ("<b>not linearly separable</b>: the hard-SVM program (15.2) has no feasible "
                   "point; see the soft-margin widget below")
        if st["perceptron_updates"] is not None:
            txt += (f"<br>perceptron: {st['perceptron_updates']} updates"
                    + ("" if st["perceptron_converged"] else " (stopped: no separator found)"))
        ex.set_readout(txt)

    ex = Explorer(fig, controls, update, layout_rows=[["point", "label", "perceptron"], ["x1", "x2"]],
                  title="Margin explorer", css_class="kml-margin-explorer")

    def press(ev):
        j = ex.drag.nearest(ax, X, ev)
        if j is not None and j != controls["point"].value:
            controls["point"].value = j       # selects it; the point does not move
        return j

    def move(j, ev):
        # on the sliders' 0.05 grid (the browser's slider would snap the value anyway)
        x1, x2 = np.clip(np.round(ex.drag.xy(ax, ev) * 20) / 20, LIM[0], LIM[1])
        with ex.hold():
            controls["x1"].value, controls["x2"].value = float(x1), float(x2)

    Drag(ex, press, move)
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
    viol = ax.scatter([], [], s=170, facecolors="none", edgecolors=OKABE_ITO["vermillion"],
                      linewidths=1.5, marker="s", zorder=4, label=r"violation: $y f(x) < 1$")
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=9, frameon=False)
    title = ax.set_title("")

    controls = {"lam": slider("λ (regularisation)", lam, -3, 1, 0.1, log=True, readout_format=".3f",
                              width="380px")}

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
        st.update(lam=lam_, w=w.copy(), b=b, margin_width=2 / nw if nw > 0 else np.inf,
                  violations=v, errors=err, mean_hinge=float(np.mean(np.maximum(0, 1 - marg))),
                  objective=float(res.objective))
        _show_hyperplane(w, b, hyper, m_lo, m_hi, band)
        _set_offsets(viol, X[v])
        title.set_text(f"λ = {lam_:.3f}: margin width 2/‖w‖ = {st['margin_width']:.2f}")
        ex.set_readout(
            f"λ = <b>{lam_:.3f}</b> &nbsp; margin width 2/‖w‖ = <b>{st['margin_width']:.3f}</b> &nbsp; "
            f"margin violations: <b>{len(v)}</b>/{len(y)} &nbsp; training errors: {len(err)} &nbsp; "
            f"mean hinge = {st['mean_hinge']:.3f} &nbsp; objective = {st['objective']:.4f}")

    return Explorer(fig, controls, update, title="Soft margin: the role of λ",
                    css_class="kml-lambda-explorer")


# ---------------------------------------------------------------------------------------
# loss gallery
# ---------------------------------------------------------------------------------------

def make_loss_gallery(z: float = 0.5) -> Explorer:
    """Move the margin z = y⟨w,x⟩ and read every loss and a subgradient at z."""
    names = [n for n in ("zero_one", "hinge", "ramp", "logistic", "exponential") if n in L.LOSSES]
    colors = [OKABE_ITO[c] for c in ("black", "blue", "vermillion", "green", "purple")]
    fig, ax = figure(7.2, 3.8)
    zz = np.linspace(-2.5, 2.5, 501)
    dots = {}
    tangents = {}
    for name, col in zip(names, colors):
        ax.plot(zz, L.LOSSES[name][0](zz), color=col, lw=2, label=name.replace("_", "–"))
        dots[name] = ax.scatter([], [], s=50, color=col, zorder=5)
        (tangents[name],) = ax.plot([], [], color=col, lw=1, ls=":")
    vline = ax.axvline(z, color=OKABE_ITO["grey"], lw=1)
    ax.set_ylim(-0.2, 3.6)
    ax.set_xlim(-2.5, 2.5)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    label_axes(ax, r"margin $z = y\langle w, x\rangle$", "loss",
               "dotted: the line through the point with the subgradient's slope")
    controls = {"z": slider("margin z", z, -2.5, 2.5, 0.05, readout_format=".2f", width="380px")}

    def update(ex: Explorer) -> None:
        z_ = float(ex.controls["z"].value)
        vline.set_xdata([z_, z_])
        rows = []
        vals, grads = {}, {}
        for name in names:
            fn, g = L.LOSSES[name]
            v = float(fn(np.array([z_]))[0])
            d = float(g(np.array([z_]))[0])
            vals[name], grads[name] = v, d
            dots[name].set_offsets([[z_, v]])
            tz = np.array([z_ - 0.6, z_ + 0.6])
            tangents[name].set_data(tz, v + d * (tz - z_))
            rows.append(f"<tr><td>{html.escape(name)}</td><td>{v:.3f}</td><td>{d:+.3f}</td></tr>")
        ex.state.update(z=z_, values=vals, subgradients=grads)
        ex.set_readout("<table><tr><th>loss</th><th>value</th><th>subgradient</th></tr>"
                       + "".join(rows) + "</table>")

    return Explorer(fig, controls, update, title="Loss gallery", css_class="kml-loss-gallery")


# ---------------------------------------------------------------------------------------
# SGD convergence
# ---------------------------------------------------------------------------------------

T_CHOICES = (10, 30, 100, 300, 1000, 3000, 10_000, 30_000, 100_000)


def make_sgd_explorer(X=None, y=None, lam: float = 0.1, seed: int = 0) -> Explorer:
    """SGD for soft-SVM (UML §15.5): w̄ after T steps against the exact minimiser.

    Homogeneous problem (no bias), as in the book. State: ``T``, ``lam``, ``w_sgd``,
    ``w_exact``, ``objective_sgd``, ``objective_exact``, ``gap``.
    """
    if X is None:
        X, y = soft_margin_points(seed=3)
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    fig, ax = _plane_axes(7.0)
    class_scatters(ax, X, y)
    (exact_line,) = ax.plot([], [], color=OKABE_ITO["black"], lw=2, label="exact soft-SVM")
    (sgd_line,) = ax.plot([], [], color=OKABE_ITO["orange"], lw=2, ls="--", label=r"SGD average $\bar w$")
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=9, frameon=False)
    title = ax.set_title("")
    controls = {
        "T": W.SelectionSlider(options=list(T_CHOICES), value=100, description="steps T",
                               continuous_update=True, style={"description_width": "initial"},
                               layout=W.Layout(width="380px")),
        "lam": slider("λ", lam, -2, 0, 0.1, log=True, readout_format=".3f"),
        "seed": int_slider("seed", seed, 0, 20),
    }
    cache: dict = {}

    def update(ex: Explorer) -> None:
        T = int(ex.controls["T"].value)
        lam_ = float(ex.controls["lam"].value)
        s = int(ex.controls["seed"].value)
        if cache.get("lam") != lam_:
            cache["lam"] = lam_
            cache["exact"] = soft_svm(X, y, lam_)
        exact = cache["exact"]
        res = sgd_soft_svm(X, y, lam_, T, s)
        obj_sgd = float(res.objective)  # F(w̄), computed by sgd_soft_svm
        gap = obj_sgd - float(exact.objective)
        ex.state.update(T=T, lam=lam_, seed=s, w_sgd=np.asarray(res.w).copy(),
                        w_exact=np.asarray(exact.w).copy(), objective_sgd=obj_sgd,
                        objective_exact=float(exact.objective), gap=gap)
        _set_line(exact_line, exact.w, 0.0)
        _set_line(sgd_line, res.w, 0.0)
        title.set_text(f"T = {T}: gap = {gap:.2e}")
        ex.set_readout(f"T = <b>{T}</b>, λ = {lam_:.3f}: objective of w̄ = {obj_sgd:.5f}, exact "
                       f"minimum = {exact.objective:.5f}, gap = <b>{gap:.2e}</b>")

    return Explorer(fig, controls, update, layout_rows=[["T"], ["lam", "seed"]],
                    title="SGD for soft-SVM", css_class="kml-sgd-explorer")
