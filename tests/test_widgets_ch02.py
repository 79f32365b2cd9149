"""Widget logic of chapter 02: set control values, assert on the state they produce."""

import io

import numpy as np
import pytest
from PIL import Image

pytest.importorskip("ipywidgets")

from kmlteach import kernels as kk
from kmlteach.kernel_methods import kernel_sgd_svm
from kmlteach.svm import soft_svm
from kmlteach.widgets.ch02 import (
    boundary_data,
    embedding_data,
    make_boundary_explorer,
    make_embedding_explorer,
    make_psd_lab,
    psd_points,
)


def test_embedding_explorer_fits_a_plane_that_separates_the_lifted_data():
    ex = make_embedding_explorer(dataset="rings")
    st = ex.state
    X, y = embedding_data("rings")
    Psi = np.c_[X, np.sum(X**2, 1)]
    np.testing.assert_allclose(st["Psi"], Psi)
    ref = soft_svm(Psi, y, ex.controls["lam"].value, homogeneous=False)
    np.testing.assert_allclose(st["w"], ref.w, rtol=1e-9, atol=1e-12)
    assert st["accuracy"] == 1.0
    assert "kml-embedding-explorer" in ex._dom_classes


def test_embedding_rotation_moves_the_view_without_refitting():
    ex = make_embedding_explorer(dataset="xor")
    refits, w = ex.state["refits"], ex.state["w"].copy()
    png = ex.image.value
    ex.controls["azim"].value = 40.0
    ex.controls["elev"].value = 60.0
    assert (ex.state["azim"], ex.state["elev"]) == (40.0, 60.0)
    assert ex.state["refits"] == refits
    np.testing.assert_array_equal(ex.state["w"], w)
    assert ex.image.value != png


def test_embedding_line_example_thresholds_are_the_preimage():
    ex = make_embedding_explorer(dataset="rings")
    ex.controls["dataset"].value = "line"
    st = ex.state
    assert st["dataset"] == "line" and st["accuracy"] == 1.0
    th = st["thresholds"]
    assert len(th) == 2 and th[0] < -2 and th[1] > 2 and th[0] > -3 and th[1] < 3
    w, b = st["w"], st["b"]
    for t in th:  # each threshold x solves w1 x + w2 x^2 + b = 0
        assert abs(w[0] * t + w[1] * t * t + b) < 1e-9
    x = embedding_data("line")[0][:, 0]
    inside = (x > th[0]) & (x < th[1])
    np.testing.assert_array_equal(inside, np.abs(x) <= 2)  # UML §16.1: +1 iff |x| > 2


def test_boundary_explorer_matches_kernel_sgd_and_reacts_to_sigma():
    ex = make_boundary_explorer(kernel="gaussian", sigma=0.1, lam=0.001)
    X, y, Xt, yt = boundary_data()
    ref = kernel_sgd_svm(kk.gram("gaussian", X, sigma=0.1), y, 0.001, 6000, 0)
    np.testing.assert_allclose(ex.state["alpha"], ref.alpha)
    assert ex.state["test_accuracy"] > 0.9
    png = ex.image.value
    ex.controls["sigma"].value = 10.0  # very wide: a nearly linear boundary
    assert ex.state["params"]["sigma"] == pytest.approx(ex.controls["sigma"].value)
    assert ex.image.value != png
    ex.controls["kernel"].value = "polynomial"
    ex.controls["degree"].value = 3
    assert ex.state["kernel"] == "polynomial" and ex.state["params"]["degree"] == 3
    K = kk.gram("polynomial", X, degree=3)
    ref = kernel_sgd_svm(K, y, 0.001, 6000, 0)
    np.testing.assert_allclose(ex.state["alpha"], ref.alpha)
    assert ex.state["train_accuracy"] == pytest.approx(np.mean(np.sign(K @ ref.alpha + 0.0) == y), abs=0.01)


