"""Widgets of chapter 09 (HSS2 §2.2.2-2.3): the ν-SVM and the one-class SVM, drawn by
:mod:`kmlteach.plots.ch09.svm`.

* :func:`make_nu_explorer` — the ν-SVM (2.6) on a grid of ν: margin band, support
  vectors, margin errors and the two fractions that bracket ν; ν = 1 is the Parzen limit.
* :func:`make_oneclass_explorer` — the one-class SVM (2.8): ν, σ and injected outliers;
  the boundary {f = 0} over the Parzen density.

Everything expensive (the solutions, level lines) is computed once when the widget is
built; an update only picks a precomputed state and moves artists.
"""

from __future__ import annotations

import ipywidgets as W
import numpy as np

from ...plots import figure
from ...plots.ch09.common import nu_data, oneclass_data
from ...plots.ch09.svm import draw_nu, draw_oneclass, nu_path, oneclass_path, set_nu, set_oneclass
from .._base import Explorer, number, slider
from .._predict import NumberGuess, predict_mode, within

__all__ = ["make_nu_explorer", "make_oneclass_explorer", "NU_GRID"]

NU_GRID = np.round(np.arange(1, 41) * 0.025, 3)
"""The ν values of :func:`make_nu_explorer` (the slider snaps to them)."""


def _index(grid, value) -> int:
    return int(np.argmin(np.abs(np.asarray(grid) - float(value))))


def _grid_slider(description: str, grid, value: float, **kw):
    """A slider over the evenly spaced values ``grid`` (a precomputed path), at the one
    nearest ``value``."""
    step = float(np.round(grid[1] - grid[0], 6))
    return slider(description, float(grid[_index(grid, value)]), float(grid[0]), float(grid[-1]), step, **kw)


def make_nu_explorer(
    X=None, y=None, sigma: float = 1.0, nu: float = 0.3, path=None, predict: bool = False
) -> Explorer:
    """ν slider over the precomputed ν-SVM solutions of :func:`kmlteach.plots.ch09.nu_path`.

    Controls: ``nu`` (snaps to :data:`NU_GRID`). State: ``nu``, ``rho``, ``b``,
    ``frac_sv``, ``frac_me``, ``alpha``, ``all_alpha_one`` (the Parzen limit ν = 1).

    ``predict=True``: at each ν the student first guesses the fraction of support vectors
    (scored right within 0.05 of it); the support vectors, margin errors and the two
    fraction curves stay hidden until *Reveal* (:mod:`kmlteach.widgets._predict`).
    """
    if path is None:
        if X is None:
            X, y = nu_data()
        path = nu_path(X, y, NU_GRID, sigma=sigma)
    grid = path["nus"]
    fig, (ax_p, ax_f) = figure(10.5, 4.6, ncols=2, width_ratios=[1.35, 1])
    arts = draw_nu(ax_p, ax_f, path)
    controls = {"nu": _grid_slider("ν", grid, nu, readout_format=".3f", width="420px")}

    def update(ex: Explorer) -> None:
        k = _index(grid, ex.controls["nu"].value)
        st = set_nu(arts, path, k)
        st["all_alpha_one"] = bool(np.all(st["alpha"] == 1.0))
        ex.state.update(st, k=k)
        parzen = (
            " — every α<sub>i</sub> = 1: f is Σ y<sub>i</sub> k(x<sub>i</sub>, x) + b, an affine"
            " copy of the Parzen-window classifier (HSS1 (1.6)); its boundary (dotted) is another"
            " level set of the same function"
            if st["all_alpha_one"]
            else ""
        )
        ok = st["frac_me"] <= st["nu"] <= st["frac_sv"]
        ex.set_readout(
            f"ν = <b>{st['nu']:.3f}</b>: margin errors {st['frac_me']:.3f} ≤ ν ≤ support vectors "
            f"{st['frac_sv']:.3f} {'✓' if ok else '✗'} &nbsp; ρ = {number(st['rho'])}, b = {number(st['b'])}"
            f"{parzen}"
        )

    ex = Explorer(
        fig, controls, update, title="ν-SVM: the ν slider (HSS2 (2.6))", css_class="kml-nu-explorer"
    )
    if predict:
        curves = [ln for ln in ax_f.get_lines() if ln.get_label().startswith("fraction of")]
        predict_mode(
            ex,
            NumberGuess("guess: fraction of SVs", 0, 1),
            lambda ex_: ex_.state["frac_sv"],
            [arts["sv"], arts["me"], arts["pts"], *curves],
            "what fraction of the sample will be support vectors at this ν?",
            score=within(0.05),
            watch=["nu"],
            item_id="09.p_sv_fraction",
        )
    return ex


OC_NUS = np.round(np.arange(1, 21) * 0.05, 3)
OC_SIGMAS = (0.05, 0.1, 0.2, 0.4)


def make_oneclass_explorer(X=None, outliers=None, nu: float = 0.2, sigma: float = 0.1, path=None) -> Explorer:
    """ν and σ sliders and a checkbox that injects outliers into the one-class SVM (2.8).

    Controls: ``nu`` (grid 0.05..1), ``sigma`` (one of :data:`OC_SIGMAS`), ``outliers``.
    State: ``nu``, ``sigma``, ``outliers``, ``n``, ``rho``, ``frac_sv``, ``frac_out``,
    ``alpha``.
    """
    if path is None:
        if X is None:
            X, outliers = oneclass_data()
        path = oneclass_path(X, outliers, OC_NUS, OC_SIGMAS)
    nus, sigmas = path["nus"], path["sigmas"]
    fig, ax = figure(7.0, 4.6)
    arts = draw_oneclass(ax, path)
    controls = {
        "nu": _grid_slider("ν", nus, nu, readout_format=".2f", width="300px"),
        "sigma": W.SelectionSlider(
            options=[(f"{s:g}", float(s)) for s in sigmas],
            value=float(sigmas[_index(sigmas, sigma)]),
            description="σ",
            continuous_update=True,
            layout=W.Layout(width="260px"),
        ),
        "outliers": W.Checkbox(
            value=False,
            description=f"inject {len(path['outliers'])} outliers",
            indent=False,
            layout=W.Layout(width="170px"),
        ),
    }

    def update(ex: Explorer) -> None:
        k = _index(nus, ex.controls["nu"].value)
        j = _index(sigmas, ex.controls["sigma"].value)
        o = int(bool(ex.controls["outliers"].value))
        st = set_oneclass(arts, path, j, o, k)
        ex.state.update(st)
        ex.set_readout(
            f"n = {st['n']}, σ = {st['sigma']:g}, ν = <b>{st['nu']:.2f}</b>: outside "
            f"{st['frac_out']:.3f} ≤ ν ≤ support vectors {st['frac_sv']:.3f} &nbsp; ρ = {st['rho']:.3f}"
            + (" — ν = 1: every α<sub>i</sub> = 1, f + ρ is the Parzen sum" if st["nu"] == 1.0 else "")
        )

    return Explorer(
        fig,
        controls,
        update,
        title="One-class SVM: estimating the support (HSS2 (2.8))",
        css_class="kml-oneclass-explorer",
    )
