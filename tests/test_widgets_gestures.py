"""Direct manipulation: mouse gestures (as ipyevents delivers them) change the state the
same way the keyboard-accessible controls do, and moves are coalesced.

Events are built with ``ex.drag.event(ax, x, y, type)`` from *data* coordinates, so
the tests also exercise the pixel -> data mapping (``transData.inverted()`` on the
PNG's pixels, y pointing down).
"""

from __future__ import annotations

import asyncio

import numpy as np
import pytest
from test_widgets_blit import assert_same_as_full_redraw

from kmlteach import metrics as M
from kmlteach.plots.ch07 import example_scores


def gesture(ex, ax, path, last="mouseup"):
    """Press at path[0], move through path[1:], release at the last point."""
    d = ex.drag
    d.handle(d.event(ax, *path[0], "mousedown"))
    for p in path[1:]:
        d.handle(d.event(ax, *p, "mousemove"))
    d.handle(d.event(ax, *path[-1], last))


def test_pixel_mapping_round_trips():
    from kmlteach.widgets.ch01 import make_margin_explorer

    ex = make_margin_explorer()
    ax = ex.fig.axes[0]
    ev = ex.drag.event(ax, 1.25, -0.5)
    assert 0 <= ev["dataX"] <= ex.fig.bbox.width and 0 <= ev["dataY"] <= ex.fig.bbox.height
    assert np.allclose(ex.drag.xy(ax, ev), [1.25, -0.5])
    # y points down in the PNG: a larger x2 is higher up, i.e. a smaller dataY
    assert ex.drag.event(ax, 1.25, 2.0)["dataY"] < ev["dataY"]


def test_position_comes_from_the_bounding_box_while_the_png_decodes():
    """ipyevents reports dataX = dataY = 0 while the browser decodes a new PNG
    (naturalWidth is 0 then); the displayed box gives the true position, at any zoom."""
    from kmlteach.widgets.ch04 import CLASS2_CENTRE, make_ova_failure

    ex = make_ova_failure()
    ax = ex.fig.axes[0]
    cx, cy = CLASS2_CENTRE
    W, H = ex.fig.bbox.width, ex.fig.bbox.height

    def browser_event(x, y, kind, zoom=0.8):
        ev = ex.drag.event(ax, x, y, kind)
        return {
            **ev,
            "dataX": 0,
            "dataY": 0,  # what a mid-decode event carries
            "relativeX": round(ev["dataX"] * zoom),
            "relativeY": round(ev["dataY"] * zoom),
            "boundingRectWidth": W * zoom,
            "boundingRectHeight": H * zoom,
        }

    ex.drag.handle(browser_event(cx + 0.2, cy, "mousedown"))
    ex.drag.handle(browser_event(cx + 1.2, cy + 0.5, "mousemove"))
    ex.drag.handle(browser_event(cx + 1.2, cy + 0.5, "mouseup"))
    assert ex.controls["dx"].value == pytest.approx(1.0, abs=0.051)
    assert ex.controls["dy"].value == pytest.approx(0.5, abs=0.051)


def test_ch01_drag_a_point():
    from kmlteach.widgets.ch01 import make_margin_explorer

    ex = make_margin_explorer()
    ax = ex.fig.axes[0]
    X0 = ex.state["X"].copy()
    margin0 = ex.state["margin"]
    gesture(ex, ax, [X0[4], (-0.2, 0.9), (-0.1, 1.0)])
    assert ex.controls["point"].value == 4  # pressing selected it
    assert np.allclose(ex.state["X"][4], (-0.1, 1.0))
    assert np.allclose(ex.state["X"][np.arange(12) != 4], X0[np.arange(12) != 4])
    assert (ex.controls["x1"].value, ex.controls["x2"].value) == (-0.1, 1.0)  # sliders follow
    assert ex.state["margin"] != margin0
    assert_same_as_full_redraw(ex, "after a drag")


def test_ch01_press_on_empty_space_moves_nothing():
    from kmlteach.widgets.ch01 import make_margin_explorer

    ex = make_margin_explorer()
    X0 = ex.state["X"].copy()
    gesture(ex, ex.fig.axes[0], [(2.9, 2.9), (0.0, 0.0)])
    assert np.array_equal(ex.state["X"], X0)


