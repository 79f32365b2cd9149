"""Figures of chapter 02: embeddings, lifted data in 3-D, Gram matrices, spectra, boundaries.

Pure helpers: each takes ``ax=None`` and returns the Axes (3-D helpers need an Axes
created with ``projection="3d"``).
"""

from __future__ import annotations

import numpy as np

from ._style import OKABE_ITO, binary_points, class_style, get_ax, label_axes, scatter_classes

__all__ = [
    "lift",
    "LIFTS",
    "plot_line_example",
    "plot_lifted_3d",
    "plot_preimage",
    "plot_gram",
    "plot_eigenvalues",
    "plot_decision_regions",
    "plot_regression_fit",
    "decision_grid",
    "plot_validation_curve",
]


def _lift_line(X):
    x = X[:, 0]
    return np.c_[x, x**2, np.zeros_like(x)]


def _lift_rings(X):
    return np.c_[X[:, 0], X[:, 1], X[:, 0] ** 2 + X[:, 1] ** 2]


def _lift_xor(X):
    return np.c_[X[:, 0], X[:, 1], X[:, 0] * X[:, 1]]


LIFTS = {
    "line": (_lift_line, ("$x$", "$x^2$", "0")),
    "rings": (_lift_rings, ("$x_1$", "$x_2$", "$x_1^2 + x_2^2$")),
    "xor": (_lift_xor, ("$x_1$", "$x_2$", "$x_1 x_2$")),
}
"""name -> (psi, axis labels): psi maps (m, d) inputs to (m, 3) feature vectors."""


def lift(name: str, X) -> np.ndarray:
    """The 3-D feature vectors psi(x) of the embedding ``name`` ("line", "rings", "xor")."""
    if name not in LIFTS:
        raise ValueError(f"name must be one of {', '.join(LIFTS)}; got {name!r}")
    X = np.asarray(X, dtype=float)
    return LIFTS[name][0](X.reshape(len(X), -1))


def plot_line_example(x, y, w=None, b=None, ax=None, embedded: bool = False):
    """UML §16.1: the 1-D sample on a line, or (``embedded``) its image (x, x^2) with the
    line <w, psi(x)> = b."""
    ax = get_ax(ax, 5, 3.5)
    x = np.asarray(x, dtype=float)
    y = np.asarray(y)
    if embedded:
        scatter_classes(np.c_[x, x**2], y, ax=ax)
        if w is not None:
            xs = np.linspace(x.min() - 1, x.max() + 1, 200)
            if abs(w[1]) > 1e-12:
                ax.plot(
                    xs,
                    (b - w[0] * xs) / w[1],
                    color=OKABE_ITO["black"],
                    lw=2,
                    label=r"$\langle w,\psi(x)\rangle = b$",
                )
        label_axes(ax, r"$\psi_1(x) = x$", r"$\psi_2(x) = x^2$", "feature space")
    else:
        scatter_classes(np.c_[x, np.zeros_like(x)], y, ax=ax)
        ax.set_yticks([])
        ax.set_ylim(-1, 1)
        label_axes(ax, "$x$", "", "input space: no threshold separates")
    ax.legend(loc="upper center", fontsize=8)
    return ax


def plot_lifted_3d(
    Psi, y, w=None, b=None, ax=None, labels=("$z_1$", "$z_2$", "$z_3$"), elev: float = 20, azim: float = -60
):
    """Lifted points psi(x) in 3-D and, given (w, b), the plane <w, z> + b = 0.

    ``ax`` must be a 3-D Axes (``fig.add_subplot(projection="3d")``); a new figure is
    made when it is None.
    """
    if ax is None:
        import matplotlib.pyplot as plt

        ax = plt.figure(figsize=(5, 4.5), layout="constrained").add_subplot(projection="3d")
    Psi = np.asarray(Psi, dtype=float)
    y = np.asarray(y)
    binary_points(ax, Psi, y, s=22, depthshade=False)
    if w is not None:
        add_plane(ax, Psi, w, b)
    ax.set_xlabel(labels[0])
    ax.set_ylabel(labels[1])
    ax.set_zlabel(labels[2])
    ax.view_init(elev=elev, azim=azim)
    ax.legend(loc="upper left", fontsize=8)
    return ax


