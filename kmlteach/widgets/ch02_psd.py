"""Widget of chapter 02: the PSD lab (is a candidate similarity a kernel?).

Re-exported by :mod:`kmlteach.widgets.ch02`; kept apart so that no module passes 400 lines.
"""

from __future__ import annotations

import ipywidgets as W
import numpy as np

from ..kernels import cauchy_schwarz_ratio, is_psd, similarity
from ..plots import OKABE_ITO, label_axes
from ._base import Explorer, int_slider
from ._stamp import stamp, stamp_axis

__all__ = ["PSD_CANDIDATES", "psd_points", "candidate_gram", "make_psd_lab"]


def _figure(width, height):
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained")


# ---------------------------------------------------------------------------------------
# PSD lab
# ---------------------------------------------------------------------------------------

PSD_CANDIDATES = {
    # name: (label, parameter name, (min, max, step, default), integer?)
    "gaussian": ("Gaussian exp(−|x−x'|²/(2σ))", "σ", (0.02, 3.0, 0.02, 0.5), False),
    "polynomial": ("polynomial (1 + x x')^k", "k", (1, 6, 1, 2), True),
    "exponential": ("exponential exp(γ x x')", "γ", (-2.0, 2.0, 0.1, -1.0), False),
    "bspline": ("B-spline B_n(x − x')", "n", (0, 7, 1, 2), True),
    "min": ("min(x, x') on x ≥ 0", None, (0, 1, 1, 0), True),
    "negative_distance": ("−|x − x'|", None, (0, 1, 1, 0), True),
}


def psd_points(n: int, candidate: str) -> np.ndarray:
    """n evenly spaced 1-D points in [-1.5, 1.5] (shifted to [0, 3] for the min kernel)."""
    x = np.linspace(-1.5, 1.5, n)
    return (x + 1.5 if candidate == "min" else x)[:, None]


def candidate_gram(candidate: str, X, param) -> np.ndarray:
    """Gram matrix of a PSD-lab candidate with its parameter (``similarity`` allows non-kernels)."""
    if candidate == "gaussian":
        return similarity("gaussian", X, sigma=float(param))
    if candidate == "polynomial":
        return similarity("polynomial", X, degree=int(round(param)), c=1.0)
    if candidate == "exponential":
        return similarity("exponential", X, gamma=float(param))
    if candidate == "bspline":
        return similarity("bspline", X, order=int(round(param)))
    return similarity(candidate, X)


def _plain_tick(v, _pos=None):
    return f"{v:g}"


SYMLOG_THRESH = 1e-3


def _symlog(v):
    """Matplotlib's symlog (base 10, linear within ±1e-3, linscale 1) of relative values."""
    v = np.asarray(v, dtype=float)
    a = np.abs(v) / SYMLOG_THRESH
    return np.sign(v) * np.where(a <= 1.0, a, 1.0 + np.log10(np.maximum(a, 1.0)))


def _index_ticks(n: int) -> list:
    """0-based indices to label on an axis of n cells: every one up to 10, else ~8 of them."""
    if n <= 10:
        return list(range(n))
    step = int(np.ceil(n / 8))
    return list(range(0, n, step))


