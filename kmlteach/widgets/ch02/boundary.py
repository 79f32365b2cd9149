"""Chapter 02: the kernel-SVM boundary on two moons (click to add or remove points).

Each builder returns an :class:`~kmlteach.widgets._base.Explorer`; ``explorer.state``
holds what the last redraw computed (tests read it), ``explorer.controls`` the
controls (tests set their ``value``).
"""

from __future__ import annotations

import itertools
from math import comb

import ipywidgets as W
import numpy as np

from ..._render import region_layer, stamp
from ...datasets import moons
from ...kernel_methods import kernel_sgd_svm
from ...kernels import gram
from ...plots import OKABE_ITO, class_style, label_axes
from ...plots.ch02 import decision_grid
from .._base import Explorer, class_scatters, int_slider, slider
from .._drag import Drag
from .._predict import NumberGuess, predict_mode, within
from .._threads import single_thread
from .embedding import _zero_line

__all__ = ["boundary_data", "make_boundary_explorer", "grid_scores"]


def _figure(width, height):
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained")


# ---------------------------------------------------------------------------------------
# kernel SVM decision boundary: Gaussian sigma / polynomial degree
# ---------------------------------------------------------------------------------------


def grid_scores(kernel: str, params: dict, g, Xs, a) -> np.ndarray:
    """f(x) = sum_i a_i k(x_i, x) on the square grid g x g (rows: x2 = g[r], columns: x1 = g[c]),
    for the 2-D inputs ``Xs``, through the kernel's structure instead of a (len(g)^2, m) Gram
    matrix: the Gaussian factorises over the coordinates, exp(-|x-x'|^2/(2 sigma)) =
    e1(x1) e2(x2), so f = E2 diag(a) E1^T; the polynomial (c + x1 x1' + x2 x2')^k expands
    binomially into k + 1 such products. Same values as ``gram(kernel, grid, Xs) @ a`` up to
    rounding, in ~0.1 ms instead of 3-20 ms (UML §16.2).
    """
    if kernel not in ("gaussian", "polynomial"):
        raise ValueError(f"kernel must be 'gaussian' or 'polynomial', got {kernel!r}")
    g = np.asarray(g, dtype=float)
    Xs = np.asarray(Xs, dtype=float).reshape(-1, 2)
    a = np.asarray(a, dtype=float)
    if g.ndim != 1 or len(a) != len(Xs):
        raise ValueError("g must be 1-D and a must have one weight per row of Xs")
    if kernel == "gaussian":
        s2 = 2.0 * float(params["sigma"])
        E1 = np.exp(-((g[:, None] - Xs[:, 0]) ** 2) / s2)
        E2 = np.exp(-((g[:, None] - Xs[:, 1]) ** 2) / s2)
        return (E2 * a) @ E1.T
    k, c = int(params["degree"]), float(params.get("c", 1.0))
    A = c + g[:, None] * Xs[:, 0]
    B = g[:, None] * Xs[:, 1]
    return sum(comb(k, j) * ((B**j) * a) @ (A ** (k - j)).T for j in range(k + 1))


def boundary_data(m: int = 120, m_test: int = 400):
    """Two-moons training and test samples (seeds 0 and 1)."""
    X, y = moons(m=m, noise=0.2, seed=0)
    Xt, yt = moons(m=m_test, noise=0.2, seed=1)
    return X, y, Xt, yt


