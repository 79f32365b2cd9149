"""Plots of chapter 09, theory part: the margin-loss gallery with subgradients (HSS2 §2.4,
§2.5.1) and Rademacher averages against their bound as n grows (HSS2 (2.26)).

As in the rest of :mod:`kmlteach.plots.ch09`: ``draw_*`` draws once and returns the artists,
``set_*`` moves them; static figures and the widgets of :mod:`kmlteach.widgets.ch09.theory`
share both.
"""

from __future__ import annotations

import numpy as np

from .._style import OKABE_ITO, label_axes

__all__ = [
    "margin_losses",
    "draw_loss",
    "set_loss",
    "rademacher_data",
    "rademacher_path",
    "draw_rademacher",
    "set_rademacher",
]

_COLORS = [OKABE_ITO[c] for c in ("grey", "vermillion", "blue", "green", "purple", "orange", "sky")]


def _of_margin(fn):
    """A loss of :mod:`kmlteach.theory` (f, y) ↦ (value, ∂l/∂f) as two functions of the
    margin z = y f: with y = +1, f = z and ∂l/∂f = ∂l/∂z."""

    def pick(field):
        def g(z):
            z = np.asarray(z, dtype=float)
            out = getattr(fn(z.reshape(-1), np.ones(z.size)), field)
            return out.reshape(z.shape) if z.ndim else float(out[0])

        return g

    return pick("value"), pick("gradient")


def margin_losses() -> dict:
    """``{name: (loss, subgradient)}`` of the binary margin losses as functions of z = y f(x):
    the 0-1 loss χ of HSS2 §2.5.1 and the surrogates ψ of the gallery
    (:data:`kmlteach.theory.BINARY_LOSSES`: soft margin, squared soft margin, logistic,
    exponential)."""
    from ... import losses, theory

    table = {"0-1": losses.LOSSES["zero_one"]}
    for name in theory.BINARY_LOSSES:
        table[name] = _of_margin(getattr(theory, name))
    return table


def draw_loss(ax_loss, ax_grad, table: dict, zlim: float = 2.5):
    """All losses of ``table`` against the margin z (left) and their subgradients (right);
    the selected one is drawn bold with its value, subgradient and tangent at a point z₀."""
    z = np.linspace(-zlim, zlim, 401)
    arts = {"loss": {}, "grad": {}}
    for (name, (f, g)), col in zip(table.items(), _COLORS * 3):
        (arts["loss"][name],) = ax_loss.plot(z, f(z), color=col, lw=1.2, alpha=0.35, label=name)
        (arts["grad"][name],) = ax_grad.plot(z, g(z), color=col, lw=1.2, alpha=0.35, label=name)
    # the selected loss is a bold copy drawn over its faint curve: picking another one moves
    # these two lines only, the faint curves stay in a widget's blitted background
    arts["z"] = z
    (arts["bold"],) = ax_loss.plot([], [], lw=3.0, zorder=2.5)
    (arts["gbold"],) = ax_grad.plot([], [], lw=3.0, zorder=2.5)
    (arts["tangent"],) = ax_loss.plot(
        [], [], color=OKABE_ITO["black"], lw=1.3, ls="--", label="l(z₀) + g (z − z₀)"
    )
    (arts["pt"],) = ax_loss.plot([], [], "o", color=OKABE_ITO["black"], ms=8, zorder=5)
    (arts["gpt"],) = ax_grad.plot([], [], "o", color=OKABE_ITO["black"], ms=8, zorder=5)
    arts["gline"] = ax_grad.axvline(0, color=OKABE_ITO["grey"], lw=1, ls=":")
    ax_loss.set_xlim(-zlim, zlim)
    ax_loss.set_ylim(-0.3, 4.0)
    ax_grad.set_xlim(-zlim, zlim)
    ax_grad.set_ylim(-3.2, 0.6)
    ax_loss.legend(fontsize=7.5, loc="upper center", bbox_to_anchor=(0.5, -0.15), ncol=3)
    label_axes(ax_loss, "margin z = y f(x)", "loss l(z)", "margin losses")
    label_axes(ax_grad, "margin z = y f(x)", "subgradient ∂l/∂z", "their (sub)gradients")
    arts["table"] = table
    return arts


