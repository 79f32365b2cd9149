"""Widgets of chapter 03: kernel PCA with a width slider, diffusion on an editable graph,
the n-gram kernel between two typed strings.

Each builder returns an :class:`~kmlteach.widgets._base.Explorer`; ``explorer.state``
holds what the last redraw computed (tests read it), ``explorer.controls`` the
controls (tests set their ``value``).
"""

from __future__ import annotations

import html
import re

import ipywidgets as W
import numpy as np

from .. import datasets
from ..kernel_methods import kernel_pca
from ..plots import OKABE_ITO, class_style, figure, label_axes
from ..plots.ch03 import SIGNED_CMAP, VALUE_OFFSET, graph_layout, graph_segments
from ..structured_kernels import adjacency_matrix, diffusion_kernel
from ._base import Explorer, int_slider, slider
from ._stamp import stamp, stamp_axis, stamp_text
from ._threads import single_blas_thread

__all__ = ["make_kpca_explorer", "make_diffusion_explorer", "make_ngram_explorer", "parse_edges",
           "threshold_accuracy"]


# ---------------------------------------------------------------------------------------
# kernel PCA: Gaussian width slider
# ---------------------------------------------------------------------------------------

def threshold_accuracy(z, y) -> float:
    """Best accuracy of a threshold rule sign(±(z − θ)) on one coordinate z (labels ±1)."""
    z = np.asarray(z, dtype=float)
    y = np.asarray(y, dtype=float)
    ys = y[np.argsort(z, kind="stable")]
    m = len(ys)
    # predict -1 left of the cut and +1 right of it: correct = (#-1 left) + (#+1 right)
    left_neg = np.r_[0, np.cumsum(ys == -1)]
    right_pos = np.r_[np.cumsum((ys == 1)[::-1])[::-1], 0]
    best = np.max(left_neg + right_pos)
    return float(max(best, m - np.min(left_neg + right_pos))) / m


def _kpca_data(name: str, m: int, seed: int):
    if name == "rings":
        return datasets.rings(m=m, radii=(0.5, 1.5), noise=0.1, seed=seed)
    return datasets.moons(m=m, noise=0.08, seed=seed)


def _kpca_box(m: int, seed: int):
    """Limits holding both data sets (8 % margins), as (low corner, high corner)."""
    pts = np.vstack([_kpca_data(name, m, seed)[0] for name in ("rings", "moons")])
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    pad = 0.08 * np.maximum(hi - lo, 1e-9)
    return lo - pad, hi + pad


def _bar_outline(heights, width: float = 0.8) -> np.ndarray:
    """Vertices of bars of ``heights`` at x = 1, 2, ... as one outline along y = 0."""
    h = np.asarray(heights, dtype=float)
    x = np.arange(1, len(h) + 1, dtype=float)
    left, right, zero = x - width / 2, x + width / 2, np.zeros_like(h)
    xs = np.stack([left, left, right, right], axis=1).ravel()
    ys = np.stack([zero, h, h, zero], axis=1).ravel()
    return np.c_[xs, ys]