def make_boundary_explorer(
    kernel: str = "gaussian",
    sigma: float = 0.1,
    degree: int = 3,
    lam: float = 0.001,
    T: int = 6000,
    seed: int = 0,
    predict: bool = False,
) -> Explorer:
    """Kernel soft-SVM (kernel SGD, UML §16.3) on two moons; slide the kernel's parameter.

    Click on the figure to add a training point of the class chosen in ``click adds``;
    click on a training point to remove it; ``reset points`` restores the two moons.
    Controls: ``kernel`` ("gaussian" exp(-|x-x'|^2/(2 sigma)) or "polynomial"
    (1 + <x,x'>)^k), ``sigma``, ``degree``, ``lam``, ``add`` (label of clicked points),
    ``reset`` (button). State: ``kernel``, ``params``, ``alpha``, ``train_accuracy``,
    ``test_accuracy``, ``n_support`` (non-zero alpha), ``X``, ``y`` (the training set).

    ``predict=True``: whenever the kernel, its parameter, λ or the points change the
    student first guesses the test accuracy (scored right within 5 points); the decision
    regions, the boundary and the readout stay hidden until *Reveal*
    (:mod:`kmlteach.widgets._predict`).
    """
    from matplotlib import rcParams
    from matplotlib.colors import to_rgb

    X0, y0, Xt, yt = boundary_data()
    edits = itertools.count(1)  # data version: 0 = the two moons, each edit a new number
    data = {"X": X0.copy(), "y": y0.copy(), "version": 0}
    lim = (-1.7, 2.7)
    G1, G2, _ = decision_grid(lim, 80)
    g = G1[0]
    # wide and short (legend beside the axes): 1.5x of it fits a 1280x720 slide
    fig = _figure(6.4, 4.6)
    ax = fig.add_subplot(1, 1, 1)
    half = 0.5 * (lim[1] - lim[0]) / (len(g) - 1)  # pixel centres on the grid points
    ext = (lim[0] - half, lim[1] + half)
    # the class colours at 15 % over white, pre-blended and opaque, painted straight into
    # the canvas (_render/layers.py: a quarter of imshow's cost per frame)
    tint = (
        np.array([[*(255 * (0.85 + 0.15 * np.array(to_rgb(class_style(k)["color"])))), 255] for k in (0, 1)])
        .round()
        .astype(np.uint8)
    )
    regions = region_layer(ax, (*ext, *ext))
    pts = class_scatters(ax, X0, y0, s=26)
    ax.set_xlim(lim)
    ax.set_ylim(lim)
    ax.set_aspect("equal")
    label_axes(ax, "$x_1$", "$x_2$")
    # the frame as one fixed line, not four spines: the layer under it is repainted every
    # frame, and a spine's extent takes its ticks to measure (~1 ms each, every frame)
    ax.spines[:].set_visible(False)
    ax.plot(
        [0, 1, 1, 0, 0],
        [0, 0, 1, 1, 0],
        transform=ax.transAxes,
        color="black",
        lw=rcParams["axes.linewidth"],
        clip_on=False,
        zorder=2.5,
        solid_joinstyle="miter",
    )
    ax.plot([], [], color=OKABE_ITO["black"], lw=1.8, label="decision\nboundary")
    # legend beside the axes: the regions under it change with every update
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=9, frameon=False)
    title = ax.set_title("", fontsize=10)
    stamp(title)
    # the zero level set as one NaN-separated line: mutated, never re-created (a new
    # ContourSet per update has no extent the blitter can use: everything would repaint)
    (boundary,) = ax.plot([], [], color=OKABE_ITO["black"], lw=1.8, zorder=2)
    fits: dict = {}  # (kernel, params, lam, data version) -> fitted values: revisits are free
    controls = {
        "kernel": W.ToggleButtons(
            options=["gaussian", "polynomial"],
            value=kernel,
            description="kernel",
            style={"button_width": "112px"},  # "polynomial" in full
        ),
        "sigma": slider("σ (Gaussian)", sigma, -3, 1, 0.1, log=True, readout_format=".3f", width="300px"),
        "degree": int_slider("degree k (polynomial)", degree, 1, 8, width="300px"),
        "lam": slider("λ", lam, -5, 0, 0.25, log=True, readout_format=".5f", width="300px"),
        "add": W.ToggleButtons(
            options=[("y = +1", 1.0), ("y = −1", -1.0)],
            value=1.0,
            description="click adds",
            style={"button_width": "84px", "description_width": "initial"},  # "y = +1" in full
        ),
    }

    def update(ex: Explorer) -> None:
        c = ex.controls
        X, y = data["X"], data["y"]
        name = c["kernel"].value
        params = (
            {"sigma": c["sigma"].value} if name == "gaussian" else {"degree": c["degree"].value, "c": 1.0}
        )
        if data.get("drawn") != data["version"]:  # points move only when edited
            data["drawn"] = data["version"]
            for lab, art in pts.items():
                art.set_offsets(X[y == lab] if np.any(y == lab) else np.zeros((0, 2)))
        if np.unique(y).size < 2:
            regions.set_data(np.broadcast_to(tint[int(y[0] > 0) if len(y) else 0], (*G1.shape, 4)))
            boundary.set_data([], [])
            ex.state.update(
                kernel=name,
                params=params,
                alpha=np.zeros(len(y)),
                train_accuracy=float("nan"),
                test_accuracy=float("nan"),
                n_support=0,
                X=X.copy(),
                y=y.copy(),
            )
            ex.set_readout("<b>both classes are needed</b>: click to add a point of the other class")
            return
        key = (name, tuple(params.values()), c["lam"].value, data["version"])
        if key not in fits:
            if len(fits) > 256:
                fits.clear()
            with single_thread():  # small matrices: a thread pool costs more than it saves
                K = gram(name, X, **params)
                res = kernel_sgd_svm(K, y, c["lam"].value, T, seed)
                train = np.mean(np.where(K @ res.alpha >= 0, 1.0, -1.0) == y)
                sv = np.flatnonzero(res.alpha)  # only these points enter f(x) = Σ α_i k(x_i, x)
                Xs, a_s = X[sv], res.alpha[sv]
                test = np.mean(np.where(gram(name, Xt, Xs, **params) @ a_s >= 0, 1.0, -1.0) == yt)
                S = grid_scores(name, params, g, Xs, a_s)
            fits[key] = (res, train, test, tint[(S >= 0).astype(np.intp)], _zero_line(G1, G2, S))
        res, train, test, rgba, line = fits[key]
        regions.set_data(rgba)
        boundary.set_data(*line)
        desc = f"σ = {params['sigma']:.3g}" if name == "gaussian" else f"k = {params['degree']}"
        title.set_text(f"{name} kernel, {desc}, λ = {c['lam'].value:.2g}")
        ex.state.update(
            kernel=name,
            params=params,
            alpha=res.alpha,
            train_accuracy=float(train),
            test_accuracy=float(test),
            n_support=int(np.count_nonzero(res.alpha)),
            X=X.copy(),
            y=y.copy(),
        )
        ex.set_readout(
            f"training accuracy <b>{100 * train:.1f} %</b> &nbsp; test accuracy "
            f"<b>{100 * test:.1f} %</b> &nbsp; non-zero α: {ex.state['n_support']} of {len(y)}"
            f" &nbsp; (T = {T} SGD steps; click to add a point, click a point to remove it)"
        )

    with single_thread():  # the other kernel's compiled code, loaded now rather than on its first click
        gram("polynomial" if kernel == "gaussian" else "gaussian", X0[:2])
    ex = Explorer(
        fig,
        controls,
        update,
        layout_rows=[["kernel", "lam"], ["sigma", "degree"], ["add"]],
        title="Kernel SVM on two moons",
        css_class="kml-boundary-explorer",
    )

    # the title is stamped from per-character bitmaps: draw every character it can show now
    # (a first switch to the other kernel cost ~30 ms of glyph rendering)
    shown = title.get_text()
    title.set_text("gaussian polynomial kernel, σ k λ = −+.,e 0123456789")
    title.get_window_extent(fig.canvas.get_renderer())
    title.set_text(shown)

    def press(ev):
        if not ex.drag.inside(ax, ev):
            return None
        j = ex.drag.nearest(ax, data["X"], ev, radius=7)
        if j is not None:
            keep = np.arange(len(data["y"])) != j
            data["X"], data["y"] = data["X"][keep], data["y"][keep]
        else:
            data["X"] = np.r_[data["X"], [np.round(ex.drag.xy(ax, ev), 3)]]
            data["y"] = np.r_[data["y"], controls["add"].value]
        data["version"] = next(edits)
        ex.refresh()
        return None

    def reset(_btn=None):
        data["X"], data["y"], data["version"] = X0.copy(), y0.copy(), 0
        ex.refresh()

    Drag(ex, press)
    btn = W.Button(description="reset points", tooltip="restore the two-moons sample")
    btn.on_click(reset)
    ex.controls["reset"] = btn
    ex.children = ex.children[:-2] + (btn,) + ex.children[-2:]
    if predict:
        names = ("kernel", "sigma", "degree", "lam")
        predict_mode(
            ex,
            NumberGuess("guess: test accuracy (%)", 0, 100),
            lambda ex_: 100.0 * ex_.state["test_accuracy"],
            [regions, boundary],
            "how accurate will this boundary be on the test set (in %)?",
            score=within(5.0, ".1f"),
            watch=lambda ex_: (*(controls[n].value for n in names), data["version"]),
            item_id="02.p_accuracy",
        )
    return ex