def plane_vertices(Psi, w, b):
    """Corners of the plane <w, z> + b = 0 over the bounding box of ``Psi`` (or None).

    The plane is solved for the coordinate with the largest |w_k|.
    """
    w = np.asarray(w, dtype=float)
    if not np.any(w):
        return None
    k = int(np.argmax(np.abs(w)))
    others = [j for j in range(3) if j != k]
    lo, hi = Psi.min(axis=0), Psi.max(axis=0)
    pad = 0.05 * np.maximum(hi - lo, 1e-9)
    u = np.linspace(lo[others[0]] - pad[others[0]], hi[others[0]] + pad[others[0]], 2)
    v = np.linspace(lo[others[1]] - pad[others[1]], hi[others[1]] + pad[others[1]], 2)
    U, V = np.meshgrid(u, v)
    Z = -(b + w[others[0]] * U + w[others[1]] * V) / w[k]
    Z = np.clip(Z, lo[k] - 3 * pad[k] - 1e-9, hi[k] + 3 * pad[k] + 1e-9)
    P = np.empty(U.shape + (3,))
    P[..., others[0]], P[..., others[1]], P[..., k] = U, V, Z
    return P


def add_plane(ax, Psi, w, b, color=None, alpha: float = 0.3):
    """Add the plane <w, z> + b = 0 to a 3-D Axes; returns the artist (or None)."""
    P = plane_vertices(Psi, w, b)
    if P is None:
        return None
    return ax.plot_surface(
        P[..., 0],
        P[..., 1],
        P[..., 2],
        color=color or OKABE_ITO["green"],
        alpha=alpha,
        linewidth=0,
        shade=False,
    )


def plot_preimage(X, y, psi, w, b, ax=None, lim=None, n: int = 200, title=None):
    """Input space with the pre-image {x : <w, psi(x)> + b = 0} of a feature-space plane.

    ``psi`` maps an (N, 2) array to (N, D) features; the curve is the zero contour on a
    grid. Returns the Axes.
    """
    ax = get_ax(ax, 4.5, 4.5)
    X = np.asarray(X, dtype=float)
    scatter_classes(X, y, ax=ax)
    if lim is None:
        lim = (float(X.min()) - 0.3, float(X.max()) + 0.3)
    g = np.linspace(lim[0], lim[1], n)
    G1, G2 = np.meshgrid(g, g)
    F = psi(np.c_[G1.ravel(), G2.ravel()]) @ np.asarray(w, dtype=float) + b
    ax.contour(G1, G2, F.reshape(G1.shape), levels=[0.0], colors=OKABE_ITO["green"], linewidths=2)
    ax.plot([], [], color=OKABE_ITO["green"], lw=2, label="pre-image of the plane")
    ax.set_aspect("equal")
    label_axes(ax, "$x_1$", "$x_2$", title or "input space")
    ax.legend(loc="upper right", fontsize=8)
    return ax


def plot_gram(K, ax=None, title: str = "Gram matrix", cmap: str = "viridis"):
    """Heat map of a Gram matrix with a colour bar."""
    ax = get_ax(ax, 4, 3.5)
    K = np.asarray(K, dtype=float)
    im = ax.imshow(K, cmap=cmap, interpolation="nearest")
    ax.figure.colorbar(im, ax=ax, shrink=0.8)
    label_axes(ax, "column $j$", "row $i$", title)
    return ax


def plot_eigenvalues(lam, ax=None, title: str = "eigenvalues", tol: float = 1e-10):
    """Bar chart of eigenvalues (sorted descending); negative ones in vermillion and hatched."""
    ax = get_ax(ax, 4, 3.5)
    lam = np.sort(np.asarray(lam, dtype=float))[::-1]
    scale = max(1.0, float(np.max(np.abs(lam)))) if lam.size else 1.0
    neg = lam < -tol * scale
    colors = np.where(neg, OKABE_ITO["vermillion"], OKABE_ITO["blue"])
    bars = ax.bar(np.arange(1, lam.size + 1), lam, color=colors)
    for bar, bad in zip(bars, neg):
        if bad:
            bar.set_hatch("//")
    ax.axhline(0, color=OKABE_ITO["black"], lw=0.8)
    label_axes(ax, "index (descending)", "eigenvalue", title)
    return ax