def test_ch04_drag_and_resize_the_class2_disc():
    from kmlteach.widgets.ch04 import CLASS2_CENTRE, make_ova_failure

    ex = make_ova_failure()
    axL = ex.fig.axes[0]
    cx, cy = CLASS2_CENTRE
    gesture(ex, axL, [(cx + 0.2, cy), (cx + 1.2, cy + 0.5), (cx + 1.7, cy + 1.0)])
    assert (ex.controls["dx"].value, ex.controls["dy"].value) == (1.5, 1.0)
    assert np.allclose(ex.state["X"][ex.state["y"] == 2].mean(axis=0), (cx + 1.5, cy + 1.0), atol=0.35)
    # the rim (radius 1 from the moved centre) resizes
    gesture(ex, axL, [(cx + 1.5 + 1.0, cy + 1.0), (cx + 1.5 + 0.6, cy + 1.0)])
    assert ex.controls["radius"].value == pytest.approx(0.6)
    pts = ex.state["X"][ex.state["y"] == 2]
    assert np.max(np.hypot(*(pts - (cx + 1.5, cy + 1.0)).T)) <= 0.6 + 1e-9
    assert_same_as_full_redraw(ex, "after a drag")


def test_ch02_click_adds_and_removes_points():
    from kmlteach.widgets.ch02 import make_boundary_explorer

    ex = make_boundary_explorer()
    ax = ex.fig.axes[0]
    m = len(ex.state["y"])
    ex.controls["add"].value = -1.0
    gesture(ex, ax, [(2.3, -1.4)])
    assert len(ex.state["y"]) == m + 1 and ex.state["y"][-1] == -1.0
    assert np.allclose(ex.state["X"][-1], (2.3, -1.4), atol=0.02)
    assert len(ex.state["alpha"]) == m + 1
    first = ex.state["X"][0].copy()
    gesture(ex, ax, [first])
    assert len(ex.state["y"]) == m
    assert not np.any(np.all(ex.state["X"] == first, axis=1))
    assert_same_as_full_redraw(ex, "after clicks")
    ex.controls["reset"].click()
    assert len(ex.state["y"]) == m


def test_ch06_drag_a_bar_to_another_rank():
    from kmlteach.widgets.ch06 import make_ranking_explorer

    ex = make_ranking_explorer()
    ax = ex.fig.axes[0]
    order0 = [int(j) for j in ex.state["order"]]
    scores0 = sorted(ex.state["scores"])
    gesture(ex, ax, [(1, 0.5), (2.6, 0.5), (4.1, 0.5)])
    order = [int(j) for j in ex.state["order"]]
    expect = order0[1:4] + [order0[0]] + order0[4:]
    assert order == expect
    assert sorted(ex.state["scores"]) == scores0  # the same scores, permuted
    assert_same_as_full_redraw(ex, "after a drag")


def test_ch07_click_the_pr_curve_sets_the_threshold():
    from kmlteach.widgets.ch07 import make_pr_explorer

    ex = make_pr_explorer()
    ax_s, ax_pr, ax_roc = ex.fig.axes[:3]
    p, r, thr = M.precision_recall_curve(*example_scores())
    j = len(thr) // 3
    gesture(ex, ax_pr, [(r[j] + 0.004, p[j] - 0.004)])
    assert ex.state["theta"] == pytest.approx(thr[j])
    assert ex.state["recall"] == pytest.approx(r[j]) and ex.state["precision"] == pytest.approx(p[j])
    fpr, tpr, rthr = M.roc_curve(*example_scores())
    k = len(rthr) // 2
    gesture(ex, ax_roc, [(fpr[k], tpr[k])])
    assert ex.state["theta"] == pytest.approx(rthr[k])
    gesture(ex, ax_s, [(0.5, 0.5), (-0.3, 0.5)])
    assert ex.state["theta"] == pytest.approx(-0.3)
    assert_same_as_full_redraw(ex, "after clicks")


