"""Widgets of chapter 08 (boosting and ensembles; SL boosting/bagging/forests, UML §18).

* :func:`make_adaboost_stepper` — step through the rounds of AdaBoost: marker area ∝ D_t,
  the stump h_t, the regions of sign(Σ_{s≤t} α_s h_s), and the training error against
  Π Z_s and exp(−2Σγ_s²) on a log scale.
* :func:`make_bagging_explorer` — bootstrap members: OOB and test error of a stable learner
  (least squares) beside an unstable one (a deep tree).
* :func:`make_tree_explorer` — a tree grown to a chosen depth on the papayas: rectangles, errors.

Runs are computed when the widget is built; a control change picks precomputed numbers and
updates artists. Class regions are pixel layers, the points over them painted from a cache
(:mod:`kmlteach._render.layers`): the two were three quarters of a frame's drawing.
"""

from __future__ import annotations

import ipywidgets as W
import numpy as np

from .._render import paint_cached, region_layer
from ..datasets import moons
from ..ensembles import adaboost, decision_tree, papaya
from ..plots import OKABE_ITO, figure, label_axes
from ..plots.ch08 import (
    bagging_curves,
    bound_curves,
    grid_points,
    plot_adaboost_bounds,
    plot_stump,
    plot_weighted_points,
    ridge_classifier,
    signed_rgba,
    stump_box,
    stump_segment,
)
from ._base import Explorer, int_slider
from ._predict import choice_buttons, predict_mode

__all__ = ["make_adaboost_stepper", "make_bagging_explorer", "make_tree_explorer"]


def _box(X, pad=0.08):
    lo, hi = X.min(axis=0), X.max(axis=0)
    d = pad * np.maximum(hi - lo, 1e-9)
    return (lo[0] - d[0], hi[0] + d[0]), (lo[1] - d[1], hi[1] + d[1])


def _legend_below(ax, fontsize: float = 7.5, ncol: int = 2, **kw):
    """The legend under the x label, outside what moves: it stays in the blitted background."""
    return ax.legend(
        fontsize=fontsize, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=ncol, frameon=False, **kw
    )


def _regions(ax, xlim, ylim):
    """The class regions: a pixel layer over the box (``set_data(signed_rgba(...))``), copied
    into the canvas where an ``imshow`` resampled a float image (half a frame's drawing)."""
    layer = region_layer(ax, (xlim[0], xlim[1], ylim[0], ylim[1]), zorder=0)
    ax.set_xlim(xlim)
    ax.set_ylim(ylim)
    return layer


ADABOOST_PANELS = ((0.0561, 0.2644), (0.3639, 0.2644), (0.6875, 0.3041))  # (left, width)


def _step_buttons(slider: W.IntSlider):
    back = W.Button(description="◀ back", layout=W.Layout(width="80px"))
    fwd = W.Button(description="next ▶", layout=W.Layout(width="80px"))
    back.on_click(lambda _b: setattr(slider, "value", max(slider.min, slider.value - 1)))
    fwd.on_click(lambda _b: setattr(slider, "value", min(slider.max, slider.value + 1)))
    return back, fwd


