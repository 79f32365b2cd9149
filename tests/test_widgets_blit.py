"""The blitting engine (``kmlteach._render.blit``) against a full redraw, for every widget.

For each widget builder of the course (``kmlteach.widgets._catalog``: the ``make_*`` of
``kmlteach/widgets/ch*.py`` and the welcome widget) every control is moved through a few values; after each change the PNG on the image
widget (blitted: background restored, only the dynamic artists repainted) must be
pixel-identical to a full ``canvas.draw()`` of the same state. Tolerance: none — the
background is exactly what a full draw has painted before the first dynamic artist,
and the dynamic artists are painted in the full draw's order, so Agg produces the
same bytes; any difference is a bug (a missed dynamic artist, a wrong order, a
stale background).
"""

from __future__ import annotations

import inspect
import io

import numpy as np
import pytest
from PIL import Image

from kmlteach._render import Blitter, encode_png
from kmlteach.widgets._catalog import builders, control_values


def _builders():
    return [pytest.param(factory, id=name) for name, factory in builders()]


def _build(fn):
    required = [
        p.name
        for p in inspect.signature(fn).parameters.values()
        if p.default is inspect.Parameter.empty and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    ]
    if required:
        pytest.skip(f"{fn.__name__} needs {required}: give it defaults or a factory in _catalog")
    return fn()


def _values(c) -> list:
    """Two or three values across a control's range (two other options and back, a
    checkbox both ways, a slider to 25 % and 70 % of its range)."""
    return control_values(c, fractions=(0.25, 0.7), n_options=2, back=True)


def pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


def assert_same_as_full_redraw(ex, what: str) -> None:
    blitted = pixels(ex.image.value)
    full = pixels(ex.full_png())
    assert blitted.shape == full.shape, what
    diff = np.any(blitted != full, axis=2)
    assert not diff.any(), (
        f"{what}: {int(diff.sum())} pixels differ from a full redraw "
        f"(rows {np.flatnonzero(diff.any(axis=1))[[0, -1]]}, "
        f"columns {np.flatnonzero(diff.any(axis=0))[[0, -1]]})"
    )


# explorers built by the comparison, reused by the slider check (which only reads the
# controls' flags): building every widget twice was a fifth of this file's time
_BUILT: dict = {}


@pytest.mark.parametrize("fn", _builders())
def test_blitted_image_equals_full_redraw(fn):
    ex = _BUILT[fn] = _build(fn)
    assert_same_as_full_redraw(ex, "after construction")
    from helpers import move_controls

    moved = 0
    for name, v in move_controls(ex, _values):
        moved += 1
        assert_same_as_full_redraw(ex, f"{name} = {v!r}")
    assert moved > 0, "no control could be moved"


@pytest.mark.parametrize("fn", _builders())
def test_sliders_update_while_dragged(fn):
    ex = _BUILT.pop(fn, None) or _build(fn)
    sliders = [c for c in ex.controls.values() if "Slider" in type(c).__name__]
    assert all(c.continuous_update for c in sliders), [
        c.description for c in sliders if not c.continuous_update
    ]


def test_png_encoder_round_trips_the_canvas():
    from matplotlib.figure import Figure

    fig = Figure(figsize=(2.0, 1.5))
    ax = fig.add_subplot()
    ax.plot([0, 1], [0, 1], color="tab:red")
    b = Blitter(fig, dpi=50)
    png = b.render()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    img = pixels(png)
    assert img.shape == (75, 100, 3)
    assert np.array_equal(img, np.asarray(b.canvas.buffer_rgba())[:, :, :3])
    assert encode_png(b.canvas) == png