def test_moves_are_coalesced_inside_an_event_loop():
    """Three moves queued before the loop runs give one redraw, at the last position."""
    from kmlteach.widgets.ch01 import make_margin_explorer

    ex = make_margin_explorer()
    ax = ex.fig.axes[0]
    d = ex.drag
    X0 = ex.state["X"].copy()

    async def burst():
        d.handle(d.event(ax, *X0[0], "mousedown"))
        for x in (0.1, 0.2, 0.3):
            d.handle(d.event(ax, x, 0.0, "mousemove"))
        assert d.moves_drawn == 0 and d.scheduled
        await asyncio.sleep(0)
        await asyncio.sleep(0)

    asyncio.run(burst())
    assert d.moves_seen == 3 and d.moves_drawn == 1
    assert np.allclose(ex.state["X"][0], (0.3, 0.0))
    d.handle(d.event(ax, 0.3, 0.0, "mouseup"))
    assert d.token is None


def test_drag_events_are_wired_to_the_image():
    from kmlteach.widgets.ch01 import make_margin_explorer

    ex = make_margin_explorer()
    assert ex.drag.events, "ipyevents is not installed"
    kinds = {k for e in ex.drag.events for k in e.watched_events}
    assert {"mousedown", "mousemove", "mouseup"} <= kinds
    assert all(e.source is ex.image for e in ex.drag.events)
    moves = [e for e in ex.drag.events if "mousemove" in e.watched_events][0]
    assert moves.throttle_or_debounce == "throttle" and moves.wait > 0


def _record_messages(monkeypatch) -> list:
    """(widget, method, state keys) of every message the widgets send to the front end."""
    import ipywidgets as W

    sent: list = []
    monkeypatch.setattr(
        W.Widget,
        "_send",
        lambda self, msg, buffers=None: sent.append(
            (self, msg.get("method"), sorted(msg.get("state") or {}))
        ),
    )
    return sent


def test_the_figure_goes_out_before_the_controls_and_the_readout(monkeypatch):
    """The browser handles the kernel's messages in order and re-lays out each slider and
    the readout: the new figure is sent first, then the rest (the ranking drag moves two or
    more score sliders and the readout per step)."""
    from kmlteach.widgets.ch06 import make_ranking_explorer

    ex = make_ranking_explorer()
    ax = ex.fig.axes[0]
    sent = _record_messages(monkeypatch)
    before = np.array(ex.state["scores"])
    ex.drag.handle(ex.drag.event(ax, 1, 0.5, "mousedown"))
    ex.drag.handle(ex.drag.event(ax, 3, 0.5, "mousemove"))
    moved = int(np.sum(np.array(ex.state["scores"]) != before))
    updates = [(w, keys) for w, method, keys in sent if method == "update"]
    images = [k for k, (w, _) in enumerate(updates) if w is ex.image]
    others = [k for k, (w, _) in enumerate(updates) if w is not ex.image]
    assert images == [0], f"one figure, sent first: {[(type(w).__name__, k) for w, k in updates]}"
    scores = {id(ex.controls[f"s{i}"]) for i in range(6)}
    assert moved >= 2 and sum(id(w) in scores for w, _ in updates) == moved
    assert any(w is ex.readout for w, _ in updates) and others
    # a slider moved from the keyboard: the readout follows the figure as well
    sent.clear()
    ex.controls["k"].value = 5
    order = [w for w, method, _ in sent if method == "update"]
    assert order.index(ex.image) < order.index(ex.readout)


def test_a_value_only_rounded_by_the_browser_is_not_redrawn(monkeypatch):
    """The browser's slider sends back 0.6499999999999999 for 0.65 (its grid arithmetic):
    no second update and render for a change nobody can see; a real change still redraws."""
    import math

    from kmlteach.widgets.ch01 import make_margin_explorer

    ex = make_margin_explorer()
    renders = []
    real = ex.render
    monkeypatch.setattr(ex, "render", lambda: (renders.append(1), real())[1])
    c = ex.controls["x2"]
    c.value = 0.65
    assert len(renders) == 1 and ex.state["X"][0, 1] == 0.65
    c.value = math.nextafter(0.65, 0.0)
    assert len(renders) == 1 and ex.state["X"][0, 1] == 0.65
    c.value = 0.6
    assert len(renders) == 2 and ex.state["X"][0, 1] == 0.6


