"""Widgets of chapter 09 (HSS2 §2.2.2-2.5).

* :func:`make_nu_explorer` — the ν-SVM (2.6) on a grid of ν: margin band, support
  vectors, margin errors and the two fractions that bracket ν; ν = 1 is the Parzen limit.
* :func:`make_oneclass_explorer` — the one-class SVM (2.8): ν, σ and injected outliers;
  the boundary {f = 0} over the Parzen density.
* :func:`make_norma_stream` — NORMA (Algorithm 2.1) one point at a time: the expansion
  grows, λ shrinks old coefficients, mistakes against the perceptron bound.

Everything expensive (the solutions, level lines) is computed once when the widget is
built; an update only picks a precomputed state and moves artists.
"""

from __future__ import annotations

import ipywidgets as W
import numpy as np

from ...kernels import gram
from ...plots import figure
from ...plots.ch09 import (
    level_lines,
    norma_axes,
    norma_history,
    nu_axes,
    nu_data,
    nu_path,
    oneclass_axes,
    oneclass_data,
    oneclass_path,
    plane_grid,
    set_norma,
    set_nu,
    set_oneclass,
    stream_data,
)
from .._base import Explorer, int_slider, slider
from .._predict import predict_mode, within

__all__ = ["make_nu_explorer", "make_oneclass_explorer", "make_norma_stream", "NU_GRID", "perceptron_bound"]

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
    arts = nu_axes(ax_p, ax_f, path)
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
            f"{st['frac_sv']:.3f} {'✓' if ok else '✗'} &nbsp; ρ = {st['rho']:.3f}, b = {st['b']:.3f}"
            f"{parzen}"
        )

    ex = Explorer(
        fig, controls, update, title="ν-SVM: the ν slider (HSS2 (2.6))", css_class="kml-nu-explorer"
    )
    if predict:
        curves = [ln for ln in ax_f.get_lines() if ln.get_label().startswith("fraction of")]
        predict_mode(
            ex,
            slider("guess: fraction of SVs", 0.5, 0.0, 1.0, 0.01, readout_format=".2f"),
            lambda ex_: ex_.state["frac_sv"],
            [arts["sv"], arts["me"], arts["pts"], *curves],
            "what fraction of the sample will be support vectors at this ν?",
            score=within(0.05),
            watch=["nu"],
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
    arts = oneclass_axes(ax, path)
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


def perceptron_bound(X, y) -> tuple[float, float, float]:
    """``(R, γ, (R/γ)²)`` for the perceptron through the origin: R = max ||x_i||, γ the
    margin of the homogeneous hard SVM (Novikoff's theorem, HSS2 §2.2.1)."""
    from ...svm import hard_svm

    R = float(np.max(np.linalg.norm(X, axis=1)))
    gamma = float(hard_svm(X, y, homogeneous=True).margin)
    return R, gamma, (R / gamma) ** 2


_LAMS = (0.0, 0.01, 0.05, 0.2)
_BUDGETS = (("none", None), ("10", 10), ("30", 30))


def make_norma_stream(X=None, y=None, sigma: float = 0.5, eta: float = 1.0, G: int = 60) -> Explorer:
    """NORMA on a stream, one step at a time (HSS2 Algorithm 2.1, kernel-expansion form).

    Controls: ``kernel`` (linear/gaussian), ``loss`` (perceptron/hinge), ``lam`` (λ),
    ``budget`` (keep the last τ terms), ``t`` (steps taken; a Play button drives it).
    Each configuration is run once (one :func:`kmlteach.online.norma` pass) and cached.
    State: ``t``, ``coef`` (of f_{t+1}), ``n_terms``, ``mistakes``, ``bound`` (NaN where
    Novikoff's theorem does not apply), ``config``.
    """
    from ...online import norma

    if X is None:
        X, y = stream_data()
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    n = len(y)
    lim = float(np.max(np.abs(X))) + 0.1
    xs, ys, Z = plane_grid((-lim, -lim), (lim, lim), G)
    Kz = {"linear": gram("linear", Z, X), "gaussian": gram("gaussian", Z, X, sigma=sigma)}
    R, gamma, bound = perceptron_bound(X, y)
    cache: dict = {}

    def run(cfg):
        if cfg not in cache:
            kernel, loss, lam, budget = cfg
            kw = {"sigma": sigma} if kernel == "gaussian" else {}
            res = norma(X, y, lam, eta, kernel=kernel, loss=loss, budget=budget, **kw)
            C = norma_history(res, y, budget)
            cache[cfg] = {
                "res": res,
                "C": C,
                "lines": {},
                "scale": 260.0 / max(float(np.max(np.abs(C))), 1e-12),
            }
        return cache[cfg]

    top = max(
        bound,
        float(
            max(
                run((k, ls, 0.0, None))["res"].mistakes[-1]
                for k in ("linear", "gaussian")
                for ls in ("perceptron", "hinge")
            )
        ),
    )
    fig, (ax_p, ax_m) = figure(10.5, 4.6, ncols=2, width_ratios=[1.1, 1])
    arts = norma_axes(ax_p, ax_m, X, y, lim=lim)
    ax_m.set_ylim(0.8, 1.6 * top)
    controls = {
        "kernel": W.Dropdown(
            options=["linear", "gaussian"],
            value="linear",
            description="kernel",
            layout=W.Layout(width="190px"),
        ),
        "loss": W.Dropdown(
            options=["perceptron", "hinge"],
            value="perceptron",
            description="loss",
            layout=W.Layout(width="200px"),
        ),
        "lam": W.SelectionSlider(
            options=[(f"{v:g}", v) for v in _LAMS],
            value=0.0,
            description="λ",
            continuous_update=True,
            layout=W.Layout(width="220px"),
        ),
        "budget": W.Dropdown(
            options=_BUDGETS, value=None, description="budget τ", layout=W.Layout(width="170px")
        ),
        "t": int_slider("step t", 1, 1, n, width="420px"),
    }

    def update(ex: Explorer) -> None:
        c = ex.controls
        cfg = (c["kernel"].value, c["loss"].value, float(c["lam"].value), c["budget"].value)
        t = int(c["t"].value)
        e = run(cfg)
        if t not in e["lines"]:
            e["lines"][t] = level_lines(xs, ys, (Kz[cfg[0]] @ e["C"][t - 1]).reshape(G, G), 0.0)
        applies = cfg[0] == "linear" and cfg[1] == "perceptron" and cfg[2] == 0.0 and cfg[3] is None
        b = bound if applies else float("nan")
        mist = e["res"].mistakes
        set_norma(arts, X, y, e["C"], mist, t, e["lines"][t], b, e["scale"])
        coef = e["C"][t - 1]
        ex.state.update(
            t=t,
            coef=coef,
            n_terms=int(np.count_nonzero(coef)),
            mistakes=int(mist[t - 1]),
            bound=b,
            config=cfg,
        )
        new = coef[t - 1]
        shrink = 1.0 - eta * cfg[2]
        ex.set_readout(
            f"t = <b>{t}</b>: y<sub>t</sub> f<sub>t</sub>(x<sub>t</sub>) = {y[t - 1] * e['res'].predictions[t - 1]:.3f},"
            f" new coefficient −η l′<sub>t</sub> = {new:+.3f}; old ones × (1 − ηλ) = {shrink:.3f}; "
            f"{ex.state['n_terms']} terms &nbsp; mistakes {ex.state['mistakes']}"
            + (
                f" ≤ (R/γ)² = ({R:.2f}/{gamma:.3f})² = {bound:.1f}"
                if applies
                else " (Novikoff's bound needs the linear perceptron with λ = 0 and no budget)"
            )
        )

    ex = Explorer(
        fig,
        controls,
        update,
        per_row=4,
        title="NORMA on a stream (HSS2 Algorithm 2.1)",
        css_class="kml-norma-stream",
    )
    play = W.Play(value=1, min=1, max=n, step=1, interval=250, description="play")
    W.jslink((play, "value"), (controls["t"], "value"))
    row = ex.children[2] if len(ex.children) > 4 else ex.children[1]
    row.children = (play,) + tuple(row.children)
    ex.play = play
    return ex
