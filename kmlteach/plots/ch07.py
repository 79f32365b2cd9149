"""Plots of chapter 07 (bipartite ranking, UML §17.5): scores, PR and ROC curves, fraud data."""

from __future__ import annotations

import numpy as np

from ._style import OKABE_ITO, class_points, get_ax, label_axes, rings

__all__ = [
    "example_scores",
    "plot_scores",
    "plot_pr_curve",
    "plot_roc_curve",
    "plot_fraud",
    "strip_positions",
    "scatter_strip",
    "draw_labelling",
    "set_labelling",
    "plot_labelling",
]


def example_scores(n: int = 40, pos_rate: float = 0.3, seed: int = 3):
    """A small scored sample for the precision/recall pictures: positives tend to
    score higher (N(1, 1) against N(−0.5, 1)); scores rounded to 2 decimals.
    Returns ``(y_score, y_true)``."""
    rng = np.random.default_rng(seed)
    n_pos = max(1, int(round(n * pos_rate)))
    y = np.r_[np.ones(n_pos), -np.ones(n - n_pos)]
    s = np.where(y > 0, 1.0, -0.5) + rng.normal(size=n)
    perm = rng.permutation(n)
    return np.round(s[perm], 2), y[perm]


def strip_positions(y_true, seed: int = 0):
    """Vertical positions for a score strip: positives around 1, negatives around 0."""
    rng = np.random.default_rng(seed)
    y_true = np.asarray(y_true)
    return np.where(y_true > 0, 1.0, 0.0) + rng.uniform(-0.25, 0.25, size=len(y_true))


def scatter_strip(ax, y_score, y_true, s: float = 36):
    """Scatter the scores of both classes in two bands (positives above); returns the
    vertical positions used."""
    y_score = np.asarray(y_score, dtype=float)
    y_true = np.asarray(y_true, dtype=float)
    ys = strip_positions(y_true)
    for lab, k in ((-1.0, 0), (1.0, 1)):
        m = y_true == lab
        class_points(
            ax,
            k,
            y_score[m],
            ys[m],
            s=s,
            edgecolors="white",
            linewidths=0.5,
            label=f"y = {int(lab):+d}",
            zorder=3,
        )
    return ys


def plot_scores(y_score, y_true, theta=None, ax=None, title=None):
    """The scores of both classes on one axis, with the threshold θ and the
    predicted-positive side shaded (an item is predicted positive iff score ≥ θ)."""
    ax = get_ax(ax, 6, 2.6)
    y_score = np.asarray(y_score, dtype=float)
    scatter_strip(ax, y_score, y_true)
    if theta is not None:
        ax.axvline(theta, color=OKABE_ITO["black"], lw=2)
        ax.axvspan(
            theta, y_score.max() + 1, color=OKABE_ITO["orange"], alpha=0.15, lw=0, label="predicted positive"
        )
    ax.set_xlim(y_score.min() - 0.3, y_score.max() + 0.3)
    ax.set_yticks([0, 1], ["y = −1", "y = +1"])
    ax.set_ylim(-0.5, 1.5)
    ax.legend(fontsize=8, loc="upper left")
    label_axes(ax, "score  y'", "", title)
    return ax


def plot_pr_curve(
    y_score,
    y_true,
    theta=None,
    ax=None,
    title=None,
    label="PR curve",
    color=None,
    ls="-",
    baseline: bool = True,
):
    """Precision against recall over all thresholds, with the point of θ marked."""
    from ..metrics import precision, precision_recall_curve, recall

    ax = get_ax(ax, 4, 3.6)
    p, r, _ = precision_recall_curve(y_score, y_true)
    ax.step(r, p, where="post", color=color or OKABE_ITO["blue"], ls=ls, lw=2, label=label)
    if baseline:
        base = float(np.mean(np.asarray(y_true) > 0))
        ax.axhline(base, color=OKABE_ITO["grey"], ls=":", lw=1.2, label="positive rate")
    if theta is not None:
        ax.plot(
            [recall(y_score, y_true, theta)],
            [precision(y_score, y_true, theta)],
            "o",
            ms=10,
            color=color or OKABE_ITO["vermillion"],
            label=f"θ = {theta:.2f}",
        )
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(0, 1.05)
    ax.legend(fontsize=8, loc="lower left")
    label_axes(ax, "recall a/(a+c)", "precision a/(a+b)", title)
    return ax


def plot_roc_curve(y_score, y_true, theta=None, ax=None, title=None, label="ROC curve"):
    """True-positive rate against false-positive rate, with the point of θ marked."""
    from ..metrics import auc, recall, roc_curve, specificity

    ax = get_ax(ax, 4, 3.6)
    fpr, tpr, _ = roc_curve(y_score, y_true)
    ax.plot(fpr, tpr, color=OKABE_ITO["blue"], lw=2, label=f"{label} (AUC {auc(y_score, y_true):.2f})")
    ax.plot([0, 1], [0, 1], ":", color=OKABE_ITO["grey"], lw=1.2, label="random scores")
    if theta is not None:
        ax.plot(
            [1 - specificity(y_score, y_true, theta)],
            [recall(y_score, y_true, theta)],
            "o",
            ms=10,
            color=OKABE_ITO["vermillion"],
            label=f"θ = {theta:.2f}",
        )
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, 1.02)
    ax.legend(fontsize=8, loc="lower right")
    label_axes(ax, "false-positive rate b/(b+d)", "recall a/(a+c)", title)
    return ax


