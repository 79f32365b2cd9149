"""Widget of chapter 02: the PSD lab (is a candidate similarity a kernel?).

Re-exported by :mod:`kmlteach.widgets.ch02` (a module of the chapter's package).
"""

from __future__ import annotations

import ipywidgets as W
import numpy as np

from ..._render import region_layer, stamp, text_row
from ...kernels import cauchy_schwarz_ratio, is_psd, similarity
from ...plots import OKABE_ITO, label_axes
from .._base import Explorer, int_slider
from .._threads import single_thread

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


def _label_column(ax, x: float, transform, ha: str):
    """A :func:`~kmlteach._render.text_row` standing on end: strings at (``x``, ``ys[k]``) in ``transform``
    (its ``xs`` hold the ys; the artist's coordinates are swapped before ``transform``)."""
    from matplotlib.transforms import Affine2D

    return text_row(
        ax,
        [],
        x,
        fontsize=10,
        ha=ha,
        transform=Affine2D(np.array([[0.0, 1, 0], [1, 0, 0], [0, 0, 1]])) + transform,
    )


class _IndexTicks:
    """Tick marks and labels of a matrix-index axis whose number of ticks changes with n,
    drawn as two artists of the Axes (a marker line and a row of cached label bitmaps)
    rather than by the ``Axis``: new ticks would redraw the axis, and the background."""

    def __init__(self, ax, which: str):
        from matplotlib import lines
        from matplotlib.transforms import ScaledTranslation, blended_transform_factory

        self.which = which
        tr = (
            blended_transform_factory(ax.transData, ax.transAxes)
            if which == "x"
            else blended_transform_factory(ax.transAxes, ax.transData)
        )
        (self.marks,) = ax.plot(
            [],
            [],
            ls="none",
            color="black",
            ms=3.5,
            mew=0.8,
            clip_on=False,
            marker=lines.TICKDOWN if which == "x" else lines.TICKLEFT,
            transform=tr,
        )
        pad = 3.5 + 3.5 + 5.0 * (which == "x")  # tick length + pad (+ half a label's height)
        shift = ScaledTranslation(
            *((0, -pad / 72) if which == "x" else (-pad / 72, 0)), ax.figure.dpi_scale_trans
        )
        self.labels = (
            text_row(ax, [], 0.0, fontsize=10, transform=tr + shift)
            if which == "x"
            else _label_column(ax, 0.0, tr + shift, "right")
        )
        # the Axis keeps one invisible label of the widest kind: the layout reserves its room
        getattr(ax, f"set_{which}ticks")([0.0], ["00"])
        ax.tick_params(axis=which, length=0, labelcolor="none")

    def set(self, positions, labels) -> None:
        """Show tick marks at ``positions`` labelled ``labels``."""
        pos = np.asarray(positions, dtype=float)
        at = (pos, np.zeros(len(pos))) if self.which == "x" else (np.zeros(len(pos)), pos)
        self.marks.set_data(*at)
        self.labels.xs = list(pos)
        self.labels.set_texts([(str(t), "black") for t in labels])


def _bars_class():
    from matplotlib.artist import Artist
    from matplotlib.patches import Rectangle
    from matplotlib.transforms import Bbox

    class Bars(Artist):
        """Axis-aligned bars painted straight into the Agg canvas (solid, or hatched "//" in
        black): one artist with an exact extent instead of 40 patches to measure and draw."""

        zorder = 1

        def __init__(self, ax):
            super().__init__()
            self.x0 = self.width = self.height = np.zeros(0)
            self.bad = np.zeros(0, dtype=bool)
            self.colours = ("black", "black")
            ax.add_artist(self)

        def set_bars(self, x0, width, height, bad, colours) -> None:
            self.x0, self.height = np.asarray(x0, float), np.asarray(height, float)
            self.width = np.broadcast_to(np.asarray(width, float), self.x0.shape)
            self.bad, self.colours = np.asarray(bad, bool), colours
            self.stale = True

        def _boxes(self):
            tr = self.axes.transData
            lo = tr.transform(np.c_[self.x0, np.minimum(self.height, 0.0)])
            hi = tr.transform(np.c_[self.x0 + self.width, np.maximum(self.height, 0.0)])
            return np.round(np.c_[lo, hi]).astype(int)

        def get_window_extent(self, renderer=None):
            b = self._boxes()
            if not len(b):
                return Bbox([[0.0, 0.0], [0.0, 0.0]])
            return Bbox([[b[:, 0].min(), b[:, 1].min()], [b[:, 2].max(), b[:, 3].max()]])

        def draw(self, renderer):
            from matplotlib.backends.backend_agg import RendererAgg
            from matplotlib.colors import to_rgba_array

            if not self.get_visible():
                return
            if not isinstance(renderer, RendererAgg):  # vector output: ordinary patches
                for x, w, h, bad in zip(self.x0, self.width, self.height, self.bad):
                    r = Rectangle(
                        (x, 0.0),
                        w,
                        h,
                        color=self.colours[bad],
                        hatch="//" if bad else None,
                        transform=self.axes.transData,
                        linewidth=0,
                    )
                    r.set_figure(self.figure)
                    r.draw(renderer)
                return
            buf = np.asarray(renderer.buffer_rgba())
            H = buf.shape[0]
            rgba = (255 * to_rgba_array(self.colours)).round().astype(np.uint8)
            for (a, b, c, d), bad in zip(self._boxes(), self.bad):
                if c <= a or d <= b:
                    continue
                block = buf[H - d : H - b, a:c]
                block[...] = rgba[int(bad)]
                if bad:  # "//": one black pixel per 8 on diagonals
                    r, q = np.ogrid[H - d : H - b, a:c]
                    block[(r + q) % 8 == 0, :3] = 0
            self.stale = False

    return Bars


