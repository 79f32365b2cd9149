"""Widget logic of chapter 09: set control values, assert on the state they produce
(the numbers are checked against the solvers and against theorems, not against the widget)."""

import numpy as np
import pytest

pytest.importorskip("ipywidgets")

from kmlteach.kernels import gram
from kmlteach.online import norma
from kmlteach.plots.ch09 import norma_history, nu_data, nu_path, oneclass_data, oneclass_path, stream_data
from kmlteach.svm import nu_svm, one_class_svm
from kmlteach.widgets.ch09 import (
    make_loss_gallery,
    make_norma_stream,
    make_nu_explorer,
    make_oneclass_explorer,
    perceptron_bound,
)

NUS = (0.1, 0.3, 0.6, 1.0)


@pytest.fixture(scope="module")
def small_nu_path():
    X, y = nu_data(40, seed=3)
    return nu_path(X, y, NUS, sigma=1.0, G=30)


def test_nu_explorer_snaps_and_brackets_nu(small_nu_path):
    X, y = small_nu_path["X"], small_nu_path["y"]
    ex = make_nu_explorer(path=small_nu_path, nu=0.1)
    png0 = ex.image.value
    ex.controls["nu"].value = 0.32  # snaps to the grid value 0.3
    st = ex.state
    assert st["nu"] == pytest.approx(0.3)
    ref = nu_svm(X, y, 0.3, kernel="gaussian", sigma=1.0)
    np.testing.assert_allclose(st["alpha"], ref.alpha, atol=1e-10)
    assert st["frac_sv"] == pytest.approx(len(ref.support) / len(y))
    assert st["rho"] > 0
    assert st["frac_me"] <= 0.3 <= st["frac_sv"]  # the ν-property (HSS2 §2.3.1)
    assert ex.image.value != png0


def test_nu_explorer_parzen_limit(small_nu_path):
    X, y = small_nu_path["X"], small_nu_path["y"]
    ex = make_nu_explorer(path=small_nu_path)
    ex.controls["nu"].value = 1.0
    assert ex.state["all_alpha_one"]
    np.testing.assert_array_equal(ex.state["alpha"], np.ones(len(y)))
    assert "Parzen" in ex.state["readout"]
    # f − b is Σ y_i k(x_i, ·): the Parzen-window difference of class sums
    K = gram("gaussian", X, sigma=1.0)
    f = K @ (ex.state["alpha"] * y)
    np.testing.assert_allclose(f, K[:, y > 0].sum(1) - K[:, y < 0].sum(1))


def test_oneclass_explorer_outliers_and_sigma():
    X, out = oneclass_data(40, n_outliers=4, seed=5)
    path = oneclass_path(X, out, (0.1, 0.5, 1.0), (0.1, 0.4), G=25)
    ex = make_oneclass_explorer(path=path, nu=0.1, sigma=0.1)
    png0 = ex.image.value
    assert ex.state["n"] == 40 and not ex.state["outliers"]
    ex.controls["outliers"].value = True
    assert ex.state["n"] == 44
    assert ex.image.value != png0
    with ex.hold():
        ex.controls["nu"].value = 0.5
        ex.controls["sigma"].value = 0.4
    st = ex.state
    ref = one_class_svm(np.r_[X, out], 0.5, sigma=0.4)
    assert st["rho"] == pytest.approx(ref.rho, abs=1e-8)
    assert st["frac_out"] <= 0.5 <= st["frac_sv"]
    ex.controls["nu"].value = 1.0
    np.testing.assert_array_equal(ex.state["alpha"], np.ones(44))  # the Parzen limit


