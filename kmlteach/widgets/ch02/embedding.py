"""Widget of chapter 02: the kernel embedding explorer (lift, rotate, see the plane and its
pre-image). Re-exported by :mod:`kmlteach.widgets.ch02`.

Each data set has its own figure, drawn once when the explorer is built: switching data
sets swaps figure and blitter, so it costs a blitted frame, not a new layout and a full
draw. The 3-D view is :class:`~kmlteach.widgets.ch02.box3d.Box3D` (2-D artists), so a
rotation repaints a few artists rather than a whole ``mplot3d`` Axes.
"""

from __future__ import annotations

import ipywidgets as W
import numpy as np

from ..._render import Blitter, stamp
from ...datasets import line_example, rings
from ...plots import OKABE_ITO, binary_points, label_axes
from ...plots.ch02 import decision_grid, lift
from ...svm import soft_svm
from .._base import Explorer, slider
from .._threads import on_main_thread, single_thread
from .box3d import Box3D

__all__ = ["xor_points", "embedding_data", "make_embedding_explorer"]

DATASETS = ("line", "rings", "xor")


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


def _zero_line(G1, G2, S):
    """The level set S = 0 on the grid as (x, y) with NaN between pieces (empty if none)."""
    if not (S.min() < 0 < S.max()):
        return np.zeros(0), np.zeros(0)
    from contourpy import contour_generator

    pieces = contour_generator(G1, G2, S).lines(0.0)
    xy = np.concatenate([np.r_[p, [[np.nan, np.nan]]] for p in pieces]) if pieces else np.zeros((0, 2))
    return xy[:, 0], xy[:, 1]


# beside the input axes, not over the pre-image (which moves with lambda: a legend over it
# would be laid out and repainted on every frame)
_LEGEND = dict(loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=9, frameon=False)
_UNICODE_LABELS = {
    "line": ("x", "x²", "z = 0"),
    "rings": ("x₁", "x₂", "x₁² + x₂²"),
    "xor": ("x₁", "x₂", "x₁x₂"),
}


# (the 3-D panel stops 6 % short of the right edge: its z label, drawn outside the box on
# the side the view puts it, was cut off at the image's edge)
_PANELS = {
    "line": ((0.0165, 0.1027, 0.381, 0.8419), (0.6, 0.1027, 0.335, 0.8419)),
    "2-d": ((0.0543, 0.0734, 0.3621, 0.9005), (0.615, 0.0734, 0.325, 0.9005)),
}