def test_psd_lab_flags_non_kernels():
    ex = make_psd_lab(candidate="exponential", n=16)
    assert ex.state["param"] == -1.0 and not ex.state["psd"] and ex.state["n_negative"] >= 1
    ex.controls["param"].value = 1.0
    assert ex.state["psd"] and ex.state["smallest"] > -1e-10
    ex.controls["candidate"].value = "bspline"
    assert ex.state["param"] == 2 and not ex.state["psd"]  # even order: not a kernel
    ex.controls["param"].value = 3
    assert ex.state["psd"]
    ex.controls["candidate"].value = "negative_distance"
    assert not ex.state["psd"] and ex.state["param"] is None
    assert ex.controls["param"].disabled
    ex.controls["candidate"].value = "min"
    assert ex.state["psd"]
    np.testing.assert_allclose(
        ex.state["K"], np.minimum.outer(psd_points(16, "min")[:, 0], psd_points(16, "min")[:, 0])
    )
    ex.controls["candidate"].value = "gaussian"
    assert ex.state["psd"] and ex.state["cauchy_schwarz"] <= 1 + 1e-12
    png = ex.image.value
    ex.controls["n"].value = 25
    assert ex.state["K"].shape == (25, 25) and len(ex.state["eigenvalues"]) == 25
    assert ex.image.value != png
    lam = ex.state["eigenvalues"]
    assert np.all(np.diff(lam) <= 1e-12)
    assert ex.state["smallest"] == pytest.approx(lam[-1], abs=1e-12)


# --- regressions of the live-widget work (issue #14): what the student sees is unchanged,
# --- and slider moves repaint artists only (never whole axes, never the background)


def _moves_stay_blitted(ex, name, values):
    for v in values:
        ex.controls[name].value = v
        assert not ex.timings["full"], f"{name}={v} redrew the background"
    assert not ex.blitter.whole, f"{name} made an axes repaint whole"


def test_boundary_line_is_the_zero_level_and_fits_are_cached():
    ex = make_boundary_explorer(kernel="gaussian", sigma=0.3, lam=0.001)
    X, y, _, _ = boundary_data()
    line = ex.fig.axes[0].lines[-1]
    xs, ys = line.get_data()
    pts = np.c_[xs, ys][np.isfinite(xs)]
    assert len(pts) > 20
    alpha = ex.state["alpha"]
    f = kk.gram("gaussian", pts, X, sigma=0.3) @ alpha
    scale = np.max(np.abs(kk.gram("gaussian", X, sigma=0.3) @ alpha))
    assert np.max(np.abs(f)) < 0.05 * scale  # on the grid's zero crossing
    _moves_stay_blitted(ex, "sigma", [0.1, 1.0, 0.3])
    np.testing.assert_array_equal(ex.state["alpha"], alpha)  # revisit: same fit


def test_boundary_cache_follows_point_edits():
    from test_widgets_gestures import gesture

    ex = make_boundary_explorer()
    ax = ex.fig.axes[0]
    m = len(ex.state["y"])
    gesture(ex, ax, [(2.3, -1.4)])
    first = ex.state["X"].copy()
    ex.controls["reset"].click()
    assert len(ex.state["alpha"]) == m
    gesture(ex, ax, [(-1.5, 2.4)])  # another edit after a reset: a new fit
    assert len(ex.state["alpha"]) == m + 1
    assert np.allclose(ex.state["X"][-1], (-1.5, 2.4), atol=0.02)
    K = kk.gram("gaussian", ex.state["X"], sigma=0.1)
    np.testing.assert_allclose(ex.state["alpha"], kernel_sgd_svm(K, ex.state["y"], 0.001, 6000, 0).alpha)
    assert ex.state["X"].shape == first.shape and not np.array_equal(ex.state["X"], first)


