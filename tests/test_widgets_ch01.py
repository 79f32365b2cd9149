"""Widget logic of chapters 00-01: set control values, assert on the state they produce."""

import numpy as np
import pytest

pytest.importorskip("ipywidgets")

from kmlteach import svm
from kmlteach.widgets.ch01 import (
    default_margin_points,
    make_lambda_explorer,
    make_loss_gallery,
    make_margin_explorer,
    make_sgd_explorer,
    soft_margin_points,
)
from kmlteach.widgets.welcome import make_angle_demo


def test_margin_explorer_initial_state_is_the_hard_svm():
    ex = make_margin_explorer()
    X, y = default_margin_points()
    ref = svm.hard_svm(X, y)
    assert ex.state["separable"]
    np.testing.assert_allclose(ex.state["w"], ref.w, rtol=1e-9)
    assert ex.state["b"] == pytest.approx(ref.b)
    assert set(ex.state["support"].tolist()) == set(np.asarray(ref.support).tolist())
    # the perceptron's separator classifies every point correctly
    pw, pb = ex.state["perceptron_w"], ex.state["perceptron_b"]
    assert np.all(y * (X @ pw + pb) > 0) and ex.state["perceptron_converged"]
    assert "kml-margin-explorer" in ex._dom_classes


def test_moving_a_non_support_point_outside_the_band_changes_nothing():
    ex = make_margin_explorer()
    support = set(ex.state["support"].tolist())
    i = next(j for j in range(12) if j not in support)
    w0, b0 = ex.state["w"].copy(), ex.state["b"]
    png0 = ex.image.value
    ex.controls["point"].value = i
    x0 = ex.state["X"][i].copy()
    # move it further away from the hyperplane along the normal, on its own side
    step = 0.1 * ex.state["y"][i] * np.sign(w0) * (np.abs(w0) > 1e-9)
    ex.controls["x1"].value = float(np.clip(x0[0] + step[0], -3, 3))
    assert np.allclose(ex.state["X"][i][0], np.clip(x0[0] + step[0], -3, 3))
    np.testing.assert_allclose(ex.state["w"], w0, rtol=1e-7, atol=1e-9)
    assert ex.state["b"] == pytest.approx(b0, abs=1e-7)
    assert ex.image.value != png0  # the point moved on the figure


def test_moving_a_support_vector_changes_the_hyperplane():
    ex = make_margin_explorer()
    s = int(ex.state["support"][0])
    margin0 = ex.state["margin"]
    ex.controls["point"].value = s
    x = ex.state["X"][s]
    # pull the support vector towards the other class: the margin must shrink
    w = ex.state["w"]
    target = x - 0.3 * ex.state["y"][s] * w / np.linalg.norm(w)
    with ex.hold():
        ex.controls["x1"].value = float(target[0])
        ex.controls["x2"].value = float(target[1])
    assert ex.state["separable"]
    assert ex.state["margin"] < margin0 - 1e-3
    ref = svm.hard_svm(ex.state["X"], ex.state["y"])
    np.testing.assert_allclose(ex.state["w"], ref.w, rtol=1e-9)


def test_flipping_a_label_can_make_the_sample_inseparable():
    ex = make_margin_explorer()
    X, y = default_margin_points()
    # point 5 lies inside the hull of the -1 cloud: labelled +1 no line separates (checked by LP)
    ex.controls["point"].value = 5
    ex.controls["label"].value = 1.0
    assert ex.state["separable"] is False and ex.state["w"] is None
    assert "not linearly separable" in ex.state["readout"]
    assert ex.state["perceptron_converged"] is False
    ex.controls["label"].value = -1.0
    assert ex.state["separable"] is True


def test_selecting_a_point_does_not_move_it():
    ex = make_margin_explorer()
    X0 = ex.state["X"].copy()
    for i in (3, 7, 11):
        ex.controls["point"].value = i
        assert ex.controls["x1"].value == pytest.approx(X0[i, 0])
        assert ex.controls["x2"].value == pytest.approx(X0[i, 1])
    np.testing.assert_array_equal(ex.state["X"], X0)


def test_perceptron_toggle():
    ex = make_margin_explorer()
    ex.controls["perceptron"].value = False
    assert ex.state["perceptron_w"] is None
    ex.controls["perceptron"].value = True
    assert ex.state["perceptron_w"] is not None


def test_lambda_explorer_tracks_soft_svm():
    ex = make_lambda_explorer()
    X, y = soft_margin_points()
    assert "kml-lambda-explorer" in ex._dom_classes
    readouts, widths, viols = [], [], []
    for lam in (0.001, 0.03, 1.0, 10.0):
        png0 = ex.image.value
        ex.controls["lam"].value = lam
        ref = svm.soft_svm(X, y, lam, homogeneous=False)
        np.testing.assert_allclose(ex.state["w"], ref.w, rtol=1e-6, atol=1e-9)
        assert ex.state["objective"] == pytest.approx(ref.objective, rel=1e-9)
        assert ex.state["margin_width"] == pytest.approx(2 / np.linalg.norm(ref.w))
        marg = y * (X @ ref.w + ref.b)
        assert set(ex.state["violations"].tolist()) == set(np.flatnonzero(marg < 1 - 1e-9).tolist())
        readouts.append(ex.state["readout"])
        widths.append(ex.state["margin_width"])
        viols.append(len(ex.state["violations"]))
        assert ex.image.value != png0
    assert len(set(readouts)) == 4
    # larger λ: wider margin, more violations
    assert widths == sorted(widths) and viols[-1] > viols[0]


