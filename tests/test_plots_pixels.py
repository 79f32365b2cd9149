"""Pixel artists of the widgets (kmlteach/_render/layers.py): the cached marker painter and
the smoothed / signed region images that the ch08 and ch09 widgets copy into the canvas."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from kmlteach._render.layers import paint_cached, region_layer


def _scene(cached: bool, offsets=None):
    rng = np.random.default_rng(0)
    fig = Figure(figsize=(3, 2), dpi=100)
    canvas = FigureCanvasAgg(fig)
    ax = fig.add_axes((0.1, 0.1, 0.85, 0.85))
    layer = region_layer(ax, (0, 1, 0, 1))
    rgba = rng.integers(0, 256, size=(8, 8, 4)).astype(np.uint8)
    rgba[..., 3] = 255  # a region layer is opaque
    layer.set_data(rgba)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    pts = rng.random((40, 2)) if offsets is None else offsets
    arts = [
        ax.scatter(pts[:, 0], pts[:, 1], s=60, c="tab:blue", edgecolors="white", linewidths=0.6),
        ax.scatter(
            pts[:, 1],
            pts[:, 0],
            s=40,
            c="tab:orange",
            marker="^",
            edgecolors="black",
            linewidths=0.6,
            alpha=0.7,
        ),
    ]
    if cached:
        paint_cached(*arts)
    return fig, canvas, layer, arts


def _pixels(canvas):
    canvas.draw()
    return np.asarray(canvas.buffer_rgba()).astype(int)


def test_cached_markers_look_like_drawn_ones_and_follow_the_layer_under_them():
    fig, canvas, layer, _ = _scene(True)
    fig0, canvas0, layer0, _ = _scene(False)
    a, b = _pixels(canvas), _pixels(canvas0)
    assert np.abs(a - b).max() <= 2 and (a != 255).any()
    # a new layer under the points: the cached points are blended over the new pixels
    new = np.full((8, 8, 4), 255, dtype=np.uint8)
    new[..., 0] = 30
    layer.set_data(new)
    layer0.set_data(new)
    assert np.abs(_pixels(canvas) - _pixels(canvas0)).max() <= 2


def test_cached_markers_are_redrawn_when_they_move():
    fig, canvas, _, arts = _scene(True)
    before = _pixels(canvas)
    arts[0].set_offsets(np.random.default_rng(5).random((40, 2)))
    fig0, canvas0, _, arts0 = _scene(False)
    arts0[0].set_offsets(np.random.default_rng(5).random((40, 2)))
    after = _pixels(canvas)
    assert (after != before).any()
    assert np.abs(after - _pixels(canvas0)).max() <= 2


def test_cached_markers_draw_on_other_renderers():
    import io

    fig, _, _, _ = _scene(True)
    buf = io.StringIO()
    fig.savefig(buf, format="svg")
    assert buf.getvalue().count("<use") >= 80  # every marker, written as a vector


def test_paint_cached_rejects_what_it_cannot_cache():
    fig = Figure()
    (line,) = fig.add_subplot().plot([0, 1], [0, 1])
    with pytest.raises(ValueError, match="artists"):
        paint_cached(line)


def test_smooth_rgba_interpolates_between_grid_points_and_checks_its_input():
    from kmlteach.plots.ch09 import smooth_rgba

    F = np.array([[0.0, 1.0], [0.0, 1.0]])
    img = smooth_rgba(F, "Greys", 0.0, 1.0, alpha=1.0, up=4)
    assert img.shape == (8, 8, 4) and img.dtype == np.uint8 and (img[..., 3] == 255).all()
    grey = img[0, :, 0].astype(int)  # Greys: white at 0, darker towards 1
    assert (np.diff(grey) <= 0).all() and grey[0] > grey[-1]
    assert (img[:, :, :3] == img[:1, :, :3]).all()  # F does not change along y
    half = smooth_rgba(F, "Greys", 0.0, 1.0, alpha=0.0)
    assert (half[..., :3] == 255).all()  # alpha 0: white
    for kw, name in (
        ({"F": np.zeros(3)}, "F"),
        ({"vmax": -1.0}, "vmax"),
        ({"alpha": 2.0}, "alpha"),
        ({"up": 0}, "up"),
    ):
        args = {"F": F, "cmap": "Greys", "vmin": 0.0, "vmax": 1.0, **kw}
        with pytest.raises(ValueError, match=name):
            smooth_rgba(**args)


def test_signed_rgba_is_signed_image_over_white():
    from kmlteach.plots.ch08 import signed_image, signed_rgba

    v = np.array([-1.0, 0.0, 2.0, -3.0])
    over = signed_rgba(v, 2, alpha=0.3)
    ref = signed_image(v, 2, alpha=0.3)
    expect = np.round(255 * ((1 - ref[..., 3:]) + ref[..., 3:] * ref[..., :3]))
    assert np.array_equal(over[..., :3], expect.astype(np.uint8)) and (over[..., 3] == 255).all()
    assert np.array_equal(signed_rgba(v, 2, zero=-1.0)[0, 1], signed_rgba(v, 2)[0, 0])
    with pytest.raises(ValueError, match="values"):
        signed_rgba(v, 3)
    with pytest.raises(ValueError, match="alpha"):
        signed_rgba(v, 2, alpha=1.5)


def test_fast_markers_paint_exactly_what_a_direct_draw_paints():
    from kmlteach._render.layers import paint_markers
    from kmlteach.plots import CLASS_COLORS, CLASS_MARKERS

    def scene(fast, offsets=None):
        rng = np.random.default_rng(3)
        fig = Figure(figsize=(3, 2), dpi=100)
        canvas = FigureCanvasAgg(fig)
        ax = fig.add_axes((0.1, 0.1, 0.85, 0.85))
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        arts = [
            ax.scatter(
                *(rng.random((25, 2)) * 1.1 - 0.05).T,
                s=26,
                c=CLASS_COLORS[c],
                marker=CLASS_MARKERS[c],
                edgecolors="white",
                linewidths=0.5,
            )
            for c in range(7)
        ]  # some centres outside the Axes: clipped
        arts.append(ax.scatter([0.5, 0.2], [0.5, 0.3], s=[20, 60], c=["r", "b"]))  # mixed: direct
        arts.append(ax.scatter([], []))
        if fast:
            paint_markers(*arts)
        if offsets is not None:
            arts[0].set_offsets(offsets)
        return canvas, arts

    for offsets in (None, np.random.default_rng(9).random((30, 2))):
        (fast, arts), (ref, _) = scene(True, offsets), scene(False, offsets)
        a, b = _pixels(fast), _pixels(ref)
        assert np.array_equal(a, b) and (a != 255).any()
        assert not any(art.stale for art in arts)  # drawing leaves them clean
    with pytest.raises(ValueError, match="artists"):
        paint_markers(Figure().add_subplot().plot([0], [0])[0])
