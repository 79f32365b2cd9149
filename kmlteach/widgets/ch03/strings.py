"""Widget of chapter 03: the n-gram kernel between two typed strings.

Re-exported by :mod:`kmlteach.widgets.ch03` (a module of the chapter's package).
The figure is the one of :func:`kmlteach.plots.ch03.plot_ngram_counts`, built once: a
pool of bars and shades whose heights and visibility an update sets, axes limits fixed
for the pair of strings (they change only when a string does), tick labels stamped
from a bitmap cache (:mod:`kmlteach._render.text`).
"""

from __future__ import annotations

import html
import math

import ipywidgets as W
import numpy as np
from matplotlib.path import Path

from ..._render import stamp, stamp_axis
from ...plots import OKABE_ITO, figure
from ...plots.ch03 import ngram_table
from ...structured_kernels import ngram_kernel, substring_kernel
from .._base import Explorer, int_slider

__all__ = ["MAX_CHARS", "make_ngram_explorer"]

MAX_CHARS = 40
MAX_GRAMS = 30  # as plot_ngram_counts: shared n-grams first, at most 30 shown
N_MAX = 5


def _ordered(sx: str, sy: str, n: int):
    """The n-grams (shared first, at most MAX_GRAMS) with their counts in x and y, and
    the full table ``ngram_table(sx, sy, n)`` they come from."""
    full = ngram_table(sx, sy, n)
    grams, a, b = full
    shared = (a > 0) & (b > 0)
    order = np.argsort(~shared, kind="stable")[:MAX_GRAMS]
    return [grams[i] for i in order], a[order], b[order], shared[order], full


def _rects(left, right, top):
    """One path of the rectangles [left, right] × [0, top] (an empty path when none)."""
    left, right, top = (np.asarray(v, dtype=float) for v in (left, right, top))
    if not len(left):
        return Path(np.zeros((1, 2)), [Path.MOVETO])
    zero = np.zeros_like(left)
    xs = np.stack([left, left, right, right, left], axis=1)
    ys = np.stack([zero, top, top, zero, zero], axis=1)
    codes = np.tile([Path.MOVETO, Path.LINETO, Path.LINETO, Path.LINETO, Path.CLOSEPOLY], len(left))
    return Path(np.stack([xs.ravel(), ys.ravel()], axis=1), codes)


def _stepped(need: float, current: float) -> float:
    """The new extent of an axis that now ``need``s this much: at once when it grows, only
    below half of the ``current`` one when it shrinks (the first time: ``need``)."""
    if need > current or 2 * need < current:
        return need
    return current


def _set_ticks(ax, grams, n: int) -> None:
    """The n-grams as stamped tick labels under their bars (slanted for n > 1)."""
    ax.set_xticks(
        np.arange(len(grams)),
        [repr(t)[1:-1].replace(" ", "␣") for t in grams],
        fontsize=9,
        rotation=0 if n == 1 else 45,
        ha="center" if n == 1 else "right",
        rotation_mode="anchor",
    )
    stamp_axis(ax.xaxis)


