"""Figures of chapter 04's reductions: decision regions of one-vs-all, all pairs and linear
multiclass predictors, the ERM halfspaces of Example 17.1, tied regions, code matrices. The
widgets of :mod:`kmlteach.widgets.ch04.reductions` paint the same region images."""

from __future__ import annotations

import numpy as np

from ..._render import region_layer
from .._style import CLASS_COLORS, class_points, get_ax, label_axes
from ..ch01 import hyperplane_segment

__all__ = [
    "BALLS_XLIM",
    "BALLS_YLIM",
    "grid_points",
    "region_image",
    "tie_image",
    "plot_classes",
    "plot_regions",
    "plot_halfspaces",
    "plot_ova",
    "plot_linear_regions",
    "plot_pairwise",
    "plot_code",
    "region_rgba",
]

BALLS_XLIM = (-8.0, 8.0)
BALLS_YLIM = (-0.5, 8.0)


def grid_points(xlim, ylim, n: int = 160):
    """(n*n, 2) grid covering the box (row-major from the bottom-left), for region images."""
    xs = np.linspace(xlim[0], xlim[1], n)
    ys = np.linspace(ylim[0], ylim[1], n)
    xx, yy = np.meshgrid(xs, ys)
    return np.c_[xx.ravel(), yy.ravel()]


def region_image(index, n: int, alpha: float = 0.22) -> np.ndarray:
    """RGBA image (n, n, 4) colouring each grid cell with its class colour."""
    from matplotlib.colors import to_rgba

    cols = np.array(
        [to_rgba(CLASS_COLORS[c % len(CLASS_COLORS)], alpha) for c in range(int(np.max(index)) + 1)]
    )
    return cols[np.asarray(index).reshape(n, n)]


def tie_image(ties, n: int) -> np.ndarray:
    """RGBA image: dark grey where the decision was a tie, transparent elsewhere."""
    img = np.zeros((n, n, 4))
    t = np.asarray(ties, dtype=bool).reshape(n, n)
    img[t] = (0.25, 0.25, 0.25, 0.45)
    return img


def region_rgba(index, n: int, ties=None, alpha: float = 0.22) -> np.ndarray:
    """Opaque uint8 RGBA image (n, n, 4) of :func:`region_image` with :func:`tie_image`
    composited over a white Axes: what the two stacked ``imshow`` layers look like, as
    one layer that needs no blending (the widgets repaint it on every update)."""
    from matplotlib.colors import to_rgb

    k = int(np.max(index)) + 1
    cols = np.array([to_rgb(CLASS_COLORS[c % len(CLASS_COLORS)]) for c in range(k)])
    rgb = (1.0 - alpha) + alpha * cols[np.asarray(index).reshape(n, n)]
    if ties is not None:
        t = np.asarray(ties, dtype=bool).reshape(n, n)
        rgb[t] = 0.55 * rgb[t] + 0.45 * 0.25
    out = np.empty((n, n, 4), dtype=np.uint8)
    out[..., :3] = np.round(255 * rgb)
    out[..., 3] = 255
    return out


def plot_classes(X, y, ax=None, s: float = 30, names=None):
    """Scatter points by class (np.unique order), colour and marker per class."""
    ax = get_ax(ax)
    y = np.asarray(y)
    classes = np.unique(y)
    arts = []
    for i, c in enumerate(classes):
        pts = X[y == c]
        name = names[i] if names else f"class {c}"
        arts.append(
            class_points(
                ax, i, pts[:, 0], pts[:, 1], s=s, edgecolors="white", linewidths=0.5, zorder=3, label=name
            )
        )
    return ax


def plot_regions(index, xlim, ylim, ax=None, ties=None, alpha: float = 0.22):
    """Show a grid of class indices (from :func:`grid_points`) as coloured regions,
    with tied cells in dark grey: one opaque pixel layer (:func:`region_rgba`, the two
    translucent layers composited on white, painted by :func:`region_layer`). Returns the Axes."""
    ax = get_ax(ax)
    n = int(round(np.sqrt(np.size(index))))
    region_layer(ax, (xlim[0], xlim[1], ylim[0], ylim[1])).set_data(region_rgba(index, n, ties, alpha))
    ax.set_xlim(xlim)
    ax.set_ylim(ylim)
    return ax


def plot_halfspaces(scorers, xlim, ylim, ax=None, lw: float = 1.8):
    """Dashed line ⟨w, x⟩ + b = 0 of each binary halfspace, in its class colour; a constant
    classifier (w = 0) is listed in the legend as "$h_c = \\pm 1$ everywhere"."""
    ax = get_ax(ax)
    for c, h in enumerate(scorers):
        col = CLASS_COLORS[c % 7]
        if not np.any(h.w):
            ax.plot(
                [np.nan],
                [np.nan],
                ls=":",
                color=col,
                lw=lw,
                label=f"$h_{c + 1} = {'+1' if h.b > 0 else '-1'}$ everywhere",
            )
            continue
        xs, ys = hyperplane_segment(h.w, h.b, xlim, ylim)
        ax.plot(xs, ys, ls="--", color=col, lw=lw, label=f"$h_{c + 1}$ boundary")
    return ax


