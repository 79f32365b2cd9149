"""Widgets of chapter 09, theory part (HSS2 §2.4-2.5): the loss gallery with subgradients
and Rademacher averages against their bound as n grows. Re-exported by
:mod:`kmlteach.widgets.ch09`."""

from __future__ import annotations

import ipywidgets as W
import numpy as np

from ...plots import figure
from ...plots.ch09.theory import (
    draw_loss,
    draw_rademacher,
    margin_losses,
    rademacher_data,
    rademacher_path,
    set_loss,
    set_rademacher,
)
from .._base import Explorer, nowrap, number, slider

__all__ = ["make_loss_gallery", "make_rademacher_explorer", "RADEMACHER_NS"]


def make_loss_gallery(losses=None, loss: str = "soft_margin", z: float = 0.5, eta: float = 0.5) -> Explorer:
    """Pick a margin loss and a margin z₀ = y f(x): value, subgradient and tangent.

    Controls: ``loss`` (a name of ``losses``, default :func:`margin_losses`), ``z``.
    State: ``loss``, ``z``, ``value``, ``subgradient``, ``coef`` = −η ∂l/∂z (with y = +1,
    the coefficient NORMA gives the new term k(x, ·)), ``calibration`` ((c, s) of (2.27)
    or None; :data:`kmlteach.theory.BOOK_CALIBRATION`).
    """
    from ...theory import BOOK_CALIBRATION

    table = losses or margin_losses()
    fig, (ax_l, ax_g) = figure(10.5, 4.4, ncols=2)
    # a margin on the right: the right panel's frame ended on the image's last column
    fig.get_layout_engine().set(rect=(0.0, 0.0, 0.985, 1.0))
    arts = draw_loss(ax_l, ax_g, table)
    controls = {
        "loss": W.Dropdown(
            options=list(table), value=loss, description="loss", layout=W.Layout(width="220px")
        ),
        "z": slider("margin z₀ = y f(x)", z, -2.5, 2.5, 0.05, readout_format=".2f", width="380px"),
    }

    def update(ex: Explorer) -> None:
        st = set_loss(arts, ex.controls["loss"].value, float(ex.controls["z"].value))
        st["coef"] = -eta * st["subgradient"]
        st["calibration"] = BOOK_CALIBRATION.get(st["loss"])
        ex.state.update(st)
        cal = st["calibration"]
        ex.set_readout(
            nowrap(
                f"{st['loss']}: l({number(st['z'], '.2f')}) = <b>{number(st['value'], '.4f')}</b>,",
                f"subgradient ∂l/∂z = <b>{number(st['subgradient'], '.4f')}</b>",
                sep=" ",
            )
            + "<br>"
            + nowrap(
                f"NORMA's new coefficient for y = +1, η = {eta:g}: −η ∂l/∂z = {number(st['coef'], '+.4f')}",
                f"calibration (2.27): c = {cal[0]:.3f}, s = {cal[1]:g}" if cal else "",
            )
        )

    return Explorer(
        fig,
        controls,
        update,
        title="Margin losses and their subgradients (HSS2 §2.4)",
        css_class="kml-loss-gallery",
    )


RADEMACHER_NS = (10, 20, 50, 100, 200, 500, 1000, 2000)


def make_rademacher_explorer(
    X=None, ns=RADEMACHER_NS, n_draws: int = 1000, n: int = 100, path=None
) -> Explorer:
    """An n slider over precomputed Monte-Carlo Rademacher averages and their bound.

    Controls: ``n`` (one of ``ns``). State: ``n``, ``estimate``, ``stderr``, ``bound``,
    ``ratio``.
    """
    if path is None:
        X = rademacher_data(max(ns)) if X is None else np.asarray(X, dtype=float)
        path = rademacher_path(X, ns, n_draws=n_draws)
    fig, (ax, ax_r) = figure(10.5, 4.5, ncols=2, width_ratios=[1.3, 1])
    arts = draw_rademacher(ax, ax_r, path)
    opts = [int(v) for v in path["ns"]]
    controls = {
        "n": W.SelectionSlider(
            options=opts,
            value=min(opts, key=lambda v: abs(v - n)),
            description="sample size n",
            continuous_update=True,
            style={"description_width": "initial"},
            layout=W.Layout(width="420px"),
        )
    }

    def update(ex: Explorer) -> None:
        k = opts.index(int(ex.controls["n"].value))
        st = set_rademacher(arts, path, k)
        ex.state.update(st)
        ex.set_readout(
            f"n = <b>{st['n']}</b>: estimate {st['estimate']:.4f} ± {st['stderr']:.4f} "
            f"≤ bound √(Σ‖xᵢ‖²)/n = {st['bound']:.4f} &nbsp; (ratio {st['ratio']:.3f}; "
            f"Khintchine-Kahane keeps it ≥ 1/√2 = {1 / np.sqrt(2):.3f})"
        )

    return Explorer(
        fig,
        controls,
        update,
        title="Rademacher average vs its bound (HSS2 (2.26))",
        css_class="kml-rademacher-explorer",
    )