def plot_fraud(X, y, lines=None, ax=None, title=None, max_negatives: int = 3000, seed: int = 0):
    """Fraud data in the plane (a subsample of the negatives, every positive) and the
    lines {x : ⟨w, (x, 1)⟩ = 0} of the given ``{name: w}`` (w has 3 entries)."""
    ax = get_ax(ax, 5, 4.4)
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    rng = np.random.default_rng(seed)
    neg = np.flatnonzero(y < 0)
    neg = neg if neg.size <= max_negatives else rng.choice(neg, max_negatives, replace=False)
    class_points(
        ax,
        0,
        X[neg, 0],
        X[neg, 1],
        s=6,
        alpha=0.35,
        lw=0,
        label=f"benign (y = −1, {max_negatives if (y < 0).sum() > max_negatives else (y < 0).sum()} shown)",
    )
    pos = y > 0
    class_points(
        ax,
        1,
        X[pos, 0],
        X[pos, 1],
        s=40,
        edgecolors="black",
        linewidths=0.5,
        label="fraud (y = +1)",
        zorder=3,
    )
    lo, hi = X.min(axis=0) - 0.5, X.max(axis=0) + 0.5
    styles = [
        (OKABE_ITO["vermillion"], "-"),
        (OKABE_ITO["black"], "--"),
        (OKABE_ITO["green"], "-."),
        (OKABE_ITO["purple"], ":"),
    ]
    for (name, w), (c, ls) in zip((lines or {}).items(), styles):
        w = np.asarray(w, dtype=float)
        corners = np.array([[lo[0], lo[1], 1], [lo[0], hi[1], 1], [hi[0], lo[1], 1], [hi[0], hi[1], 1]])
        side = np.sign(corners @ w)
        if np.all(side == side[0]):  # the line misses the picture
            what = "everything" if side[0] > 0 else "nothing"
            ax.plot([], [], color=c, ls=ls, lw=2, label=f"{name}: off the plot, flags {what}")
            continue
        if abs(w[1]) > 1e-12:
            xs = np.array([lo[0], hi[0]])
            ax.plot(xs, -(w[0] * xs + w[2]) / w[1], color=c, ls=ls, lw=2, label=name)
        elif abs(w[0]) > 1e-12:
            ax.axvline(-w[2] / w[0], color=c, ls=ls, lw=2, label=name)
    ax.set_xlim(lo[0], hi[0])
    ax.set_ylim(lo[1], hi[1])
    ax.set_aspect("equal", adjustable="box")
    ax.legend(fontsize=7.5, loc="lower left", framealpha=0.9)
    label_axes(ax, "$x_1$", "$x_2$", title)
    return ax


def draw_labelling(ax, mu, y):
    """Draw the true labels of items sorted by score (best first) and empty artists for a
    labelling v; returns a dict of artists for :func:`set_labelling`."""
    mu = np.asarray(mu, dtype=float)
    y = np.asarray(y, dtype=float)
    order = np.argsort(-mu, kind="stable")
    r = len(y)
    xs = np.arange(r)
    ys = y[order]
    for lab, k in ((1.0, 1), (-1.0, 0)):
        on = ys == lab
        class_points(
            ax, k, xs[on], np.ones(int(np.sum(on))), s=70, edgecolors="white", label=f"{int(lab):+d}"
        )
    arts = {
        "order": order,
        "xs": xs,
        "ys": ys,
        "pos": class_points(ax, 1, [], [], s=70, edgecolors="white"),
        "neg": class_points(ax, 0, [], [], s=70, edgecolors="white"),
        "flips": rings(ax, [], [], OKABE_ITO["black"], 1.3, s=260, label="$v_i \\neq y_i$"),
    }
    ax.set_yticks([0, 1], ["labelling v", "true y"])
    ax.set_xticks(xs, [f"{mu[i]:.2f}" for i in order], rotation=60, fontsize=8)
    ax.set_ylim(-0.6, 1.9)
    ax.set_xlim(-0.7, r - 0.3)
    ax.legend(fontsize=8, loc="upper right", ncol=3)
    label_axes(ax, "items sorted by score μ (best first)", "")
    return arts


def set_labelling(arts, v):
    """Show the labelling v (original item order) in the artists of :func:`draw_labelling`."""
    vo = np.asarray(v, dtype=float)[arts["order"]]
    xs, ys = arts["xs"], arts["ys"]

    def pts(mask):
        return np.c_[xs[mask], np.zeros(int(np.sum(mask)))] if np.any(mask) else np.zeros((0, 2))

    arts["pos"].set_offsets(pts(vo > 0))
    arts["neg"].set_offsets(pts(vo < 0))
    arts["flips"].set_offsets(pts(vo != ys))


def plot_labelling(mu, y, v, ax=None, title=None):
    """True labels y and a labelling v of items sorted by their score μ (e.g. the most
    violating labelling of UML (17.14)); flipped labels are circled."""
    ax = get_ax(ax, 7.5, 2.8)
    set_labelling(draw_labelling(ax, mu, y), v)
    if title:
        ax.set_title(title)
    return ax
