"""Figures of chapter 01: hyperplanes, margins, support vectors, losses, SGD."""

from __future__ import annotations

import numpy as np

from ._style import OKABE_ITO, get_ax, label_axes, rings, scatter_classes

__all__ = [
    "hyperplane_segment",
    "plot_hyperplane",
    "plot_svm",
    "plot_losses",
    "plot_sgd_gap",
    "plot_novikoff",
]


def hyperplane_segment(w, b, xlim, ylim, offset: float = 0.0):
    """End points of {x : <w, x> + b = offset} clipped to the box ``xlim`` × ``ylim``.

    Returns two arrays (xs, ys) of length 2 (NaN if the line misses the box or w = 0).
    """
    w = np.asarray(w, dtype=float)
    nan = (np.array([np.nan, np.nan]), np.array([np.nan, np.nan]))
    if w.shape != (2,) or not np.any(w):
        return nan
    (x0, x1), (y0, y1) = xlim, ylim
    pts = []
    c = offset - b
    if abs(w[1]) > 1e-12:
        for x in (x0, x1):
            y = (c - w[0] * x) / w[1]
            if y0 - 1e-9 <= y <= y1 + 1e-9:
                pts.append((x, y))
    if abs(w[0]) > 1e-12:
        for y in (y0, y1):
            x = (c - w[1] * y) / w[0]
            if x0 - 1e-9 <= x <= x1 + 1e-9:
                pts.append((x, y))
    if len(pts) < 2:
        return nan
    pts = np.array(pts)
    # the two points furthest apart (corner hits may be duplicated)
    d = np.linalg.norm(pts[:, None] - pts[None], axis=-1)
    i, j = np.unravel_index(np.argmax(d), d.shape)
    return pts[[i, j], 0], pts[[i, j], 1]


def _limits(X, pad: float = 0.15):
    lo, hi = X.min(axis=0), X.max(axis=0)
    span = np.maximum(hi - lo, 1e-9)
    return (lo[0] - pad * span[0], hi[0] + pad * span[0]), (lo[1] - pad * span[1], hi[1] + pad * span[1])


def plot_hyperplane(
    w,
    b,
    ax,
    xlim=None,
    ylim=None,
    margin: bool = True,
    color=None,
    label: str | None = "hyperplane",
    band: bool = True,
):
    """Draw <w,x> + b = 0 and, with ``margin``, the lines <w,x> + b = ±1 and the band between."""
    xlim = xlim or ax.get_xlim()
    ylim = ylim or ax.get_ylim()
    color = color or OKABE_ITO["black"]
    xs, ys = hyperplane_segment(w, b, xlim, ylim)
    ax.plot(xs, ys, color=color, lw=2, label=label)
    if margin:
        for off in (-1.0, 1.0):
            xm, ym = hyperplane_segment(w, b, xlim, ylim, off)
            ax.plot(xm, ym, color=color, lw=1, ls="--")
        if band:
            _fill_band(ax, w, b, xlim, ylim, color=OKABE_ITO["grey"])
    ax.set_xlim(xlim)
    ax.set_ylim(ylim)
    return ax


def band_polygon(w, b, xlim, ylim, n: int = 2):
    """Polygon (k, 2) of the region -1 <= <w,x> + b <= 1 inside the box (may be empty)."""
    w = np.asarray(w, dtype=float)
    (x0, x1), (y0, y1) = xlim, ylim
    poly = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=float)
    for sign in (1.0, -1.0):  # clip with sign*(<w,x>+b) <= 1
        out = []
        f = sign * (poly @ w + b) - 1.0
        for i in range(len(poly)):
            p, q = poly[i], poly[(i + 1) % len(poly)]
            fp, fq = f[i], f[(i + 1) % len(poly)]
            if fp <= 0:
                out.append(p)
            if fp * fq < 0:
                out.append(p + (q - p) * fp / (fp - fq))
        poly = np.array(out) if out else np.zeros((0, 2))
        if len(poly) == 0:
            break
    return poly