def make_kpca_explorer(m: int = 160, seed: int = 0, sigma: float = 0.3,
                       dataset: str = "rings") -> Explorer:
    """Kernel PCA (HSS1 §1.3.2) of rings or moons with the Gaussian kernel; slide its width.

    Kernel ``exp(−‖x − x'‖²/(2σ))`` (UML convention). Panels: the data, the leading
    eigenvalues of the centred Gram matrix, the projections on the first two axes.
    State: ``dataset``, ``sigma``, ``eigenvalues`` (top 10), ``explained`` (share of the
    top two in the trace of K̃), ``embedding`` (m, 2), ``accuracy_pc1`` (best threshold
    rule on component 1).
    """
    fig, (ax_in, ax_sp, ax_em) = figure(10.5, 3.5, ncols=3)
    from matplotlib.patches import Polygon

    arts_in, arts_em = {}, {}
    for lab, k in ((-1.0, 0), (1.0, 1)):
        st = class_style(k)
        kw = dict(s=16, c=st["color"], marker=st["marker"], edgecolors="white", linewidths=0.3)
        arts_in[lab] = ax_in.scatter([], [], label=f"y = {int(lab):+d}", **kw)
        arts_em[lab] = ax_em.scatter([], [], **kw)
    legend = ax_in.legend(fontsize=8, loc="upper right")
    ax_in.set_aspect("equal")
    label_axes(ax_in, "$x_1$", "$x_2$", "input space")
    # one box for both data sets: switching them then repaints the points only (new limits
    # or a new box shape would repaint the whole panel with its ticks on every later update)
    (lo, hi) = _kpca_box(m, seed)
    ax_in.set_xlim(lo[0], hi[0])
    ax_in.set_ylim(lo[1], hi[1])
    # the ten bars as one polygon (their outline along the axis): one artist to measure and
    # paint per update instead of ten rectangles
    bars = ax_sp.add_patch(Polygon(_bar_outline(np.zeros(10)), closed=True, facecolor=OKABE_ITO["blue"],
                                   edgecolor="none", linewidth=0))
    label_axes(ax_sp, "component", "eigenvalue / trace", "spectrum of centred K")
    ax_sp.set_xticks(range(1, 11))
    ax_sp.set_xlim(0.11, 10.89)        # where bar() put them (bars 0.6..10.4, 5 % margins)
    # fixed limits (components scaled to ±1, shares of the trace in [0, 1]): moving σ
    # then repaints the artists only, not the axes and their ticks
    label_axes(ax_em, "component 1 (scaled)", "component 2 (scaled)", "kernel PCA embedding")
    ax_em.set_xlim(-1.12, 1.12)
    ax_em.set_ylim(-1.12, 1.12)
    ax_sp.set_ylim(0, 1.0)
    title = fig.suptitle("")

    controls = {
        "dataset": W.Dropdown(options=["rings", "moons"], value=dataset, description="data",
                              layout=W.Layout(width="170px")),
        "sigma": slider("Gaussian width σ", sigma, -2, 1, 0.1, log=True, readout_format=".3f",
                        width="360px"),
    }
    stamp(title, *legend.get_texts())     # the legend is repainted over the moving points
    cache: dict = {}
    results: dict = {}           # (dataset, sigma) -> (eigenvalues, Z, share): slider revisits are free

    def update(ex: Explorer) -> None:
        name = ex.controls["dataset"].value
        sig = float(ex.controls["sigma"].value)
        if cache.get("name") != name:
            cache["name"] = name
            X, y = cache["X"], cache["y"] = _kpca_data(name, m, seed)
            # squared distances once per data set: each σ is then one exp (the Gaussian Gram
            # matrix exp(-|x - x'|^2/(2σ)) of kernels.gram, checked equal in the tests)
            cache["D"] = np.maximum(np.sum(X * X, 1)[:, None] + np.sum(X * X, 1)[None, :] - 2 * X @ X.T, 0.0)
        X, y = cache["X"], cache["y"]
        for lab in (-1.0, 1.0):     # set on every update: painted per frame, so a switch is cheap
            arts_in[lab].set_offsets(X[y == lab])
        key = (name, round(sig, 12))
        if key not in results:
            K = np.exp(-cache["D"] / (2.0 * sig))
            with single_blas_thread():
                res = kernel_pca(K, 10)
            total = float(np.trace(K) - K.sum() / len(K))      # trace of the centred K
            if len(results) > 128:
                results.clear()
            results[key] = (res.eigenvalues.copy(), res.embedding[:, :2].copy(),
                            res.eigenvalues / max(total, 1e-300))
        eigenvalues, Z, share = results[key]
        Zs = Z / np.maximum(np.max(np.abs(Z), axis=0), 1e-300)
        for lab in (-1.0, 1.0):
            arts_em[lab].set_offsets(Zs[y == lab])
        bars.set_xy(_bar_outline(share))
        acc = threshold_accuracy(Z[:, 0], y)
        ex.state.update(dataset=name, sigma=sig, eigenvalues=eigenvalues.copy(),
                        explained=float(share[:2].sum()), embedding=Z.copy(), accuracy_pc1=acc)
        title.set_text(f"{name}, σ = {sig:.3f}")
        ex.set_readout(f"σ = <b>{sig:.3f}</b> &nbsp; first two components carry "
                       f"<b>{100 * ex.state['explained']:.1f}%</b> of the variance in feature space "
                       f"&nbsp; a threshold on component 1 classifies <b>{100 * acc:.1f}%</b> correctly")

    return Explorer(fig, controls, update, title="Kernel PCA: the Gaussian width",
                    css_class="kml-kpca-explorer")