def plot_ova(
    X,
    y,
    model,
    ax=None,
    xlim=BALLS_XLIM,
    ylim=BALLS_YLIM,
    n: int = 160,
    title: str = "one-vs-all with ERM halfspaces",
):
    """Regions of a fitted one-vs-all model, its halfspaces (if they are 2-D ERM
    halfspaces), the data; tied cells dark grey."""
    ax = get_ax(ax)
    G = grid_points(xlim, ylim, n)
    dec = model.decide(G)
    plot_regions(dec.index, xlim, ylim, ax, ties=dec.ties)
    if all(hasattr(e, "w") and np.shape(e.w) == (2,) for e in model.estimators):
        plot_halfspaces(model.estimators, xlim, ylim, ax)
    plot_classes(X, y, ax)
    ax.legend(loc="upper center", fontsize=8, ncol=3, framealpha=0.9)
    return label_axes(ax, "$x_1$", "$x_2$", title)


def plot_linear_regions(
    W,
    X,
    y,
    ax=None,
    xlim=BALLS_XLIM,
    ylim=BALLS_YLIM,
    n: int = 160,
    title: str = "linear multiclass predictor",
    arrows: bool = True,
):
    """Regions of argmax_c ⟨W[c], x⟩ (homogeneous: cones from the origin), the weight
    vectors as arrows from the origin, and the data."""
    ax = get_ax(ax)
    W = np.asarray(W, dtype=float)
    G = grid_points(xlim, ylim, n)
    plot_regions(np.argmax(G @ W.T, axis=1), xlim, ylim, ax)
    if arrows and W.shape[1] == 2:
        scale = (
            0.35 * min(xlim[1] - xlim[0], ylim[1] - ylim[0]) / max(np.max(np.linalg.norm(W, axis=1)), 1e-12)
        )
        for c, wc in enumerate(W):
            ax.annotate(
                "",
                xy=tuple(scale * wc),
                xytext=(0, 0),
                zorder=4,
                arrowprops=dict(arrowstyle="->", color=CLASS_COLORS[c % 7], lw=2),
            )
            ax.text(
                *(scale * wc * 1.08),
                f"$w_{c + 1}$",
                color=CLASS_COLORS[c % 7],
                fontsize=10,
                ha="center",
                va="center",
                zorder=4,
            )
        ax.plot([0], [0], "k+", ms=8, zorder=4)
    plot_classes(X, y, ax)
    ax.legend(loc="upper center", fontsize=8, ncol=3, framealpha=0.9)
    return label_axes(ax, "$x_1$", "$x_2$", title)


def plot_pairwise(
    X,
    y,
    model,
    ax=None,
    decision: str | None = None,
    xlim=None,
    ylim=None,
    n: int = 160,
    title: str | None = None,
):
    """Regions of a fitted all-pairs model (vote or tournament), tied cells dark grey."""
    ax = get_ax(ax)
    X = np.asarray(X, dtype=float)
    if xlim is None:
        lo, hi = X.min(axis=0) - 1.0, X.max(axis=0) + 1.0
        xlim, ylim = (lo[0], hi[0]), (lo[1], hi[1])
    G = grid_points(xlim, ylim, n)
    dec = model.decide(G, decision=decision)
    plot_regions(dec.index, xlim, ylim, ax, ties=dec.ties)
    plot_classes(X, y, ax)
    ax.scatter([np.nan], [np.nan], marker="s", s=60, color=(0.25, 0.25, 0.25, 0.45), label="tie")
    ax.legend(loc="upper right", fontsize=8, framealpha=0.9)
    which = decision or model.decision
    return label_axes(
        ax, "$x_1$", "$x_2$", title or f"all pairs, {which}: {100 * dec.ties.mean():.1f}% of the plane tied"
    )


def plot_code(code, ax=None, class_names=None, title: str = "ECOC code matrix"):
    """A ±1 code matrix: rows = classes (codewords), columns = binary problems."""
    ax = get_ax(ax, 5.0, 2.4)
    code = np.asarray(code)
    ax.imshow(code, cmap="PuOr", vmin=-1.5, vmax=1.5, aspect="auto", interpolation="nearest")
    for r in range(code.shape[0]):
        for c in range(code.shape[1]):
            ax.text(c, r, "+" if code[r, c] > 0 else "−", ha="center", va="center", fontsize=10)
    ax.set_yticks(range(code.shape[0]))
    ax.set_yticklabels(class_names or [f"class {r + 1}" for r in range(code.shape[0])])
    ax.set_xticks(range(code.shape[1]))
    ax.set_xticklabels([f"{c + 1}" for c in range(code.shape[1])])
    return label_axes(ax, "bit (binary problem)", "", title)
