"""Widget of chapter 09: NORMA (HSS2 Algorithm 2.1) one point at a time — the expansion
grows, λ shrinks old coefficients, mistakes against the perceptron bound; drawn by
:mod:`kmlteach.plots.ch09.norma`.

Each configuration is run once (one :func:`kmlteach.online.norma` pass) when first asked for;
an update only picks a precomputed state and moves artists.
"""

from __future__ import annotations

import ipywidgets as W
import numpy as np

from ...kernels import gram
from ...plots import figure
from ...plots.ch09.common import level_lines, plane_grid, stream_data
from ...plots.ch09.norma import draw_norma, norma_history, set_norma
from .._base import Explorer, int_slider, number

__all__ = ["make_norma_stream", "perceptron_bound"]


def perceptron_bound(X, y) -> tuple[float, float, float]:
    """``(R, γ, (R/γ)²)`` for the perceptron through the origin: R = max ||x_i||, γ the
    margin of the homogeneous hard SVM (Novikoff's theorem, HSS2 §2.2.1)."""
    from ...svm import hard_svm

    R = float(np.max(np.linalg.norm(X, axis=1)))
    gamma = float(hard_svm(X, y, homogeneous=True).margin)
    return R, gamma, (R / gamma) ** 2


_LAMS = (0.0, 0.01, 0.05, 0.2)
# (the value 0 stands for "no budget": a drop-down whose value is None shows no selection)
_BUDGETS = (("none", 0), ("10", 10), ("30", 30))


def make_norma_stream(X=None, y=None, sigma: float = 0.5, eta: float = 0.5, G: int = 60) -> Explorer:
    """NORMA on a stream, one step at a time (HSS2 Algorithm 2.1, kernel-expansion form).

    σ = 0.5 and η = 0.5 are chapter 09's, so that the widget's counts are the ones its cells
    print (the Gaussian kernel with hinge loss and λ = 0.05: 4 mistakes in 120 steps). For
    the perceptron with λ = 0, η only scales f (every coefficient is ±η): its mistakes are
    those of η = 1. The readout names η.

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
    # room for the ring around the point just seen (15 pt across) at the edge of the data
    lim = float(np.max(np.abs(X))) + 0.25
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
    arts = draw_norma(ax_p, ax_m, X, y, lim=lim)
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
            layout=W.Layout(width="300px"),
        ),
        "budget": W.Dropdown(
            options=_BUDGETS, value=0, description="budget τ", layout=W.Layout(width="170px")
        ),
        "t": int_slider("step t", 1, 1, n, width="420px"),
    }

    def update(ex: Explorer) -> None:
        c = ex.controls
        cfg = (c["kernel"].value, c["loss"].value, float(c["lam"].value), c["budget"].value or None)
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
            f"t = <b>{t}</b>: y<sub>t</sub> f<sub>t</sub>(x<sub>t</sub>) = {number(y[t - 1] * e['res'].predictions[t - 1])},"
            f" new coefficient −η l′<sub>t</sub> = {number(new, '+.3f')}; old ones × (1 − ηλ) = {number(shrink)}"
            f" (η = {eta:g}); "
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
        layout_rows=[["kernel", "loss", "budget"], ["lam", "t"]],
        title="NORMA on a stream (HSS2 Algorithm 2.1)",
        css_class="kml-norma-stream",
    )
    play = W.Play(value=1, min=1, max=n, step=1, interval=250, description="play")
    W.jslink((play, "value"), (controls["t"], "value"))
    row = next(b for b in ex.children if isinstance(b, W.HBox) and controls["t"] in b.children)
    row.children = tuple(row.children)[:-1] + (play, controls["t"])
    ex.play = play
    return ex