def set_loss(arts, name: str, z0: float) -> dict:
    """Highlight loss ``name`` and mark its value and subgradient at z₀."""
    for bold, faint in ((arts["bold"], arts["loss"][name]), (arts["gbold"], arts["grad"][name])):
        bold.set_data(arts["z"], faint.get_ydata())
        bold.set_color(faint.get_color())
    f, g = arts["table"][name]
    val, sub = float(f(z0)), float(g(z0))
    arts["pt"].set_data([z0], [val])
    arts["gpt"].set_data([z0], [sub])
    arts["gline"].set_xdata([z0, z0])
    zz = np.array([z0 - 1.2, z0 + 1.2])
    arts["tangent"].set_data(zz, val + sub * (zz - z0))
    return {"loss": name, "z": float(z0), "value": val, "subgradient": sub}


# --- Rademacher averages (HSS2 §2.5.2) -------------------------------------------------------


def rademacher_data(n: int = 2000, d: int = 20, seed: int = 4) -> np.ndarray:
    """A sample in d dimensions with unequal scales (coordinate j has standard deviation
    1/√(j+1)), so the bound depends on the data's lengths, not on d."""
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, d)) / np.sqrt(np.arange(1, d + 1))


def rademacher_path(X, ns, n_draws: int = 1000, seed: int = 0) -> dict:
    """Monte-Carlo Rademacher averages of the unit ball of linear functions on the first
    n rows of X for every n of ``ns`` (:func:`kmlteach.theory.rademacher_linear`)."""
    from ...theory import rademacher_linear

    est, se, bound = [], [], []
    for n in ns:
        r = rademacher_linear(X[: int(n)], n_draws=n_draws, seed=seed)
        est.append(r.estimate)
        se.append(r.stderr)
        bound.append(r.bound)
    return {
        "ns": np.asarray(ns, dtype=float),
        "estimate": np.array(est),
        "stderr": np.array(se),
        "bound": np.array(bound),
        "r": float(np.sqrt(np.mean(np.sum(X**2, axis=1)))),
    }


def draw_rademacher(ax, ax_ratio, path):
    """Estimate ± 2 standard errors and the bound √(Σ||x_i||²)/n against n (log-log, left);
    their ratio, which Khintchine-Kahane keeps in [1/√2, 1] (right)."""
    ns, est, se, bound = path["ns"], path["estimate"], path["stderr"], path["bound"]
    ax.plot(ns, bound, color=OKABE_ITO["vermillion"], lw=2, label="bound √(Σ‖xᵢ‖²)/n")
    ax.plot(ns, bound / np.sqrt(2), color=OKABE_ITO["vermillion"], lw=1.2, ls=":", label="bound / √2")
    ax.plot(ns, path["r"] / np.sqrt(ns), color=OKABE_ITO["grey"], lw=1, ls="--", label="r/√n")
    ax.errorbar(
        ns, est, yerr=2 * se, fmt="o", ms=4, color=OKABE_ITO["blue"], label="Monte-Carlo estimate ± 2 s.e."
    )
    (pt,) = ax.plot([], [], "o", ms=13, mfc="none", mec=OKABE_ITO["black"], mew=2)
    ax.set_xscale("log")
    ax.set_yscale("log")
    # legends under the axes: the marker of the chosen n moves over the whole panel
    ax.legend(fontsize=7.5, loc="upper center", bbox_to_anchor=(0.5, -0.17), ncol=2, frameon=False)
    label_axes(ax, "sample size n", "R̂ₙ", "empirical Rademacher average")
    ax_ratio.axhspan(1 / np.sqrt(2), 1.0, color=OKABE_ITO["green"], alpha=0.12, lw=0, label="[1/√2, 1]")
    ax_ratio.plot(ns, est / bound, "o-", color=OKABE_ITO["blue"], ms=4, lw=1.2, label="estimate / bound")
    (rpt,) = ax_ratio.plot([], [], "o", ms=13, mfc="none", mec=OKABE_ITO["black"], mew=2)
    ax_ratio.set_xscale("log")
    ax_ratio.set_ylim(0.5, 1.1)
    ax_ratio.legend(fontsize=7.5, loc="upper center", bbox_to_anchor=(0.5, -0.17), ncol=2, frameon=False)
    label_axes(ax_ratio, "sample size n", "ratio", "estimate / bound")
    return {"pt": pt, "rpt": rpt}


def set_rademacher(arts, path, k: int) -> dict:
    """Mark sample size number ``k``; returns its numbers."""
    n, e, s, b = (path[key][k] for key in ("ns", "estimate", "stderr", "bound"))
    arts["pt"].set_data([n], [e])
    arts["rpt"].set_data([n], [e / b])
    return {"n": int(n), "estimate": float(e), "stderr": float(s), "bound": float(b), "ratio": float(e / b)}
