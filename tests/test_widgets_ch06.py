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
    ex.controls["s0"].value = 1.0                    # item A (relevance 3) goes to the top
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
