"""Plots of chapter 08 (boosting and ensembles; SL boosting/bagging/forests, UML §18).

Weighted points and a decision stump, the regions of sign(Σ α_t h_t), AdaBoost's
training error against its bounds, regions of any ±1 predictor on a grid, and the
error curves of bagging as the ensemble grows. :func:`ridge_classifier` is the
*stable* learner of the bagging comparison (a least-squares linear classifier in
NumPy, so the chapter runs without scikit-learn); :func:`bagging_curves` records
OOB and test error for every ensemble size in one pass.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._style import OKABE_ITO, class_points, class_style, get_ax, label_axes, show
from .ch04 import grid_points

__all__ = [
    "show",
    "signed_image",
    "signed_rgba",
    "plot_signed_regions",
    "plot_weighted_points",
    "stump_segment",
    "stump_box",
    "plot_stump",
    "plot_adaboost_bounds",
    "bound_curves",
    "ridge_classifier",
    "RidgeClassifier",
    "BaggingCurves",
    "bagging_curves",
    "plot_bagging_curves",
    "grid_points",
]

NEG, POS = class_style(0)["color"], class_style(1)["color"]


def signed_image(values, n: int, alpha: float = 0.22, zero: float = 1.0) -> np.ndarray:
    """RGBA image (n, n, 4): the class colour of sign(value) per grid cell; a value of 0
    gets the colour of ``zero`` (+1, the tie rule of AdaBoost's ``predict``; −1 for a tied
    bagging vote)."""
    from matplotlib.colors import to_rgba

    cols = np.array([to_rgba(NEG, alpha), to_rgba(POS, alpha)])
    v = np.asarray(values, dtype=float).reshape(n, n)
    return cols[((v > 0) | ((v == 0) & (zero > 0))).astype(int)]


def signed_rgba(values, n: int, alpha: float = 0.22, zero: float = 1.0) -> np.ndarray:
    """:func:`signed_image` composited over the white Axes: an opaque uint8 RGBA image
    (n, n, 4) for a widget's :func:`~kmlteach._render.region_layer`, which copies it
    into the canvas instead of resampling and blending a float image on every frame."""
    from matplotlib.colors import to_rgb

    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"alpha must be in [0, 1], got {alpha!r}")
    v = np.asarray(values, dtype=float)
    if v.size != int(n) ** 2:
        raise ValueError(f"values must hold n² = {int(n) ** 2} grid values, got {v.size}")
    cols = np.full((2, 4), 255, dtype=np.uint8)
    cols[:, :3] = np.round(255 * ((1.0 - alpha) + alpha * np.array([to_rgb(NEG), to_rgb(POS)])))
    v = v.reshape(n, n)
    return cols[((v > 0) | ((v == 0) & (zero > 0))).astype(int)]


def plot_signed_regions(predict, xlim, ylim, ax=None, n: int = 160, alpha: float = 0.22):
    """Colour the box by the sign of ``predict(grid)`` (a ±1 predictor or any score on
    :func:`grid_points`), or of ``predict`` itself if it is an array of grid values.
    Returns the ``AxesImage`` (update it with ``set_data(signed_image(...))``)."""
    ax = get_ax(ax)
    vals = predict(grid_points(xlim, ylim, n)) if callable(predict) else predict
    vals = np.asarray(vals, dtype=float)
    im = ax.imshow(
        signed_image(vals, n, alpha),
        origin="lower",
        aspect="auto",
        extent=(xlim[0], xlim[1], ylim[0], ylim[1]),
        interpolation="nearest",
        zorder=0,
    )
    ax.set_xlim(xlim)
    ax.set_ylim(ylim)
    return im


def plot_weighted_points(X, y, D=None, ax=None, scale: float = 2400.0, title=None):
    """The sample with marker area ∝ D_i (uniform D if None). Returns ``{-1: art, +1: art}``."""
    ax = get_ax(ax)
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    D = np.full(len(y), 1.0 / len(y)) if D is None else np.asarray(D, dtype=float)
    arts = {}
    for lab, k in ((-1.0, 0), (1.0, 1)):
        m = y == lab
        arts[lab] = class_points(
            ax,
            k,
            X[m, 0],
            X[m, 1],
            s=scale * D[m],
            edgecolors="black",
            linewidths=0.6,
            zorder=3,
            label=f"y = {int(lab):+d}",
        )
    if title:
        ax.set_title(title)
    return arts


def _clip_threshold(stump, xlim, ylim) -> float:
    lim = xlim if int(stump.feature) == 0 else ylim
    return float(np.clip(float(stump.threshold), lim[0], lim[1]))


def stump_segment(stump, xlim, ylim):
    """End points (xs, ys) of the stump's boundary x_j = θ, clipped to the box (a stump
    whose θ lies outside the data is a constant classifier: its line sits on the edge)."""
    t = _clip_threshold(stump, xlim, ylim)
    if int(stump.feature) == 0:
        return [t, t], list(ylim)
    return list(xlim), [t, t]


def stump_box(stump, xlim, ylim):
    """(x0, y0, width, height) of the part of the box that the stump labels +1."""
    t = _clip_threshold(stump, xlim, ylim)
    low_is_pos = float(stump.sign) > 0  # h(x) = sign if x_j ≤ θ
    if int(stump.feature) == 0:
        x0, x1 = (xlim[0], t) if low_is_pos else (t, xlim[1])
        return x0, ylim[0], x1 - x0, ylim[1] - ylim[0]
    y0, y1 = (ylim[0], t) if low_is_pos else (t, ylim[1])
    return xlim[0], y0, xlim[1] - xlim[0], y1 - y0


def plot_stump(stump, xlim, ylim, ax=None):
    """The stump h(x) = s if x_j ≤ θ else −s (2-D data): its boundary and, shaded, the
    half it labels +1. Returns ``(line, patch)`` for the widget to move."""
    from matplotlib.patches import Rectangle

    ax = get_ax(ax)
    x0, y0, w, h = stump_box(stump, xlim, ylim)
    patch = ax.add_patch(
        Rectangle((x0, y0), w, h, color=POS, alpha=0.13, lw=0, zorder=0, label=r"$h_t = +1$")
    )
    (line,) = ax.plot(
        *stump_segment(stump, xlim, ylim), color=OKABE_ITO["black"], lw=2.5, zorder=2, label=r"stump $h_t$"
    )
    ax.set_xlim(xlim)
    ax.set_ylim(ylim)
    return line, patch


def bound_curves(epsilons):
    """(Π_{s≤t} Z_s, exp(−2 Σ_{s≤t} γ_s²)) for t = 1..T, with Z_s = 2√(ε_s(1 − ε_s)) and
    γ_s = ½ − ε_s (SL, analysis of AdaBoost)."""
    e = np.asarray(epsilons, dtype=float)
    return np.cumprod(2.0 * np.sqrt(e * (1.0 - e))), np.exp(-2.0 * np.cumsum((0.5 - e) ** 2))


def plot_adaboost_bounds(training_error, Z, epsilons, m: int, ax=None, title=None):
    """Training error of sign(Σ_{s≤t} α_s h_s) against Π Z_s and exp(−2Σγ_s²), log scale.

    A training error of 0 cannot sit on a log axis: those rounds are drawn as open
    markers on the bottom edge. The dotted line 1/m is one mistake: once Π Z_t falls
    below it, the training error must be 0. Returns the Axes.
    """
    ax = get_ax(ax, 5, 3.6)
    err = np.asarray(training_error, dtype=float)
    T = len(err)
    t = np.arange(1, T + 1)
    prod_z = np.cumprod(np.asarray(Z, dtype=float))
    _, exp_b = bound_curves(epsilons)
    floor = min(0.3 / m, 0.5 * float(np.min(prod_z)))
    ax.plot(t, exp_b, "-", color=OKABE_ITO["orange"], lw=2, label=r"$\exp(-2\,\Sigma_s\, \gamma_s^2)$")
    ax.plot(t, prod_z, "-", color=OKABE_ITO["blue"], lw=2, label=r"$\Pi_s\, Z_s$")
    pos = err > 0
    ax.plot(
        t,
        np.where(pos, err, np.nan),
        "o-",
        color=OKABE_ITO["vermillion"],
        ms=4,
        lw=1.5,
        label="training error",
    )
    if (~pos).any():  # (an empty unclipped line breaks the layout)
        ax.plot(
            t[~pos],
            np.full((~pos).sum(), floor),
            "o",
            mfc="white",
            color=OKABE_ITO["vermillion"],
            ms=5,
            clip_on=False,
            label="training error = 0",
        )
    ax.axhline(1.0 / m, color=OKABE_ITO["grey"], ls=":", lw=1.2, label=r"$1/m$ (one mistake)")
    ax.set_yscale("log")
    ax.set_ylim(floor, 1.05)
    ax.set_xlim(0.5, T + 0.5)
    ax.legend(fontsize=7.5, loc="lower left")
    label_axes(ax, "round t", "error / bound", title)
    return ax


@dataclass(frozen=True)
class RidgeClassifier:
    """A least-squares linear classifier: sign(⟨w, x⟩ + b)."""

    w: np.ndarray
    b: float

    def decision_function(self, X):
        return np.asarray(X, dtype=float) @ self.w + self.b

    def predict(self, X):
        return np.where(self.decision_function(X) >= 0, 1.0, -1.0)


def ridge_classifier(X, y, lam: float = 1e-3) -> RidgeClassifier:
    """Fit (w, b) by regularised least squares on the ±1 labels:
    min (λ/2)‖w‖² + (1/2m) Σ (⟨w, x_i⟩ + b − y_i)² (the bias is not penalised).

    A *stable* learner: a few changed training points move (w, b) only a little, so
    bagging it changes almost nothing (SL, bagging). Pure NumPy.
    """
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    if X.ndim != 2 or len(X) != len(y) or len(y) == 0:
        raise ValueError(f"X must be (m, d) with m = len(y) > 0, got X {X.shape} and y {y.shape}")
    if not lam > 0:
        raise ValueError(f"lam must be > 0, got {lam}")
    m, d = X.shape
    A = np.c_[X, np.ones(m)]
    reg = np.diag(np.r_[np.full(d, lam * m), 0.0])
    coef = np.linalg.solve(A.T @ A + reg + 1e-12 * np.eye(d + 1), A.T @ y)
    return RidgeClassifier(w=coef[:d], b=float(coef[d]))


@dataclass(frozen=True)
class BaggingCurves:
    """Errors of the bagged ensemble of its first n = 1..B members (±1 labels).

    ``oob_error[n-1]`` is :func:`~kmlteach.ensembles.bagging`'s OOB error path (over the
    points with at least one out-of-bag member among the first n); ``test_error[n-1]`` is
    the error of the vote of the first n members on the test set (a tied vote says −1,
    the first class, as ``bagging`` does); ``member_test_error`` per member;
    ``grid_votes[n-1]`` the summed ±1 votes on a grid (if one was given); ``result`` the
    ``BaggingResult`` itself."""

    oob_error: np.ndarray
    test_error: np.ndarray
    member_test_error: np.ndarray
    grid_votes: np.ndarray | None
    result: object


def bagging_curves(
    X, y, X_test, y_test, learner, n_estimators: int, seed: int = 0, grid=None
) -> BaggingCurves:
    """Bag ``learner`` with :func:`~kmlteach.ensembles.bagging` and record the OOB and test
    error of the first n members for every n (SL, bagging), in one pass over the members."""
    from ..ensembles import bagging

    yt = np.asarray(y_test, dtype=float)
    res = bagging(X, y, learner, n_estimators=n_estimators, seed=seed)
    P_te = np.array([np.asarray(e.predict(X_test), dtype=float) for e in res.estimators])
    test_err = np.mean(np.where(np.cumsum(P_te, axis=0) > 0, 1.0, -1.0) != yt, axis=1)
    votes = None
    if grid is not None:
        votes = np.cumsum([np.asarray(e.predict(grid), dtype=float) for e in res.estimators], axis=0)
    return BaggingCurves(
        oob_error=np.asarray(res.oob_error_path, dtype=float),
        test_error=test_err,
        member_test_error=np.mean(P_te != yt, axis=1),
        grid_votes=votes,
        result=res,
    )


def plot_bagging_curves(curves: dict, ax=None, title=None):
    """OOB (dashed) and test (solid) error against the number of members, one colour
    per learner; ``curves`` maps a name to a :class:`BaggingCurves`. Returns the Axes."""
    ax = get_ax(ax, 5, 3.6)
    colors = [OKABE_ITO["blue"], OKABE_ITO["vermillion"], OKABE_ITO["green"], OKABE_ITO["purple"]]
    for (name, c), col in zip(curves.items(), colors):
        n = np.arange(1, len(c.test_error) + 1)
        ax.plot(n, c.test_error, "-", color=col, lw=2, label=f"{name}: test")
        ax.plot(n, c.oob_error, "--", color=col, lw=1.5, label=f"{name}: OOB")
    ax.legend(fontsize=7.5, loc="upper right")
    label_axes(ax, "number of bootstrap members", "error", title)
    return ax
