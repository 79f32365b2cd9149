"""Widget of chapter 02: the PSD lab (is a candidate similarity a kernel?).

Re-exported by :mod:`kmlteach.widgets.ch02`; kept apart so that no module passes 400 lines.
"""

from __future__ import annotations

import ipywidgets as W
import numpy as np

from ..kernels import cauchy_schwarz_ratio, is_psd, similarity
from ..plots import OKABE_ITO, label_axes
from ._base import Explorer, int_slider

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


def make_psd_lab(candidate: str = "exponential", n: int = 16) -> Explorer:
    """Pick a candidate similarity and its parameter; see its Gram matrix and spectrum.

    A negative eigenvalue (hatched, vermillion) proves that the candidate is not a
    kernel (HSS1 Def. 2-3). State: ``candidate``, ``param``, ``K``, ``eigenvalues``
    (descending), ``psd``, ``smallest``, ``cauchy_schwarz`` (max |K_ij|/sqrt(K_ii K_jj),
    at most 1 for a kernel).
    """
    from matplotlib.ticker import FuncFormatter, NullLocator

    _plain = FuncFormatter(_plain_tick)
    fig = _figure(9.6, 3.9)
    ax_k, ax_e = fig.add_subplot(1, 2, 1), fig.add_subplot(1, 2, 2)
    im = ax_k.imshow(np.zeros((n, n)), cmap="viridis", interpolation="nearest")
    fig.colorbar(im, ax=ax_k, shrink=0.85)
    label_axes(ax_k, "j", "i", "Gram matrix K")
    from matplotlib.ticker import MaxNLocator

    ax_k.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax_k.yaxis.set_major_locator(MaxNLocator(integer=True))
    label_axes(ax_e, "index (descending)", "eigenvalue (symlog scale)", "spectrum of K")
    bars: list = []
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
        im.set_data(K)
        im.set_extent((-0.5, K.shape[1] - 0.5, K.shape[0] - 0.5, -0.5))
        vmax = float(np.max(np.abs(K))) or 1.0
        im.set_clim(float(K.min()), float(K.max()) if K.max() > K.min() else float(K.min()) + vmax)
        for bar in bars:
            bar.remove()
        bars.clear()
        scale = max(1.0, float(np.max(np.abs(lam))))
        neg = lam < -1e-10 * scale
        for k, (v, bad) in enumerate(zip(lam, neg)):
            (b,) = ax_e.bar([k + 1], [v], color=OKABE_ITO["vermillion"] if bad else OKABE_ITO["blue"],
                            hatch="//" if bad else None)
            bars.append(b)
        bars.append(ax_e.axhline(0, color=OKABE_ITO["black"], lw=0.8))
        # symlog: small negative eigenvalues stay visible next to large positive ones
        ax_e.set_yscale("symlog", linthresh=1e-3 * scale)
        ax_e.yaxis.set_major_formatter(_plain)  # plain text ticks: mathtext is slow to lay out
        ax_e.yaxis.set_minor_locator(NullLocator())
        ax_e.relim()
        ax_e.autoscale_view()
        ax_e.set_xlim(0.3, len(lam) + 0.7)
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