def test_embedding_lambda_moves_the_plane_without_new_axes():
    ex = make_embedding_explorer(dataset="rings")
    axes = list(ex.fig.axes)
    ex.controls["lam"].value = 0.1
    assert list(ex.fig.axes) == axes
    st = ex.state
    ref = soft_svm(st["Psi"], st["y"], 0.1, homogeneous=False)
    np.testing.assert_allclose(st["w"], ref.w, rtol=1e-9, atol=1e-12)
    xs, ys = axes[0].lines[-1].get_data()  # the pre-image: w . psi(x) + b = 0
    P = np.c_[xs, ys][np.isfinite(xs)]
    F = np.c_[P, np.sum(P**2, 1)] @ st["w"] + st["b"]
    assert len(P) > 20 and np.max(np.abs(F)) < 0.05 * np.max(np.abs(st["Psi"] @ st["w"] + st["b"]))
    ex.controls["azim"].value = 10.0  # the first rotation repaints once (the 3-D axes turn whole)
    ex.controls["azim"].value = 20.0
    assert not ex.timings["full"]
    ex.controls["lam"].value = 0.2
    assert not ex.timings["full"] and list(ex.fig.axes) == axes


def test_psd_lab_bars_and_axes():
    from kmlteach.widgets.ch02.psd import _symlog

    ex = make_psd_lab(candidate="exponential", n=16)
    ax_e = ex.fig.axes[1]
    lam = ex.state["eigenvalues"]
    (bars,) = [a for a in ax_e.artists if hasattr(a, "set_bars")]  # one artist paints every bar
    assert len(bars.height) == 16
    np.testing.assert_allclose(bars.height, _symlog(lam / np.max(np.abs(lam))))
    neg = lam < -1e-10 * max(1.0, np.max(np.abs(lam)))
    assert list(bars.bad) == list(neg) and neg.any()
    # not colour alone: a negative bar is hatched (black pixels inside it), a positive one is not
    img = np.asarray(Image.open(io.BytesIO(ex.image.value)).convert("RGB")).astype(int)
    H = img.shape[0]
    for (a, b, c, d), bad in zip(bars._boxes(), bars.bad):
        if c - a < 3 or d - b < 3:
            continue
        inside = img[H - d + 1 : H - b - 1, a + 1 : c - 1]
        assert (inside.sum(axis=2) < 60).any() == bad
    np.testing.assert_allclose(_symlog([1e-3, 1e-2, 1.0, -0.1]), [1.0, 2.0, 4.0, -3.0])
    _moves_stay_blitted(ex, "param", [-0.5, 0.5, 1.5])
    ex.controls["n"].value = 12  # new ticks are artists too: no redraw, even the first time
    assert not ex.timings["full"]
    _moves_stay_blitted(ex, "n", [10, 30, 40])
    assert len(bars.height) == 40


def test_psd_lab_index_ticks_follow_n():
    ex = make_psd_lab(n=30)
    ticks = [a for a in ex.fig.axes[0].artists + ex.fig.axes[1].artists if hasattr(a, "set_texts")]
    texts = [[s for s, _ in t.texts if s] for t in ticks]
    assert ["0", "4", "8", "12", "16", "20", "24", "28"] in texts  # matrix rows/columns, 0-based
    assert ["1", "5", "9", "13", "17", "21", "25", "29"] in texts  # eigenvalue ranks, 1-based
    ex.controls["n"].value = 7
    texts = [[s for s, _ in t.texts if s] for t in ticks]
    assert [str(k) for k in range(7)] in texts and [str(k) for k in range(1, 8)] in texts


@pytest.mark.parametrize(
    "kernel, params",
    [
        ("gaussian", {"sigma": 0.01}),
        ("gaussian", {"sigma": 3.0}),
        ("polynomial", {"degree": 1, "c": 1.0}),
        ("polynomial", {"degree": 8, "c": 1.0}),
    ],
)
def test_grid_scores_equal_the_gram_matrix_on_the_grid(kernel, params):
    from kmlteach.widgets.ch02 import grid_scores

    X, _, _, _ = boundary_data()
    a = np.random.default_rng(1).normal(size=len(X))
    g = np.linspace(-1.7, 2.7, 37)
    G1, G2 = np.meshgrid(g, g)
    ref = (kk.gram(kernel, np.c_[G1.ravel(), G2.ravel()], X, **params) @ a).reshape(G1.shape)
    np.testing.assert_allclose(
        grid_scores(kernel, params, g, X, a), ref, rtol=0, atol=1e-12 * np.max(np.abs(ref))
    )
    with pytest.raises(ValueError, match="kernel"):
        grid_scores("linear", {}, g, X, a)
    with pytest.raises(ValueError, match="Xs"):
        grid_scores(kernel, params, g, X, a[:-1])


