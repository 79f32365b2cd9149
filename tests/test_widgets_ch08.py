"""Chapter 08 widgets: AdaBoost stepper, bagging explorer, tree explorer, recap quiz.
Set control values, assert on the state they produce and that the figure changed."""

import numpy as np
import pytest

pytest.importorskip("ipywidgets")

from kmlteach.ensembles import adaboost, decision_tree
from kmlteach.exercises import get
from kmlteach.plots.ch08 import ridge_classifier
from kmlteach.widgets.ch08 import make_adaboost_stepper, make_bagging_explorer, make_tree_explorer


def _ring(m, seed):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.5, 1.5, size=(m, 2))
    y = np.where(np.sum(X**2, axis=1) > 1.0, 1.0, -1.0)
    flip = rng.random(m) < 0.05
    return X, np.where(flip, -y, y)


@pytest.fixture(scope="module")
def ring():
    return _ring(60, 0)


def test_adaboost_stepper_steps_forward_and_back(ring):
    X, y = ring
    res = adaboost(X, y, 12)
    ex = make_adaboost_stepper(X, y, T=12, n_grid=40)
    R = len(res.alphas)
    assert ex.controls["t"].max == R and ex.state["t"] == 1
    np.testing.assert_allclose(ex.state["D"], np.full(len(y), 1 / len(y)))
    png = ex.image.value
    ex.controls["t"].value = 4
    assert ex.image.value != png
    st = ex.state
    assert st["epsilon"] == pytest.approx(res.epsilons[3])
    np.testing.assert_allclose(st["D"], res.D[3])
    # α_t and Z_t from ε_t by the formulas of the slides, not read back from the result
    eps = st["epsilon"]
    assert st["alpha"] == pytest.approx(0.5 * np.log((1 - eps) / eps))
    assert st["Z"] == pytest.approx(2 * np.sqrt(eps * (1 - eps)))
    f = sum(a * h.predict(X) for a, h in zip(res.alphas[:4], res.stumps[:4]))
    assert st["training_error"] == pytest.approx(np.mean(np.where(f >= 0, 1.0, -1.0) != y))
    ex.controls["next"].click()
    assert ex.state["t"] == 5
    ex.controls["back"].click()
    ex.controls["back"].click()
    assert ex.state["t"] == 3
    for t in range(1, R + 1):  # the bound holds in every round
        ex.controls["t"].value = t
        s = ex.state
        assert s["training_error"] <= s["prod_Z"] + 1e-12 <= s["exp_bound"] + 2e-12
        assert s["prod_Z"] == pytest.approx(np.prod(2 * np.sqrt(res.epsilons[:t] * (1 - res.epsilons[:t]))))
    ex.controls["t"].value = 1
    ex.controls["back"].click()  # stays at the first round
    assert ex.state["t"] == 1


def test_bagging_explorer_matches_an_independent_oob_count(ring):
    X, y = ring
    Xt, yt = _ring(80, 1)
    B, seed = 15, 3
    ex = make_bagging_explorer(X, y, Xt, yt, n_estimators=B, seed=seed, n_grid=30)
    name = "least squares (stable)"
    assert set(ex.state["errors"]) == {name, "deep tree (unstable)"}
    samples = ex.state["samples"][name]
    assert samples.shape == (B, len(y)) and samples.min() >= 0 and samples.max() < len(y)
    models = [ridge_classifier(X[s], y[s]) for s in samples]
    P = np.array([mdl.predict(X) for mdl in models])
    oob_ref = get("08.oob_error").reference
    png = ex.image.value
    for n in (1, 6, B):
        ex.controls["n"].value = n
        e = ex.state["errors"][name]
        assert e["oob_error"] == pytest.approx(oob_ref(P[:n], samples[:n], y))
        votes = sum(mdl.predict(Xt) for mdl in models[:n])
        assert e["test_error"] == pytest.approx(np.mean(np.where(votes > 0, 1.0, -1.0) != yt))
    assert ex.state["n"] == B and ex.image.value != png
    tree = ex.state["errors"]["deep tree (unstable)"]
    assert 0 <= tree["test_error"] <= 1 and 0 <= tree["oob_error"] <= 1


def test_tree_explorer_depth_and_criterion(ring):
    X, y = ring
    Xt, yt = _ring(80, 1)
    ex = make_tree_explorer(X, y, Xt, yt, max_depth=5, n_grid=30, rectangle=(-1, 1, -1, 1))
    assert ex.state["depth"] == 0 and ex.state["n_leaves"] == 1
    assert ex.state["train_error"] == pytest.approx(min(np.mean(y > 0), np.mean(y < 0)))
    png = ex.image.value
    errors = []
    for d in range(1, 6):
        ex.controls["depth"].value = d
        tree = decision_tree(X, y, max_depth=d, criterion="gini")
        assert ex.state["test_error"] == pytest.approx(np.mean(tree.predict(Xt) != yt))
        assert ex.state["n_leaves"] == tree.n_leaves <= 2**d
        errors.append(ex.state["train_error"])
    assert ex.image.value != png
    assert errors[-1] < errors[0]
    ex.controls["criterion"].value = "entropy"
    tree = decision_tree(X, y, max_depth=5, criterion="entropy")
    assert ex.state["criterion"] == "entropy"
    assert ex.state["train_error"] == pytest.approx(np.mean(tree.predict(X) != y))


