"""Widget logic of chapter 03: set controls, assert on explorer.state and the figure."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg

pytest.importorskip("ipywidgets")

from kmlteach.widgets.ch03 import (  # noqa: E402  (after the ipywidgets importorskip)
    make_diffusion_explorer,
    make_kpca_explorer,
    make_ngram_explorer,
    parse_edges,
    threshold_accuracy,
)


def test_threshold_accuracy_brute_force():
    rng = np.random.default_rng(0)
    for _ in range(20):
        z = rng.normal(size=9)
        y = rng.choice([-1.0, 1.0], 9)
        best = 0.0
        for t in np.r_[-np.inf, np.sort(z)]:
            pred = np.where(z > t, 1.0, -1.0)
            best = max(best, np.mean(pred == y), np.mean(-pred == y))
        assert threshold_accuracy(z, y) == pytest.approx(best)


def test_kpca_explorer_width_changes_embedding():
    ex = make_kpca_explorer(m=60)
    st = ex.state
    assert st["dataset"] == "rings" and st["embedding"].shape == (60, 2)
    assert np.all(np.diff(st["eigenvalues"]) <= 1e-12)
    png = ex.image.value
    acc_small = st["accuracy_pc1"]
    assert acc_small == 1.0  # rings separate on component 1 at sigma = 0.3
    ex.controls["sigma"].value = 10.0
    assert ex.state["sigma"] == pytest.approx(10.0)
    assert ex.state["accuracy_pc1"] < 0.9  # a very wide kernel is nearly linear: rings mix
    assert ex.image.value != png
    ex.controls["dataset"].value = "moons"
    assert ex.state["dataset"] == "moons"
    assert 0 < ex.state["explained"] <= 1
    assert "σ" in ex.state["readout"]


def test_parse_edges():
    edges, problems = parse_edges("0-1, 2-1 1-0 3:4 x 5-5 2-9", 6)
    assert edges == [(0, 1), (1, 2), (3, 4)]
    assert problems == ["x", "5-5", "2-9"]


def test_diffusion_explorer_state_and_controls():
    ex = make_diffusion_explorer(edges="0-1 1-2 2-3 3-4", n_nodes=5, beta=0.5)
    st = ex.state
    np.testing.assert_allclose(st["row"], [0.674, 0.258, 0.058, 0.009, 0.001], atol=6e-4)
    np.testing.assert_allclose(st["row_sums"], 1.0)
    assert st["min_entry"] > 0
    png = ex.image.value
    ex.controls["sign"].value = "printed"
    np.testing.assert_allclose(ex.state["row"], [1.905, -1.167, 0.309, -0.053, 0.006], atol=6e-4)
    assert ex.state["min_entry"] < 0 and "negative entries in the row: <b>2</b>" in ex.state["readout"]
    assert ex.image.value != png
    ex.controls["sign"].value = "heat"
    ex.controls["edges"].value = "0-1 1-2 2-3 3-4 4-0 bad"
    A = ex.state["A"]
    assert A[0, 4] == 1 and ex.state["problems"] == ["bad"] and "ignored" in ex.state["readout"]
    L = A - np.diag(A.sum(1))
    np.testing.assert_allclose(ex.state["K"], scipy.linalg.expm(0.5 * L), atol=1e-12)
    ex.controls["beta"].value = 2.0
    np.testing.assert_allclose(ex.state["K"], scipy.linalg.expm(2.0 * L), atol=1e-12)
    ex.controls["node"].value = 3
    np.testing.assert_allclose(ex.state["row"], ex.state["K"][3])
    ex.controls["nodes"].value = 3  # fewer nodes: edges to 3, 4 are dropped
    assert ex.state["A"].shape == (3, 3) and ex.state["node"] == 0
    assert list(ex.controls["node"].options) == [0, 1, 2]
    ex.controls["nodes"].value = 9
    assert ex.state["K"].shape == (9, 9)


def test_ngram_explorer_state():
    ex = make_ngram_explorer("banana", "bandana", 2)
    st = ex.state
    assert st["kernel"] == 2 * 2 + 1 * 1 + 2 * 1
    assert st["shared"] == ["an", "ba", "na"]
    assert st["substring"] == 8  # a, b, n, an, ba, na, ban, ana
    png = ex.image.value
    ex.controls["n"].value = 3
    assert ex.state["kernel"] == 2 * 1 + 1 * 1 and ex.state["shared"] == ["ana", "ban"]
    assert ex.image.value != png
    ex.controls["y"].value = "xyz"
    assert ex.state["kernel"] == 0 and ex.state["shared"] == [] and ex.state["cosine"] == 0
    ex.controls["x"].value = ""
    assert ex.state["kernel"] == 0 and ex.state["counts_x"].sum() == 0
    ex.controls["x"].value = ex.controls["y"].value = "abab"
    ex.controls["n"].value = 1
    assert ex.state["cosine"] == pytest.approx(1.0) and ex.state["kernel"] == 8


# --- regressions of the live-widget work (issue #14 / #15)


def test_kpca_explorer_gram_from_distances_matches_kernels_gram():
    from kmlteach.kernel_methods import kernel_pca
    from kmlteach.kernels import gram
    from kmlteach.widgets.ch03.kpca import _kpca_data

    ex = make_kpca_explorer(m=80)
    X, _ = _kpca_data("rings", 80, 0)
    for sig in (0.05, 0.3, 2.0):
        ex.controls["sigma"].value = sig
        ref = kernel_pca(gram("gaussian", X, sigma=sig), 10)
        np.testing.assert_allclose(ex.state["eigenvalues"], ref.eigenvalues, rtol=1e-9, atol=1e-12)
        assert not ex.timings["full"]
    png = ex.image.value
    ex.controls["sigma"].value = 0.3
    ex.controls["sigma"].value = 2.0  # revisit: cached, same picture
    assert ex.image.value == png and not ex.blitter.whole


def test_diffusion_heat_map_numbers_are_readable_and_axes_fixed():
    from kmlteach._render import TextGroup
    from kmlteach.widgets.ch03.graphs import _cell, _Grid

    ex = make_diffusion_explorer(n_nodes=10, edges="0-1 1-2 2-3 3-4 4-5 5-6 6-7 7-8 8-9 0-9 0-5")
    ax_k, ax_cb = ex.fig.axes[1], ex.fig.axes[2]
    # the stamped texts of the heat map: its tick labels (x then y), its cells
    ticks, cells = sorted((a.texts for a in ax_k.artists if isinstance(a, TextGroup)), key=len)
    (grid,) = [a for a in ax_k.artists if isinstance(a, _Grid)]
    (cbar_labels,) = [a.texts for a in ax_cb.artists if isinstance(a, TextGroup)]
    for sign, beta in (("heat", 0.5), ("printed", 2.0)):
        ex.controls["sign"].value = sign
        ex.controls["beta"].value = beta
        K = ex.state["K"]
        shown = [t for t in cells if t.get_visible()]
        assert len(shown) == 100 and all(t.get_fontsize() >= 8 for t in shown)
        assert sorted(t.get_text() for t in shown) == sorted(_cell(v) for v in K.ravel())
        assert max(len(t.get_text()) for t in shown) <= 6
        lim = np.abs(K).max()
        np.testing.assert_allclose(grid.A, K / lim)
        assert [t.get_text() for t in cbar_labels] == [_cell(v * lim) for v in (-1, -0.5, 0, 0.5, 1)]
    lim = ax_k.get_xlim()
    for n in (4, 7, 10):
        ex.controls["nodes"].value = n
        assert ax_k.get_xlim() == lim
        shown = [t for t in ticks if t.get_visible()]
        assert [t.get_text() for t in shown] == [str(k) for k in range(n)] * 2
        # each label under (beside) the centre of its cell: x labels at x, y labels at y
        centre = -0.5 + (np.arange(n) + 0.5) * 10 / n
        np.testing.assert_allclose([t.get_position()[0] for t in shown[:n]], centre)
        np.testing.assert_allclose([t.get_position()[1] for t in shown[n:]], centre)
        assert not ex.timings["full"]
    ex.controls["beta"].value = 1.0
    assert not ex.timings["full"] and not ex.blitter.whole and ex.blitter.full_draws == 1
    assert [_cell(v) for v in (0.123, -21.814, 5984.2, 2.8e23)] == ["0.12", "-21.81", "5984", "3e23"]


def test_diffusion_node_values_fit_their_boxes():
    from kmlteach.widgets.ch03.graphs import _node_value

    assert [_node_value(v) for v in (0.6741, -1.1668, 9.9994, -21.814, 2.8e23)] == [
        "0.674",
        "-1.167",
        "9.999",
        "-21.81",
        "3e23",
    ]
    ex = make_diffusion_explorer(
        beta=3.0, sign="printed", n_nodes=10, edges="0-1 0-2 0-3 0-4 0-5 0-6 0-7 0-8 0-9"
    )
    assert max(abs(ex.state["row"])) > 1e3
    r = ex.blitter.canvas.get_renderer()
    vals = [a for a in ex.fig.axes[0].artists][1].texts
    assert all(t.get_window_extent(r).width <= 30 / 72 * 100 for t in vals if t.get_visible())


def test_ngram_explorer_axes_fixed_while_n_moves():
    ex = make_ngram_explorer("banana", "bandana", 2)
    ax = ex.fig.axes[0]
    lim = (ax.get_xlim(), ax.get_ylim())
    for n in (1, 3, 5, 2):
        ex.controls["n"].value = n
        assert (ax.get_xlim(), ax.get_ylim()) == lim
        labels = [t.get_text() for t in ax.get_xticklabels()]
        assert sorted(labels) == sorted(ex.state["grams"])
        # the bars of x: one patch of rectangles (5 vertices each), heights = the counts shown
        bars_x = ax.patches[0].get_path().vertices.reshape(-1, 5, 2)
        assert len(bars_x) == len(labels) and bars_x[:, 1, 1].sum() == ex.state["counts_x"].sum()
        shades = ax.patches[2].get_path().vertices  # one rectangle per shared n-gram shown
        assert len(shades) // 5 == len(ex.state["shared"])
        assert not ex.timings["full"]  # shades switching off/on repaint no background
    assert not ex.blitter.whole and ex.blitter.full_draws == 1


def test_kpca_switching_data_sets_repaints_the_points_only():
    ex = make_kpca_explorer(m=80)
    ax_in = ex.fig.axes[0]
    lim = (ax_in.get_xlim(), ax_in.get_ylim())
    for name, sig in (("moons", 0.3), ("moons", 1.0), ("rings", 0.1), ("rings", 2.0)):
        ex.controls["dataset"].value = name
        ex.controls["sigma"].value = sig
        assert (ax_in.get_xlim(), ax_in.get_ylim()) == lim  # one box holds both data sets
        pts = np.vstack([c.get_offsets() for c in ax_in.collections])
        assert len(pts) == 80 and np.all((pts >= [lim[0][0], lim[1][0]]) & (pts <= [lim[0][1], lim[1][1]]))
        assert not ex.timings["full"] and not ex.blitter.whole
    # the bars are one outline whose tops are the eigenvalues as shares of the trace of K̃
    from kmlteach.kernels import center, gram
    from kmlteach.widgets.ch03.kpca import _kpca_data

    K = gram("gaussian", _kpca_data("rings", 80, 0)[0], sigma=2.0)
    tops = ex.fig.axes[1].patches[0].get_xy()[1:40:4, 1]
    np.testing.assert_allclose(tops, ex.state["eigenvalues"] / np.trace(center(K)), rtol=1e-9)


def test_kpca_fixed_layout_keeps_every_label_inside_the_figure_and_apart():
    """The panels sit at fixed positions (no layout pass at start-up): every title, tick label
    and axis label stays inside the figure and no panel's labels run into its neighbour's."""
    ex = make_kpca_explorer()
    for name in ("rings", "moons"):
        ex.controls["dataset"].value = name
        r = ex.blitter.canvas.get_renderer()
        fig_box = ex.fig.bbox
        boxes = [ax.get_tightbbox(r) for ax in ex.fig.axes]
        for b in boxes + [ex.fig._suptitle.get_window_extent(r)]:
            assert b.x0 >= 0 and b.y0 >= 0 and b.x1 <= fig_box.x1 and b.y1 <= fig_box.y1
        for left, right in zip(boxes, boxes[1:]):
            assert left.x1 < right.x0
        title = ex.fig._suptitle.get_window_extent(r)
        assert all(
            title.y0 > ax.title.get_window_extent(r).y1 - 1
            or not title.overlaps(ax.title.get_window_extent(r))
            for ax in ex.fig.axes
        )


def test_ngram_boxes_update_while_typing_and_the_readout_reads_right():
    """Issue 36: the boxes waited for Enter; with nothing shared the readout said
    "k₂(x, y) = 0 = 0"."""
    ex = make_ngram_explorer()
    assert ex.controls["x"].continuous_update and ex.controls["y"].continuous_update
    ex.controls["y"].value = "xyz"  # one key at a time, as typed: every value is drawn
    assert ex.state["y"] == "xyz" and ex.state["kernel"] == 0
    assert "= 0 = 0" not in ex.readout.value and "no 2-gram is in both strings" in ex.readout.value
    ex.controls["y"].value = "bandana"
    assert "2·2 + 1·1 + 2·1 = <b>7</b>" in ex.readout.value
    ex.controls["y"].value = ""  # a box emptied while typing
    assert ex.state["kernel"] == 0 and "no 2-gram" in ex.readout.value


def test_ngram_typing_keeps_the_axes_still():
    """Typed strings are drawn key by key: a key that keeps the n-grams within the same step
    of 6 (and the counts within 2) leaves the limits, so only the bars and labels repaint."""
    ex = make_ngram_explorer()
    ax = ex.fig.axes[0]
    limits = (ax.get_xlim(), ax.get_ylim())
    for typed in ("bandan", "bandana", "bandanas"):
        ex.controls["y"].value = typed
        assert (ax.get_xlim(), ax.get_ylim()) == limits and not ex.timings["full"]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["x", "y"]