def make_adaboost_stepper(
    X=None, y=None, T: int = 20, n_grid: int = 120, scale: float = 2400.0, result=None, predict: bool = False
) -> Explorer:
    """Step t = 1..T through AdaBoost on 2-D data (SL AdaBoost; UML §10.2).

    Controls: ``t`` (slider), ``back`` / ``next`` (buttons). State: ``t``, ``epsilon``,
    ``alpha``, ``Z``, ``gamma``, ``prod_Z``, ``exp_bound``, ``training_error``, ``D`` (the
    distribution round t used), ``stump`` (feature, threshold, sign).

    ``predict=True``: at each round the student first guesses, from the weights D_t, which
    stump AdaBoost picks (its feature and the side it labels +1); the stump and the
    ensemble panel stay hidden until *Reveal* (:mod:`kmlteach.widgets._predict`).
    """
    if X is None:  # the chapter's moons (notebook 08, section 2)
        X, y = moons(150, noise=0.25, seed=0)
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    res = adaboost(X, y, T) if result is None else result
    R = len(res.alphas)
    xlim, ylim = _box(X)
    grid = grid_points(xlim, ylim, n_grid)
    # the whole run, once: per-round stump votes on the grid, cumulated with α
    F = np.cumsum(np.asarray(res.alphas)[:, None] * np.array([h.predict(grid) for h in res.stumps]), axis=0)
    prod_z = np.cumprod(res.Z)
    _, exp_b = bound_curves(res.epsilons)

    fig, (ax_d, ax_h, ax_b) = figure(12.0, 4.5, ncols=3, width_ratios=[1, 1, 1.15])
    line, patch = plot_stump(res.stumps[0], xlim, ylim, ax=ax_d)
    pts = plot_weighted_points(X, y, res.D[0], ax=ax_d, scale=scale)
    _legend_below(ax_d, markerscale=0.5)
    label_axes(ax_d, "$x_1$", "$x_2$", r"round $t$: weights $D_t$ and stump $h_t$")
    im = _regions(ax_h, xlim, ylim)
    paint_cached(*plot_weighted_points(X, y, None, ax=ax_h, scale=0.35 * scale).values())
    (wrong,) = ax_h.plot([], [], "x", color=OKABE_ITO["black"], ms=9, mew=2, label="misclassified")
    _legend_below(ax_h)
    label_axes(ax_h, "$x_1$", "", r"ensemble sign$(\Sigma_{s \leq t}\, \alpha_s h_s)$")
    plot_adaboost_bounds(
        res.training_error, res.Z, res.epsilons, len(y), ax=ax_b, title="training error and its bounds"
    )
    _legend_below(ax_b)
    tline = ax_b.axvline(1, color=OKABE_ITO["black"], lw=1, alpha=0.5)
    # the panels where constrained layout put them (the notebook's run of 60 rounds, whose
    # legends take two rows), fixed: the layout pass measured every tick label of the figure,
    # the log-scale ones as mathtext, and was 40 % of the time to the first picture
    fig.set_layout_engine("none")
    for ax, (left, width) in zip((ax_d, ax_h, ax_b), ADABOOST_PANELS):
        ax.set_position((left, 0.2376, width, 0.7057))
    masks = {lab: y == lab for lab in (-1.0, 1.0)}
    preds = np.sign(
        np.cumsum(np.asarray(res.alphas)[:, None] * np.array([h.predict(X) for h in res.stumps]), axis=0)
    )
    preds[preds == 0] = 1.0

    slider_t = int_slider("round t", 1, 1, R, width="360px")
    slider_t.continuous_update = True
    back, fwd = _step_buttons(slider_t)
    controls = {"back": back, "t": slider_t, "next": fwd}

    def update(ex: Explorer) -> None:
        t = int(ex.controls["t"].value)
        k = t - 1
        h = res.stumps[k]
        D = res.D[k]
        for lab, art in pts.items():
            art.set_sizes(scale * D[masks[lab]])
        line.set_data(*stump_segment(h, xlim, ylim))
        x0, y0, w, hh = stump_box(h, xlim, ylim)
        patch.set_bounds(x0, y0, w, hh)
        im.set_data(signed_rgba(F[k], n_grid))
        bad = preds[k] != y
        wrong.set_data(X[bad, 0], X[bad, 1])
        tline.set_xdata([t, t])
        eps = float(res.epsilons[k])
        st = ex.state
        st.update(
            t=t,
            epsilon=eps,
            alpha=float(res.alphas[k]),
            Z=float(res.Z[k]),
            gamma=0.5 - eps,
            prod_Z=float(prod_z[k]),
            exp_bound=float(exp_b[k]),
            training_error=float(res.training_error[k]),
            D=D,
            stump=(int(h.feature), float(h.threshold), float(h.sign)),
        )
        side = "≤" if h.sign > 0 else ">"
        ex.set_readout(
            f"round <b>t = {t}</b> of {R}: stump h<sub>t</sub> = +1 iff x<sub>{int(h.feature) + 1}</sub> {side} "
            f"{float(h.threshold):.3g} &nbsp; ε<sub>t</sub> = <b>{eps:.4f}</b> &nbsp; "
            f"α<sub>t</sub> = <b>{st['alpha']:.4f}</b> &nbsp; Z<sub>t</sub> = {st['Z']:.4f} "
            f"&nbsp; γ<sub>t</sub> = {st['gamma']:.4f}<br>training error {st['training_error']:.4f} "
            f"≤ Π Z = {st['prod_Z']:.4f} ≤ exp(−2Σγ²) = {st['exp_bound']:.4f}"
        )

    ex = Explorer(
        fig,
        controls,
        update,
        title="AdaBoost, round by round",
        css_class="kml-adaboost-stepper",
    )
    if predict:
        predict_mode(
            ex,
            choice_buttons(STUMP_CHOICES, None, "hₜ:", "120px"),
            lambda ex_: _stump_choice(*ex_.state["stump"]),
            [line, patch, im, wrong],
            "which stump does AdaBoost pick in round t (look at the weights D_t)?",
            watch=["t"],
            item_id="08.p_stump",
        )
    return ex


