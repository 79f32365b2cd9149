"""One palette, one set of markers, one way to make a figure."""

from __future__ import annotations

import numpy as np

# Okabe & Ito (2008), "Color Universal Design": distinguishable under the common
# colour-vision deficiencies.
OKABE_ITO = {
    "orange": "#E69F00",
    "sky": "#56B4E9",
    "green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "purple": "#CC79A7",
    "black": "#000000",
    "grey": "#999999",
}
# Class k (0-based) gets CLASS_COLORS[k % 7] and CLASS_MARKERS[k % 7]. For binary
# labels, -1 is class 0 (blue circles) and +1 is class 1 (vermillion triangles).
CLASS_COLORS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000"]
CLASS_MARKERS = ["o", "^", "s", "D", "v", "P", "X"]


def class_style(k: int) -> dict:
    """Colour and marker of class index ``k`` (binary: -1 -> 0, +1 -> 1)."""
    k = int(k)
    if k == -1:
        k = 0
    return {"color": CLASS_COLORS[k % len(CLASS_COLORS)], "marker": CLASS_MARKERS[k % len(CLASS_MARKERS)]}


def class_points(ax, k: int, *xy, **kw):
    """``ax.scatter(*xy, **kw)`` in the colour and marker of class index ``k``
    (:func:`class_style`); ``xy`` is the points' coordinates (two, or three on a 3-D Axes).
    Returns the artist."""
    st = class_style(k)
    return ax.scatter(*xy, c=st["color"], marker=st["marker"], **kw)


def binary_points(ax, P, y, **kw) -> dict:
    """The points ``P`` (one a row: two coordinates, or three on a 3-D Axes) of the classes
    y = -1 and y = +1, each in its colour and marker (:func:`class_points`) and labelled
    ``y = ±1``. Returns ``{-1.0: artist, 1.0: artist}``."""
    P, y = np.asarray(P, dtype=float), np.asarray(y)
    return {
        lab: class_points(ax, k, *P[y == lab].T, label=f"y = {int(lab):+d}", **kw)
        for lab, k in ((-1.0, 0), (1.0, 1))
    }


def rings(ax, x, y, color: str, lw: float, **kw):
    """Hollow markers of edge colour ``color`` and width ``lw`` around the points (x, y):
    support vectors, violations, a selection. Returns the artist."""
    return ax.scatter(x, y, facecolors="none", edgecolors=color, linewidths=lw, **kw)


def figure(width: float = 6.0, height: float = 4.0, ncols: int = 1, nrows: int = 1, **kw):
    """A ``matplotlib.figure.Figure`` (not registered with pyplot) and its axes.

    Using ``Figure`` directly keeps widgets from displaying a second copy of the plot
    through the inline backend.
    """
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=True, **kw)
    return fig, axes


def get_ax(ax=None, width: float = 6.0, height: float = 4.0):
    """Return ``ax`` or a fresh pyplot Axes of the given size."""
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=(width, height), layout="constrained")
    return ax


def label_axes(ax, xlabel: str, ylabel: str, title: str | None = None):
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    return ax


def scatter_classes(X, y, ax=None, labels=None, s: float = 36, **kw):
    """Scatter 2-D points coloured and shaped by class. Returns the Axes.

    ``y`` may be ±1 or any labels; classes are taken in ``np.unique`` order.
    """
    ax = get_ax(ax)
    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    classes = np.unique(y)
    binary = set(classes.tolist()) <= {-1, 1}
    for i, c in enumerate(classes):
        k = 0 if (binary and c == -1) else (1 if binary else i)
        name = labels[i] if labels is not None else (f"y = {int(c):+d}" if binary else f"class {c}")
        class_points(
            ax,
            k,
            X[y == c, 0],
            X[y == c, 1],
            s=s,
            edgecolors="white",
            linewidths=0.5,
            label=name,
            zorder=3,
            **kw,
        )
    return ax


def show(fig, alt: str, dpi: int = 100) -> None:
    """Display ``fig`` as a PNG with alt text (``IPython.display.Image(alt=...)``: the text
    travels in the output's metadata, which JupyterLab, the course site and the slide decks
    put in the image's ``alt``). Every static figure of the course is shown this way; the
    figure is closed so the inline backend does not show it a second time. Returns nothing,
    so a cell ending with it prints no repr. ``fig`` may also be a widget (an ``Explorer``):
    its current frame is shown as it is (the same pixels as a full redraw), not drawn again."""
    import io

    from IPython.display import Image, display
    from matplotlib import pyplot as plt

    if not isinstance(alt, str) or not alt.strip():
        raise ValueError("alt must be a non-empty description of the figure")
    frame = getattr(getattr(fig, "image", None), "value", None)
    if isinstance(frame, (bytes, memoryview)) and len(frame):
        display(Image(data=bytes(frame), alt=alt))
        return
    buf = io.BytesIO()
    _save_png(fig, buf, dpi)
    plt.close(fig)
    display(Image(data=buf.getvalue(), alt=alt))


def _save_png(fig, buf, dpi: int) -> None:
    """``fig.savefig(buf, format="png", dpi=dpi)``, with the layout engine run once.

    With a layout engine, ``savefig`` draws the figure twice: a measuring pass with
    painting disabled (which runs the engine and lays out every tick and text), then the
    real one; the first pass was a third of a static figure's time. Here the engine runs
    once, at the saving dpi and on the Agg renderer that then draws (so the text metrics
    it measured are reused), and ``savefig``, seeing no engine, draws once with the layout
    it left; the engine is put back afterwards. ``tests/test_plots_style.py`` checks the
    pixels against a plain ``savefig``.
    """
    from matplotlib import rcParams

    engine = fig.get_layout_engine()
    if engine is None or rcParams["figure.autolayout"] or rcParams["figure.constrained_layout.use"]:
        fig.savefig(buf, format="png", dpi=dpi)  # (there, set_layout_engine(None) sets one)
        return
    if not hasattr(fig.canvas, "get_renderer"):  # a bare Figure: give it the Agg canvas
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        FigureCanvasAgg(fig)
    own_dpi = fig.dpi
    try:
        fig.dpi = dpi
        if fig.axes:  # as Figure.draw does
            engine.execute(fig)
    finally:
        fig.dpi = own_dpi
    fig.set_layout_engine(None)  # None, not "none": no measuring pass
    try:
        fig.savefig(buf, format="png", dpi=dpi)
    finally:
        fig.set_layout_engine(engine)