# ---------------------------------------------------------------------------------------
# diffusion kernel on an editable graph
# ---------------------------------------------------------------------------------------

DEFAULT_EDGES = "0-1 1-2 2-3 3-4 2-5 5-6"


def _cell(v: float) -> str:
    """A kernel value short enough for a heat-map cell (the printed sign grows fast)."""
    if abs(v) < 99.5:
        return f"{v:.2f}"
    if abs(v) < 99999.5:
        return f"{v:.0f}"
    e = int(np.floor(np.log10(abs(v))))
    return f"{v / 10 ** e:.0f}e{e}"


def parse_edges(text: str, n_nodes: int):
    """Read edges written as ``i-j`` pairs separated by spaces or commas.

    Returns ``(edges, problems)``: the valid pairs (i < j, no repeats, no loops) and
    the tokens that could not be used.
    """
    edges, problems = [], []
    for tok in re.split(r"[\s,;]+", text.strip()):
        if not tok:
            continue
        mt = re.fullmatch(r"(\d+)\s*[-–:]\s*(\d+)", tok)
        if not mt:
            problems.append(tok)
            continue
        i, j = sorted((int(mt.group(1)), int(mt.group(2))))
        if i == j or j >= n_nodes:
            problems.append(tok)
        elif (i, j) not in edges:
            edges.append((i, j))
    return edges, problems


