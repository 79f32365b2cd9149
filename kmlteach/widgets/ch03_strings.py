"""Widget of chapter 03: the n-gram kernel between two typed strings.

Re-exported by :mod:`kmlteach.widgets.ch03`; kept apart so that no module passes 400 lines.
The figure is the one of :func:`kmlteach.plots.ch03.plot_ngram_counts`, built once: a
pool of bars and shades whose heights and visibility an update sets, axes limits fixed
for the pair of strings (they change only when a string does), tick labels stamped
from a bitmap cache (:mod:`kmlteach.widgets._stamp`).
"""

from __future__ import annotations

import html

import ipywidgets as W
import numpy as np

from ..plots import OKABE_ITO, figure
from ..plots.ch03 import ngram_table
from ..structured_kernels import ngram_kernel, substring_kernel
from ._base import Explorer, int_slider
from ._stamp import stamp, stamp_axis

__all__ = ["MAX_CHARS", "make_ngram_explorer"]

MAX_CHARS = 40
MAX_GRAMS = 30    # as plot_ngram_counts: shared n-grams first, at most 30 shown
N_MAX = 5


def _ordered(sx: str, sy: str, n: int):
    """The n-grams (shared first, at most MAX_GRAMS) with their counts in x and y."""
    grams, a, b = ngram_table(sx, sy, n)
    shared = (a > 0) & (b > 0)
    order = np.argsort(~shared, kind="stable")[:MAX_GRAMS]
    return [grams[i] for i in order], a[order], b[order], shared[order]


def make_ngram_explorer(x: str = "banana", y: str = "bandana", n: int = 2) -> Explorer:
    """The n-gram kernel (HSS1 (1.34)) of two strings you type, with their count vectors.

    State: ``x``, ``y``, ``n``, ``grams`` (union of the n-grams), ``counts_x``,
    ``counts_y``, ``shared`` (n-grams in both), ``kernel``, ``cosine``
    (k(x,y)/√(k(x,x)k(y,y))), ``substring`` (the substring kernel of UML §16.2.1).
    """
    from matplotlib.transforms import offset_copy

    fig, ax = figure(7.6, 3.6)
    idx = np.arange(MAX_GRAMS)
    bars_x = ax.bar(idx - 0.2, np.zeros(MAX_GRAMS), 0.4, color=OKABE_ITO["blue"], label="x")
    bars_y = ax.bar(idx + 0.2, np.zeros(MAX_GRAMS), 0.4, color=OKABE_ITO["orange"], hatch="//",
                    edgecolor="white", label="y")
    shades = [ax.axvspan(i - 0.5, i + 0.5, color=OKABE_ITO["green"], alpha=0.15, lw=0, zorder=0)
              for i in range(MAX_GRAMS)]
    legend = ax.legend(fontsize=8, loc="upper right")
    ax.yaxis.get_major_locator().set_params(integer=True)
    ax.set_ylabel("count")
    ax.set_xlabel(" ")
    # the x label at a fixed distance below the axes: room for 5-character labels at 45°
    ax.xaxis.set_label_coords(0.5, 0.0, transform=offset_copy(ax.transAxes, fig=fig, y=-42, units="points"))
    ax.set_title(" ")
    stamp(ax.title, ax.xaxis.label)
    shown: dict = {"strings": None}
    controls = {
        "x": W.Text(value=x, description="x", continuous_update=False, layout=W.Layout(width="240px")),
        "y": W.Text(value=y, description="y", continuous_update=False, layout=W.Layout(width="240px")),
        "n": int_slider("n", n, 1, N_MAX, width="220px"),
    }

    def update(ex: Explorer) -> None:
        sx = ex.controls["x"].value[:MAX_CHARS]
        sy = ex.controls["y"].value[:MAX_CHARS]
        n_ = int(ex.controls["n"].value)
        if shown["strings"] != (sx, sy):
            # limits for every n at once, so that moving n never moves the axes
            shown["strings"] = (sx, sy)
            tables = [_ordered(sx, sy, k) for k in range(1, N_MAX + 1)]
            width = max(max(len(t[0]) for t in tables), 1)
            top = max(max(float(t[1].max(initial=0)), float(t[2].max(initial=0))) for t in tables)
            ax.set_xlim(-0.7, width - 0.3)
            ax.set_ylim(0, max(top, 1.0) + 0.8)
            legend.get_texts()[0].set_text(f"x = {sx!r}")
            legend.get_texts()[1].set_text(f"y = {sy!r}")
        grams, a, b, shared = _ordered(sx, sy, n_)
        g = len(grams)
        for i in range(MAX_GRAMS):      # unused bars hidden, not drawn at height 0
            for bar, h in ((bars_x[i], a), (bars_y[i], b)):
                if i < g:
                    bar.set_height(h[i])
                if bar.get_visible() != (i < g):
                    bar.set_visible(i < g)
            on = bool(i < g and shared[i])
            if shades[i].get_visible() != on:
                shades[i].set_visible(on)
            if not on:             # hidden artists stay dynamic: showing them needs no redraw
                shades[i].stale = True
            if i >= g:
                bars_x[i].stale = bars_y[i].stale = True
        ax.set_xticks(idx[:g], [repr(t)[1:-1].replace(" ", "␣") for t in grams], fontsize=9,
                      rotation=0 if n_ == 1 else 45, ha="center" if n_ == 1 else "right",
                      rotation_mode="anchor")
        stamp_axis(ax.xaxis)
        k = ngram_kernel(sx, sy, n_)
        ax.set_xlabel(f"{n_}-gram (shaded: in both strings)")
        ax.set_title(f"n-gram kernel k(x, y) = {k:.0f}")
        kxx, kyy = ngram_kernel(sx, sx, n_), ngram_kernel(sy, sy, n_)
        cos = k / np.sqrt(kxx * kyy) if kxx and kyy else 0.0
        full, ca, cb = ngram_table(sx, sy, n_)
        both = [t for t, u, v in zip(full, ca, cb) if u and v]
        ex.state.update(x=sx, y=sy, n=n_, grams=full, counts_x=ca, counts_y=cb, shared=both,
                        kernel=k, cosine=float(cos), substring=substring_kernel(sx, sy))
        terms = " + ".join(f"{int(u)}·{int(v)}" for t, u, v in zip(full, ca, cb) if u and v) or "0"
        ex.set_readout(
            f"k<sub>{n_}</sub>(x, y) = {html.escape(terms)} = <b>{k}</b> &nbsp; normalised: "
            f"{cos:.3f} &nbsp; shared {n_}-grams: <b>{len(both)}</b> "
            f"({html.escape(', '.join(repr(t) for t in both[:12]))}{' …' if len(both) > 12 else ''})"
            f"<br>substring kernel (all common substrings, UML §16.2.1): <b>{ex.state['substring']}</b>")

    return Explorer(fig, controls, update, title="n-gram kernel of two strings",
                    css_class="kml-ngram-explorer")
