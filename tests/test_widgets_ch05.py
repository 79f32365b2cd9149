"""Chapter 05 widgets: the Viterbi trace and independent letters vs chain."""

import numpy as np
import pytest

pytest.importorskip("ipywidgets")

from kmlteach import structured as S
from kmlteach.datasets import ocr_words
from kmlteach.widgets.ch05 import make_noise_compare, make_viterbi_trace


@pytest.fixture(scope="module")
def small():
    train = ocr_words(60, noise=0.3, seed=0)
    model = S.structured_sgd(train.X, train.y, eta=0.5, T=300, seed=0)
    return model, ocr_words(4, noise=0.3, seed=1)


def test_viterbi_trace_steps_and_backtracks(small):
    model, data = small
    ex = make_viterbi_trace(model, data)
    r = len(data.words[0])
    assert ex.state["tau"] == 1 and not ex.state["backtracked"]
    assert ex.controls["tau"].max == r + 1
    res = S.viterbi(S.unary_scores(data.X[0], model.W_unary), model.W_pair)
    np.testing.assert_allclose(ex.state["column"], res.M[:, 0])
    png = ex.image.value
    ex.controls["tau"].value = 3
    assert ex.state["best_cell"] == int(np.argmax(res.M[:, 2]))
    assert ex.state["best_predecessor"] == res.backpointers[ex.state["best_cell"], 2]
    assert ex.image.value != png
    ex.controls["tau"].value = r + 1
    assert ex.state["backtracked"]
    np.testing.assert_array_equal(ex.state["labels"], res.labels)
    assert "decoded" in ex.state["readout"]
    # a shorter or longer word resets the range of τ
    ex.controls["word"].value = 2
    r2 = len(data.words[2])
    assert ex.controls["tau"].max == r2 + 1 and ex.state["r"] == r2
    assert ex.state["tau"] <= r2 + 1


def test_noise_compare(monkeypatch):
    import kmlteach.widgets.ch05.noise as W

    real = W.train_pair
    monkeypatch.setattr(W, "train_pair", lambda nz, seed=0: real(nz, n_train=40, T=200, seed=seed))
    ex = make_noise_compare(noise=0.2, n_test=10)
    e0 = (ex.state["error_chain"], ex.state["error_letters"])
    png = ex.image.value
    ex.controls["noise"].value = 0.6
    # a level not trained yet: the slider does not wait, the figure and readout say so
    if ex.state["pending"] == pytest.approx(0.6):
        assert "training" in ex.state["readout"] and ex.state["noise"] == pytest.approx(0.2)
        assert ex.image.value != png
    assert ex.wait()
    assert ex.state["noise"] == pytest.approx(0.6) and ex.state["pending"] is None
    assert (ex.state["error_chain"], ex.state["error_letters"]) != e0
    # the background thread's fits are those of a fit in this thread, bit for bit
    *_, e_chain, e_alone = W._fit_level(0.6, 0, 10)
    assert (ex.state["error_chain"], ex.state["error_letters"]) == (e_chain, e_alone)
    assert ex.image.value != png
    ex.controls["word"].value = 3
    assert len(ex.state["pred_chain"]) == len(ex.state["word"])


def test_transition_growth():
    from kmlteach.widgets.ch05 import make_transition_growth, top_bigrams

    train = ocr_words(40, noise=0.3, seed=0)
    test = ocr_words(5, noise=0.3, seed=1)
    ex = make_transition_growth(train, test)
    assert ex.state["T"] == 1000
    model = S.structured_sgd(train.X, train.y, eta=0.5, T=1000, seed=0)
    np.testing.assert_array_equal(ex.state["W_pair"], model.W_pair)
    assert ex.state["top"] == top_bigrams(model.W_pair)
    png = ex.image.value
    ex.controls["T"].value = 100
    assert ex.state["T"] == 100 and ex.image.value != png
    W = np.zeros((26, 26))
    W[16, 20] = 2.0  # "qu"
    W[19, 7] = 1.0  # "th"
    assert top_bigrams(W, 2) == ["qu", "th"]


