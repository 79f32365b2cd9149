"""Figures of chapter 03: Gram matrices, kernel PCA, graphs coloured by a kernel row,
n-gram count vectors.

Continuous values use a diverging, colour-blind-safe map (``PuOr_r``) centred at
zero, so that the sign flips of the printed diffusion kernel are visible.
"""

from __future__ import annotations

import numpy as np

from ._style import OKABE_ITO, get_ax, label_axes, rings, scatter_classes

__all__ = [
    "SIGNED_CMAP",
    "graph_layout",
    "graph_segments",
    "plot_graph",
    "plot_kernel_matrix",
    "plot_spectrum",
    "plot_embedding",
    "ngram_table",
    "plot_ngram_counts",
]

SIGNED_CMAP = "PuOr_r"
VALUE_OFFSET = np.array([0.0, -0.3])  # where a node's value is written, relative to the node


def graph_layout(n: int, radius: float = 1.0) -> np.ndarray:
    """Positions of n nodes on a circle, node 0 at the top, clockwise."""
    t = np.pi / 2 - 2 * np.pi * np.arange(n) / n
    return radius * np.c_[np.cos(t), np.sin(t)]


def graph_segments(A, pos) -> np.ndarray:
    """Line segments (k, 2, 2) of the edges i < j of a symmetric adjacency matrix."""
    A = np.asarray(A)
    i, j = np.nonzero(np.triu(A, 1))
    return np.stack([pos[i], pos[j]], axis=1) if len(i) else np.zeros((0, 2, 2))


def _symmetric_limit(values) -> float:
    v = float(np.max(np.abs(values))) if np.size(values) else 1.0
    return v if v > 0 else 1.0


def plot_graph(
    A,
    pos=None,
    values=None,
    ax=None,
    highlight: int | None = None,
    annotate: bool = True,
    vlim: float | None = None,
    colorbar: bool = False,
):
    """Draw a graph; node colours show ``values`` (e.g. a row of a kernel matrix).

    Returns the Axes; the node scatter is ``ax.collections[-1]`` (for updates).
    """
    from matplotlib import patheffects
    from matplotlib.collections import LineCollection

    A = np.asarray(A, dtype=float)
    n = A.shape[0]
    pos = graph_layout(n) if pos is None else np.asarray(pos, dtype=float)
    ax = get_ax(ax, 4.5, 4.2)
    ax.add_collection(
        LineCollection(graph_segments(A, pos), colors=OKABE_ITO["grey"], linewidths=2, zorder=1)
    )
    vals = np.zeros(n) if values is None else np.asarray(values, dtype=float)
    lim = vlim or _symmetric_limit(vals)
    sc = ax.scatter(
        pos[:, 0],
        pos[:, 1],
        c=vals,
        cmap=SIGNED_CMAP,
        vmin=-lim,
        vmax=lim,
        s=520,
        edgecolors=OKABE_ITO["black"],
        linewidths=1.0,
        zorder=2,
    )
    if highlight is not None:
        h = slice(highlight, highlight + 1)
        rings(ax, pos[h, 0], pos[h, 1], OKABE_ITO["green"], 2.5, s=900, zorder=3)
    if annotate:
        for k in range(n):
            ax.annotate(
                f"{k}",
                pos[k],
                ha="center",
                va="center",
                fontsize=10,
                fontweight="bold",
                zorder=4,
                path_effects=[patheffects.withStroke(linewidth=3, foreground="white")],
            )
            if values is not None:
                ax.annotate(
                    f"{vals[k]:.3f}",
                    pos[k] + VALUE_OFFSET,
                    ha="center",
                    va="center",
                    fontsize=8.5,
                    zorder=4,
                    bbox=dict(boxstyle="round,pad=0.15", fc="white", ec="none", alpha=0.85),
                )
    if colorbar:
        ax.figure.colorbar(sc, ax=ax, shrink=0.8, label="kernel value")
    lo, hi = pos.min(axis=0) - 0.45, pos.max(axis=0) + 0.45
    ax.set_xlim(min(lo[0], -0.6), max(hi[0], 0.6))
    ax.set_ylim(min(lo[1], -0.6), max(hi[1], 0.6))
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
    return ax