def test_norma_history_reproduces_the_run():
    X, y = stream_data(60, seed=2)
    for kw in ({"lam": 0.1, "budget": None}, {"lam": 0.05, "budget": 7}):
        res = norma(X, y, kw["lam"], 0.8, kernel="gaussian", loss="hinge", budget=kw["budget"], sigma=0.5)
        C = norma_history(res, y, kw["budget"])
        np.testing.assert_allclose(C[-1], res.coef, atol=1e-12)
        # each prediction f_t(x_t) is the expansion after t − 1 steps evaluated at x_t
        K = gram("gaussian", X, sigma=0.5)
        pred = np.r_[0.0, np.einsum("ts,ts->t", C[:-1], K[1:])]
        np.testing.assert_allclose(pred, res.predictions, atol=1e-10)


def test_norma_stream_steps_and_bound():
    X, y = stream_data(50, seed=7)
    ex = make_norma_stream(X, y, G=20)
    _, gamma, bound = perceptron_bound(X, y)
    assert bound == pytest.approx((np.max(np.linalg.norm(X, axis=1)) / gamma) ** 2)
    png0 = ex.image.value
    ex.controls["t"].value = 50
    st = ex.state
    ref = norma(X, y, 0.0, 0.5, kernel="linear", loss="perceptron")  # the widget's η = 0.5
    np.testing.assert_allclose(st["coef"], ref.coef)
    assert st["mistakes"] == ref.mistakes[-1] <= st["bound"] == pytest.approx(bound)
    # with λ = 0, η only scales f: the perceptron's mistakes are those of η = 1
    ref1 = norma(X, y, 0.0, 1.0, kernel="linear", loss="perceptron")
    np.testing.assert_array_equal(ref.mistakes, ref1.mistakes)
    np.testing.assert_allclose(ref.coef, 0.5 * ref1.coef)
    assert ex.image.value != png0
    # λ > 0 shrinks old coefficients by (1 − ηλ) per step; the bound no longer applies
    with ex.hold():
        ex.controls["kernel"].value = "gaussian"
        ex.controls["loss"].value = "hinge"
        ex.controls["lam"].value = 0.2
        ex.controls["t"].value = 10
    c10 = ex.state["coef"].copy()
    assert np.isnan(ex.state["bound"])
    ex.controls["t"].value = 11
    np.testing.assert_allclose(ex.state["coef"][:10], (1 - 0.5 * 0.2) * c10[:10])
    ex.controls["budget"].value = 10
    ex.controls["t"].value = 40
    assert ex.state["n_terms"] <= 10


def test_loss_gallery_value_and_subgradient():
    from kmlteach import losses

    ex = make_loss_gallery(loss="soft_margin", z=0.5)
    assert ex.state["value"] == pytest.approx(0.5) and ex.state["subgradient"] == -1.0
    assert ex.state["calibration"] == (4.0, 1.0)
    png0 = ex.image.value
    ex.controls["loss"].value = "logistic"
    ex.controls["z"].value = -1.0
    assert ex.state["value"] == pytest.approx(np.log1p(np.e))
    assert ex.state["subgradient"] == pytest.approx(-1 / (1 + np.exp(-1.0)))
    assert ex.state["calibration"] == (pytest.approx(np.sqrt(8)), 0.5)
    assert ex.image.value != png0
    # the subgradient inequality of a convex loss at the marked point
    u = np.linspace(-2.5, 2.5, 51)
    assert np.all(losses.logistic(u) >= ex.state["value"] + ex.state["subgradient"] * (u + 1.0) - 1e-12)


def test_rademacher_explorer_stays_below_bound():
    pytest.importorskip("kmlteach.theory")
    from kmlteach.plots.ch09 import rademacher_data
    from kmlteach.widgets.ch09 import make_rademacher_explorer

    X = rademacher_data(200, d=5)
    ex = make_rademacher_explorer(X, ns=(10, 50, 200), n_draws=400, n=10)
    png0 = ex.image.value
    ex.controls["n"].value = 200
    st = ex.state
    assert st["n"] == 200
    assert st["bound"] == pytest.approx(np.sqrt(np.sum(X**2)) / 200)
    assert st["estimate"] <= st["bound"] + 3 * st["stderr"]
    assert st["estimate"] >= st["bound"] / np.sqrt(2) - 3 * st["stderr"]  # Khintchine-Kahane
    assert ex.image.value != png0


