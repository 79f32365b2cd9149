"""Widgets of chapter 02: kernel embedding in 3-D, kernel-SVM boundaries, the PSD lab.

Each builder returns an :class:`~kmlteach.widgets._base.Explorer`; ``explorer.state``
holds what the last redraw computed (tests read it), ``explorer.controls`` the
controls (tests set their ``value``).
"""

from __future__ import annotations

import itertools
from math import comb

import ipywidgets as W
import numpy as np

from ..datasets import line_example, moons, rings
from ..kernel_methods import kernel_sgd_svm
from ..kernels import gram
from ..plots import OKABE_ITO, class_style, label_axes
from ..plots._pixels import region_layer
from ..plots.ch02 import LIFTS, decision_grid, draw_plane, lift
from ..svm import soft_svm
from ._base import Explorer, class_scatters, int_slider, slider
from ._drag import Drag
from ._stamp import stamp, stamp_axis
from ._threads import single_thread

__all__ = ["embedding_data", "xor_points", "make_embedding_explorer", "boundary_data",
           "make_boundary_explorer", "grid_scores", "PSD_CANDIDATES", "psd_points", "candidate_gram",
           "make_psd_lab"]


def _figure(width, height):
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained")


# ---------------------------------------------------------------------------------------
# kernel embedding: lift, rotate, see the plane and its pre-image
# ---------------------------------------------------------------------------------------

