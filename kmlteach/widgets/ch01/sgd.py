"""Chapter 01: the loss gallery and the convergence of SGD on the soft-margin SVM."""

from __future__ import annotations

import html

import ipywidgets as W
import numpy as np

from ... import losses as L
from ...plots import OKABE_ITO, figure, label_axes
from ...svm import sgd_soft_svm, soft_svm
from .._base import Explorer, class_scatters, int_slider, slider
from .margins import _plane_axes, _set_line, soft_margin_points

__all__ = ["make_loss_gallery", "make_sgd_explorer", "T_CHOICES"]


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
    label_axes(
        ax,
        r"margin $z = y\langle w, x\rangle$",
        "loss",
        "dotted: the line through the point with the subgradient's slope",
    )
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
        ex.set_readout(
            "<table><tr><th>loss</th><th>value</th><th>subgradient</th></tr>" + "".join(rows) + "</table>"
        )

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
        "T": W.SelectionSlider(
            options=list(T_CHOICES),
            value=100,
            description="steps T",
            continuous_update=True,
            style={"description_width": "initial"},
            layout=W.Layout(width="380px"),
        ),
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
        ex.state.update(
            T=T,
            lam=lam_,
            seed=s,
            w_sgd=np.asarray(res.w).copy(),
            w_exact=np.asarray(exact.w).copy(),
            objective_sgd=obj_sgd,
            objective_exact=float(exact.objective),
            gap=gap,
        )
        _set_line(exact_line, exact.w, 0.0)
        _set_line(sgd_line, res.w, 0.0)
        title.set_text(f"T = {T}: gap = {gap:.2e}")
        ex.set_readout(
            f"T = <b>{T}</b>, λ = {lam_:.3f}: objective of w̄ = {obj_sgd:.5f}, exact "
            f"minimum = {exact.objective:.5f}, gap = <b>{gap:.2e}</b>"
        )

    return Explorer(
        fig,
        controls,
        update,
        layout_rows=[["T"], ["lam", "seed"]],
        title="SGD for soft-SVM",
        css_class="kml-sgd-explorer",
    )
