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