def xor_points(m: int = 120, seed: int = 0):
    """Points in the four quadrants of [-2, 2]^2 (away from the axes); label sign(x1 x2)."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(0.25, 2.0, size=(m, 2)) * rng.choice([-1.0, 1.0], size=(m, 2))
    return X, np.sign(X[:, 0] * X[:, 1])


def embedding_data(name: str):
    """(X (m, d), y) of the embedding explorer: "line" (UML §16.1), "rings", "xor"."""
    if name == "line":
        x, y = line_example()
        return x[:, None], y
    if name == "rings":
        return rings(m=120, radii=(1.0, 2.3), noise=0.15, seed=0)
    if name == "xor":
        return xor_points()
    raise ValueError(f"name must be 'line', 'rings' or 'xor', got {name!r}")


def _line_thresholds(w, b):
    """Real roots of w1 x + w2 x^2 + b = 0 (the pre-image of the line in feature space)."""
    c2, c1, c0 = w[1], w[0], b
    if abs(c2) < 1e-12:
        return np.array([-c0 / c1]) if abs(c1) > 1e-12 else np.zeros(0)
    disc = c1 * c1 - 4 * c2 * c0
    if disc < 0:
        return np.zeros(0)
    r = np.sqrt(disc)
    return np.sort(np.array([(-c1 - r) / (2 * c2), (-c1 + r) / (2 * c2)]))


_UNICODE_LABELS = {"line": ("x", "x²", "0"), "rings": ("x₁", "x₂", "x₁² + x₂²"), "xor": ("x₁", "x₂", "x₁x₂")}


def make_embedding_explorer(dataset: str = "rings", elev: float = 20.0, azim: float = -60.0,
                            lam: float = 0.01) -> Explorer:
    """Lift data through an explicit map psi into 3-D, rotate the view, see the plane.

    Embeddings (``plots.ch02.LIFTS``): "line" psi(x) = (x, x^2, 0) for the 1-D sample of
    UML §16.1; "rings" psi(x) = (x1, x2, x1^2 + x2^2); "xor" psi(x) = (x1, x2, x1 x2).
    The plane is the exact soft-SVM with bias (``svm.soft_svm``, objective (15.12)) on
    psi(x); its pre-image {x : <w, psi(x)> + b = 0} is drawn in input space.
    State: ``dataset``, ``Psi``, ``w``, ``b``, ``accuracy``, ``elev``, ``azim``,
    ``thresholds`` (line data only), ``refits`` (how many times the plane was refitted).
    """
    fig = _figure(10.0, 4.6)
    axes: dict = {}
    controls = {
        "dataset": W.Dropdown(options=[("1-D line (UML §16.1)", "line"), ("2-D rings", "rings"),
                                       ("2-D xor", "xor")], value=dataset, description="data",
                              layout=W.Layout(width="250px")),
        "lam": slider("λ (soft-SVM)", lam, -4, 0, 0.25, log=True, readout_format=".4f", width="300px"),
        "elev": slider("elevation", elev, -10, 90, 5, readout_format=".0f", width="300px"),
        "azim": slider("azimuth", azim, -180, 180, 5, readout_format=".0f", width="300px"),
    }

    arts: dict = {}

    def build(name: str) -> None:
        """New data set: new axes (constrained layout keeps stale sizes otherwise)."""
        X, y = embedding_data(name)
        Psi = lift(name, X)
        # plain-text axis labels: the 3-D labels turn with the view, and each new angle would
        # re-run mathtext (~30 ms); Unicode sub/superscripts read the same
        labels = _UNICODE_LABELS[name]
        fig.clear()
        ax_in = axes["in"] = fig.add_subplot(1, 2, 1)
        ax3 = axes["3d"] = fig.add_subplot(1, 2, 2, projection="3d")
        arts.clear()
        arts.update(name=name, X=X, y=y, Psi=Psi, plane=None)
        if name == "line":
            x = X[:, 0]
            for lab, k in ((-1.0, 0), (1.0, 1)):
                s = class_style(k)
                ax_in.scatter(x[y == lab], np.zeros(int(np.sum(y == lab))), c=s["color"],
                              marker=s["marker"], s=40, label=f"y = {int(lab):+d}", zorder=3)
            # the thresholds: one vertical NaN-separated line, mutated by each fit
            (arts["pre"],) = ax_in.plot([], [], color=OKABE_ITO["green"], lw=2,
                                        label="pre-image (thresholds)")
            ax_in.set_yticks([])
            ax_in.set_xlim(float(x.min()) - 0.5, float(x.max()) + 0.5)
            ax_in.set_ylim(-1, 1.2)
            ax_in.set_aspect("auto")
            label_axes(ax_in, "$x$", "", "input space")
            ax_in.legend(loc="upper center", fontsize=8, ncol=3, framealpha=0.9)
        else:
            for lab, k in ((-1.0, 0), (1.0, 1)):
                s = class_style(k)
                P = X[y == lab]
                ax_in.scatter(P[:, 0], P[:, 1], c=s["color"], marker=s["marker"], s=22,
                              edgecolors="white", linewidths=0.4, label=f"y = {int(lab):+d}", zorder=3)
            lim = (float(X.min()) - 0.3, float(X.max()) + 0.3)
            arts["grid"] = decision_grid(lim, 160)
            (arts["pre"],) = ax_in.plot([], [], color=OKABE_ITO["green"], lw=2, label="pre-image of the plane")
            ax_in.set_xlim(lim)
            ax_in.set_ylim(lim)
            ax_in.set_aspect("equal")
            label_axes(ax_in, "$x_1$", "$x_2$", "input space")
            ax_in.legend(loc="upper right", fontsize=8, framealpha=0.9)
        for lab, k in ((-1.0, 0), (1.0, 1)):
            s = class_style(k)
            P = Psi[y == lab]
            ax3.scatter(P[:, 0], P[:, 1], P[:, 2], c=s["color"], marker=s["marker"], s=18,
                        depthshade=False)
        # the plane spans the data's box: fixed limits, so refits do not move the axes
        arts["box"] = (np.r_[Psi, Psi[:2] * [1, 1, 0] + [0, 0, -1], Psi[:2] * [1, 1, 0] + [0, 0, 1]]
                       if name == "line" else Psi)
        lo, hi = arts["box"].min(axis=0), arts["box"].max(axis=0)
        pad = 0.05 * np.maximum(hi - lo, 1e-9)
        ax3.set_xlim(lo[0] - pad[0], hi[0] + pad[0])
        ax3.set_ylim(lo[1] - pad[1], hi[1] + pad[1])
        ax3.set_zlim(*((-1, 1) if name == "line" else (lo[2] - 3 * pad[2], hi[2] + 3 * pad[2])))
        ax3.set_xlabel(labels[0])
        ax3.set_ylabel(labels[1])
        ax3.set_zlabel(labels[2])
        ax3.set_title(r"feature space: plane $\langle w,\psi(x)\rangle + b = 0$", fontsize=10)
        # the 3-D axes repaint whole on every rotation: their ~40 texts are stamped
        stamp(ax3.title, *ax_in.get_legend().get_texts())

    def refit(ex: Explorer) -> None:
        st = ex.state
        name, lam_ = ex.controls["dataset"].value, ex.controls["lam"].value
        if arts.get("name") != name:
            build(name)
        key = (name, lam_)
        if key not in fits:
            X, y, Psi = arts["X"], arts["y"], arts["Psi"]
            res = soft_svm(Psi, y, lam_, homogeneous=False)
            w, b = res.w.copy(), float(res.b)
            if name == "line":
                th = _line_thresholds(w, b)
                pre = (np.repeat(th, 3), np.tile([-1.0, 1.2, np.nan], len(th)))
            else:
                th = None
                G1, G2, P = arts["grid"]
                pre = _zero_line(G1, G2, (lift(name, P) @ w + b).reshape(G1.shape))
            fits[key] = (w, b, float(np.mean(np.where(Psi @ w + b >= 0, 1.0, -1.0) == y)), th, pre)
        w, b, acc, th, pre = fits[key]
        arts["pre"].set_data(*pre)
        if arts["plane"] is not None:
            arts["plane"].remove()
        arts["plane"] = draw_plane(axes["3d"], arts["box"], w, b)
        st.update(dataset=name, lam=lam_, X=arts["X"], y=arts["y"], Psi=arts["Psi"], w=w, b=b,
                  accuracy=acc, thresholds=th, refits=st.get("refits", 0) + 1, key=key)

    fits: dict = {}

    def update(ex: Explorer) -> None:
        c = ex.controls
        if ex.state.get("key") != (c["dataset"].value, c["lam"].value):
            refit(ex)
        axes["3d"].view_init(elev=c["elev"].value, azim=c["azim"].value)
        # tick labels appear at the first draw: stamp whatever exists now (idempotent)
        for axis in (axes["3d"].xaxis, axes["3d"].yaxis, axes["3d"].zaxis):
            stamp_axis(axis)
        st = ex.state
        st["elev"], st["azim"] = c["elev"].value, c["azim"].value
        w = st["w"]
        txt = (f"w = ({w[0]:.3f}, {w[1]:.3f}, {w[2]:.3f}), b = {st['b']:.3f} &nbsp; "
               f"training accuracy {100 * st['accuracy']:.1f} %")
        if st["thresholds"] is not None:
            txt += " &nbsp; pre-image: x = " + ", ".join(f"{t:.2f}" for t in st["thresholds"])
        ex.set_readout(txt)

    return Explorer(fig, controls, update, layout_rows=[["dataset", "lam"], ["elev", "azim"]],
                    title="Kernel embedding: a plane in feature space is a curve in input space",
                    css_class="kml-embedding-explorer")


# ---------------------------------------------------------------------------------------
# kernel SVM decision boundary: Gaussian sigma / polynomial degree
# ---------------------------------------------------------------------------------------

def _zero_line(G1, G2, S):
    """The level set S = 0 on the grid as (x, y) with NaN between pieces (empty if none)."""
    if not (S.min() < 0 < S.max()):
        return np.zeros(0), np.zeros(0)
    from contourpy import contour_generator

    pieces = contour_generator(G1, G2, S).lines(0.0)
    xy = np.concatenate([np.r_[p, [[np.nan, np.nan]]] for p in pieces]) if pieces else np.zeros((0, 2))
    return xy[:, 0], xy[:, 1]


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
        E1 = np.exp(-(g[:, None] - Xs[:, 0]) ** 2 / s2)
        E2 = np.exp(-(g[:, None] - Xs[:, 1]) ** 2 / s2)
        return (E2 * a) @ E1.T
    k, c = int(params["degree"]), float(params.get("c", 1.0))
    A = c + g[:, None] * Xs[:, 0]
    B = g[:, None] * Xs[:, 1]
    return sum(comb(k, j) * ((B ** j) * a) @ (A ** (k - j)).T for j in range(k + 1))


def boundary_data(m: int = 120, m_test: int = 400):
    """Two-moons training and test samples (seeds 0 and 1)."""
    X, y = moons(m=m, noise=0.2, seed=0)
    Xt, yt = moons(m=m_test, noise=0.2, seed=1)
    return X, y, Xt, yt


def make_boundary_explorer(kernel: str = "gaussian", sigma: float = 0.1, degree: int = 3,
                           lam: float = 0.001, T: int = 6000, seed: int = 0) -> Explorer:
    """Kernel soft-SVM (kernel SGD, UML §16.3) on two moons; slide the kernel's parameter.

    Click on the figure to add a training point of the class chosen in ``click adds``;
    click on a training point to remove it; ``reset points`` restores the two moons.
    Controls: ``kernel`` ("gaussian" exp(-|x-x'|^2/(2 sigma)) or "polynomial"
    (1 + <x,x'>)^k), ``sigma``, ``degree``, ``lam``, ``add`` (label of clicked points),
    ``reset`` (button). State: ``kernel``, ``params``, ``alpha``, ``train_accuracy``,
    ``test_accuracy``, ``n_support`` (non-zero alpha), ``X``, ``y`` (the training set).
    """
    from matplotlib import rcParams
    from matplotlib.colors import to_rgb

    plt_rc = rcParams.__getitem__
    X0, y0, Xt, yt = boundary_data()
    edits = itertools.count(1)     # data version: 0 = the two moons, each edit a new number
    data = {"X": X0.copy(), "y": y0.copy(), "version": 0}
    lim = (-1.7, 2.7)
    G1, G2, _ = decision_grid(lim, 80)
    g = G1[0]
    # wide and short (legend beside the axes): 1.5x of it fits a 1280x720 slide
    fig = _figure(6.4, 4.6)
    ax = fig.add_subplot(1, 1, 1)
    half = 0.5 * (lim[1] - lim[0]) / (len(g) - 1)   # pixel centres on the grid points
    ext = (lim[0] - half, lim[1] + half)
    # the class colours at 15 % over white, pre-blended and opaque, painted straight into
    # the canvas (plots/_pixels.py: a quarter of imshow's cost per frame)
    tint = np.array([[*(255 * (0.85 + 0.15 * np.array(to_rgb(class_style(k)["color"])))), 255]
                     for k in (0, 1)]).round().astype(np.uint8)
    regions = region_layer(ax, (*ext, *ext))
    pts = class_scatters(ax, X0, y0, s=26)
    ax.set_xlim(lim)
    ax.set_ylim(lim)
    ax.set_aspect("equal")
    label_axes(ax, "$x_1$", "$x_2$")
    # the frame as one fixed line, not four spines: the layer under it is repainted every
    # frame, and a spine's extent takes its ticks to measure (~1 ms each, every frame)
    ax.spines[:].set_visible(False)
    ax.plot([0, 1, 1, 0, 0], [0, 0, 1, 1, 0], transform=ax.transAxes, color="black",
            lw=plt_rc("axes.linewidth"), clip_on=False, zorder=2.5, solid_joinstyle="miter")
    ax.plot([], [], color=OKABE_ITO["black"], lw=1.8, label="decision\nboundary")
    # legend beside the axes: the regions under it change with every update
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=9, frameon=False)
    title = ax.set_title("", fontsize=10)
    stamp(title)
    # the zero level set as one NaN-separated line: mutated, never re-created (a new
    # ContourSet per update has no extent the blitter can use: everything would repaint)
    (boundary,) = ax.plot([], [], color=OKABE_ITO["black"], lw=1.8, zorder=2)
    fits: dict = {}       # (kernel, params, lam, data version) -> fitted values: revisits are free
    controls = {
        "kernel": W.ToggleButtons(options=["gaussian", "polynomial"], value=kernel,
                                  description="kernel", style={"button_width": "90px"}),
        "sigma": slider("σ (Gaussian)", sigma, -3, 1, 0.1, log=True, readout_format=".3f", width="300px"),
        "degree": int_slider("degree k (polynomial)", degree, 1, 8, width="300px"),
        "lam": slider("λ", lam, -5, 0, 0.25, log=True, readout_format=".5f", width="300px"),
        "add": W.ToggleButtons(options=[("y = +1", 1.0), ("y = −1", -1.0)], value=1.0,
                               description="click adds", style={"button_width": "60px"}),
    }

    def update(ex: Explorer) -> None:
        c = ex.controls
        X, y = data["X"], data["y"]
        name = c["kernel"].value
        params = {"sigma": c["sigma"].value} if name == "gaussian" else {"degree": c["degree"].value, "c": 1.0}
        if data.get("drawn") != data["version"]:     # points move only when edited
            data["drawn"] = data["version"]
            for lab, art in pts.items():
                art.set_offsets(X[y == lab] if np.any(y == lab) else np.zeros((0, 2)))
        if np.unique(y).size < 2:
            regions.set_data(np.broadcast_to(tint[int(y[0] > 0) if len(y) else 0], (*G1.shape, 4)))
            boundary.set_data([], [])
            ex.state.update(kernel=name, params=params, alpha=np.zeros(len(y)), train_accuracy=float("nan"),
                            test_accuracy=float("nan"), n_support=0, X=X.copy(), y=y.copy())
            ex.set_readout("<b>both classes are needed</b>: click to add a point of the other class")
            return
        key = (name, tuple(params.values()), c["lam"].value, data["version"])
        if key not in fits:
            if len(fits) > 256:
                fits.clear()
            with single_thread():       # small matrices: a thread pool costs more than it saves
                K = gram(name, X, **params)
                res = kernel_sgd_svm(K, y, c["lam"].value, T, seed)
                train = np.mean(np.where(K @ res.alpha >= 0, 1.0, -1.0) == y)
                sv = np.flatnonzero(res.alpha)     # only these points enter f(x) = Σ α_i k(x_i, x)
                Xs, a_s = X[sv], res.alpha[sv]
                test = np.mean(np.where(gram(name, Xt, Xs, **params) @ a_s >= 0, 1.0, -1.0) == yt)
                S = grid_scores(name, params, g, Xs, a_s)
            fits[key] = (res, train, test, tint[(S >= 0).astype(np.intp)], _zero_line(G1, G2, S))
        res, train, test, rgba, line = fits[key]
        regions.set_data(rgba)
        boundary.set_data(*line)
        desc = f"σ = {params['sigma']:.3g}" if name == "gaussian" else f"k = {params['degree']}"
        title.set_text(f"{name} kernel, {desc}, λ = {c['lam'].value:.2g}")
        ex.state.update(kernel=name, params=params, alpha=res.alpha,
                        train_accuracy=float(train), test_accuracy=float(test),
                        n_support=int(np.count_nonzero(res.alpha)), X=X.copy(), y=y.copy())
        ex.set_readout(f"training accuracy <b>{100 * train:.1f} %</b> &nbsp; test accuracy "
                       f"<b>{100 * test:.1f} %</b> &nbsp; non-zero α: {ex.state['n_support']} of {len(y)}"
                       f" &nbsp; (T = {T} SGD steps; click to add a point, click a point to remove it)")

    ex = Explorer(fig, controls, update, layout_rows=[["kernel", "lam"], ["sigma", "degree"], ["add"]],
                  title="Kernel SVM on two moons", css_class="kml-boundary-explorer")

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
    return ex


# the PSD lab lives in ch02_psd.py (this module would pass 400 lines)
from .ch02_psd import PSD_CANDIDATES, candidate_gram, make_psd_lab, psd_points  # noqa: E402
