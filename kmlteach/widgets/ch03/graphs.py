"""Widget of chapter 03: the diffusion kernel on a graph you edit.

Everything an update rewrites is a stamped text (:mod:`kmlteach._render.text`) or an
artist set in place; the axes, their ticks and the colour bar are drawn once. The tick
labels of the heat map (their number follows the number of nodes) and of the colour bar
(they carry the actual values ±max|K|) are stamped texts beside fixed axes, not ``Axis``
ticks, which would repaint the whole axis with its layout on every update.
"""

from __future__ import annotations

import html
import re

import ipywidgets as W
import numpy as np

from ..._render import TextGroup, detached_texts, stamp, stamp_axis
from ...plots import OKABE_ITO, figure, label_axes, rings
from ...plots.ch03 import SIGNED_CMAP, VALUE_OFFSET, graph_layout, graph_segments
from ...structured_kernels import adjacency_matrix, diffusion_kernel
from .._base import Explorer, int_slider, slider
from .graph_parts import NMAX, _Grid, _tick_labels, _value_box

__all__ = ["DEFAULT_EDGES", "make_diffusion_explorer", "parse_edges"]

DEFAULT_EDGES = "0-1 1-2 2-3 3-4 2-5 5-6"


def _cell(v: float) -> str:
    """A kernel value short enough for a heat-map cell (the printed sign grows fast)."""
    if abs(v) < 99.5:
        return f"{v:.2f}"
    if abs(v) < 99999.5:
        return f"{v:.0f}"
    e = int(np.floor(np.log10(abs(v))))
    return f"{v / 10**e:.0f}e{e}"


def _node_value(v: float) -> str:
    """A node's kernel value under the node: three decimals, at most six characters."""
    return f"{v:.3f}" if abs(v) < 9.9995 else _cell(v)


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