def test_boundary_figure_fits_a_slide_at_1_5x():
    ex = make_boundary_explorer()
    w, h = ex.fig.get_size_inches() * ex.dpi
    assert h <= 480 and 1.5 * w <= 1240


def test_box3d_projection_and_plane_cut():
    from kmlteach.widgets.ch02.box3d import plane_polygon, view_basis

    B = view_basis(30.0, -60.0)
    np.testing.assert_allclose(B @ B.T, np.eye(3), atol=1e-12)  # orthonormal view
    np.testing.assert_allclose(np.cross(B[0], B[1]), B[2], atol=1e-12)  # right, up, towards the viewer
    assert B[0][0] > 0 and B[1][0] < 0  # mplot3d at azim -60: x runs to the lower right
    np.testing.assert_allclose(view_basis(90.0, 0.0)[2], [0, 0, 1], atol=1e-12)  # seen from above
    lo, hi = np.array([-1.0, -2.0, 0.0]), np.array([1.0, 2.0, 5.0])
    w, b = np.array([0.3, -0.2, 1.0]), -2.0
    P = plane_polygon(lo, hi, w, b)
    assert len(P) == 4
    np.testing.assert_allclose(P @ w + b, 0.0, atol=1e-12)
    assert np.all(P >= lo - 1e-12) and np.all(P <= hi + 1e-12)
    assert len(plane_polygon(lo, hi, w, 100.0)) == 0 and len(plane_polygon(lo, hi, np.zeros(3), 1.0)) == 0


def test_embedding_points_split_by_the_plane_and_views_stay_blitted():
    ex = make_embedding_explorer(dataset="rings")
    box_ax = ex.fig.axes[1]
    st = ex.state
    side = st["Psi"] @ st["w"] + st["b"]
    n_front = sum(len(c.get_offsets()) for c in box_ax.collections if c.get_zorder() == 3.0)
    n_behind = sum(len(c.get_offsets()) for c in box_ax.collections if c.get_zorder() == 1.0)
    assert n_front + n_behind == len(side) and 0 < n_front < len(side)
    # elev 20 looks from above; w points up (z = |x|^2 large is +1): the +1 side is in front
    assert st["w"][2] > 0 and n_front == int(np.sum(side >= 0))
    _moves_stay_blitted(ex, "elev", [-10.0, 45.0, 90.0])
    _moves_stay_blitted(ex, "azim", [-180.0, 0.0, 175.0])
    for name in ("line", "xor", "rings"):  # each data set has its figure, drawn at build
        ex.controls["dataset"].value = name
        assert not ex.timings["full"] and ex.state["dataset"] == name


