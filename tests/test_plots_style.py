"""``kmlteach.plots._style``: ``show`` lays a static figure out once (issue 14, start-up)."""

import io

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402  (Agg is selected before pyplot is imported)
import pytest  # noqa: E402  (Agg is selected before pyplot is imported)
from matplotlib import pyplot as plt  # noqa: E402  (Agg is selected before pyplot is imported)
from matplotlib.figure import Figure  # noqa: E402  (Agg is selected before pyplot is imported)
from matplotlib.layout_engine import ConstrainedLayoutEngine  # noqa: E402  (Agg is selected before pyplot is imported)
from PIL import Image  # noqa: E402  (Agg is selected before pyplot is imported)

from kmlteach.plots import figure, show  # noqa: E402  (Agg is selected before pyplot is imported)
from kmlteach.plots._style import _save_png  # noqa: E402  (Agg is selected before pyplot is imported)


def _busy(fig):
    """Panels whose margins constrained layout must work out: a colour bar, a legend, a
    suptitle, long tick labels, mathtext, a 3-D Axes."""
    ax1 = fig.add_subplot(1, 3, 1)
    im = ax1.imshow(np.arange(64.0).reshape(8, 8) - 30, cmap="RdBu")
    fig.colorbar(im, ax=ax1, label="value")
    for i in range(8):
        ax1.text(i, i, f"{i - 3.5:.1f}", ha="center", va="center", fontsize=7)
    ax1.set(title=r"$K_{ij} = \langle \Phi(x_i), \Phi(x_j) \rangle$", xlabel="$j$", ylabel="$i$")
    ax2 = fig.add_subplot(1, 3, 2)
    ax2.semilogy(np.arange(1, 50), np.exp(-0.2 * np.arange(1, 50)), label="a curve")
    ax2.set_yticks([1e-4, 1e-2, 1], ["0.0001 (long label)", "0.01", "1"])
    ax2.legend(loc="upper center", bbox_to_anchor=(0.5, -0.15))
    ax3 = fig.add_subplot(1, 3, 3, projection="3d")
    ax3.scatter([0, 1, 2], [1, 0, 2], [2, 1, 0])
    ax3.set(xlabel="$x_1$", ylabel="$x_2$", zlabel="$x_1 x_2$")
    fig.suptitle("a figure with margins to find")
    return fig


def _pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGBA"))


def _plain_savefig(fig, dpi=100) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    return buf.getvalue()


@pytest.mark.parametrize(
    "make",
    [
        lambda: plt.figure(figsize=(11, 3.6), layout="constrained"),  # a pyplot figure (notebooks)
        lambda: Figure(figsize=(11, 3.6), layout="constrained"),  # a bare Figure (plots.figure)
    ],
)
@pytest.mark.parametrize("dpi", [100, 72])
def test_save_png_matches_a_plain_savefig_pixel_for_pixel(make, dpi):
    ref = _pixels(_plain_savefig(_busy(make()), dpi))
    fig = _busy(make())
    buf = io.BytesIO()
    _save_png(fig, buf, dpi)
    got = _pixels(buf.getvalue())
    assert got.shape == ref.shape
    assert np.array_equal(got, ref)
    plt.close("all")


def test_save_png_draws_the_figure_once_and_puts_the_engine_back(monkeypatch):
    """Regression (issue 14, start-up): with a layout engine ``savefig`` draws the figure
    twice (a measuring pass with painting disabled, then the real one): every tick and text
    was laid out twice, a third of a static figure's time."""
    draws, layouts = [], []
    real_draw, real_exec = Figure.draw, ConstrainedLayoutEngine.execute
    monkeypatch.setattr(Figure, "draw", lambda self, r: (draws.append(self), real_draw(self, r))[1])
    monkeypatch.setattr(
        ConstrainedLayoutEngine, "execute", lambda self, fig: (layouts.append(fig), real_exec(self, fig))[1]
    )
    fig = _busy(Figure(figsize=(11, 3.6), layout="constrained"))
    engine = fig.get_layout_engine()
    _save_png(fig, io.BytesIO(), 100)
    assert (len(draws), len(layouts)) == (1, 1)
    assert fig.get_layout_engine() is engine  # the figure is as it was
    assert fig.dpi == Figure().dpi
    draws.clear()
    layouts.clear()
    _plain_savefig(_busy(Figure(figsize=(11, 3.6), layout="constrained")))
    assert (len(draws), len(layouts)) == (2, 1)  # what it saves


def test_save_png_without_a_layout_engine_is_savefig():
    fig = Figure(figsize=(4, 3))
    fig.subplots_adjust(left=0.2)
    fig.add_subplot().plot([0, 1], [1, 0])
    buf = io.BytesIO()
    _save_png(fig, buf, 100)
    assert fig.get_layout_engine() is None
    assert np.array_equal(_pixels(buf.getvalue()), _pixels(_plain_savefig(fig)))


def test_save_png_honours_a_global_layout_setting(monkeypatch):
    """With ``figure.constrained_layout.use`` set, ``set_layout_engine(None)`` would install a
    new engine: ``_save_png`` then leaves the figure to ``savefig``."""
    monkeypatch.setitem(matplotlib.rcParams, "figure.constrained_layout.use", True)
    fig = _busy(Figure(figsize=(11, 3.6)))
    engine = fig.get_layout_engine()
    assert isinstance(engine, ConstrainedLayoutEngine)
    buf = io.BytesIO()
    _save_png(fig, buf, 100)
    assert fig.get_layout_engine() is engine
    assert np.array_equal(_pixels(buf.getvalue()), _pixels(_plain_savefig(_busy(Figure(figsize=(11, 3.6))))))


def test_show_displays_the_same_pixels_and_closes_the_figure(monkeypatch):
    shown = []
    monkeypatch.setattr("IPython.display.display", lambda obj: shown.append(obj))
    fig, axes = figure(11, 3.6, ncols=2)
    for ax in axes:
        ax.plot([0, 1], [0, 1], label="line")
        ax.legend()
        ax.set(xlabel="x", ylabel="y", title="$x^2$")
    ref = _pixels(_plain_savefig(fig))
    pfig = plt.figure(figsize=(6, 4), layout="constrained")
    pfig.add_subplot().set_title("pyplot")
    show(pfig, alt="a pyplot figure")
    assert not plt.fignum_exists(pfig.number)
    fig2, axes2 = figure(11, 3.6, ncols=2)
    for ax in axes2:
        ax.plot([0, 1], [0, 1], label="line")
        ax.legend()
        ax.set(xlabel="x", ylabel="y", title="$x^2$")
    show(fig2, alt="two panels")
    assert shown[-1].alt == "two panels"
    assert np.array_equal(_pixels(shown[-1].data), ref)


@pytest.mark.parametrize("alt", ["", "   ", None, 3])
def test_show_rejects_a_missing_alt_text(alt):
    with pytest.raises(ValueError, match="alt"):
        show(Figure(), alt=alt)