def _panel(name: str) -> dict:
    """The figure of one data set: input space (left) and the lifted points in 3-D (right)."""
    from matplotlib.figure import Figure

    X, y = embedding_data(name)
    Psi = lift(name, X)
    fig = Figure(figsize=(10.0, 4.6), layout="constrained")
    ax_in, ax3 = fig.add_subplot(1, 2, 1), fig.add_subplot(1, 2, 2)
    pn = {"fig": fig, "X": X, "y": y, "Psi": Psi, "grid": None}
    if name == "line":
        x = X[:, 0]
        binary_points(ax_in, np.c_[x, np.zeros_like(x)], y, s=40, zorder=3)  # on the line z = 0
        # the thresholds: one vertical NaN-separated line, mutated by each fit
        (pn["pre"],) = ax_in.plot([], [], color=OKABE_ITO["green"], lw=2, label="pre-image (thresholds)")
        ax_in.set_yticks([])
        ax_in.set_xlim(float(x.min()) - 0.5, float(x.max()) + 0.5)
        ax_in.set_ylim(-1, 1.2)
        label_axes(ax_in, "$x$", "", "input space")
        ax_in.legend(**_LEGEND)
        # the plane spans the data's box, with z in [-1, 1] (the data have z = 0)
        lo, hi = Psi.min(axis=0), Psi.max(axis=0)
        pad = 0.05 * np.maximum(hi - lo, 1e-9)
        lo, hi = np.r_[lo[:2] - pad[:2], -1.0], np.r_[hi[:2] + pad[:2], 1.0]
    else:
        binary_points(ax_in, X, y, s=22, edgecolors="white", linewidths=0.4, zorder=3)
        lim = (float(X.min()) - 0.3, float(X.max()) + 0.3)
        pn["grid"] = decision_grid(lim, 160)
        (pn["pre"],) = ax_in.plot([], [], color=OKABE_ITO["green"], lw=2, label="pre-image of the plane")
        ax_in.set_xlim(lim)
        ax_in.set_ylim(lim)
        ax_in.set_aspect("equal")
        label_axes(ax_in, "$x_1$", "$x_2$", "input space")
        ax_in.legend(**_LEGEND)
        lo, hi = Psi.min(axis=0), Psi.max(axis=0)
        pad = 0.05 * np.maximum(hi - lo, 1e-9)
        lo, hi = lo - pad * [1, 1, 3], hi + pad * [1, 1, 3]
    # the line's lift is (x, x², 0): its third axis has one tick, at the 0 every point sits on
    ticks = (None, None, [0.0]) if name == "line" else (None, None, None)
    pn["box"] = Box3D(ax3, lo, hi, _UNICODE_LABELS[name], Psi, y, ticks=ticks)
    ax3.set_title(r"feature space: plane $\langle w,\psi(x)\rangle + b = 0$", fontsize=10)
    stamp(ax3.title, *ax_in.get_legend().get_texts())
    # the panels where constrained layout puts them, fixed: the layout pass measured every
    # tick label and the legend, 0.1 s of the time to the first picture
    fig.set_layout_engine("none")
    for ax, box in zip((ax_in, ax3), _PANELS["line" if name == "line" else "2-d"]):
        ax.set_position(box)
    return pn


def _lam_key(lam: float) -> float:
    """The fit cache's key for a lambda: 10 significant digits (a slider value computed by
    the browser and the same grid value computed here may differ in the last bit)."""
    return float(f"{lam:.10g}")


