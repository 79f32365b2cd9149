"""Chapter 09 plots: the ν-SVM (HSS2 (2.5)/(2.6)) and the one-class SVM (HSS2 (2.7)/(2.8)) over
precomputed solution paths."""

from __future__ import annotations

import numpy as np

from ..._render import paint_cached, region_layer
from ...kernels import gram
from .._style import OKABE_ITO, label_axes
from .common import _rings, _scatter_labelled, level_lines, plane_grid, smooth_rgba

__all__ = ["nu_path", "draw_nu", "set_nu", "oneclass_path", "draw_oneclass", "set_oneclass"]


# --- ν-SVM (HSS2 (2.5)/(2.6)) --------------------------------------------------------------


def nu_path(X, y, nus, sigma: float = 1.0, G: int = 70):
    """Solve the ν-SVM (2.6) with a Gaussian kernel for every ν of ``nus`` once.

    Returns a dict with ``nus``, ``alpha`` (k, n), ``b``, ``rho``, ``frac_sv``,
    ``frac_me`` (fractions of support vectors and of margin errors y f < ρ), the grid
    ``xs``, ``ys`` and the level lines ``lines[k] = {−1: .., 0: .., +1: ..}`` of f/ρ,
    plus ``F`` (k, G, G): f/ρ on the grid, clipped to [−2, 2].
    """
    from ...svm import nu_svm

    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    n = len(y)
    lo, hi = X.min(axis=0) - 0.6, X.max(axis=0) + 0.6
    xs, ys, Z = plane_grid(lo, hi, G)
    Kz = gram("gaussian", Z, X, sigma=sigma)
    sols = [nu_svm(X, y, float(nu), kernel="gaussian", sigma=sigma) for nu in nus]
    path = {
        "alpha": np.array([r.alpha for r in sols]),
        "b": np.array([r.b for r in sols]),
        "rho": np.array([r.rho for r in sols]),
        "frac_sv": np.array([len(r.support) / n for r in sols]),
        "frac_me": np.array([len(r.margin_errors) / n for r in sols]),
        "is_me": np.array([np.isin(np.arange(n), r.margin_errors) for r in sols]),
    }
    # f/ρ on the grid for every ν in one matrix product
    F = ((Kz @ (path["alpha"] * y).T + path["b"]) / path["rho"]).T.reshape(len(sols), G, G)
    path.update(
        F=np.clip(F, -2, 2),
        nus=np.asarray(nus, dtype=float),
        xs=xs,
        ys=ys,
        X=X,
        y=y,
        sigma=sigma,
        lines=[{c: level_lines(xs, ys, Fk, c) for c in (-1.0, 0.0, 1.0)} for Fk in F],
    )
    # the Parzen-window (class-mean) classifier of HSS1 (1.6), the ν = 1 limit up to its offset
    from ...kernel_methods import class_mean_classifier

    cm = class_mean_classifier(gram("gaussian", X, sigma=sigma), y)
    path["parzen_line"] = level_lines(xs, ys, (Kz @ cm.alpha + cm.b).reshape(G, G), 0.0)
    return path


