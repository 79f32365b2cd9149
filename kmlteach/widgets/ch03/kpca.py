"""Chapter 03: kernel PCA with a width slider.

Each builder returns an :class:`~kmlteach.widgets._base.Explorer`; ``explorer.state``
holds what the last redraw computed (tests read it), ``explorer.controls`` the
controls (tests set their ``value``).
"""

from __future__ import annotations

import ipywidgets as W
import numpy as np

from ... import datasets
from ..._render import stamp
from ...kernel_methods import kernel_pca
from ...plots import OKABE_ITO, class_style, figure, label_axes
from .._base import Explorer, slider
from .._predict import choice_buttons, predict_mode
from .._threads import single_blas_thread

__all__ = ["make_kpca_explorer", "threshold_accuracy"]


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


KPCA_LEFT = (0.0641, 0.3871, 0.7301)  # left edges of the three panels (figure fraction)


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


def make_kpca_explorer(
    m: int = 160, seed: int = 0, sigma: float = 0.3, dataset: str = "rings", predict: bool = False
) -> Explorer:
    """Kernel PCA (HSS1 §1.3.2) of rings or moons with the Gaussian kernel; slide its width.

    Kernel ``exp(−‖x − x'‖²/(2σ))`` (UML convention). Panels: the data, the leading
    eigenvalues of the centred Gram matrix, the projections on the first two axes.
    State: ``dataset``, ``sigma``, ``eigenvalues`` (top 10), ``explained`` (share of the
    top two in the trace of K̃), ``embedding`` (m, 2), ``accuracy_pc1`` (best threshold
    rule on component 1).

    ``predict=True``: for each data set and σ the student first guesses whether a threshold
    on component 1 will separate the classes (:data:`PC1_CHOICES`, by the accuracy
    ``accuracy_pc1``); the embedding stays hidden until *Reveal*
    (:mod:`kmlteach.widgets._predict`).
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
    bars = ax_sp.add_patch(
        Polygon(
            _bar_outline(np.zeros(10)),
            closed=True,
            facecolor=OKABE_ITO["blue"],
            edgecolor="none",
            linewidth=0,
        )
    )
    label_axes(ax_sp, "component", "eigenvalue / trace", "spectrum of centred K")
    ax_sp.set_xticks(range(1, 11))
    ax_sp.set_xlim(0.11, 10.89)  # where bar() put them (bars 0.6..10.4, 5 % margins)
    # fixed limits (components scaled to ±1, shares of the trace in [0, 1]): moving σ
    # then repaints the artists only, not the axes and their ticks
    label_axes(ax_em, "component 1 (scaled)", "component 2 (scaled)", "kernel PCA embedding")
    ax_em.set_xlim(-1.12, 1.12)
    ax_em.set_ylim(-1.12, 1.12)
    ax_sp.set_ylim(0, 1.0)
    title = fig.suptitle("", y=0.988, va="top")
    # the panels where the constrained layout puts them, fixed: the layout pass measured every
    # tick label of the figure and was a third of the time to the first picture
    fig.set_layout_engine("none")
    for ax, left in zip((ax_in, ax_sp, ax_em), KPCA_LEFT):
        ax.set_position((left, 0.1362, 0.2659, 0.7186))

    controls = {
        "dataset": W.Dropdown(
            options=["rings", "moons"], value=dataset, description="data", layout=W.Layout(width="170px")
        ),
        "sigma": slider("Gaussian width σ", sigma, -2, 1, 0.1, log=True, readout_format=".3f", width="360px"),
    }
    stamp(title, *legend.get_texts())  # the legend is repainted over the moving points
    cache: dict = {}
    results: dict = {}  # (dataset, sigma) -> (eigenvalues, Z, share): slider revisits are free

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
        for lab in (-1.0, 1.0):  # set on every update: painted per frame, so a switch is cheap
            arts_in[lab].set_offsets(X[y == lab])
        key = (name, round(sig, 12))
        if key not in results:
            K = np.exp(-cache["D"] / (2.0 * sig))
            with single_blas_thread():
                res = kernel_pca(K, 10)
            total = float(np.trace(K) - K.sum() / len(K))  # trace of the centred K
            if len(results) > 128:
                results.clear()
            results[key] = (
                res.eigenvalues.copy(),
                res.embedding[:, :2].copy(),
                res.eigenvalues / max(total, 1e-300),
            )
        eigenvalues, Z, share = results[key]
        Zs = Z / np.maximum(np.max(np.abs(Z), axis=0), 1e-300)
        for lab in (-1.0, 1.0):
            arts_em[lab].set_offsets(Zs[y == lab])
        bars.set_xy(_bar_outline(share))
        acc = threshold_accuracy(Z[:, 0], y)
        ex.state.update(
            dataset=name,
            sigma=sig,
            eigenvalues=eigenvalues.copy(),
            explained=float(share[:2].sum()),
            embedding=Z.copy(),
            accuracy_pc1=acc,
        )
        title.set_text(f"{name}, σ = {sig:.3f}")
        ex.set_readout(
            f"σ = <b>{sig:.3f}</b> &nbsp; first two components carry "
            f"<b>{100 * ex.state['explained']:.1f}%</b> of the variance in feature space "
            f"&nbsp; a threshold on component 1 classifies <b>{100 * acc:.1f}%</b> correctly"
        )

    ex = Explorer(
        fig, controls, update, title="Kernel PCA: the Gaussian width", css_class="kml-kpca-explorer"
    )
    if predict:
        predict_mode(
            ex,
            choice_buttons(PC1_CHOICES, None, "component 1:", "160px"),  # nothing preselected
            lambda ex_: pc1_verdict(ex_.state["accuracy_pc1"]),
            list(arts_em.values()),
            "will a threshold on the first kernel-PCA component separate the two classes?",
            item_id="03.p_component",
        )
    return ex


PC1_CHOICES = ("separates (≥ 95 %)", "partly (70–95 %)", "does not (< 70 %)")


def pc1_verdict(accuracy: float) -> str:
    """The :data:`PC1_CHOICES` entry of a threshold accuracy on component 1."""
    return PC1_CHOICES[0 if accuracy >= 0.95 else 1 if accuracy >= 0.7 else 2]