def test_embedding_other_data_sets_are_drawn_after_the_cell_or_on_demand(monkeypatch):
    import kmlteach.widgets.ch02.embedding as emb

    later = []
    monkeypatch.setattr(emb, "on_main_thread", lambda fn: later.append(fn) or True)  # as in a kernel
    ex = emb.make_embedding_explorer(dataset="xor")
    assert len(later) == 2 and ex.state["dataset"] == "xor"  # the other figures, then the fits
    ex.controls["dataset"].value = "line"  # chosen before the kernel got to it: drawn now
    assert ex.state["dataset"] == "line" and ex.state["accuracy"] == 1.0
    png = ex.image.value
    later[0]()  # the deferred work: the rest, the current figure untouched
    assert ex.image.value == png and ex.state["dataset"] == "line"
    ex.controls["dataset"].value = "rings"
    assert not ex.timings["full"] and ex.state["dataset"] == "rings"
    # then, one per turn of the event loop, the plane of every data set at every lambda of the slider
    assert len(later) == 2
    k = 1
    while k < len(later):
        later[k]()
        k += 1
    lams = 10 ** np.arange(-4, 0.01, 0.25)
    assert len(later) - 1 >= len(lams)
    ex.controls["lam"].value = float(lams[5])
    st = ex.state
    np.testing.assert_allclose(
        st["w"], soft_svm(st["Psi"], st["y"], float(lams[5]), homogeneous=False).w, rtol=1e-9, atol=1e-12
    )


@pytest.mark.parametrize("dataset", ["line", "rings", "xor"])
def test_embedding_explorer_is_drawn_without_a_layout_pass_and_fits(dataset, monkeypatch):
    """Regression (issue 14, start-up): each data set's figure sits at fixed positions (the
    layout pass measured every tick label and the legend); nothing may leave the figure."""
    from helpers import build_without_layout_pass, outside_the_figure

    from kmlteach.widgets.ch02.embedding import _panel

    ex, passes = build_without_layout_pass(lambda: make_embedding_explorer(dataset=dataset), monkeypatch)
    assert passes == 0
    ax_in = ex.fig.axes[0]
    assert [t for t, _ in outside_the_figure(ex.fig) if t == ax_in.get_title()] == []
    # the fixed panels are where constrained layout puts them (the 3-D box reports room
    # for its stamped letters beyond their ink, so it is compared by position, not extent)
    fig = _panel(dataset)["fig"]
    fixed = [ax.get_position(original=True).bounds for ax in fig.axes]
    fig.set_layout_engine("constrained")
    fig.get_layout_engine().execute(fig)
    laid = [ax.get_position(original=True).bounds for ax in fig.axes]
    np.testing.assert_allclose(fixed, laid, atol=2e-3)


def test_the_3d_view_keeps_its_axis_names_inside_the_figure_and_off_the_ticks():
    """Issue 36: the z label of the 3-D view was cut at the image's right edge (and sat on a
    tick label). Every view the sliders reach keeps every label inside the figure."""
    from helpers import outside_the_figure

    ex = make_embedding_explorer()
    for ds in ("rings", "xor", "line"):
        ex.controls["dataset"].value = ds
        for azim in range(-180, 181, 60):
            for elev in (-10, 30, 90):
                with ex.hold():
                    ex.controls["azim"].value = azim
                    ex.controls["elev"].value = elev
                ex.full_png()
                assert not outside_the_figure(ex.fig), (ds, azim, elev, outside_the_figure(ex.fig))
    # the name of the upright z edge stands beside it, clear of its tick labels
    with ex.hold():
        ex.controls["dataset"].value = "rings"
        ex.controls["azim"].value, ex.controls["elev"].value = -60, 20
    renderer = ex.fig.canvas.get_renderer()
    ax3 = ex.fig.axes[-1]
    from kmlteach._render.text import TextRow

    rows = [a for a in ax3.get_children() if isinstance(a, TextRow)]
    z_name = next(r for r in rows if any("x₁²" in s for s, _c in r.texts))
    z_ticks = [r for r in rows if r is not z_name and any(s == "4" for s, _c in r.texts)]
    assert z_ticks
    name_box = z_name.get_window_extent(renderer)
    assert not any(name_box.overlaps(t.get_window_extent(renderer)) for t in z_ticks)


def test_boundary_explorer_buttons_show_their_labels_in_full():
    """Issue 36: "gaussian | polynom…" and both "click adds" buttons read "y = …"."""
    ex = make_boundary_explorer()
    assert float(ex.controls["kernel"].style.button_width.removesuffix("px")) >= 105
    assert float(ex.controls["add"].style.button_width.removesuffix("px")) >= 80