def decision_grid(lim, n: int = 120):
    """A square grid over ``lim`` × ``lim``: returns (G1, G2, points (n*n, 2))."""
    g = np.linspace(lim[0], lim[1], n)
    G1, G2 = np.meshgrid(g, g)
    return G1, G2, np.c_[G1.ravel(), G2.ravel()]


def plot_decision_regions(
    X, y, scores_fn, ax=None, lim=(-2.0, 3.0), n: int = 120, title=None, legend: bool = True
):
    """Shade the sign of ``scores_fn(points)`` and draw its zero contour over the data."""
    ax = get_ax(ax, 4.5, 4)
    G1, G2, P = decision_grid(lim, n)
    S = np.asarray(scores_fn(P), dtype=float).reshape(G1.shape)
    ax.contourf(
        G1,
        G2,
        (S >= 0).astype(float),
        levels=[-0.5, 0.5, 1.5],
        colors=[class_style(0)["color"], class_style(1)["color"]],
        alpha=0.15,
    )
    ax.contour(G1, G2, S, levels=[0.0], colors=OKABE_ITO["black"], linewidths=1.8)
    scatter_classes(X, y, ax=ax, s=22)
    ax.set_xlim(lim)
    ax.set_ylim(lim)
    label_axes(ax, "$x_1$", "$x_2$", title)
    if legend:
        ax.legend(loc="lower left", fontsize=8)
    return ax


def plot_regression_fit(x, t, xs, fits: dict, ax=None, title=None):
    """1-D regression: data points and one curve per entry of ``fits`` (label -> values)."""
    ax = get_ax(ax, 5, 3.5)
    ax.scatter(x, t, color=OKABE_ITO["black"], s=18, zorder=3, label="data")
    palette = [OKABE_ITO["blue"], OKABE_ITO["vermillion"], OKABE_ITO["green"], OKABE_ITO["purple"]]
    styles = ["-", "--", "-.", ":"]
    for k, (lab, f) in enumerate(fits.items()):
        ax.plot(xs, f, color=palette[k % 4], ls=styles[k % 4], lw=2, label=lab)
    label_axes(ax, "$x$", "$y$", title)
    ax.legend(fontsize=8)
    return ax


def plot_validation_curve(res, ax=None, title: str | None = None):
    """Cross-validated accuracy against σ (log axis), one line per λ, the band ± one standard
    deviation over the folds, and the chosen (λ, σ) starred (a
    :class:`kmlteach.kernel_methods.CVResult`)."""
    ax = get_ax(ax, 7.0, 4.2)
    colors = [OKABE_ITO[c] for c in ("blue", "vermillion", "green", "purple", "orange", "sky")]
    for a, lam in enumerate(res.lams):
        color = colors[a % len(colors)]
        mean, sd = 100 * res.mean[a], 100 * res.std[a]
        ax.fill_between(res.sigmas, mean - sd, mean + sd, color=color, alpha=0.12, lw=0)
        ax.plot(res.sigmas, mean, "o-", color=color, ms=4, label=f"λ = {lam:g}")
    a, b = res.best
    ax.plot(
        [res.sigmas[b]],
        [100 * res.mean[a, b]],
        marker="*",
        ms=18,
        color="black",
        ls="none",
        label=f"chosen: λ = {res.best_lam:g}, σ = {res.best_sigma:g}",
        zorder=5,
    )
    ax.set_xscale("log", base=2)
    label_axes(
        ax,
        "kernel width σ  (k(x, x′) = exp(−‖x − x′‖² / 2σ))",
        f"{res.scores.shape[2]}-fold CV accuracy (%)",
        title,
    )
    ax.legend(loc="lower left", fontsize=9)
    return ax