def test_png_encoder_keeps_every_channel_of_every_pixel():
    """The encoder takes R, G, B out of 32-bit words: random colours in every pixel (all
    three channels different, odd width) come back exactly, none swapped or shifted."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(1.53, 0.71))
    fig.figimage(np.random.default_rng(3).integers(0, 256, size=(71, 153, 3)).astype(np.uint8))
    b = Blitter(fig, dpi=100)
    img = pixels(b.render())
    rgba = np.asarray(b.canvas.buffer_rgba())
    assert img.shape == (71, 153, 3) and len(np.unique(img.reshape(-1, 3), axis=0)) > 1000
    assert np.array_equal(img, rgba[:, :, :3])


def test_blitting_repaints_only_the_changed_artists():
    """A line that moves is repainted; the axes, ticks and a static line are not, and no
    full draw happens after the first change."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(3, 2), layout="constrained")
    ax = fig.add_subplot()
    static = ax.plot([0, 1], [1, 0], zorder=1)[0]
    moving = ax.plot([0, 1], [0, 1], zorder=2)[0]
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    b = Blitter(fig)
    b.render()
    moving.set_ydata([0.2, 0.8])
    b.render()
    assert moving in b.dynamic and static not in b.dynamic
    assert ax.xaxis not in b.dynamic
    draws = b.full_draws
    for k in range(3):
        moving.set_ydata([0.1 * k, 0.9])
        png = b.render()
        assert not b.last_was_full
        assert np.array_equal(pixels(png), pixels(b.full_png()))
    assert b.full_draws == draws


def test_changed_limits_redraw_the_whole_axes():
    from matplotlib.figure import Figure

    fig = Figure(figsize=(3, 2))
    ax = fig.add_subplot()
    ax.plot([0, 1], [0, 1])
    b = Blitter(fig)
    b.render()
    ax.set_xlim(0, 2)
    png = b.render()
    assert ax in b.whole
    assert np.array_equal(pixels(png), pixels(b.full_png()))


def test_an_artist_reaching_the_axes_edge_needs_no_full_redraw():
    """A dynamic artist drawn below the spines (a band, an image) that later reaches the edge
    of its axes overlaps the spines: they are dynamic from the first draw, so that frame is
    blitted, not a full redraw (it was the p95 frame of several widgets)."""
    from matplotlib.figure import Figure
    from matplotlib.patches import Polygon

    fig = Figure(figsize=(3, 2), layout="constrained")
    ax = fig.add_subplot()
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    band = ax.add_patch(Polygon([[0.4, 0.4], [0.6, 0.4], [0.6, 0.6]], zorder=0))
    b = Blitter(fig)
    band.stale = True  # what Explorer's priming run does: the band is known to move
    b.primed = True
    b.render()
    assert set(ax.spines.values()) <= b.dynamic
    band.set_xy([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    png = b.render()
    assert not b.last_was_full and b.full_draws == 1
    assert np.array_equal(pixels(png), pixels(b.full_png()))


def test_first_render_draws_the_background_once():
    """Static artists painted over a dynamic one are found before the first draw, so building
    a widget costs one full draw, not two."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(3, 2), layout="constrained")
    ax = fig.add_subplot()
    moving = ax.plot([0, 1], [0.5, 0.5], zorder=1)[0]
    cover = ax.plot([0, 1], [0.4, 0.6], zorder=2, lw=6)[0]  # static, painted over it
    b = Blitter(fig)
    moving.stale = True
    b.primed = True
    png = b.render()
    assert b.full_draws == 1
    assert moving in b.dynamic and cover in b.dynamic
    assert np.array_equal(pixels(png), pixels(b.full_png()))


def test_text_groups_are_primed_like_texts():
    """The texts of a ``TextGroup`` count as its own: a group whose strings an update sets (the
    same ones at build time) is painted per frame from the start, so the first real change
    of its strings costs a blitted frame, not a new background; a changed member marks the
    group stale."""
    from matplotlib.figure import Figure

    from kmlteach._render import TextGroup, detached_texts

    fig = Figure(figsize=(3, 2))
    ax = fig.add_subplot()
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    texts = detached_texts(ax, 3, ha="center")
    for k, t in enumerate(texts):
        t.set_position((0.2 + 0.3 * k, 0.5))
    group = TextGroup(ax, texts, 3)
    shown = ["a"]

    def update():
        for k, t in enumerate(texts):
            t.set_text(f"{shown[0]}{k}")

    update()
    b = Blitter(fig)
    b.prime(update)
    b.render()
    assert group in b.dynamic and not group.stale
    shown[0] = "b"
    update()
    assert group.stale
    png = b.render()
    assert not b.last_was_full and b.full_draws == 1
    assert np.array_equal(pixels(png), pixels(b.full_png()))
