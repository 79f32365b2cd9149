"""Chapter 09 plots: the data sets, the plane grid, level lines and smoothed region images
that the ν-SVM, one-class SVM and NORMA pictures share."""

from __future__ import annotations

import numpy as np

from .._style import binary_points, rings

__all__ = ["nu_data", "oneclass_data", "stream_data", "plane_grid", "level_lines", "smooth_rgba"]


# --- data ---------------------------------------------------------------------------------


def nu_data(n: int = 60, seed: int = 1):
    """Two overlapping Gaussian classes of n/2 points each (balanced, so ν = 1 is feasible)."""
    rng = np.random.default_rng(seed)
    h = n // 2
    X = np.r_[rng.normal(size=(h, 2)) * 0.9 + [0.8, 0.7], rng.normal(size=(n - h, 2)) * 0.9 - [0.8, 0.7]]
    y = np.r_[np.ones(h), -np.ones(n - h)]
    return X, y


def oneclass_data(n: int = 90, n_outliers: int = 8, seed: int = 2):
    """An unlabelled sample from two clusters, and ``n_outliers`` points spread over a box."""
    rng = np.random.default_rng(seed)
    a = n * 5 // 9
    X = np.r_[
        rng.normal(size=(a, 2)) * [0.55, 0.35] + [-0.9, -0.3], rng.normal(size=(n - a, 2)) * 0.3 + [1.0, 0.6]
    ]
    out = rng.uniform([-2.6, -2.0], [2.6, 2.2], size=(n_outliers, 2))
    return X, out


def stream_data(n: int = 120, gap: float = 0.2, seed: int = 7):
    """A stream separable through the origin: label = side of a fixed line through 0,
    points within ``gap`` of it removed (so the homogeneous margin is at least ``gap``)."""
    rng = np.random.default_rng(seed)
    u = np.array([np.cos(0.6), np.sin(0.6)])
    X = np.empty((0, 2))
    while X.shape[0] < n:
        Z = rng.uniform(-1.5, 1.5, size=(2 * n, 2))
        X = np.r_[X, Z[np.abs(Z @ u) >= gap]]
    X = X[:n]
    return X, np.where(X @ u > 0, 1.0, -1.0)


def plane_grid(lo, hi, G: int = 80):
    """Grid axes ``xs``, ``ys`` and the G² points (row-major: ``Z[i*G + j] = (xs[j], ys[i])``)."""
    xs = np.linspace(lo[0], hi[0], G)
    ys = np.linspace(lo[1], hi[1], G)
    XX, YY = np.meshgrid(xs, ys)
    return xs, ys, np.c_[XX.ravel(), YY.ravel()]


def level_lines(xs, ys, F, level: float = 0.0):
    """The level set {F = level} of a gridded function as one polyline with NaN breaks
    (``(x, y)`` arrays ready for ``Line2D.set_data``)."""
    import contourpy

    parts = contourpy.contour_generator(x=xs, y=ys, z=F).lines(float(level))
    if not parts:
        return np.array([np.nan]), np.array([np.nan])
    seg = np.concatenate([np.r_[p, [[np.nan, np.nan]]] for p in parts])
    return seg[:, 0], seg[:, 1]


def smooth_rgba(F, cmap: str, vmin: float, vmax: float, alpha: float = 1.0, up: int = 4) -> np.ndarray:
    """A gridded function (G, G) (rows = y, on the grid points) as an opaque uint8 RGBA
    image of (up·G, up·G) cells: bilinearly interpolated at the cell centres, coloured with
    ``cmap`` over [vmin, vmax] and laid over white with opacity ``alpha``. What a bilinear
    ``imshow`` shows, computed once for a widget's pixel layer
    (:func:`kmlteach._render.region_layer`), which only copies it on each frame."""
    from matplotlib import colormaps

    F = np.asarray(F, dtype=float)
    if F.ndim != 2 or min(F.shape) < 2:
        raise ValueError(f"F must be a 2-D grid of at least 2 × 2 values, got shape {F.shape}")
    if not vmax > vmin:
        raise ValueError(f"vmax must exceed vmin, got vmin={vmin}, vmax={vmax}")
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"alpha must be in [0, 1], got {alpha}")
    if int(up) < 1:
        raise ValueError(f"up must be a positive integer, got {up}")

    def axis(n):  # cell centres of n·up cells spanning the n grid points
        t = (np.arange(n * int(up)) + 0.5) / (n * int(up)) * (n - 1)
        i = np.minimum(t.astype(int), n - 2)
        return i, t - i

    (r, fr), (c, fc) = axis(F.shape[0]), axis(F.shape[1])
    G = ((F - vmin) * (255.0 / (vmax - vmin))).astype(np.float32)  # colour-table units
    H = G[:, c] * (1 - fc) + G[:, c + 1] * fc  # along x, then along y
    V = H[r] * (1 - fr[:, None]) + H[r + 1] * fr[:, None]
    lut = np.full((256, 4), 255, dtype=np.uint8)  # the colormap's 256 colours
    lut[:, :3] = np.round(255 * ((1.0 - alpha) + alpha * colormaps[cmap](np.arange(256))[:, :3]))
    return lut[np.clip(V + 0.5, 0, 255).astype(np.uint8)]


def _rings(ax, s=170, color="black", lw=1.4, zorder=4, label=None, marker="o"):
    return rings(ax, np.empty(0), np.empty(0), color, lw, s=s, zorder=zorder, label=label, marker=marker)


def _scatter_labelled(ax, X, y, s=36):
    return list(binary_points(ax, X, y, s=s, edgecolors="white", linewidths=0.5, zorder=3).values())