@pytest.mark.parametrize(
    "name",
    [
        "make_loss_gallery",
        "make_norma_stream",
        "make_oneclass_explorer",
        "make_rademacher_explorer",
        "make_nu_explorer",
    ],
)
def test_no_update_redraws_the_whole_figure(name):
    """Regression (issue 14): the loss curves, the NORMA mistake curve and the one-class
    density were only touched when their control changed, so that change redrew the figure."""
    from helpers import full_redraws

    from kmlteach.widgets import ch09

    assert full_redraws(getattr(ch09, name)()) == []


def test_rademacher_legends_stay_in_the_background():
    """Regression (issue 14): the legend sat where the marker of small n moves, so it was
    repainted on every update (two thirds of the frame)."""
    from matplotlib.legend import Legend

    from kmlteach.widgets import ch09

    ex = ch09.make_rademacher_explorer()
    for n in ex.controls["n"].options:
        ex.controls["n"].value = n
    assert not any(isinstance(u, Legend) for u in ex.blitter.dynamic)


def test_nu_and_oneclass_figures_fit_a_slide_at_1_5x(small_nu_path):
    """Regression (issue 16): the ν-SVM panels were 490 px and the one-class figure 560 px
    tall at reading size, too tall to be shown 1.5× on a 720-px slide; their legends now sit
    beside or under shorter axes. The regions are pixel layers with the static points
    painted from a cache, so a frame repaints neither through imshow nor marker by marker."""
    from kmlteach._render.layers import RegionLayer
    from kmlteach.course.deck import WIDGET_SCALE, _widget_fit

    X, out = oneclass_data(30, 3, seed=1)
    nu_ex = make_nu_explorer(path=small_nu_path)
    oc_ex = make_oneclass_explorer(path=oneclass_path(X, out, (0.2, 0.5), (0.2,), G=20))
    w, h = nu_ex.fig.get_size_inches() * nu_ex.dpi  # two panels: the deck shows one a slide
    assert WIDGET_SCALE * h <= 720, h
    w, h = oc_ex.fig.get_size_inches() * oc_ex.dpi  # one panel: 1.5x beside its title
    assert _widget_fit(w, h)[0] >= WIDGET_SCALE, (w, h)
    for ex in (nu_ex, oc_ex):
        w, h = ex.fig.get_size_inches() * ex.dpi
        ex.render()
        legend = ex.fig.axes[0].get_legend().get_window_extent()
        assert legend.y0 >= 0 and legend.x1 <= w  # inside the figure
        assert any(isinstance(a, RegionLayer) for a in ex.fig.axes[0].get_children())
        assert not ex.fig.axes[0].images


def test_norma_stream_budget_shows_none_and_numbers_have_no_negative_zero():
    """Issue 36: the "budget τ" drop-down opened blank (value None, index −1); the readout
    printed "-0.000"."""
    ex = make_norma_stream()
    b = ex.controls["budget"]
    assert b.index == 0 and b.label == "none" and ex.state["config"][3] is None
    b.value = 10
    assert ex.state["config"][3] == 10
    b.value = 0
    for loss in ("perceptron", "hinge"):
        ex.controls["loss"].value = loss
        for t in range(1, len(ex.state["coef"]) + 1, 7):
            ex.controls["t"].value = t
            assert "-0.000" not in ex.readout.value and "−0.000" not in ex.readout.value


def test_norma_mistakes_panel_names_the_bound_only_when_it_is_drawn():
    """Issue 36: the legend listed a Novikoff line that was not drawn. The legend has no such
    entry; the line's own label names it when it is drawn and says why when it is not."""
    ex = make_norma_stream()
    ax = ex.fig.axes[1]
    assert not any("Novikoff" in t.get_text() for t in ax.get_legend().get_texts())
    label = next(t for t in ax.texts if "Novikoff" in t.get_text())
    assert (
        np.isfinite(ex.state["bound"])
        and label.get_text() == f"dashed: Novikoff bound (R/γ)² = {ex.state['bound']:.1f}"
    )
    ex.controls["loss"].value = "hinge"
    assert np.isnan(ex.state["bound"]) and label.get_text().startswith("no Novikoff bound")
    ex.controls["loss"].value = "perceptron"
    assert label.get_text().startswith("dashed: Novikoff bound")