def test_fresh_moves_are_drawn_at_once_and_late_ones_coalesced():
    """A move that reaches the kernel as fast as the press did is drawn at once (deferring
    it cost 15-20 ms per move in JupyterLab); moves that waited in the kernel's queue
    longer than STALE_MS are coalesced into one redraw at the last position."""
    import time

    from kmlteach.widgets._drag import STALE_MS
    from kmlteach.widgets.ch01 import make_margin_explorer

    ex = make_margin_explorer()
    ax = ex.fig.axes[0]
    d = ex.drag
    X0 = ex.state["X"].copy()
    origin = time.monotonic() * 1000.0 - 5_000.0  # the page's clock: 5 s behind the kernel's

    def stamp(ev, late_ms=0.0):
        return {**ev, "timeStamp": time.monotonic() * 1000.0 - origin - late_ms}

    async def drag():
        d.handle(stamp(d.event(ax, *X0[0], "mousedown")))
        d.handle(stamp(d.event(ax, 0.1, 0.0, "mousemove")))
        assert d.moves_drawn == 1 and not d.scheduled  # fresh: drawn at once
        assert np.allclose(ex.state["X"][0], (0.1, 0.0))
        for x in (0.2, 0.3, 0.4):  # the kernel fell behind
            d.handle(stamp(d.event(ax, x, 0.0, "mousemove"), late_ms=STALE_MS + 40))
        assert d.moves_drawn == 1 and d.scheduled
        await asyncio.sleep(0)
        assert d.moves_drawn == 2 and np.allclose(ex.state["X"][0], (0.4, 0.0))
        d.handle(stamp(d.event(ax, 0.5, 0.0, "mousemove")))  # caught up: at once again
        assert d.moves_drawn == 3 and np.allclose(ex.state["X"][0], (0.5, 0.0))

    asyncio.run(drag())
    d.handle(stamp(d.event(ax, 0.5, 0.0, "mouseup")))
    assert d.token is None and d.moves_seen == 5
    assert_same_as_full_redraw(ex, "after the drag")


def test_the_release_point_ends_a_fast_drag():
    """Walk report item 7 (04 cell-020): in a fast drag the throttle (underscore's, in
    ipyevents) dropped the last moves, and the dragged centre stopped 0.5-0.7 units short of
    the release point. The release position is applied as a final move; a move that the
    throttle sends after the release changes nothing; a click (press and release at one
    place) moves nothing."""
    from kmlteach.widgets.ch04 import make_ava_ties

    ex = make_ava_ties()
    ax, d = ex.fig.axes[0], ex.drag
    cx, cy = ex.controls["cx"].value, ex.controls["cy"].value
    d.handle(d.event(ax, cx, cy, "mousedown"))
    d.handle(d.event(ax, cx + 0.2, cy + 0.1, "mousemove"))  # the one move that got through
    d.handle(d.event(ax, cx + 0.8, cy + 0.5, "mouseup"))  # released much further on
    assert (ex.controls["cx"].value, ex.controls["cy"].value) == pytest.approx((cx + 0.8, cy + 0.5))
    drawn = d.moves_drawn
    d.handle(d.event(ax, cx + 0.6, cy + 0.4, "mousemove"))  # the throttle's late trailing move
    assert d.moves_drawn == drawn
    assert (ex.controls["cx"].value, ex.controls["cy"].value) == pytest.approx((cx + 0.8, cy + 0.5))
    # leaving the image ends the drag where the pointer left
    d.handle(d.event(ax, cx + 0.8, cy + 0.5, "mousedown"))
    d.handle(d.event(ax, cx + 0.3, cy + 0.5, "mouseleave"))
    assert ex.controls["cx"].value == pytest.approx(cx + 0.3)
    assert_same_as_full_redraw(ex, "after a fast drag")


def test_a_click_on_a_point_does_not_move_it():
    from kmlteach.widgets.ch01 import make_margin_explorer

    ex = make_margin_explorer()
    ax, d = ex.fig.axes[0], ex.drag
    X0 = ex.state["X"].copy()
    off_grid = X0[3] + 0.013  # pressed and released a little off the point's centre
    d.handle(d.event(ax, *off_grid, "mousedown"))
    d.handle(d.event(ax, *off_grid, "mouseup"))
    assert ex.controls["point"].value == 3 and d.moves_drawn == 0
    assert np.array_equal(ex.state["X"], X0)