def _fill_band(ax, w, b, xlim, ylim, color):
    from matplotlib.patches import Polygon

    poly = band_polygon(w, b, xlim, ylim)
    patch = Polygon(
        poly if len(poly) >= 3 else np.zeros((3, 2)),
        closed=True,
        color=color,
        alpha=0.18,
        lw=0,
        zorder=0,
        label="margin band",
    )
    ax.add_patch(patch)
    return patch


def plot_svm(X, y, w, b, support=None, ax=None, title=None, xlim=None, ylim=None, legend: bool = True):
    """Points, the hyperplane (w, b), its margin band and circled support vectors."""
    ax = get_ax(ax)
    X = np.asarray(X, dtype=float)
    if xlim is None or ylim is None:
        xlim, ylim = _limits(X)
    scatter_classes(X, y, ax=ax)
    plot_hyperplane(w, b, ax, xlim, ylim)
    if support is not None and len(support):
        rings(
            ax,
            X[support, 0],
            X[support, 1],
            OKABE_ITO["black"],
            1.4,
            s=160,
            label="support vectors",
            zorder=4,
        )
    ax.set_aspect("equal", adjustable="box")
    label_axes(ax, "$x_1$", "$x_2$", title)
    if legend:
        ax.legend(loc="upper left", fontsize=8, framealpha=0.9)
    return ax


def plot_losses(ax=None, z=None, losses=("zero_one", "hinge", "ramp", "logistic", "exponential")):
    """The margin losses of chapter 01 against the margin z = y<w,x>."""
    from .. import losses as L

    ax = get_ax(ax, 6, 3.6)
    z = np.linspace(-2.5, 2.5, 501) if z is None else z
    styles = {
        "zero_one": (OKABE_ITO["black"], "-", "0–1"),
        "hinge": (OKABE_ITO["blue"], "-", "hinge"),
        "ramp": (OKABE_ITO["vermillion"], "--", "ramp"),
        "logistic": (OKABE_ITO["green"], "-.", "logistic"),
        "exponential": (OKABE_ITO["purple"], ":", "exponential"),
    }
    for name in losses:
        fn = L.LOSSES[name][0]
        color, ls, lab = styles[name]
        ax.plot(z, fn(z), color=color, ls=ls, lw=2.2, label=lab)
    ax.set_ylim(-0.1, 3.6)
    ax.axvline(0, color=OKABE_ITO["grey"], lw=0.8)
    ax.axvline(1, color=OKABE_ITO["grey"], lw=0.8, ls=":")
    ax.legend(fontsize=9)
    label_axes(ax, r"margin $z = y\,\langle w, x\rangle$", "loss")
    return ax


def plot_sgd_gap(Ts, gaps, bound, ax=None, title=None):
    """Optimisation gap of SGD's averaged output against T, with the theoretical bound."""
    ax = get_ax(ax, 6, 3.6)
    ax.loglog(Ts, gaps, "o-", color=OKABE_ITO["blue"], lw=2, label=r"$F(\bar w) - F(w^\star)$")
    ax.loglog(Ts, bound, "--", color=OKABE_ITO["vermillion"], lw=2, label=r"bound $c\,(1+\ln T)/(\lambda T)$")
    ax.legend(fontsize=9)
    label_axes(ax, "number of SGD steps T", "optimisation gap", title)
    return ax


def plot_novikoff(updates, bounds, ax=None):
    """Perceptron updates against Novikoff's bound (R/γ)² for several samples."""
    ax = get_ax(ax, 5, 3.8)
    updates = np.asarray(updates, dtype=float)
    bounds = np.asarray(bounds, dtype=float)
    ax.loglog(bounds, updates, "o", color=OKABE_ITO["blue"], label="one random sample")
    lo, hi = min(bounds.min(), updates.min()) * 0.7, bounds.max() * 1.4
    ax.loglog([lo, hi], [lo, hi], "--", color=OKABE_ITO["vermillion"], label="updates = bound")
    ax.legend(fontsize=9)
    label_axes(ax, r"Novikoff bound $(R/\gamma)^2$", "perceptron updates")
    return ax