def test_loss_gallery_keeps_a_margin_on_the_right():
    """Issue 36: the right panel's frame ended on the image's last column."""
    from kmlteach.widgets.ch09 import make_loss_gallery

    ex = make_loss_gallery()
    ex.full_png()
    right = max(ax.get_tightbbox(ex.fig.canvas.get_renderer()).x1 for ax in ex.fig.axes)
    assert right <= ex.fig.bbox.width - 8


def test_norma_stream_counts_what_chapter_09_prints():
    """Walk report item 15: the widget ran with η = 1 while the chapter's cells use η = 0.5
    (9 mistakes at t = 120 against the printed "no budget: 4"). Its η is the chapter's, the
    readout names it, and its counts are norma's with the chapter's arguments."""
    X, y = stream_data()
    ex = make_norma_stream()
    with ex.hold():
        ex.controls["kernel"].value = "gaussian"
        ex.controls["loss"].value = "hinge"
        ex.controls["lam"].value = 0.05
        ex.controls["t"].value = len(y)
    ref = norma(X, y, 0.05, 0.5, kernel="gaussian", loss="hinge", sigma=0.5)  # 09-theory's cell
    assert ex.state["mistakes"] == ref.mistakes[-1] == 4
    np.testing.assert_allclose(ex.state["coef"], ref.coef)
    assert "(1 − ηλ) = 0.975 (η = 0.5)" in ex.readout.value


def test_norma_stream_controls_and_ring_are_readable():
    """Walk report item 15: the λ slider was 44 px wide (220 px with its label and readout,
    four controls to a row), and the ring around the point just seen was clipped by the top
    of the axes."""
    ex = make_norma_stream()
    lam = ex.controls["lam"]
    assert int(lam.layout.width.removesuffix("px")) >= 300
    row = next(b for b in ex.children if lam in getattr(b, "children", ()))
    assert ex.controls["t"] in row.children and ex.play in row.children
    ax = ex.fig.axes[0]
    X, _y = stream_data()
    ring = ex.fig.axes[0].get_lines()[0]
    assert ring.get_label() == "point x_t just seen"
    radius = ring.get_markersize() / 2 + ring.get_markeredgewidth()  # points
    px = radius * ex.dpi / 72
    corners = ax.transData.transform(X)  # every point of the stream can be the one just seen
    box = ax.bbox
    assert np.all(corners[:, 0] - px >= box.x0) and np.all(corners[:, 0] + px <= box.x1)
    assert np.all(corners[:, 1] - px >= box.y0) and np.all(corners[:, 1] + px <= box.y1)


def test_loss_gallery_readout_breaks_between_phrases_and_has_no_negative_zero():
    """Walk report item 15: the readout wrapped inside "calibration (2.27): c = 4.000" and
    printed "−η ∂l/∂z = -0.0000"."""
    import re

    ex = make_loss_gallery()
    for name in ex.controls["loss"].options:
        ex.controls["loss"].value = name
        for z in (-1.0, 0.0, 1.0, 2.0):
            ex.controls["z"].value = z
            html = ex.readout.value
            assert "-0.0000" not in html and "−0.0000" not in html, html
            spans = re.findall(r'<span style="white-space: nowrap">(.*?)</span>', html)
            outside = re.sub(r'<span style="white-space: nowrap">.*?</span>|<br>|&nbsp;|\s', "", html)
            assert spans and not outside, html  # all text is in unbreakable phrases
            if ex.state["calibration"]:
                assert any(re.fullmatch(r"calibration \(2\.27\): c = [\d.]+, s = [\d.]+", p) for p in spans)