def make_embedding_explorer(
    dataset: str = "rings", elev: float = 20.0, azim: float = -60.0, lam: float = 0.01
) -> Explorer:
    """Lift data through an explicit map psi into 3-D, rotate the view, see the plane.

    Embeddings (``plots.ch02.LIFTS``): "line" psi(x) = (x, x^2, 0) for the 1-D sample of
    UML §16.1; "rings" psi(x) = (x1, x2, x1^2 + x2^2); "xor" psi(x) = (x1, x2, x1 x2).
    The plane is the exact soft-SVM with bias (``svm.soft_svm``, objective (15.12)) on
    psi(x); its pre-image {x : <w, psi(x)> + b = 0} is drawn in input space. The 3-D view
    is orthographic (mplot3d's angles and box aspect), the plane cut at the data's box.
    State: ``dataset``, ``Psi``, ``w``, ``b``, ``accuracy``, ``elev``, ``azim``,
    ``thresholds`` (line data only), ``refits`` (how many times the plane moved).
    """
    if dataset not in DATASETS:
        raise ValueError(f"dataset must be one of {', '.join(DATASETS)}; got {dataset!r}")
    controls = {
        "dataset": W.Dropdown(
            options=[("1-D line (UML §16.1)", "line"), ("2-D rings", "rings"), ("2-D xor", "xor")],
            value=dataset,
            description="data",
            layout=W.Layout(width="250px"),
        ),
        "lam": slider("λ (soft-SVM)", lam, -4, 0, 0.25, log=True, readout_format=".4f", width="300px"),
        "elev": slider("elevation", elev, -10, 90, 5, readout_format=".0f", width="300px"),
        "azim": slider("azimuth", azim, -180, 180, 5, readout_format=".0f", width="300px"),
    }
    panels = {dataset: _panel(dataset)}
    fits: dict = {}  # (data set, lam) -> the plane and what it shows: revisits are free

    def fit(name, lam_):
        pn = panels[name]
        y, Psi = pn["y"], pn["Psi"]
        with single_thread():
            res = soft_svm(Psi, y, lam_, homogeneous=False)
        w, b = res.w.copy(), float(res.b)
        if name == "line":
            th = _line_thresholds(w, b)
            pre = (np.repeat(th, 3), np.tile([-1.0, 1.2, np.nan], len(th)))
        else:
            th = None
            G1, G2, P = pn["grid"]
            pre = _zero_line(G1, G2, (lift(name, P) @ w + b).reshape(G1.shape))
        return w, b, float(np.mean(np.where(Psi @ w + b >= 0, 1.0, -1.0) == y)), th, pre

    def set_artists(name: str):
        key = (name, _lam_key(controls["lam"].value))
        if key not in fits:
            fits[key] = fit(name, controls["lam"].value)
        pn = panels[name]
        pn["pre"].set_data(*fits[key][4])
        pn["box"].draw(controls["elev"].value, controls["azim"].value, *fits[key][:2])
        return key, fits[key]

    def prepare(name: str) -> None:
        """The figure of another data set: laid out, primed and drawn once (as Explorer does
        for the first one), so that choosing it costs a blitted frame."""
        if name in panels:
            return
        pn = panels[name] = _panel(name)
        pn["blitter"] = Blitter(pn["fig"], ex.dpi)
        set_artists(name)
        pn["blitter"].prime(lambda: set_artists(name))
        pn["blitter"].render()

    def paint(ex: Explorer, name: str) -> None:
        prepare(name)
        st, pn = ex.state, panels[name]
        ex.fig, ex.blitter = pn["fig"], pn.setdefault("blitter", ex.blitter)
        key, (w, b, acc, th, _) = set_artists(name)
        st.update(
            dataset=name,
            lam=controls["lam"].value,
            X=pn["X"],
            y=pn["y"],
            Psi=pn["Psi"],
            w=w,
            b=b,
            accuracy=acc,
            thresholds=th,
            elev=controls["elev"].value,
            azim=controls["azim"].value,
            refits=st.get("refits", 0) + (st.get("key") != key),
            key=key,
        )
        txt = (
            f"w = ({w[0]:.3f}, {w[1]:.3f}, {w[2]:.3f}), b = {b:.3f} &nbsp; "
            f"training accuracy {100 * acc:.1f} %"
        )
        if th is not None:
            txt += " &nbsp; pre-image: x = " + ", ".join(f"{t:.2f}" for t in th)
        ex.set_readout(txt)

    ex = Explorer(
        panels[dataset]["fig"],
        controls,
        lambda ex: paint(ex, ex.controls["dataset"].value),
        per_row=2,
        title="Kernel embedding: a plane in feature space is a curve in input space",
        css_class="kml-embedding-explorer",
    )

    def prepare_all() -> None:
        for name in DATASETS:
            prepare(name)

    # in Jupyter the other figures are drawn just after the cell has returned (the widget is
    # on screen ~0.3 s sooner); elsewhere, and if one is chosen before that, right away
    if not on_main_thread(prepare_all):
        prepare_all()
    # then every data set's plane at every lambda of the slider, one fit per turn of the
    # kernel's event loop (~5 ms each, between the student's own updates): a first visit of a
    # lambda is then a lookup too
    s_ = controls["lam"]
    todo = [
        (name, 10 ** (s_.min + k * s_.step))
        for name in DATASETS
        for k in range(int(round((s_.max - s_.min) / s_.step)) + 1)
    ]

    def precompute() -> None:
        while todo:
            name, lam_ = todo.pop(0)
            if name in panels and (name, _lam_key(lam_)) not in fits:
                fits[name, _lam_key(lam_)] = fit(name, lam_)
                break
        if todo:
            on_main_thread(precompute)

    on_main_thread(precompute)
    return ex