STUMP_CHOICES = ("+1 iff x₁ ≤ c", "+1 iff x₁ > c", "+1 iff x₂ ≤ c", "+1 iff x₂ > c")


def _stump_choice(feature: int, _threshold: float, sign: float) -> str:
    return STUMP_CHOICES[2 * feature + (0 if sign > 0 else 1)]  # as the readout: sign > 0 is "≤"


def deep_tree(X, y):
    """The unstable learner of the bagging comparison: a fully grown Gini tree."""
    return decision_tree(X, y)


def make_bagging_explorer(
    X=None,
    y=None,
    X_test=None,
    y_test=None,
    n_estimators: int = 60,
    seed: int = 0,
    n_grid: int = 90,
    learners=None,
) -> Explorer:
    """Bagging a stable and an unstable learner (SL, bagging): regions of the bagged
    ensemble of n members for each (with the training points), and OOB/test error
    against n.

    Controls: ``n`` (number of members). State: ``n``, per learner name
    ``{name: {"oob_error", "test_error", "member_test_error"}}`` under ``errors``, and the
    bootstrap indices ``{name: (B, m) array}`` under ``samples``.
    """
    if X is None:  # the chapter's noisy moons (notebook 08, section 6)
        X, y = moons(200, noise=0.3, seed=3)
        X_test, y_test = moons(2000, noise=0.3, seed=4)
    learners = learners or {"least squares (stable)": ridge_classifier, "deep tree (unstable)": deep_tree}
    X = np.asarray(X, dtype=float)
    xlim, ylim = _box(np.r_[X, np.asarray(X_test, dtype=float)])
    grid = grid_points(xlim, ylim, n_grid)
    curves = {
        name: bagging_curves(X, y, X_test, y_test, fn, n_estimators, seed, grid=grid)
        for name, fn in learners.items()
    }
    names = list(curves)

    fig, axes = figure(12.0, 4.3, ncols=3, width_ratios=[1, 1, 1.2])
    ims = {}
    for ax, name in zip(axes[:2], names):
        ims[name] = _regions(ax, xlim, ylim)
        paint_cached(*plot_weighted_points(X, y, None, ax=ax, scale=14.0 * len(y)).values())
        label_axes(ax, "$x_1$", "$x_2$" if ax is axes[0] else "", f"vote: {name}")
    ax_c = axes[2]
    colors = [OKABE_ITO["blue"], OKABE_ITO["vermillion"]]
    n_all = np.arange(1, n_estimators + 1)
    marks = {}
    for name, col in zip(names, colors):
        c = curves[name]
        ax_c.plot(n_all, c.test_error, "-", color=col, lw=2, label=f"{name}: test")
        ax_c.plot(n_all, c.oob_error, "--", color=col, lw=1.5, label=f"{name}: OOB")
        (marks[name],) = ax_c.plot([], [], "o", color=col, ms=8)
    nline = ax_c.axvline(1, color=OKABE_ITO["black"], lw=1, alpha=0.5)
    top = max(max(c.test_error.max(), c.oob_error.max()) for c in curves.values())
    ax_c.set_ylim(0, 1.5 * top)
    _legend_below(ax_c, fontsize=7)
    label_axes(ax_c, "number of bootstrap members n", "error", "OOB (dashed) and test (solid) error")

    controls = {"n": int_slider("members n", 1, 1, n_estimators, width="420px")}
    controls["n"].continuous_update = True

    def update(ex: Explorer) -> None:
        n = int(ex.controls["n"].value)
        errs = {}
        for name in names:
            c = curves[name]
            ims[name].set_data(signed_rgba(c.grid_votes[n - 1], n_grid, zero=-1.0))
            marks[name].set_data([n], [c.test_error[n - 1]])
            errs[name] = {
                "oob_error": float(c.oob_error[n - 1]),
                "test_error": float(c.test_error[n - 1]),
                "member_test_error": float(np.mean(c.member_test_error[:n])),
            }
        nline.set_xdata([n, n])
        ex.state.update(n=n, errors=errs, samples={k: c.result.samples for k, c in curves.items()})
        ex.set_readout(
            f"n = <b>{n}</b> {'member' if n == 1 else 'members'} &nbsp; "
            + " &nbsp;|&nbsp; ".join(
                f"{name}: test <b>{e['test_error']:.3f}</b>, OOB {e['oob_error']:.3f}, "
                f"one member on average {e['member_test_error']:.3f}"
                for name, e in errs.items()
            )
        )

    return Explorer(
        fig, controls, update, title="Bagging: stable vs unstable learner", css_class="kml-bagging-explorer"
    )