def make_psd_lab(candidate: str = "exponential", n: int = 16) -> Explorer:
    """Pick a candidate similarity and its parameter; see its Gram matrix and spectrum.

    A negative eigenvalue (hatched, vermillion) proves that the candidate is not a
    kernel (HSS1 Def. 2-3). State: ``candidate``, ``param``, ``K``, ``eigenvalues``
    (descending), ``psd``, ``smallest``, ``cauchy_schwarz`` (max |K_ij|/sqrt(K_ii K_jj),
    at most 1 for a kernel).
    """
    from matplotlib import colormaps
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import Normalize
    from matplotlib.ticker import FixedLocator
    from matplotlib.transforms import ScaledTranslation

    nmax = 40
    fig = _figure(9.6, 3.9)
    ax_k, ax_e = fig.add_subplot(1, 2, 1), fig.add_subplot(1, 2, 2)
    # Fixed axes whatever n and the candidate (n cells or bars share the same span), K shown
    # scaled to [0, 1] with the colour bar's labels carrying its values, eigenvalues shown
    # relative to the largest |eigenvalue|: an update repaints the Gram matrix (a pixel
    # layer), the bars (one artist) and stamped labels (kmlteach._render.text), never an Axis.
    viridis = (255 * colormaps["viridis"](np.linspace(0, 1, 256))).round().astype(np.uint8)
    im = region_layer(ax_k, (-0.5, nmax - 0.5, nmax - 0.5, -0.5))
    ax_k.set_xlim(-1.2, nmax + 0.2)  # a thin margin: the image never touches the frame
    ax_k.set_ylim(nmax + 0.2, -1.2)
    ax_k.set_aspect("equal")
    cbar = fig.colorbar(ScalarMappable(Normalize(0.0, 1.0), "viridis"), ax=ax_k, shrink=0.85)
    fracs = [0.0, 0.25, 0.5, 0.75, 1.0]
    cbar.ax.yaxis.set_major_locator(FixedLocator(fracs))
    cbar.ax.yaxis.set_major_formatter(lambda v, _p: "-0.000")  # room for the labels below
    cbar.ax.tick_params(labelcolor="none")
    cbar_labels = _label_column(
        cbar.ax, 1.0, cbar.ax.transAxes + ScaledTranslation(5.5 / 72, 0, fig.dpi_scale_trans), "left"
    )
    cbar_labels.xs = fracs
    label_axes(ax_k, "j", "i", " ")
    label_axes(ax_e, "index (descending)", "eigenvalue / max |eigenvalue|\n(symlog scale)", " ")
    # symlog by hand on a linear axis (bar extents through a non-affine transform cost
    # ~2 ms each to find for the blitter); ticks where the symlog axis had them
    ax_e.set_ylim(_symlog(-1.3), _symlog(1.3))
    ax_e.set_xlim(-0.8, nmax + 0.8)  # the first and last bars keep clear of the frame
    tick_values = [-1.0, -0.1, -0.01, -0.001, 0.0, 0.001, 0.01, 0.1, 1.0]
    ax_e.set_yticks(_symlog(np.array(tick_values)), [_plain_tick(v) for v in tick_values])
    ax_e.axhline(0, color=OKABE_ITO["black"], lw=0.8)
    bars = _bars_class()(ax_e)
    ticks = [_IndexTicks(ax_k, "x"), _IndexTicks(ax_k, "y"), _IndexTicks(ax_e, "x")]
    stamp(ax_k.title, ax_e.title)
    cache: dict = {}  # (candidate, parameter, n) -> what the update shows: revisits are free
    lo, hi, step, default = PSD_CANDIDATES[candidate][2]
    controls = {
        "candidate": W.Dropdown(
            options=[(v[0], k) for k, v in PSD_CANDIDATES.items()],
            value=candidate,
            description="similarity",
            layout=W.Layout(width="330px"),
            style={"description_width": "initial"},
        ),
        "param": W.FloatSlider(
            value=default,
            min=-2.0,
            max=7.0,
            step=step,
            description="parameter",
            continuous_update=True,
            style={"description_width": "initial"},
            layout=W.Layout(width="320px"),
        ),
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

    def compute(cand, param, n_):
        with single_thread():  # 40 x 40 matrices: a thread pool only waits for itself
            K = candidate_gram(cand, psd_points(n_, cand), param)
            psd, smallest = is_psd(K)
            lam = np.linalg.eigvalsh(K)[::-1]
        cs = cauchy_schwarz_ratio(K)
        lo_k, hi_k = float(K.min()), float(K.max())
        span = hi_k - lo_k if hi_k > lo_k else (abs(hi_k) or 1.0)
        rgba = viridis[np.clip(np.rint(255 * (K - lo_k) / span), 0, 255).astype(np.intp)][::-1]
        return K, bool(psd), float(smallest), lam, float(cs), rgba, [f"{lo_k + f * span:.3g}" for f in fracs]

    def update(ex: Explorer) -> None:
        c = ex.controls
        cand = c["candidate"].value
        if ex.state.get("candidate") != cand:
            ex._busy = True
            configure(c, cand)
            ex._busy = False
        label, pname, _, integer = PSD_CANDIDATES[cand]
        param = int(round(c["param"].value)) if integer else float(c["param"].value)
        key = (cand, param, c["n"].value)
        if key not in cache:
            cache[key] = compute(*key)
        K, psd, smallest, lam, cs, rgba, cb_text = cache[key]
        n_ = len(K)
        cell = nmax / n_
        idx = _index_ticks(n_)
        centre = [-0.5 + (t + 0.5) * cell for t in idx]
        ticks[0].set(centre, idx)
        ticks[1].set(centre, idx)
        ticks[2].set([(t + 0.5) * cell for t in idx], [t + 1 for t in idx])
        im.set_data(rgba)
        cbar_labels.set_texts([(t, "black") for t in cb_text])
        scale = float(np.max(np.abs(lam))) or 1.0
        neg = lam < -1e-10 * max(1.0, scale)
        bars.set_bars(
            np.arange(n_) * cell + 0.1 * cell,
            0.8 * cell,
            _symlog(lam / scale),
            neg,
            (OKABE_ITO["blue"], OKABE_ITO["vermillion"]),
        )
        ax_e.set_title(f"spectrum of K (largest |eigenvalue| {scale:.3g})", fontsize=10)
        ptxt = f", {pname} = {param}" if pname else ""
        ax_k.set_title(f"K for {label}{ptxt}", fontsize=9)
        ex.state.update(
            candidate=cand,
            param=param if pname else None,
            K=K,
            eigenvalues=lam,
            psd=psd,
            smallest=smallest,
            cauchy_schwarz=cs,
            n_negative=int(np.sum(neg)),
        )
        verdict = (
            "<b style='color:#009E73'>PSD</b>: consistent with a kernel"
            if psd
            else f"<b style='color:#D55E00'>not PSD</b>: {int(np.sum(neg))} negative eigenvalue(s)"
            " — not a kernel"
        )
        ex.set_readout(
            f"{verdict} &nbsp; smallest eigenvalue {smallest:.3e} &nbsp; max |K_ij|/√(K_ii K_jj) = {cs:.3f}"
        )

    ex = Explorer(
        fig,
        controls,
        update,
        title="PSD lab: is this similarity a kernel?",
        css_class="kml-psd-lab",
    )
    # first visits of a candidate cost what is loaded or drawn once per process (its Numba
    # kernel, the bitmaps of its title's characters, ~50-150 ms): paid here, not on a click
    renderer = fig.canvas.get_renderer()
    title = ax_k.title.get_text()
    for cand, (label, pname, (_lo, _hi, _, default_), integer) in PSD_CANDIDATES.items():
        candidate_gram(cand, psd_points(3, cand), int(default_) if integer else default_)
        ax_k.set_title(f"K for {label}, {pname} = -0.123456789", fontsize=9)
        ax_k.title.get_window_extent(renderer)
    ax_k.set_title(title, fontsize=9)
    return ex