def draw_nu(ax_plane, ax_frac, path):
    """Draw the ν-SVM picture: decision regions, {f = 0} and {f = ±ρ}, support vectors,
    margin errors (left); the two fractions against ν (right). Returns the artists."""
    X, y, xs, ys = path["X"], path["y"], path["xs"], path["ys"]
    img = region_layer(ax_plane, (xs[0], xs[-1], ys[0], ys[-1]), zorder=0)
    for k in range(len(path["nus"]))[::-1]:  # every shading now: a first visit stays cheap
        img.set_data(_nu_rgba(path, k))
    (l0,) = ax_plane.plot([], [], color=OKABE_ITO["black"], lw=2, label="f = 0")
    (lp,) = ax_plane.plot([], [], color=OKABE_ITO["black"], lw=1.2, ls="--", label="f = ±ρ")
    ax_plane.plot(
        *path["parzen_line"], color=OKABE_ITO["purple"], lw=1.6, ls=":", label="Parzen-window classifier"
    )
    paint_cached(*_scatter_labelled(ax_plane, X, y))  # static points over a changing layer
    sv = _rings(ax_plane, label="support vector (α > 0)", color=OKABE_ITO["green"])
    me = ax_plane.scatter(
        np.empty(0),
        np.empty(0),
        s=40,
        marker="x",
        color="black",
        lw=1.6,
        zorder=5,
        label="margin error (y f < ρ)",
    )
    ax_plane.set_xlim(xs[0], xs[-1])
    ax_plane.set_ylim(ys[0], ys[-1])
    # legends sit outside the axes, clear of everything that moves
    ax_plane.legend(fontsize=7.5, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=4)
    label_axes(ax_plane, "$x_1$", "$x_2$", "ν-SVM, Gaussian kernel")

    nus = path["nus"]
    ax_frac.plot([0, 1], [0, 1], color=OKABE_ITO["grey"], lw=1, ls=":", label="= ν")
    ax_frac.step(nus, path["frac_sv"], where="mid", color=OKABE_ITO["green"], lw=2, label="fraction of SVs")
    ax_frac.step(
        nus, path["frac_me"], where="mid", color=OKABE_ITO["black"], lw=2, label="fraction of margin errors"
    )
    vline = ax_frac.axvline(nus[0], color=OKABE_ITO["vermillion"], lw=1.5)
    (pts,) = ax_frac.plot([], [], "o", color=OKABE_ITO["vermillion"], ms=7)
    ax_frac.set_xlim(0, 1.02)
    ax_frac.set_ylim(0, 1.02)
    ax_frac.legend(fontsize=7.5, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=2)
    label_axes(ax_frac, "ν", "fraction of the sample", "the ν-property")
    return {"img": img, "l0": l0, "lp": lp, "sv": sv, "me": me, "vline": vline, "pts": pts}


def _nu_rgba(path, k: int) -> np.ndarray:
    """f/ρ of solution ``k`` shaded red/blue (RdBu_r over [−2.4, 2.4], 45 % over white),
    computed on first use and kept in ``path``."""
    cache = path.setdefault("rgba", {})
    if k not in cache:
        cache[k] = smooth_rgba(path["F"][k], "RdBu_r", -2.4, 2.4, alpha=0.45)
    return cache[k]


def set_nu(arts, path, k: int) -> dict:
    """Show the solution number ``k`` of ``path``; returns its numbers."""
    X = path["X"]
    arts["img"].set_data(_nu_rgba(path, k))
    lines = path["lines"][k]
    arts["l0"].set_data(*lines[0.0])
    arts["lp"].set_data(
        np.r_[lines[1.0][0], np.nan, lines[-1.0][0]], np.r_[lines[1.0][1], np.nan, lines[-1.0][1]]
    )
    sv = path["alpha"][k] > 0
    arts["sv"].set_offsets(X[sv])
    arts["me"].set_offsets(X[path["is_me"][k]])
    nu = path["nus"][k]
    arts["vline"].set_xdata([nu, nu])
    arts["pts"].set_data([nu, nu], [path["frac_me"][k], path["frac_sv"][k]])
    return {
        "nu": float(nu),
        "rho": float(path["rho"][k]),
        "b": float(path["b"][k]),
        "frac_sv": float(path["frac_sv"][k]),
        "frac_me": float(path["frac_me"][k]),
        "alpha": path["alpha"][k],
    }


# --- one-class SVM (HSS2 (2.7)/(2.8)) ------------------------------------------------------