def make_ngram_explorer(x: str = "banana", y: str = "bandana", n: int = 2) -> Explorer:
    """The n-gram kernel (HSS1 (1.34)) of two strings you type, with their count vectors.

    State: ``x``, ``y``, ``n``, ``grams`` (union of the n-grams), ``counts_x``,
    ``counts_y``, ``shared`` (n-grams in both), ``kernel``, ``cosine``
    (k(x,y)/√(k(x,x)k(y,y))), ``substring`` (the substring kernel of UML §16.2.1).
    """
    from matplotlib.patches import PathPatch
    from matplotlib.transforms import offset_copy

    fig, ax = figure(7.6, 3.6)
    idx = np.arange(MAX_GRAMS)
    # the bars of each string and the shades of the shared n-grams as one patch each (a
    # compound path of rectangles): three artists to measure and paint per update, not 90
    bars_x = ax.add_patch(
        PathPatch(
            Path(np.zeros((1, 2))), facecolor=OKABE_ITO["blue"], edgecolor="none", linewidth=0, label="x"
        )
    )
    bars_y = ax.add_patch(
        PathPatch(
            Path(np.zeros((1, 2))), facecolor=OKABE_ITO["orange"], hatch="//", edgecolor="white", label="y"
        )
    )
    shades = ax.add_patch(
        PathPatch(
            Path(np.zeros((1, 2))),
            facecolor=OKABE_ITO["green"],
            alpha=0.15,
            lw=0,
            edgecolor="none",
            zorder=0,
            transform=ax.get_xaxis_transform(),
        )
    )
    # fixed labels (the strings are in the boxes above): a legend whose text changes with
    # every key is laid out and repainted on every key
    ax.legend(fontsize=8, loc="upper right")
    ax.yaxis.get_major_locator().set_params(integer=True)
    ax.set_ylabel("count")
    ax.set_xlabel(" ")
    # the x label at a fixed distance below the axes: room for 5-character labels at 45°
    ax.xaxis.set_label_coords(0.5, 0.0, transform=offset_copy(ax.transAxes, fig=fig, y=-42, units="points"))
    ax.set_title(" ")
    stamp(ax.title, ax.xaxis.label)
    shown: dict = {"strings": None}
    controls = {
        # updated on every key (no Enter needed), as a slider is while it is dragged
        "x": W.Text(value=x, description="x", continuous_update=True, layout=W.Layout(width="240px")),
        "y": W.Text(value=y, description="y", continuous_update=True, layout=W.Layout(width="240px")),
        "n": int_slider("n", n, 1, N_MAX, width="220px"),
    }

    def update(ex: Explorer) -> None:
        sx = ex.controls["x"].value[:MAX_CHARS]
        sy = ex.controls["y"].value[:MAX_CHARS]
        n_ = int(ex.controls["n"].value)
        if shown["strings"] != (sx, sy):
            # limits for every n at once, so that moving n never moves the axes
            shown["strings"] = (sx, sy)
            shown["tables"] = tables = [_ordered(sx, sy, k) for k in range(1, N_MAX + 1)]
            width = max(max(len(t[0]) for t in tables), 1)
            top = max(max(float(t[1].max(initial=0)), float(t[2].max(initial=0))) for t in tables)
            # limits in steps (6 n-grams, 2 counts), grown at once but shrunk only below half:
            # a key typed rarely moves them, and moved limits repaint the whole axes with its
            # ticks (~90 ms) instead of the bars
            width = _stepped(min(MAX_GRAMS, 6 * math.ceil(width / 6)), ax.get_xlim()[1] + 0.3)
            top = _stepped(2 * math.ceil(max(top, 1.0) / 2), ax.get_ylim()[1] - 0.8)
            if ax.get_xlim() != (-0.7, width - 0.3):
                ax.set_xlim(-0.7, width - 0.3)
            if ax.get_ylim() != (0.0, top + 0.8):
                ax.set_ylim(0, top + 0.8)
            shown["rastered"] = set()
        # tick labels rasterised once per pair of strings and n (rotated labels are drawn
        # whole, ~1 ms each): moving n later pastes cached bitmaps only. Every n for the
        # strings the widget opens with; after a key typed, the n on show only (a key would
        # otherwise cost five n's labels)
        todo = [n_] if shown.get("opened") else list(range(1, N_MAX + 1))
        shown["opened"] = True
        renderer = fig.canvas.get_renderer()  # the explorer's Agg canvas
        for k in todo:
            if k not in shown["rastered"]:
                shown["rastered"].add(k)
                _set_ticks(ax, shown["tables"][k - 1][0], k)
                for lab in ax.xaxis.get_ticklabels():
                    lab.bitmap(renderer)
        grams, a, b, shared, (full, ca, cb) = shown["tables"][n_ - 1]
        g = len(grams)
        bars_x.set_path(_rects(idx[:g] - 0.4, idx[:g], a))
        bars_y.set_path(_rects(idx[:g], idx[:g] + 0.4, b))
        on = idx[:g][shared]
        shades.set_path(_rects(on - 0.5, on + 0.5, np.ones(len(on))))
        bars_x.stale = bars_y.stale = shades.stale = True  # set_path does not flag a redraw
        _set_ticks(ax, grams, n_)
        k = ngram_kernel(sx, sy, n_)
        ax.set_xlabel(f"{n_}-gram (shaded: in both strings)")
        ax.set_title(f"n-gram kernel k(x, y) = {k:.0f}")
        kxx, kyy = ngram_kernel(sx, sx, n_), ngram_kernel(sy, sy, n_)
        cos = k / np.sqrt(kxx * kyy) if kxx and kyy else 0.0
        both = [t for t, u, v in zip(full, ca, cb) if u and v]
        ex.state.update(
            x=sx,
            y=sy,
            n=n_,
            grams=full,
            counts_x=ca,
            counts_y=cb,
            shared=both,
            kernel=k,
            cosine=float(cos),
            substring=substring_kernel(sx, sy),
        )
        terms = " + ".join(f"{int(u)}·{int(v)}" for t, u, v in zip(full, ca, cb) if u and v)
        if both:
            names = html.escape(", ".join(repr(t) for t in both[:12])) + (" …" if len(both) > 12 else "")
            sum_text = f"{html.escape(terms)} = <b>{k}</b>"
            shared_text = f"shared {n_}-grams: <b>{len(both)}</b> ({names})"
        else:
            sum_text, shared_text = "<b>0</b>", f"no {n_}-gram is in both strings"
        ex.set_readout(
            f"k<sub>{n_}</sub>(x, y) = Σ count in x · count in y = {sum_text} &nbsp; normalised: "
            f"{cos:.3f} &nbsp; {shared_text}"
            f"<br>substring kernel (all common substrings, UML §16.2.1): <b>{ex.state['substring']}</b>"
        )

    return Explorer(
        fig, controls, update, title="n-gram kernel of two strings", css_class="kml-ngram-explorer"
    )