def make_tree_explorer(
    X=None,
    y=None,
    X_test=None,
    y_test=None,
    max_depth: int = 8,
    criterion: str = "gini",
    n_grid: int = 120,
    rectangle=None,
    xlabel="colour",
    ylabel="softness",
) -> Explorer:
    """Grow a decision tree on 2-D data depth by depth (UML §18.2): its leaves are
    axis-parallel rectangles. ``rectangle = (x0, x1, y0, y1)`` draws the true concept
    (the papaya box) dashed.

    Controls: ``depth`` (0 = one leaf), ``criterion``. State: ``depth``, ``criterion``,
    ``train_error``, ``test_error``, ``n_leaves``.
    """
    if X is None:  # the papayas (UML §18; notebook 08, section 5)
        X, y, rectangle = papaya(300, noise=0.08, seed=0)
        X_test, y_test, _ = papaya(1000, noise=0.08, seed=2)
    from matplotlib.patches import Rectangle

    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    Xt = np.asarray(X_test, dtype=float)
    yt = np.asarray(y_test, dtype=float)
    xlim, ylim = _box(np.r_[X, Xt], pad=0.03)
    grid = grid_points(xlim, ylim, n_grid)
    crits = ("gini", "entropy", "error")
    table = {}
    for crit in crits:
        for d in range(max_depth + 1):
            tree = decision_tree(X, y, max_depth=d, criterion=crit)
            table[crit, d] = (
                signed_rgba(tree.predict(grid), n_grid, alpha=0.28),
                float(np.mean(tree.predict(X) != y)),
                float(np.mean(tree.predict(Xt) != yt)),
                int(tree.n_leaves),
            )

    fig, (ax, ax_e) = figure(10.5, 4.5, ncols=2, width_ratios=[1.25, 1])
    im = _regions(ax, xlim, ylim)
    paint_cached(*plot_weighted_points(X, y, None, ax=ax, scale=14.0 * len(y)).values())
    if rectangle is not None:
        x0, x1, y0, y1 = rectangle
        ax.add_patch(
            Rectangle(
                (x0, y0),
                x1 - x0,
                y1 - y0,
                fill=False,
                ls="--",
                lw=1.8,
                color=OKABE_ITO["black"],
                label="true concept",
                zorder=4,
            )
        )
    ax.set_xlim(xlim)
    ax.set_ylim(ylim)
    _legend_below(ax, ncol=3)
    label_axes(ax, xlabel, ylabel, "tree regions (training points)")
    depths = np.arange(max_depth + 1)
    lines = {}
    for key, ls, col in (("train", "-", OKABE_ITO["blue"]), ("test", "-", OKABE_ITO["vermillion"])):
        (lines[key],) = ax_e.plot(
            depths,
            np.zeros(len(depths)),
            ls,
            marker="o",
            ms=4,
            color=col,
            lw=2,
            label=f"{'training' if key == 'train' else 'held-out'} error",
        )
    dline = ax_e.axvline(0, color=OKABE_ITO["black"], lw=1, alpha=0.5)
    ax_e.set_xlim(-0.3, max_depth + 0.3)
    ax_e.set_ylim(0, 1.3 * max(max(v[1], v[2]) for v in table.values()) + 0.01)
    _legend_below(ax_e, fontsize=8)
    label_axes(ax_e, "maximum depth", "error", "error against depth")

    controls = {
        "depth": int_slider("max depth", 0, 0, max_depth, width="320px"),
        "criterion": W.ToggleButtons(
            options=list(crits),
            value=criterion,
            style={"button_width": "84px"},  # "entropy" in full
        ),
    }
    controls["depth"].continuous_update = True

    def update(ex: Explorer) -> None:
        d = int(ex.controls["depth"].value)
        crit = ex.controls["criterion"].value
        img, tr, te, leaves = table[crit, d]
        im.set_data(img)
        lines["train"].set_ydata([table[crit, k][1] for k in depths])
        lines["test"].set_ydata([table[crit, k][2] for k in depths])
        dline.set_xdata([d, d])
        ex.state.update(depth=d, criterion=crit, train_error=tr, test_error=te, n_leaves=leaves)
        ex.set_readout(
            f"max depth <b>{d}</b>, gain: {crit} &nbsp; leaves: {leaves} &nbsp; "
            f"training error <b>{tr:.3f}</b> &nbsp; held-out error <b>{te:.3f}</b>"
        )

    return Explorer(
        fig,
        controls,
        update,
        title="Growing a decision tree",
        css_class="kml-tree-explorer",
    )