def plot_kernel_matrix(
    K,
    labels=None,
    ax=None,
    title: str | None = None,
    signed: bool = True,
    annotate: bool | None = None,
    colorbar: bool = True,
):
    """Heat map of a (small) kernel matrix, values written in the cells when n <= 8."""
    K = np.asarray(K, dtype=float)
    ax = get_ax(ax, 4.2, 3.8)
    if signed:
        lim = _symmetric_limit(K)
        im = ax.imshow(K, cmap=SIGNED_CMAP, vmin=-lim, vmax=lim)
    else:
        im = ax.imshow(K, cmap="cividis")
    n, m = K.shape
    labels = [str(i) for i in range(max(n, m))] if labels is None else [str(v) for v in labels]
    if max(n, m) <= 12:
        ax.set_xticks(range(m), labels[:m], fontsize=8, rotation=0 if max(map(len, labels)) < 4 else 45)
        ax.set_yticks(range(n), labels[:n], fontsize=8)
    if annotate if annotate is not None else max(n, m) <= 8:
        for i in range(n):
            for j in range(m):
                # inside the axes: left out of the layout pass, which would measure each one
                ax.text(
                    j,
                    i,
                    f"{K[i, j]:.2f}",
                    ha="center",
                    va="center",
                    fontsize=8,
                    in_layout=False,
                    color="white" if abs(im.norm(K[i, j]) - 0.5) > 0.3 else "black",
                )
    if colorbar:
        ax.figure.colorbar(im, ax=ax, shrink=0.85)
    label_axes(ax, "column $j$", "row $i$", title)
    return ax


def plot_spectrum(eigenvalues, ax=None, k: int = 20, title: str | None = "spectrum of the centred K"):
    """Bar chart of the leading eigenvalues (descending)."""
    ev = np.asarray(eigenvalues, dtype=float)[:k]
    ax = get_ax(ax, 4.0, 3.0)
    ax.bar(np.arange(1, ev.size + 1), ev, color=OKABE_ITO["blue"])
    label_axes(ax, "component", "eigenvalue", title)
    return ax


def plot_embedding(Z, y, ax=None, title: str | None = None):
    """Scatter of the first two kernel-PCA coordinates, classes by colour and marker."""
    Z = np.asarray(Z, dtype=float)
    ax = get_ax(ax, 4.2, 3.8)
    Z2 = Z[:, :2] if Z.shape[1] >= 2 else np.c_[Z[:, 0], np.zeros(len(Z))]
    scatter_classes(Z2, y, ax=ax, s=22)
    label_axes(ax, "component 1", "component 2", title)
    return ax


def ngram_table(x: str, y: str, n: int):
    """Union of the n-grams of x and y (sorted) with their counts in each string."""
    from collections import Counter

    cx = Counter(x[i : i + n] for i in range(len(x) - n + 1))
    cy = Counter(y[i : i + n] for i in range(len(y) - n + 1))
    grams = sorted(set(cx) | set(cy))
    return grams, np.array([cx[g] for g in grams], float), np.array([cy[g] for g in grams], float)


def plot_ngram_counts(x: str, y: str, n: int, ax=None, max_grams: int = 30):
    """Grouped bars of the n-gram count vectors of two strings; shared n-grams shaded.

    The n-gram kernel (HSS1 (1.34)) is the dot product of the two bar heights.
    """
    grams, a, b = ngram_table(x, y, n)
    shared = (a > 0) & (b > 0)
    order = np.argsort(~shared, kind="stable")[:max_grams]  # shared n-grams first
    grams = [grams[i] for i in order]
    a, b, shared = a[order], b[order], shared[order]
    ax = get_ax(ax, 6.0, 3.0)
    idx = np.arange(len(grams))
    ax.bar(idx - 0.2, a, 0.4, color=OKABE_ITO["blue"], label=f"x = {x!r}")
    ax.bar(idx + 0.2, b, 0.4, color=OKABE_ITO["orange"], hatch="//", edgecolor="white", label=f"y = {y!r}")
    for i in np.flatnonzero(shared):
        ax.axvspan(i - 0.5, i + 0.5, color=OKABE_ITO["green"], alpha=0.15, lw=0, zorder=0)
    ax.set_xticks(
        idx,
        [repr(g)[1:-1].replace(" ", "␣") for g in grams],
        fontsize=8,
        rotation=0 if n <= 2 and len(grams) <= 16 else 60,
    )
    ax.set_xlim(-0.7, max(len(grams), 1) - 0.3)
    top = max(float(a.max(initial=0)), float(b.max(initial=0)), 1.0)
    ax.set_ylim(0, top + 0.8)
    ax.yaxis.get_major_locator().set_params(integer=True)
    ax.legend(fontsize=8, loc="upper right")
    k = float(a @ b)
    label_axes(ax, f"{n}-gram (shaded: in both strings)", "count", f"n-gram kernel k(x, y) = {k:.0f}")
    return ax
