"""Widget logic of chapter 06: set control values, assert on the state they produce."""

import numpy as np
import pytest

pytest.importorskip("ipywidgets")

from kmlteach import ranking
from kmlteach.widgets.ch06 import DEFAULT_RELEVANCE, make_ranking_explorer


def test_initial_state_matches_the_library():
    ex = make_ranking_explorer()
    s = ex.state["scores"]
    np.testing.assert_array_equal(ex.state["permutation"], ranking.permutation(s))
    assert ex.state["kendall"] == pytest.approx(ranking.kendall_tau_loss(s, DEFAULT_RELEVANCE))
    assert ex.state["ndcg"] == pytest.approx(ranking.ndcg_loss(s, DEFAULT_RELEVANCE, k=3))
    assert ex.state["order"][0] == int(np.argmax(s))
    assert "Kendall" in ex.state["readout"]


def test_moving_a_score_reorders_and_changes_losses():
    ex = make_ranking_explorer()
    png0, kendall0 = ex.image.value, ex.state["kendall"]
    ex.controls["s0"].value = 1.0  # item A (relevance 3) goes to the top
    assert ex.state["order"][0] == 0
    assert ex.state["kendall"] < kendall0
    assert ex.state["ndcg"] == pytest.approx(ranking.ndcg_loss(ex.state["scores"], DEFAULT_RELEVANCE, k=3))
    assert ex.image.value != png0


def test_k_slider_and_ideal_button():
    ex = make_ranking_explorer()
    ex.controls["k"].value = 1
    assert ex.state["k"] == 1
    assert ex.state["ndcg"] == pytest.approx(ranking.ndcg_loss(ex.state["scores"], DEFAULT_RELEVANCE, k=1))
    ex.controls["ideal"].click()
    assert ex.state["kendall"] == 0.0 and ex.state["ndcg"] == 0.0 and ex.state["zero_one"] == 0.0


def test_item_names_and_zero_bars_follow_the_order():
    """The item names under the axis and the dashes of relevance-0 bars move with the order;
    no update redraws the whole figure (regression: the x tick labels were re-laid out on
    every frame, 37 ms CPU)."""
    from helpers import full_redraws

    ex = make_ranking_explorer()
    order = ex.state["order"]
    assert np.array_equal(ex.state["item_rank"][order], np.arange(1, len(order) + 1))
    assert np.array_equal(ex.state["zero_ranks"], np.flatnonzero(DEFAULT_RELEVANCE[order] == 0) + 1)
    ex.controls["s1"].value = 0.99  # B (relevance 0) to the top
    assert ex.state["item_rank"][1] == 1
    assert 1 in ex.state["zero_ranks"]
    assert full_redraws(ex) == []


def test_the_shade_covers_the_full_height_and_the_ideal_button_does_what_it_says():
    """Walk report item 14: the "beyond top k" shading stopped at 3.36 (a white band under
    the legend); the text said the button sets the scores "to the relevances themselves"
    while it sets relevance / 4 (the sliders run from 0 to 1)."""
    ex = make_ranking_explorer()
    ax = ex.fig.axes[0]
    shade = next(p for p in ax.patches if p.get_label() == "ignored (beyond top k)")
    ex.controls["k"].value = 2
    ex.full_png()
    box = shade.get_window_extent()
    assert box.y0 == pytest.approx(ax.bbox.y0) and box.y1 == pytest.approx(ax.bbox.y1)
    assert box.x0 == pytest.approx(ax.transData.transform((2.5, 0))[0])
    legend = ax.get_legend().get_window_extent()
    assert legend.y0 >= ax.bbox.y1 - 1  # above the axes: a moving shade never repaints it
    assert "relevance / 4" in ex.controls["ideal"].tooltip
    ex.controls["ideal"].click()
    got = [ex.controls[f"s{i}"].value for i in range(len(DEFAULT_RELEVANCE))]
    np.testing.assert_allclose(got, DEFAULT_RELEVANCE / 4)


def test_assignment_heat_map_numbers_contrast_with_their_cells():
    """Walk report item 16 (06): white numbers on mid-grey cells. Each number is black or
    white, whichever contrasts more with its cell (WCAG 2 contrast ratio >= 4.5 here)."""
    from kmlteach.plots import figure
    from kmlteach.plots.ch06 import plot_assignment

    A = np.arange(25, dtype=float).reshape(5, 5) % 10
    fig, ax = figure(4.4, 3.8)
    plot_assignment(A, ranking.assignment(A), ax=ax, values=True)
    im = ax.images[0]

    def lum(rgb):
        c = [v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4 for v in rgb[:3]]
        return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]

    texts = [t for t in ax.texts]
    assert len(texts) == 25
    for t in texts:
        j, i = t.get_position()
        cell = lum(im.to_rgba(A[int(i), int(j)]))
        ink = lum((0, 0, 0) if t.get_color() == "black" else (1, 1, 1))
        hi, lo = max(cell, ink), min(cell, ink)
        assert (hi + 0.05) / (lo + 0.05) >= 4.5, (t.get_text(), t.get_color())