def make_diffusion_explorer(edges: str = DEFAULT_EDGES, n_nodes: int = 7, beta: float = 0.5,
                            node: int = 0, sign: str = "heat") -> Explorer:
    """Diffusion kernel (HSS1 §1.4.4) on a graph you edit; slide β, flip the sign convention.

    Controls: ``edges`` (text such as "0-1 1-2"), ``nodes`` (number of nodes), ``node``
    (whose kernel row colours the graph), ``beta``, ``sign`` ("heat" = expm(β(A − D)),
    "printed" = expm(−β(A − D))). State: ``A``, ``K``, ``row``, ``beta``, ``sign``,
    ``edges``, ``problems``, ``min_entry``, ``row_sums``.
    """
    fig, (ax_g, ax_k) = figure(9.6, 4.3, ncols=2)
    from matplotlib import patheffects
    from matplotlib.ticker import FixedFormatter, FixedLocator

    nmax = 10
    pos_all = {n: graph_layout(n) for n in range(2, nmax + 1)}
    # the edges as one NaN-separated line (a LineCollection has no extent the blitter can
    # use, so it would make every artist after it repaint)
    (lines,) = ax_g.plot([], [], color=OKABE_ITO["grey"], lw=2.5, zorder=1, solid_capstyle="butt")
    nodes = ax_g.scatter(np.zeros(nmax), np.zeros(nmax), c=np.zeros(nmax), cmap=SIGNED_CMAP,
                         vmin=-1, vmax=1, s=560, edgecolors=OKABE_ITO["black"], linewidths=1.0, zorder=2)
    ring = ax_g.scatter([0], [0], s=950, facecolors="none", edgecolors=OKABE_ITO["green"],
                        linewidths=2.5, zorder=3)
    halo = [patheffects.withStroke(linewidth=3, foreground="white")]
    # texts rewritten by updates are stamped from a bitmap cache (widgets/_stamp.py)
    names = [stamp_text(ax_g, 0, 0, str(k), ha="center", va="center", fontsize=10, fontweight="bold",
                        zorder=4, path_effects=halo) for k in range(nmax)]
    vals = [stamp_text(ax_g, 0, 0, "", ha="center", va="center", fontsize=8.5, zorder=4,
                       bbox=dict(boxstyle="round,pad=0.15", fc="white", ec="none", alpha=0.85))
            for _ in range(nmax)]
    ax_g.set_xlim(-1.45, 1.45)
    ax_g.set_ylim(-1.5, 1.4)
    ax_g.set_aspect("equal")
    ax_g.set_xticks([])
    ax_g.set_yticks([])
    ax_g.xaxis.set_visible(False)      # no ticks: nothing to repaint around the nodes
    ax_g.yaxis.set_visible(False)
    g_title = ax_g.set_title("")
    # the heat map shows K scaled to [-1, 1]
    # (fixed colour limits, so the colour bar never redraws) and the colour bar's tick
    # labels carry the actual values ±max|K|
    # fixed limits whatever the number of nodes (n cells of width nmax/n), with a thin margin
    # inside the frame: an update then repaints the image and its numbers, never the axes
    im = ax_k.imshow(np.zeros((n_nodes, n_nodes)), cmap=SIGNED_CMAP, vmin=-1, vmax=1,
                     extent=(-0.5, nmax - 0.5, nmax - 0.5, -0.5))
    ax_k.set_xlim(-0.7, nmax - 0.3)
    ax_k.set_ylim(nmax - 0.3, -0.7)
    cbar = fig.colorbar(im, ax=ax_k, shrink=0.85, label="kernel value")
    cbar.ax.yaxis.set_major_locator(FixedLocator([-1.0, -0.5, 0.0, 0.5, 1.0]))
    # the label sits at a fixed distance, room for tick labels as wide as "-1.2e+02"
    from matplotlib.transforms import offset_copy

    cbar.ax.yaxis.set_label_coords(1.0, 0.5, transform=offset_copy(cbar.ax.transAxes, fig=fig, x=52,
                                                                   units="points"))
    label_axes(ax_k, "node j", "node i", "")
    k_title = ax_k.set_title("")
    stamp(g_title, k_title)
    cells = [[stamp_text(ax_k, b, a, "", ha="center", va="center", fontsize=8) for b in range(nmax)]
             for a in range(nmax)]
    shown = {"n": None}

    controls = {
        "edges": W.Text(value=edges, description="edges", placeholder="e.g. 0-1 1-2 2-3",
                        continuous_update=False, layout=W.Layout(width="330px")),
        "nodes": int_slider("nodes", n_nodes, 2, nmax, width="230px"),
        "node": W.Dropdown(options=list(range(n_nodes)), value=node, description="row of node",
                           style={"description_width": "initial"}, layout=W.Layout(width="150px")),
        "beta": slider("β", beta, 0.05, 3.0, 0.05, readout_format=".2f", width="300px"),
        "sign": W.ToggleButtons(options=[("heat: expm(β(A−D))", "heat"),
                                         ("printed: expm(−β(A−D))", "printed")], value=sign,
                                style={"button_width": "170px"}),
    }

    def update(ex: Explorer) -> None:
        c = ex.controls
        n = int(c["nodes"].value)
        if list(c["node"].options) != list(range(n)):
            ex._busy = True
            keep = c["node"].value if c["node"].value is not None and c["node"].value < n else 0
            c["node"].options = list(range(n))
            c["node"].value = keep
            ex._busy = False
        i = int(c["node"].value)
        beta_, sign_ = float(c["beta"].value), c["sign"].value
        edge_list, problems = parse_edges(c["edges"].value, n)
        A = adjacency_matrix(edge_list, n)
        K = diffusion_kernel(A, beta_, sign=sign_)
        row = K[i]
        pos = pos_all[n]
        lim = float(np.max(np.abs(K))) or 1.0
        seg = graph_segments(A, pos)
        gap = np.full((len(seg), 1), np.nan)
        lines.set_data(np.c_[seg[:, :, 0], gap].ravel(), np.c_[seg[:, :, 1], gap].ravel())
        colours = np.zeros(nmax)
        colours[:n] = row
        nodes.set_array(colours)
        row_lim = max(float(np.max(np.abs(row))), 1e-300)
        nodes.set_clim(-row_lim, row_lim)
        ring.set_offsets(pos[i:i + 1])
        if shown["n"] != n:             # the layout changes with the number of nodes only
            shown["n"] = n
            offs = np.full((nmax, 2), np.nan)
            offs[:n] = pos
            nodes.set_offsets(offs)
            for k in range(nmax):
                names[k].set_visible(k < n)
                vals[k].set_visible(k < n)
                if k < n:
                    names[k].set_position(pos[k])
                    vals[k].set_position(pos[k] + VALUE_OFFSET)
            centre = -0.5 + (np.arange(n) + 0.5) * nmax / n
            ax_k.set_xticks(centre, [str(k) for k in range(n)])
            ax_k.set_yticks(centre, [str(k) for k in range(n)])
            stamp_axis(ax_k.xaxis)
            stamp_axis(ax_k.yaxis)
            for a in range(nmax):
                for b in range(nmax):
                    cells[a][b].set_visible(a < n and b < n)
                    if a < n and b < n:
                        cells[a][b].set_position((centre[b], centre[a]))
        for k in range(n):
            vals[k].set_text(f"{row[k]:.3f}")
        for k in range(n, nmax):        # hidden texts stay dynamic: showing them needs no redraw
            names[k].stale = vals[k].stale = True
        for a in range(nmax):
            for b in range(nmax):
                if a >= n or b >= n:
                    cells[a][b].stale = True
        im.set_data(K / lim)
        cbar.ax.yaxis.set_major_formatter(FixedFormatter([_cell(v * lim) for v in (-1, -0.5, 0, 0.5, 1)]))
        stamp_axis(cbar.ax.yaxis)
        for a in range(n):
            for b in range(n):
                t = cells[a][b]
                t.set_text(_cell(K[a, b]))
                colour = "white" if abs(K[a, b]) > 0.6 * lim else "black"
                if t.get_color() != colour:
                    t.set_color(colour)
        g_title.set_text(f"row {i} of K colours the nodes (scaled to the row)")
        k_title.set_text(("heat kernel expm(β(A−D))" if sign_ == "heat" else
                          "printed expm(−β(A−D))") + f", β = {beta_:.2f}")
        st = ex.state
        st.update(A=A, K=K, row=row.copy(), beta=beta_, sign=sign_, node=i, edges=edge_list,
                  problems=problems, min_entry=float(K.min()), row_sums=K.sum(axis=1))
        neg = int(np.sum(row < -1e-12))
        txt = (f"β = <b>{beta_:.2f}</b>, {len(edge_list)} edges &nbsp; row {i}: "
               + ", ".join(f"{v:.3f}" for v in row)
               + f"<br>negative entries in the row: <b>{neg}</b> &nbsp; row sums: "
               + ("all 1 (heat is conserved)" if sign_ == "heat" and np.allclose(st["row_sums"], 1)
                  else ", ".join(f"{v:.2f}" for v in st["row_sums"])))
        if problems:
            txt += ("<br><span style='color:#D55E00'>ignored: "
                    + html.escape(" ".join(problems)) + f" (write i-j with nodes 0..{n - 1})</span>")
        ex.set_readout(txt)

    return Explorer(fig, controls, update, layout_rows=[["edges", "nodes"], ["node", "beta"], ["sign"]],
                    title="Diffusion on a graph", css_class="kml-diffusion-explorer")


# the n-gram explorer lives in ch03_strings.py (this module would pass 400 lines)
from .ch03_strings import MAX_CHARS, make_ngram_explorer  # noqa: E402