def test_loss_gallery_values_and_subgradients():
    from kmlteach import losses

    ex = make_loss_gallery()
    for z in (-1.0, 0.3, 2.0):
        ex.controls["z"].value = z
        for name, (fn, g) in losses.LOSSES.items():
            if name in ex.state["values"]:
                assert ex.state["values"][name] == pytest.approx(float(fn(np.array([z]))[0]))
                assert ex.state["subgradients"][name] == pytest.approx(float(g(np.array([z]))[0]))
    assert ex.state["values"]["hinge"] == 0.0 and ex.state["values"]["zero_one"] == 0.0


def test_sgd_explorer_gap_shrinks_with_T():
    ex = make_sgd_explorer()
    gaps = []
    for T in (10, 1000, 100_000):
        ex.controls["T"].value = T
        assert ex.state["T"] == T
        assert ex.state["gap"] >= -1e-9  # the exact minimiser is never beaten
        gaps.append(ex.state["gap"])
    assert gaps[-1] < gaps[0] and gaps[-1] < 1e-2
    w_a = ex.state["w_sgd"].copy()
    ex.controls["seed"].value = 5
    assert not np.allclose(ex.state["w_sgd"], w_a)  # another seed, other draws


def test_angle_demo_counts_mistakes():
    X = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0]])
    y = np.array([1.0, -1.0, 1.0])
    ex = make_angle_demo(X, y, angle=45.0)
    assert ex.state["mistakes"] == 0
    ex.controls["angle"].value = 225.0
    assert ex.state["mistakes"] == 3
    ex.controls["angle"].value = 0.0  # w = (1, 0): the third point has margin 0, a mistake
    assert ex.state["mistakes"] == 1


@pytest.mark.parametrize("make", [make_margin_explorer, make_sgd_explorer])
def test_no_update_redraws_the_whole_figure(make):
    """Regression (issue 14): moving a point to the edge of the plane made the margin band
    overlap the spines, and every later frame of that kind cost a full redraw (p95 93 ms)."""
    from helpers import full_redraws

    assert full_redraws(make()) == []


def test_point_labels_follow_the_points():
    ex = make_margin_explorer()
    ex.controls["point"].value = 3
    ex.controls["x1"].value = 2.5
    tags = [a for a in ex.fig.axes[0].texts if a.get_zorder() == 6]
    assert len(tags) == len(ex.state["y"])
    assert np.allclose(tags[3].get_position(), ex.state["X"][3])


def test_label_checks_its_arguments():
    from matplotlib.figure import Figure

    from kmlteach._render import label

    ax = Figure().add_subplot()
    with pytest.raises(ValueError, match="text"):
        label(ax, "", (0, 0))
    with pytest.raises(ValueError, match="ha"):
        label(ax, "A", (0, 0), ha="right")
    g = label(ax, "A", (0.5, 0.5), offset=(0.0, 5.0), ha="center")
    assert np.allclose(g.get_position(), [0.5, 0.5])
    # the offset is in points, on top of the data position
    x, y = g.get_transform().transform(g.get_position())
    x0, y0 = ax.transData.transform((0.5, 0.5))
    assert np.isclose(x, x0) and np.isclose(y - y0, 5.0 * ax.figure.dpi / 72)


def test_margin_explorer_readout_keeps_its_height_and_counts_updates_right():
    """Issue 36: the readout changed height as its text did (the figure moved under a drag);
    "perceptron: 1 updates"."""
    ex = make_margin_explorer()
    height = ex.readout.layout.height
    assert "--jp-widgets-inline-height" in height
    ex.controls["label"].value = -ex.controls["label"].value  # inseparable: a longer text
    assert ex.readout.layout.height == height
    assert not any(f" {n} updates" in ex.readout.value for n in (1,))
    assert "perceptron: 1 updates" not in ex.readout.value


def test_margin_explorer_rings_every_point_on_the_margin():
    """With four points on the margin the solver needs three (α = 0 for the fourth): the
    rings and the prediction's answer are the points with y(⟨w, x⟩ + b) = 1."""
    ex = make_margin_explorer()
    ex.controls["x1"].value = 0.5
    st = ex.state
    on = np.flatnonzero(np.abs(st["y"] * (st["X"] @ st["w"] + st["b"]) - 1.0) < 1e-6)
    assert list(st["on_margin"]) == list(on) and len(on) == 4 and len(st["support"]) == 3


def test_angle_demo_prediction_asks_for_the_count_and_offers_new_angles():
    """00-welcome's prediction (issue 36 point 6): how many points lie on the wrong side?"""
    from kmlteach.datasets import separable

    X, y = separable(m=30, d=2, margin=0.6, seed=0)
    ex = make_angle_demo(X * 2.5, y, predict=True)
    p = ex.predict
    assert p.item_id == "00.p_wrong_side" and not any(a.get_visible() for a in p.artists())
    assert "wrong side" in ex.readout.value and "points on the wrong side:" not in ex.readout.value
    angles = set()
    for _ in range(5):
        a = np.deg2rad(ex.controls["angle"].value)
        w = np.array([np.cos(a), np.sin(a)])
        right = int(np.sum(y * (X * 2.5 @ w) <= 0))
        p.guess.value = right + 1
        p.guess.value = right
        p.reveal()
        assert "✔ right" in ex.readout.value and all(a_.get_visible() for a_ in p.artists())
        angles.add(ex.controls["angle"].value)
        p.next()
        assert not p.shown and not p.has_guess
    assert len(angles) >= 4 and ex.state["predictions"] == {"right": 5, "total": 5}