@pytest.mark.parametrize("chapter", ["08", "09"])
def test_recap_quiz_checks_itself(chapter, capsys):
    from kmlteach.exercises import ask, questions, quiz_html

    qs = [q for q in questions(chapter) if q.kind == "recap"]
    assert [q.id for q in qs] == [f"{chapter}.q{i}" for i in range(1, 6)]
    for q in qs:
        right = q.answers()[0]
        wrong = (right + 1) % len(q.choices)
        assert ask(q.id, "abcd"[right])
        assert not ask(q.id, "abcd"[wrong])
        assert " ".join(q.explanation.split()) in " ".join(capsys.readouterr().out.split())  # wrapped
    text = quiz_html(chapter)
    assert all(q.prompt.split()[0] in text for q in qs)
    assert not any(q.explanation in text for q in qs)  # the static version gives nothing away


def test_quiz_answers_are_true():
    """The numbers the quiz relies on."""
    eps = 0.25
    alpha = 0.5 * np.log((1 - eps) / eps)
    assert np.exp(alpha) == pytest.approx(np.sqrt(3))
    Z = 2 * np.sqrt(eps * (1 - eps))
    assert eps * np.exp(alpha) / Z == pytest.approx(0.5)
    assert (1 - 1 / 1000) ** 1000 == pytest.approx(np.exp(-1), abs=1e-3)


@pytest.mark.parametrize("name", ["make_adaboost_stepper", "make_bagging_explorer", "make_tree_explorer"])
def test_no_update_redraws_the_whole_figure(name):
    """Regression (issue 14): the legends sat inside the images and under the sweeping round /
    depth line, so they were repainted on every frame or forced a full redraw."""
    from helpers import full_redraws

    from kmlteach.widgets import ch08

    assert full_redraws(getattr(ch08, name)()) == []


def test_star_import_names_only_what_exists():
    """Regression: ``__all__`` listed a recap quiz that lives in kmlteach.exercises, so
    ``from kmlteach.widgets.ch08 import *`` raised AttributeError."""
    from kmlteach.widgets import ch08

    assert all(hasattr(ch08, n) for n in ch08.__all__)


@pytest.mark.parametrize("name", ["make_adaboost_stepper", "make_bagging_explorer", "make_tree_explorer"])
def test_regions_are_pixel_layers_and_points_come_from_a_cache(name):
    """Regression (issue 14): the regions were float ``imshow`` images resampled on every
    frame and the few hundred training points over them were repainted marker by marker:
    together three quarters of a frame's drawing."""
    from kmlteach._render.layers import RegionLayer
    from kmlteach.widgets import ch08

    ex = getattr(ch08, name)()
    layers = [a for ax in ex.fig.axes for a in ax.get_children() if isinstance(a, RegionLayer)]
    assert layers and not any(ax.images for ax in ex.fig.axes)
    cached = [u for u in ex.blitter.dynamic if "draw" in vars(u) and hasattr(u, "get_offsets")]
    assert len(cached) >= 2


def test_show_of_a_widget_sends_its_frame_without_drawing_again(monkeypatch):
    """Start-up (issue 14): the static figure before each widget was a second full draw of
    the widget's figure (0.2 s of chapter 08's 3 s); ``show(explorer)`` sends the frame the
    widget already has, the same pixels as a full redraw."""
    import io

    import IPython.display
    from PIL import Image

    from kmlteach.plots import show

    ex = make_tree_explorer()
    ex.controls["depth"].value = 2
    sent = []
    monkeypatch.setattr(IPython.display, "display", lambda obj: sent.append(obj))
    monkeypatch.setattr(ex.fig, "savefig", lambda *a, **k: (_ for _ in ()).throw(AssertionError("drawn")))
    show(ex, alt="a tree of depth 2")
    assert sent[0].data == bytes(ex.image.value) and sent[0].alt == "a tree of depth 2"
    full = np.asarray(Image.open(io.BytesIO(ex.full_png())).convert("RGB"))
    assert np.array_equal(np.asarray(Image.open(io.BytesIO(sent[0].data)).convert("RGB")), full)
    with pytest.raises(ValueError, match="alt"):
        show(ex, alt=" ")


@pytest.mark.parametrize("rounds", [20, 60])
def test_adaboost_stepper_is_drawn_without_a_layout_pass_and_fits(rounds, monkeypatch):
    """Regression (issue 14, start-up): constrained layout was 40 % of chapter 08's time to
    its first widget; the fixed panels must hold the default run and the notebook's
    (60 rounds, two-row legends)."""
    from helpers import build_without_layout_pass, outside_the_figure

    from kmlteach.datasets import moons

    X, y = moons(150, noise=0.25, seed=0)
    ex, passes = build_without_layout_pass(
        lambda: make_adaboost_stepper(X, y, T=rounds, result=adaboost(X, y, rounds)), monkeypatch
    )
    assert passes == 0
    assert outside_the_figure(ex.fig) == []


def test_bagging_readout_says_one_member():
    """Issue 36: "n = 1 members"."""
    ex = make_bagging_explorer()
    ex.controls["n"].value = 1
    assert "1</b> member &nbsp;" in ex.readout.value and "members" not in ex.readout.value.split("&nbsp;")[0]
    ex.controls["n"].value = 2
    assert "2</b> members" in ex.readout.value