def oneclass_path(X, outliers, nus, sigmas, G: int = 70):
    """Solve the one-class SVM (2.8) for every (σ, with/without outliers, ν) once.

    Returns a dict with ``nus``, ``sigmas``, the grid, and for each key ``(j, o)`` (σ
    index, outliers 0/1) an entry with the sample ``X``, the Parzen density on the grid
    scaled to its maximum (``dens``), and per ν: ``alpha``, ``rho``, ``frac_sv``,
    ``frac_out`` (fraction with f(x_i) < 0), ``is_out`` and the lines of {f = 0}.
    """
    from ...svm import one_class_svm

    X = np.asarray(X, dtype=float)
    outliers = np.asarray(outliers, dtype=float)
    both = np.r_[X, outliers]
    lo, hi = both.min(axis=0) - 0.5, both.max(axis=0) + 0.5
    xs, ys, Z = plane_grid(lo, hi, G)
    path = {
        "nus": np.asarray(nus, dtype=float),
        "sigmas": np.asarray(sigmas, dtype=float),
        "xs": xs,
        "ys": ys,
        "X": X,
        "outliers": outliers,
    }
    for j, sigma in enumerate(path["sigmas"]):
        for o in (0, 1):
            S = both if o else X
            n = len(S)
            Kz = gram("gaussian", Z, S, sigma=sigma)
            parzen = Kz.mean(axis=1) / (2 * np.pi * sigma)  # a density in the plane
            sols = [one_class_svm(S, float(nu), sigma=sigma) for nu in path["nus"]]
            A = np.array([r.alpha for r in sols])
            rho = np.array([r.rho for r in sols])
            F = (Kz @ A.T - rho).T.reshape(len(sols), G, G)  # f on the grid, every ν at once
            path[j, o] = {
                "X": S,
                "dens": (parzen / parzen.max()).reshape(G, G),
                "alpha": A,
                "rho": rho,
                "frac_sv": [len(r.support) / n for r in sols],
                "frac_out": [len(r.outliers) / n for r in sols],
                "is_out": [np.isin(np.arange(n), r.outliers) for r in sols],
                "lines": [level_lines(xs, ys, Fk, 0.0) for Fk in F],
            }
    return path


def draw_oneclass(ax, path):
    """Draw the one-class picture: Parzen density, {f = 0}, sample, support vectors and
    the points outside the estimated support. Returns the artists."""
    xs, ys = path["xs"], path["ys"]
    img = region_layer(ax, (xs[0], xs[-1], ys[0], ys[-1]), zorder=0)
    img.set_data(_density_rgba(path[0, 0]))
    (l0,) = ax.plot([], [], color=OKABE_ITO["vermillion"], lw=2.2, label="f = 0 (support boundary)")
    X = path["X"]
    paint_cached(
        ax.scatter(
            X[:, 0],
            X[:, 1],
            s=22,
            c=OKABE_ITO["blue"],
            edgecolors="white",
            linewidths=0.4,
            zorder=3,
            label="sample",
        )
    )
    inj = ax.scatter(
        np.empty(0),
        np.empty(0),
        s=46,
        c=OKABE_ITO["orange"],
        marker="D",
        edgecolors="black",
        linewidths=0.6,
        zorder=3,
        label="injected outlier",
    )
    sv = _rings(ax, s=110, color=OKABE_ITO["green"], lw=1.3, label="support vector (α > 0)")
    out = ax.scatter(
        np.empty(0), np.empty(0), s=30, marker="x", color="black", lw=1.4, zorder=5, label="outside (f < 0)"
    )
    ax.set_xlim(xs[0], xs[-1])
    ax.set_ylim(ys[0], ys[-1])
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
    label_axes(ax, "$x_1$", "$x_2$", "one-class SVM over the Parzen density (grey)")
    return {"img": img, "l0": l0, "inj": inj, "sv": sv, "out": out}


def _density_rgba(e) -> np.ndarray:
    """The Parzen density of one (σ, outliers) entry in grey (0 white, 1.15 black), smoothed
    and coloured once (:func:`smooth_rgba`): the layer is repainted on every update."""
    if "rgba" not in e:
        e["rgba"] = smooth_rgba(e["dens"], "Greys", 0.0, 1.15)
    return e["rgba"]


def set_oneclass(arts, path, j: int, o: int, k: int) -> dict:
    """Show σ number ``j``, outliers ``o`` (0/1) and ν number ``k``; returns the numbers
    (every artist is set from them on every call)."""
    e = path[j, o]
    arts["img"].set_data(_density_rgba(e))
    arts["inj"].set_offsets(path["outliers"] if o else np.empty((0, 2)))
    arts["l0"].set_data(*e["lines"][k])
    S = e["X"]
    arts["sv"].set_offsets(S[e["alpha"][k] > 0])
    arts["out"].set_offsets(S[e["is_out"][k]])
    return {
        "nu": float(path["nus"][k]),
        "sigma": float(path["sigmas"][j]),
        "outliers": bool(o),
        "n": len(S),
        "rho": float(e["rho"][k]),
        "frac_sv": float(e["frac_sv"][k]),
        "frac_out": float(e["frac_out"][k]),
        "alpha": e["alpha"][k],
    }
