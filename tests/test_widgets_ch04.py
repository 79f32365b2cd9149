"""Chapter 04 widgets: setting controls changes the state and the figure."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("ipywidgets")

from kmlteach import multiclass as M  # noqa: E402  (after the ipywidgets importorskip)
from kmlteach.widgets import ch04  # noqa: E402  (after the ipywidgets importorskip)


def test_ova_failure_default_is_example_17_1():
    ex = ch04.make_ova_failure()
    st = ex.state
    assert st["ova_class2_error"] == 1.0 and st["h2_constant"]
    assert st["linear_class2_error"] == 0.0 and st["linear_error"] == 0.0
    assert st["ties"] == 20  # every class-2 point
    assert "100%" in st["readout"]
    png = ex.image.value
    # lift class 2 above the line: now a halfspace separates it and OvA recovers it
    ex.controls["dy"].value = 2.5
    assert not ex.state["h2_constant"] and ex.state["ova_class2_error"] == 0.0
    assert ex.image.value != png
    # heavier class 2 (45 %): the ERM for class 2 vs rest is no longer constant
    ex.controls["dy"].value = 0.0
    ex.controls["mass"].value = 0.45
    assert not ex.state["h2_constant"]
    assert np.sum(ex.state["y"] == 2) == 45
    # with the pairs construction of three_balls the OvA predictions agree with a fresh fit
    X, y = ex.state["X"], ex.state["y"]
    ova = M.one_vs_all(X, y, M.erm_halfspace_2d)
    assert ex.state["ova_error"] == pytest.approx(np.mean(ova.predict(X) != y))


def test_ava_ties_controls():
    ex = ch04.make_ava_ties()
    st0 = dict(ex.state)
    assert 0.0 < st0["tie_fraction"] < 0.2 and 0.0 <= st0["accuracy"] <= 1.0
    png = ex.image.value
    ex.controls["decision"].value = "tournament"
    assert ex.image.value != png
    assert ex.state["disagree_fraction"] == pytest.approx(st0["disagree_fraction"])
    ex.controls["learner"].value = "lsq"
    assert ex.state["tie_fraction"] < st0["tie_fraction"]  # linear boundaries: fewer ties
    ex.controls["cx"].value = -4.0
    assert ex.state["readout"] != st0["readout"]


def test_kesler_view_controls():
    ex = ch04.make_kesler_view()
    X, y = ch04.kesler_points()
    st = ex.state
    assert st["Z"].shape == (2, 6) and np.all(st["scores"] == 0)  # W = 0 at 0 updates
    np.testing.assert_array_equal(st["violated"], [2, 3])
    ex.controls["example"].value = 5
    emb = M.kesler_embed(X, y)
    np.testing.assert_array_equal(ex.state["Z"], emb.Z[emb.example == 5])
    ex.controls["updates"].value = ex.controls["updates"].max
    assert ex.state["train_errors"] == 0 and ex.state["violated"].size == 0
    assert ex.state["total_updates"] == M.kesler_perceptron(X, y, max_epochs=1000).n_updates


def test_kesler_view_keeps_its_range_and_marks_violations_beyond_colour():
    ex = ch04.make_kesler_view()
    ax = ex.fig.axes[1]
    lim = ax.get_ylim()
    marks = [ln for ln in ax.lines if ln.get_marker() == "X"][0]
    # W = 0: both constraints violated with score 0, so the bars have no height; the crosses show them
    np.testing.assert_array_equal(marks.get_xdata(), [0, 1])
    np.testing.assert_array_equal(marks.get_ydata(), [0.0, 0.0])
    for u in range(ex.controls["updates"].max + 1):
        ex.controls["updates"].value = u
        assert ax.get_ylim() == lim  # fixed: a step repaints the bars only
        assert lim[0] <= ex.state["scores"].min() and ex.state["scores"].max() <= lim[1]
        bad = np.flatnonzero(ex.state["scores"] <= 0)
        np.testing.assert_array_equal(marks.get_xdata(), bad)
        assert all((b.get_hatch() == "//") == (k in bad) for k, b in enumerate(ax.patches[:2]))


def test_widget_regions_match_the_two_imshow_layers():
    """region_rgba (one opaque layer) is the two stacked imshow layers composited on white."""
    from kmlteach.plots.ch04 import region_image, region_rgba, tie_image

    rng = np.random.default_rng(0)
    idx, ties = rng.integers(0, 3, size=400), rng.random(400) < 0.3
    base, tie = region_image(idx, 20), tie_image(ties, 20)
    rgb = (1 - base[..., 3:]) + base[..., 3:] * base[..., :3]
    rgb = (1 - tie[..., 3:]) * rgb + tie[..., 3:] * tie[..., :3]
    np.testing.assert_allclose(region_rgba(idx, 20, ties)[..., :3] / 255.0, rgb, atol=0.5 / 255 + 1e-9)


def test_ova_failure_revisits_are_cached():
    ex = ch04.make_ova_failure()
    st = dict(ex.state)
    ex.controls["dx"].value = 1.0
    ex.controls["dx"].value = 0.0
    assert ex.state["ova_error"] == st["ova_error"] and np.array_equal(ex.state["W"], st["W"])


def _png_size(png: bytes) -> tuple[int, int]:
    import struct

    return struct.unpack(">II", png[16:24])


def test_all_pairs_figure_fits_a_slide_at_1_5x():
    """Issue 16: ≤ 480 px tall (1.5× ≤ 720) and ≤ 700 px wide (1.5× beside the deck's title
    column); it was 680 × 500 before."""
    w, h = _png_size(ch04.make_ava_ties().image.value)
    assert h <= 480 and w <= 700, (w, h)


def test_ova_drag_repaints_only_the_axes_contents_and_never_the_whole_figure():
    """A drag over configurations where h2 becomes a proper halfspace (its line appears),
    the titles change and class 2 leaves the plot's top: every frame is blitted (the
    artists touched only on some frames were known to be dynamic from the first one), and
    the classes that did not move are left clean (their extents are not measured again)."""
    ex = ch04.make_ova_failure()
    cx, cy = ch04.CLASS2_CENTRE
    axL = ex.fig.axes[0]
    d = ex.drag
    d.handle(d.event(axL, cx + 0.2, cy, "mousedown"))
    seen_h2 = False
    for k in range(1, 16):
        d.handle(d.event(axL, cx + 0.2 + 0.15 * k, cy + 0.17 * k, "mousemove"))
        assert not ex.timings["full"], f"move {k} redrew the whole figure"
        seen_h2 |= not ex.state["h2_constant"]
    d.handle(d.event(axL, cx + 2.0, cy + 2.5, "mouseup"))
    assert seen_h2 and ex.blitter.full_draws == 1
    pts = [a for a in axL.collections if a.get_label() == "class 1"][0]
    before = pts.get_offsets().copy()
    ex.controls["dx"].value = 1.0
    assert np.array_equal(pts.get_offsets(), before)  # class 1 did not move ...
    import io

    from PIL import Image

    a = np.asarray(Image.open(io.BytesIO(ex.image.value)))
    assert np.array_equal(a, np.asarray(Image.open(io.BytesIO(ex.full_png()))))  # ... and is painted


def test_kesler_view_renders_every_name_at_build_time():
    """Visiting every example and step after the build renders no new text bitmap (a first
    visit used to lay out mathtext names during the update) and never redraws everything."""
    from kmlteach._render import CACHE

    ex = ch04.make_kesler_view()
    bitmaps = len(CACHE)
    for i in range(ex.controls["example"].max + 1):
        ex.controls["example"].value = i
        for u in (ex.controls["updates"].max, 0):
            ex.controls["updates"].value = u
    assert len(CACHE) == bitmaps
    assert ex.blitter.full_draws == 1


def test_ava_ties_caches_both_rules_per_position(monkeypatch):
    fits = []
    from kmlteach.widgets.ch04 import reductions as ova

    monkeypatch.setattr(ova, "all_pairs", lambda *a, **k: fits.append(1) or M.all_pairs(*a, **k))
    ex = ch04.make_ava_ties()
    ex.controls["cx"].value = 1.0
    vote = dict(ex.state)
    ex.controls["decision"].value = "tournament"
    assert len(fits) == 2  # the start and cx = 1: switching rules fits nothing
    ex.controls["decision"].value = "vote"
    assert ex.state["tie_fraction"] == vote["tie_fraction"]
    assert ex.state["disagree_fraction"] == vote["disagree_fraction"]


def test_ova_failure_says_where_the_failure_went():
    """Issue 36: with class 2 heavier, one-vs-all loses another class, and the widget never
    said which; the readout now names the class it gets most wrong."""
    ex = ch04.make_ova_failure()
    assert "the failure is on class 2" in ex.readout.value and ex.state["ova_worst_class"] == 2
    moved = []
    for mass in (0.35, 0.45, 0.6):
        ex.controls["mass"].value = mass
        errs = ex.state["ova_class_errors"]
        worst = int(np.argmax(errs)) + 1
        if worst != 2 and errs[worst - 1] >= 0.1:
            assert f"the failure has moved to <b>class {worst}</b>" in ex.readout.value
            moved.append(mass)
        assert "class 1 <b>" in ex.readout.value and "class 3 <b>" in ex.readout.value
    assert moved, "a mass above one third should move the failure off class 2"


def test_ava_ties_class_1_is_dragged():
    """Issue 36: the text says "drag class 1 around": the dashed circle around class 1's centre
    is a handle; dragging it moves the class (the sliders follow, on their 0.1 grid)."""
    ex = ch04.make_ava_ties()
    ax, d = ex.fig.axes[0], ex.drag
    cx, cy = ex.controls["cx"].value, ex.controls["cy"].value
    assert d.handle(d.event(ax, cx + 0.5, cy, "mousedown")) is None and d.token is not None
    d.handle(d.event(ax, cx + 0.5 - 2.0, cy + 1.0, "mousemove"))
    d.handle(d.event(ax, cx + 0.5 - 2.0, cy + 1.0, "mouseup"))
    assert ex.controls["cx"].value == pytest.approx(round(cx - 2.0, 1))
    assert ex.controls["cy"].value == pytest.approx(round(cy + 1.0, 1))
    # a press outside the circle starts nothing
    d.handle(d.event(ax, 5.5, -5.5, "mousedown"))
    assert d.token is None
