"""Widget logic of chapter 07: set control values, assert on the state they produce."""

import numpy as np
import pytest

pytest.importorskip("ipywidgets")

from kmlteach import metrics
from kmlteach.plots.ch07 import example_scores
from kmlteach.ranking import bipartite_most_violating
from kmlteach.widgets.ch07 import make_pr_explorer, make_violating_explorer


def test_pr_explorer_threshold_moves_counts_and_point():
    s, y = example_scores()
    ex = make_pr_explorer()
    assert ex.state["counts"] == tuple(metrics.confusion_counts(s, y, 0.0))
    png0 = ex.image.value
    ex.controls["theta"].value = 1.5
    a, b, c, d = ex.state["counts"]
    assert (a, b, c, d) == tuple(metrics.confusion_counts(s, y, 1.5))
    assert ex.state["precision"] == pytest.approx(a / (a + b))
    assert ex.state["recall"] == pytest.approx(a / (a + c))
    assert ex.state["f1"] == pytest.approx(metrics.f1(s, y, 1.5))
    assert ex.image.value != png0
    # raising θ never increases the recall, and below every score everything is positive
    r_hi = ex.state["recall"]
    ex.controls["theta"].value = ex.controls["theta"].min
    assert ex.state["recall"] == 1.0 >= r_hi
    assert ex.state["counts"][2:] == (0, 0)


def test_pr_explorer_k_slider():
    s, y = example_scores()
    ex = make_pr_explorer()
    for k in (1, 7, 40):
        ex.controls["k"].value = k
        assert ex.state["precision_at_k"] == pytest.approx(metrics.precision_at_k(s, y, k))
        assert ex.state["recall_at_k"] == pytest.approx(metrics.recall_at_k(s, y, k))
    assert ex.state["recall_at_k"] == 1.0


def test_violating_explorer_follows_the_oracle():
    s, y = example_scores(n=14, pos_rate=0.35, seed=5)
    ex = make_violating_explorer()
    ex.controls["scale"].value = 0.01  # tiny scores: Δ dominates, F1 loss driven to 1
    assert ex.state["delta"] == pytest.approx(1.0)
    np.testing.assert_array_equal(ex.state["v"], bipartite_most_violating(0.01 * s, y, "f1"))
    ex.controls["scale"].value = 10.0  # large scores: v follows the sign of the scores
    np.testing.assert_array_equal(ex.state["v"], np.where(s >= 0, 1.0, -1.0))
    ex.controls["measure"].value = "precision_at_k"
    ex.controls["k"].value = 9
    assert np.sum(ex.state["v"] > 0) >= 9


def test_no_update_redraws_the_whole_figure():
    """Regression (issue 14): a threshold near the ends made the moving artists overlap the
    spines, and that frame was a full redraw (p95 184 ms)."""
    from helpers import full_redraws

    from kmlteach.widgets.ch07 import make_pr_explorer

    assert full_redraws(make_pr_explorer()) == []


def test_pr_explorer_is_drawn_without_a_layout_pass_and_fits(monkeypatch):
    """Regression (issue 14, start-up): the layout pass measured every tick label and was a
    third of the time to the first picture; the fixed panels must still hold every label."""
    from helpers import build_without_layout_pass, outside_the_figure

    ex, passes = build_without_layout_pass(make_pr_explorer, monkeypatch)
    assert passes == 0
    assert outside_the_figure(ex.fig) == []
    left = [ax.get_position().x0 for ax in ex.fig.axes]
    assert left == sorted(left)  # three panels side by side