def make_diffusion_explorer(
    edges: str = DEFAULT_EDGES, n_nodes: int = 7, beta: float = 0.5, node: int = 0, sign: str = "heat"
) -> Explorer:
    """Diffusion kernel (HSS1 §1.4.4) on a graph you edit; slide β, flip the sign convention.

    Controls: ``edges`` (text such as "0-1 1-2"), ``nodes`` (number of nodes), ``node``
    (whose kernel row colours the graph), ``beta``, ``sign`` ("heat" = expm(β(A − D)),
    "printed" = expm(−β(A − D))). State: ``A``, ``K``, ``row``, ``beta``, ``sign``,
    ``edges``, ``problems``, ``min_entry``, ``row_sums``.
    """
    from matplotlib import patheffects
    from matplotlib.lines import Line2D
    from matplotlib.markers import TICKDOWN, TICKLEFT, MarkerStyle
    from matplotlib.transforms import offset_copy

    fig, (ax_g, ax_k) = figure(9.6, 4.3, ncols=2)
    pos_all = {n: graph_layout(n) for n in range(2, NMAX + 1)}
    # the edges as one NaN-separated line (a LineCollection has no extent the blitter can
    # use, so it would make every artist after it repaint)
    (lines,) = ax_g.plot([], [], color=OKABE_ITO["grey"], lw=2.5, zorder=1, solid_capstyle="butt")
    nodes = ax_g.scatter(
        np.zeros(NMAX),
        np.zeros(NMAX),
        c=np.zeros(NMAX),
        cmap=SIGNED_CMAP,
        vmin=-1,
        vmax=1,
        s=560,
        edgecolors=OKABE_ITO["black"],
        linewidths=1.0,
        zorder=2,
    )
    ring = rings(ax_g, [0], [0], OKABE_ITO["green"], 2.5, s=950, zorder=3)
    halo = [patheffects.withStroke(linewidth=3, foreground="white")]
    # texts rewritten by updates are stamped from a bitmap cache (kmlteach._render.text); the
    # values sit on one scatter of white boxes (a text with its own box is rasterised whole
    # for every new number, plain digits are pasted from cached glyphs)
    names = detached_texts(
        ax_g, NMAX, ha="center", va="center", fontsize=10, fontweight="bold", path_effects=halo
    )
    for k, t in enumerate(names):
        t.set_text(str(k))
    box, box_size = _value_box()
    boxes = ax_g.scatter(
        np.full(NMAX, np.nan),
        np.full(NMAX, np.nan),
        s=box_size,
        marker=MarkerStyle(box),
        c="white",
        alpha=0.85,
        linewidths=0,
        zorder=4,
    )
    vals = detached_texts(ax_g, NMAX, ha="center", va="center", fontsize=8.5)
    groups = {"names": TextGroup(ax_g, names, 4), "vals": TextGroup(ax_g, vals, 4)}
    ax_g.set_xlim(-1.45, 1.45)
    ax_g.set_ylim(-1.5, 1.4)
    ax_g.set_aspect("equal")
    ax_g.set_xticks([])
    ax_g.set_yticks([])
    ax_g.xaxis.set_visible(False)  # no ticks: nothing to repaint around the nodes
    ax_g.yaxis.set_visible(False)
    g_title = ax_g.set_title("")
    # the heat map shows K scaled to [-1, 1] (fixed colour limits, so the colour bar never
    # redraws) in fixed limits whatever the number of nodes (n cells of width NMAX/n), with a
    # thin margin inside the frame: an update repaints the image and its numbers, never the axes
    from matplotlib import colormaps
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import Normalize

    scale = ScalarMappable(norm=Normalize(-1.0, 1.0), cmap=colormaps[SIGNED_CMAP])
    im = _Grid(ax_k, scale.cmap, scale.norm, -0.5, NMAX - 0.5)
    ax_k.set_xlim(-0.7, NMAX - 0.3)
    ax_k.set_ylim(NMAX - 0.3, -0.7)
    ax_k.set_aspect("equal")  # square cells, as imshow makes them
    cbar = fig.colorbar(scale, ax=ax_k, shrink=0.85, label="kernel value")
    cbar.set_ticks([-1.0, -0.5, 0.0, 0.5, 1.0], labels=[""] * 5)
    cbar_labels = _tick_labels(cbar.ax, fig, "right")[:5]
    groups["cbar"] = TextGroup(cbar.ax, cbar_labels, 3)
    for t, v in zip(cbar_labels, (-1.0, -0.5, 0.0, 0.5, 1.0)):
        t.set_y(v)
    # the labels sit at fixed distances (where the Axis put them beside one-digit ticks; the
    # colour bar's leaves room for tick labels as wide as "-1.2e+02")
    cbar.ax.yaxis.set_label_coords(
        1.0, 0.5, transform=offset_copy(cbar.ax.transAxes, fig=fig, x=52, units="points")
    )
    label_axes(ax_k, "node j", "node i", "")
    ax_k.set_xticks([])
    ax_k.set_yticks([])
    ax_k.xaxis.set_label_coords(
        0.5, 0.0, transform=offset_copy(ax_k.transAxes, fig=fig, y=-18.86, units="points")
    )
    ax_k.yaxis.set_label_coords(
        0.0, 0.5, transform=offset_copy(ax_k.transAxes, fig=fig, x=-17.32, units="points")
    )
    stamp_axis(ax_k.xaxis)
    stamp_axis(ax_k.yaxis)
    tick_kw = dict(ls="none", color="black", markersize=3.5, markeredgewidth=0.8, clip_on=False, zorder=2.5)
    xticks = ax_k.add_artist(Line2D([], [], marker=TICKDOWN, transform=ax_k.get_xaxis_transform(), **tick_kw))
    yticks = ax_k.add_artist(Line2D([], [], marker=TICKLEFT, transform=ax_k.get_yaxis_transform(), **tick_kw))
    xlabels, ylabels = _tick_labels(ax_k, fig, "bottom"), _tick_labels(ax_k, fig, "left")
    groups["ticks"] = TextGroup(ax_k, xlabels + ylabels, 3)
    k_title = ax_k.set_title("")
    stamp(g_title, k_title)
    cells = [detached_texts(ax_k, NMAX, ha="center", va="center", fontsize=8) for _ in range(NMAX)]
    groups["cells"] = TextGroup(ax_k, [t for r in cells for t in r], 3, within=im)  # inside the grid

    controls = {
        "edges": W.Text(
            value=edges,
            description="edges",
            placeholder="e.g. 0-1 1-2 2-3",
            continuous_update=True,  # the graph follows the typing (a half-typed pair is ignored)
            layout=W.Layout(width="330px"),
        ),
        "nodes": int_slider("nodes", n_nodes, 2, NMAX, width="230px"),
        "node": W.Dropdown(
            options=list(range(n_nodes)),
            value=node,
            description="row of node",
            style={"description_width": "initial"},
            layout=W.Layout(width="150px"),
        ),
        "beta": slider("β", beta, 0.05, 3.0, 0.05, readout_format=".2f", width="300px"),
        "sign": W.ToggleButtons(
            options=[("heat: expm(β(A−D))", "heat"), ("printed: expm(−β(A−D))", "printed")],
            value=sign,
            style={"button_width": "190px"},
        ),
    }

    def relayout(n: int) -> None:
        """Place what depends on the number of nodes only (positions, tick labels)."""
        pos = pos_all[n]
        offs = np.full((NMAX, 2), np.nan)
        offs[:n] = pos
        nodes.set_offsets(offs)
        boxes.set_offsets(offs + VALUE_OFFSET)
        centre = -0.5 + (np.arange(n) + 0.5) * NMAX / n
        xticks.set_data(centre, np.zeros(n))
        yticks.set_data(np.zeros(n), centre)
        for k in range(NMAX):
            for t, v in ((names[k], pos[k % n]), (vals[k], pos[k % n] + VALUE_OFFSET)):
                t.set_visible(k < n)
                t.set_position(v)
            for t, xy in ((xlabels[k], (centre[k % n], 0.0)), (ylabels[k], (0.0, centre[k % n]))):
                t.set_visible(k < n)
                t.set_text(str(k))
                t.set_position(xy)
        for a in range(NMAX):
            for b in range(NMAX):
                cells[a][b].set_visible(a < n and b < n)
                if a < n and b < n:
                    cells[a][b].set_position((centre[b], centre[a]))

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
        colours = np.zeros(NMAX)
        colours[:n] = row
        nodes.set_array(colours)
        row_lim = max(float(np.max(np.abs(row))), 1e-300)
        nodes.set_clim(-row_lim, row_lim)
        ring.set_offsets(pos[i : i + 1])
        relayout(n)
        for k in range(n):
            vals[k].set_text(_node_value(row[k]))
        im.set_data(K / lim)
        for t, v in zip(cbar_labels, (-1, -0.5, 0, 0.5, 1)):
            t.set_text(_cell(v * lim))
        for a in range(n):
            for b in range(n):
                t = cells[a][b]
                t.set_text(_cell(K[a, b]))
                colour = "white" if abs(K[a, b]) > 0.6 * lim else "black"
                if t.get_color() != colour:
                    t.set_color(colour)
        g_title.set_text(f"row {i} of K colours the nodes (scaled to the row)")
        k_title.set_text(
            ("heat kernel expm(β(A−D))" if sign_ == "heat" else "printed expm(−β(A−D))")
            + f", β = {beta_:.2f}"
        )
        st = ex.state
        st.update(
            A=A,
            K=K,
            row=row.copy(),
            beta=beta_,
            sign=sign_,
            node=i,
            edges=edge_list,
            problems=problems,
            min_entry=float(K.min()),
            row_sums=K.sum(axis=1),
        )
        neg = int(np.sum(row < -1e-12))
        txt = (
            f"β = <b>{beta_:.2f}</b>, {len(edge_list)} edges &nbsp; row {i}: "
            + ", ".join(f"{v:.3f}" for v in row)
            + f"<br>negative entries in the row: <b>{neg}</b> &nbsp; row sums: "
            + (
                "all 1 (heat is conserved)"
                if sign_ == "heat" and np.allclose(st["row_sums"], 1)
                else ", ".join(f"{v:.2f}" for v in st["row_sums"])
            )
        )
        if problems:
            txt += (
                "<br><span style='color:#D55E00'>ignored: "
                + html.escape(" ".join(problems))
                + f" (write i-j with nodes 0..{n - 1})</span>"
            )
        ex.set_readout(txt)

    return Explorer(
        fig,
        controls,
        update,
        per_row=2,
        title="Diffusion on a graph",
        css_class="kml-diffusion-explorer",
    )