def make_psd_lab(candidate: str = "exponential", n: int = 16) -> Explorer:
    """Pick a candidate similarity and its parameter; see its Gram matrix and spectrum.

    A negative eigenvalue (hatched, vermillion) proves that the candidate is not a
    kernel (HSS1 Def. 2-3). State: ``candidate``, ``param``, ``K``, ``eigenvalues``
    (descending), ``psd``, ``smallest``, ``cauchy_schwarz`` (max |K_ij|/sqrt(K_ii K_jj),
    at most 1 for a kernel).
    """
    from matplotlib.ticker import FixedFormatter, FixedLocator

    nmax = 40
    fig = _figure(9.6, 3.9)
    ax_k, ax_e = fig.add_subplot(1, 2, 1), fig.add_subplot(1, 2, 2)
    # Fixed axes whatever n and the candidate (n cells or bars share the same span), K shown
    # scaled to [0, 1] with the colour bar's labels carrying its values, eigenvalues shown
    # relative to the largest |eigenvalue|: an update repaints the image, the bars and a few
    # stamped labels (widgets/_stamp.py), never whole axes.
    im = ax_k.imshow(np.zeros((n, n)), cmap="viridis", interpolation="nearest", vmin=0.0, vmax=1.0,
                     extent=(-0.5, nmax - 0.5, nmax - 0.5, -0.5))
    ax_k.set_xlim(-1.2, nmax + 0.2)     # a thin margin: the image never touches the frame
    ax_k.set_ylim(nmax + 0.2, -1.2)
    cbar = fig.colorbar(im, ax=ax_k, shrink=0.85)
    cbar.ax.yaxis.set_major_locator(FixedLocator([0.0, 0.25, 0.5, 0.75, 1.0]))
    label_axes(ax_k, "j", "i", " ")
    label_axes(ax_e, "index (descending)", "eigenvalue / max |eigenvalue|\n(symlog scale)", " ")
    # symlog by hand on a linear axis (bar extents through a non-affine transform cost
    # ~2 ms each to find for the blitter); ticks where the symlog axis had them
    ax_e.set_ylim(_symlog(-1.3), _symlog(1.3))
    ax_e.set_xlim(-0.8, nmax + 0.8)   # the first and last bars keep clear of the frame
    tick_values = [-1.0, -0.1, -0.01, -0.001, 0.0, 0.001, 0.01, 0.1, 1.0]
    ax_e.set_yticks(_symlog(np.array(tick_values)), [_plain_tick(v) for v in tick_values])
    ax_e.axhline(0, color=OKABE_ITO["black"], lw=0.8)
    bars = list(ax_e.bar(np.arange(nmax) + 0.5, np.zeros(nmax), 0.8, color=OKABE_ITO["blue"]))
    stamp(ax_k.title, ax_e.title)
    shown = {"n": None}
    lo, hi, step, default = PSD_CANDIDATES[candidate][2]
    controls = {
        "candidate": W.Dropdown(options=[(v[0], k) for k, v in PSD_CANDIDATES.items()], value=candidate,
                                description="similarity", layout=W.Layout(width="330px"),
                                style={"description_width": "initial"}),
        "param": W.FloatSlider(value=default, min=-2.0, max=7.0, step=step, description="parameter",
                               continuous_update=True, style={"description_width": "initial"},
                               layout=W.Layout(width="320px")),
        "n": int_slider("points", n, 2, 40, width="260px"),
    }

    def configure(c, cand):
        """Adjust the parameter slider to the candidate (without triggering a redraw)."""
        label, pname, (lo_, hi_, step_, default_), _ = PSD_CANDIDATES[cand]
        s = c["param"]
        s.min, s.max = -1e9, 1e9
        s.min, s.max, s.step, s.value = lo_, hi_, step_, default_
        s.description = pname or "(no parameter)"
        s.disabled = pname is None

    def update(ex: Explorer) -> None:
        c = ex.controls
        cand = c["candidate"].value
        if ex.state.get("candidate") != cand:
            ex._busy = True
            configure(c, cand)
            ex._busy = False
        label, pname, _, integer = PSD_CANDIDATES[cand]
        param = int(round(c["param"].value)) if integer else float(c["param"].value)
        X = psd_points(c["n"].value, cand)
        K = candidate_gram(cand, X, param)
        psd, smallest = is_psd(K)
        lam = np.linalg.eigvalsh(K)[::-1]
        cs = cauchy_schwarz_ratio(K)
        n_ = len(K)
        if shown["n"] != n_:
            shown["n"] = n_
            cell = nmax / n_
            ticks = [t for t in _index_ticks(n_)]
            centre = [-0.5 + (t + 0.5) * cell for t in ticks]
            ax_k.set_xticks(centre, [str(t) for t in ticks])
            ax_k.set_yticks(centre, [str(t) for t in ticks])
            ax_e.set_xticks([(t + 0.5) * cell for t in ticks], [str(t + 1) for t in ticks])
            for ax_ in (ax_k.xaxis, ax_k.yaxis, ax_e.xaxis):
                stamp_axis(ax_)
            for k, bar in enumerate(bars):
                bar.set_visible(k < n_)
                if k < n_:
                    bar.set_x(k * cell + 0.1 * cell)
                    bar.set_width(0.8 * cell)
        lo_k, hi_k = float(K.min()), float(K.max())
        span = hi_k - lo_k if hi_k > lo_k else (abs(hi_k) or 1.0)
        im.set_data((K - lo_k) / span)
        cbar.ax.yaxis.set_major_formatter(FixedFormatter([f"{lo_k + f * span:.3g}" for f in (0, .25, .5, .75, 1)]))
        stamp_axis(cbar.ax.yaxis)
        scale = float(np.max(np.abs(lam))) or 1.0
        neg = lam < -1e-10 * max(1.0, scale)
        for k in range(n_):
            bad = bool(neg[k])
            bars[k].set_height(_symlog(lam[k] / scale))
            colour = OKABE_ITO["vermillion"] if bad else OKABE_ITO["blue"]
            if bars[k].get_hatch() != ("//" if bad else None):
                bars[k].set_hatch("//" if bad else None)
                bars[k].set_facecolor(colour)
        for bar in bars[n_:]:       # hidden bars stay dynamic: showing them later needs no redraw
            bar.stale = True
        ax_e.set_title(f"spectrum of K (largest |eigenvalue| {scale:.3g})", fontsize=10)
        ptxt = f", {pname} = {param}" if pname else ""
        ax_k.set_title(f"K for {label}{ptxt}", fontsize=9)
        ex.state.update(candidate=cand, param=param if pname else None, K=K, eigenvalues=lam,
                        psd=bool(psd), smallest=float(smallest), cauchy_schwarz=float(cs),
                        n_negative=int(np.sum(neg)))
        verdict = ("<b style='color:#009E73'>PSD</b>: consistent with a kernel" if psd else
                   f"<b style='color:#D55E00'>not PSD</b>: {int(np.sum(neg))} negative eigenvalue(s)"
                   " — not a kernel")
        ex.set_readout(f"{verdict} &nbsp; smallest eigenvalue {smallest:.3e} &nbsp; "
                       f"max |K_ij|/√(K_ii K_jj) = {cs:.3f}")

    ex = Explorer(fig, controls, update, layout_rows=[["candidate", "param", "n"]],
                  title="PSD lab: is this similarity a kernel?", css_class="kml-psd-lab")
    return ex