def test_noise_compare_trains_in_one_thread_that_ends(monkeypatch):
    import multiprocessing
    import threading
    import time

    import kmlteach.widgets.ch05.noise as W

    real = W.train_pair
    monkeypatch.setattr(W, "train_pair", lambda nz, seed=0: real(nz, n_train=20, T=50, seed=seed))
    ex = make_noise_compare(noise=0.0, n_test=4)
    for v in np.arange(0.0, 0.85, 0.1):
        ex.controls["noise"].value = float(v)
        assert ex.wait()
    assert multiprocessing.active_children() == []  # no process: the fits share the kernel's memory
    deadline = time.monotonic() + 60
    while any(t.name == "kmlteach-ch05-levels" for t in threading.enumerate()):
        assert time.monotonic() < deadline, "the training thread did not end when every level was done"
        time.sleep(0.05)


def test_noise_compare_snaps_to_the_slider_grid_and_marks_wrong_letters_twice():
    ex = make_noise_compare(noise=0.4, n_test=10)
    ex.controls["noise"].value = 0.41  # a browser slider would snap it
    assert ex.state["noise"] == pytest.approx(0.4) and ex.state["pending"] is None
    # wrong letters: vermillion *and* underlined (a cue that is not colour alone)
    from kmlteach.plots import OKABE_ITO

    pred, word = ex.state["pred_letters"], ex.state["word"]
    wrong = [t for t, (a, b) in enumerate(zip(pred, word)) if a != b]
    panel_axes = ex.fig.axes[0]
    under = [ln for ln in panel_axes.lines if ln.get_color() == OKABE_ITO["vermillion"]][0]
    xs = np.asarray(under.get_xdata(), dtype=float)
    assert sorted({int(round(x + 0.3)) for x in xs[~np.isnan(xs)][::2]}) == wrong


def test_viterbi_trace_arrows_point_back_to_the_best_predecessor(small):
    model, data = small
    ex = make_viterbi_trace(model, data)
    ex.controls["tau"].value = 3
    res = S.viterbi(S.unary_scores(data.X[0], model.W_unary), model.W_pair)
    arrows = [a for a in ex.fig.axes[1].artists if hasattr(a, "arrows")][0].arrows
    best5 = np.argsort(-res.M[:, 2], kind="stable")[:5]
    assert len(arrows) == 5
    for (x0, y0, x1, y1, _), s_ in zip(arrows, best5):
        assert x0 > x1  # from column τ back to τ − 1
        assert (y0, y1) == (s_, res.backpointers[s_, 2])


def test_viterbi_and_transition_figures_are_at_most_480_px_tall(small):
    """Issue 16: 1.5× the reading size fits a 720-px slide (they were 840 and 560 px tall)."""
    import struct

    from kmlteach.widgets.ch05 import make_transition_growth

    model, data = small
    for ex in (
        make_viterbi_trace(model, data),
        make_transition_growth(ocr_words(40, noise=0.3, seed=0), ocr_words(10, noise=0.3, seed=1)),
    ):
        w, h = struct.unpack(">II", ex.image.value[16:24])
        assert h <= 480 and w <= 826, (w, h)


def test_viterbi_trace_repaints_no_tick_labels(small):
    """Stepping τ repaints the table's cells, not its axes: a heading that reached the
    table's y-axis labels made the whole YAxis dynamic (4x the render time)."""
    from matplotlib.axis import Axis

    model, data = small
    ex = make_viterbi_trace(model, data)
    for tau in (2, 3, 4):
        ex.controls["tau"].value = tau
    assert not [u for u in ex.blitter.dynamic if isinstance(u, Axis)]


def test_viterbi_colour_bar_label_stays_inside_the_figure():
    """The figure's layout is fixed at build: tick labels as wide as "−12.5" pushed the colour
    bar's label past the figure's right edge (seen in JupyterLab). Whole-number ticks keep it
    inside, for a model trained as in the notebook too."""
    from kmlteach import structured as S
    from kmlteach.datasets import ocr_words
    from kmlteach.widgets.ch05 import make_viterbi_trace

    train = ocr_words(400, noise=0.3, seed=1)
    chain = S.structured_sgd(train.X, train.y, eta=0.5, T=6000, seed=0)
    for ex in (make_viterbi_trace(), make_viterbi_trace(chain, ocr_words(10, noise=0.3, seed=3))):
        ex.controls["tau"].value = 6
        r = ex.fig.canvas.get_renderer()
        (cax,) = [a for a in ex.fig.axes if a.yaxis.label.get_text().startswith("M[s")]
        assert cax.yaxis.label.get_window_extent(r).x1 <= ex.fig.bbox.width - 1
        assert all("." not in t.get_text() for t in cax.get_yticklabels())
