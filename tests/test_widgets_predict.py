"""Prediction mode of the widgets (``kmlteach.widgets._predict``): one widget per chapter.

For each: the result artists are hidden and the readout asks for a guess before the
reveal; a right guess and a wrong one are scored (``ex.state["predictions"]``, the
readout's verdict); the revealed figure differs from the hidden one and both equal a
full redraw; changing the scenario hides the result again. The right answer is worked
out here from the widget's state or the data, not read from the widget's answer function.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_widgets_blit import assert_same_as_full_redraw


def _margin():
    from kmlteach.widgets.ch01 import make_margin_explorer

    return make_margin_explorer(predict=True), "x1", 0.5


def _margin_answer(ex):
    """The points on the margin, y (⟨w, x⟩ + b) = 1 (the hard-SVM's w, b)."""
    st = ex.state
    on = np.abs(st["y"] * (st["X"] @ st["w"] + st["b"]) - 1.0) < 1e-6
    return tuple(int(i) for i in np.flatnonzero(on))


def _boundary():
    from kmlteach.widgets.ch02 import make_boundary_explorer

    return make_boundary_explorer(predict=True), "sigma", 0.01


def _boundary_answer(ex):
    """Test accuracy (%) of f(x) = Σ α_i k(x_i, x) with the widget's α, on the test moons."""
    from kmlteach.kernels import gram
    from kmlteach.widgets.ch02.boundary import boundary_data

    _X, _y, Xt, yt = boundary_data()
    st = ex.state
    f = gram("gaussian", Xt, st["X"], **st["params"]) @ st["alpha"]
    return round(100.0 * float(np.mean(np.where(f >= 0, 1.0, -1.0) == yt)))


def _kpca():
    from kmlteach.widgets.ch03 import make_kpca_explorer

    return make_kpca_explorer(predict=True), "sigma", 1.0


def _kpca_answer(ex):
    """Best accuracy of a threshold rule (either side +1) on component 1, by brute force."""
    from kmlteach.widgets.ch03.kpca import _kpca_data

    _X, y = _kpca_data(ex.state["dataset"], 160, 0)
    z = ex.state["embedding"][:, 0]
    acc = max(
        max(np.mean(np.where(z > t, 1.0, -1.0) == y), np.mean(np.where(z > t, -1.0, 1.0) == y))
        for t in np.r_[z, z.min() - 1.0]
    )
    return "separates (≥ 95 %)" if acc >= 0.95 else "partly (70–95 %)" if acc >= 0.7 else "does not (< 70 %)"


def _ova():
    from kmlteach.widgets.ch04 import make_ova_failure

    return make_ova_failure(predict=True), "dx", 0.5


def _ova_answer(ex):
    X, y = ex.state["X"], ex.state["y"]
    errs = ex.state["ova_class_errors"]
    assert len(errs) == 3 and len(X) == len(y)
    return "none" if max(errs) < 0.1 else f"class {int(np.argmax(errs)) + 1}"


def _ranking():
    from kmlteach.widgets.ch06 import make_ranking_explorer

    return make_ranking_explorer(predict=True), "s0", 0.9


def _ranking_answer(ex):
    """Kendall-tau loss (UML §17.4): the share of pairs whose scores disagree in sign with
    their relevances, from the sliders' scores and the chapter's relevances."""
    from kmlteach.widgets.ch06 import DEFAULT_RELEVANCE

    y = np.asarray(DEFAULT_RELEVANCE, dtype=float)
    s = np.array([ex.controls[f"s{i}"].value for i in range(len(y))])
    r = len(y)
    bad = sum(np.sign(s[i] - s[j]) != np.sign(y[i] - y[j]) for i in range(r) for j in range(i + 1, r))
    return round(2.0 * bad / (r * (r - 1)), 2)


def _viterbi():
    from kmlteach.widgets.ch05 import make_viterbi_trace

    return make_viterbi_trace(predict=True), "tau", 3


def _viterbi_answer(ex):
    from kmlteach.plots.ch05 import LETTERS

    return LETTERS[int(np.argmax(ex.state["column"]))]


def _pr():
    from kmlteach.widgets.ch07 import make_pr_explorer

    return make_pr_explorer(predict=True), None, None


def _pr_answer(ex):
    """The θ of largest F₁, from scratch: F₁ = 2a / (2a + b + c) at every score as θ."""
    from kmlteach.plots.ch07 import example_scores

    s, t = (np.asarray(v, dtype=float) for v in example_scores())
    best, arg = -1.0, None
    for th in np.sort(np.unique(s)):
        pred = s >= th
        a = np.sum(pred & (t > 0))
        f1 = 2 * a / (2 * a + np.sum(pred & (t < 0)) + np.sum(~pred & (t > 0)))
        if f1 > best + 1e-12:
            best, arg = f1, float(th)
    return arg


def _adaboost():
    from kmlteach.widgets.ch08 import make_adaboost_stepper

    return make_adaboost_stepper(predict=True), "t", 2


def _adaboost_answer(ex):
    feature, _thr, sign = ex.state["stump"]
    return f"+1 iff x{'₁₂'[feature]} {'≤' if sign > 0 else '>'} c"


def _nu():
    from kmlteach.widgets.ch09 import make_nu_explorer

    return make_nu_explorer(predict=True), "nu", 0.6


def _nu_answer(ex):
    return round(float(np.mean(np.asarray(ex.state["alpha"]) > 0)), 2)


CASES = {
    "ch01.margin_explorer": (_margin, _margin_answer),
    "ch02.boundary_explorer": (_boundary, _boundary_answer),
    "ch03.kpca_explorer": (_kpca, _kpca_answer),
    "ch04.ova_failure": (_ova, _ova_answer),
    "ch05.viterbi_trace": (_viterbi, _viterbi_answer),
    "ch06.ranking_explorer": (_ranking, _ranking_answer),
    "ch07.pr_explorer": (_pr, _pr_answer),
    "ch08.adaboost_stepper": (_adaboost, _adaboost_answer),
    "ch09.nu_explorer": (_nu, _nu_answer),
}


def _wrong(p, right):
    """A guess that is wrong: another option, or a number far from the answer."""
    if isinstance(right, tuple):  # a set of indices
        return right[:-1]
    if getattr(p.guess, "options", None):
        return next(o for o in p.guess.options if o != right)
    return p.guess.max if right < (p.guess.min + p.guess.max) / 2 else p.guess.min


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_guess_then_reveal_scores_the_guess(case):
    build, expected = CASES[case]
    ex, control, value = build()
    p = ex.predict
    hidden = p.artists()
    assert hidden and not any(a.get_visible() for a in hidden)
    assert "Predict first" in ex.readout.value
    assert ex.state["predictions"] == {"right": 0, "total": 0}
    assert_same_as_full_redraw(ex, "hidden")
    before = ex.image.value

    right = expected(ex)
    p.guess.value = right
    draws = ex.blitter.full_draws
    p.reveal()
    assert all(a.get_visible() for a in hidden)
    # the first Reveal is blitted: the frame built with the result drawn taught the
    # blitter what it overlaps (chapter 05's was a full redraw, 146 ms in the browser)
    assert ex.blitter.full_draws == draws and not ex.blitter.last_was_full
    assert ex.state["predictions"] == {"right": 1, "total": 1}
    assert "✔ right" in ex.readout.value and "Score: 1/1" in ex.readout.value
    assert ex.image.value != before
    assert_same_as_full_redraw(ex, "revealed")
    assert p.guess.disabled
    p.reveal()  # a scenario is scored once
    assert ex.state["predictions"] == {"right": 1, "total": 1}

    if control is None:  # one fixed question: stays answered
        return
    ex.controls[control].value = value  # new scenario: hidden again, new guess
    assert not any(a.get_visible() for a in hidden)
    assert "Predict first" in ex.readout.value and not p.guess.disabled
    assert_same_as_full_redraw(ex, "new scenario")
    right = expected(ex)
    p.guess.value = _wrong(p, right)
    p.reveal()
    assert ex.state["predictions"] == {"right": 1, "total": 2}
    assert "✘ not quite" in ex.readout.value and "Score: 1/2" in ex.readout.value
    assert ex.state["prediction"]["right"] is False
    assert_same_as_full_redraw(ex, "revealed again")


def test_pr_wrong_guess_says_how_far():
    from kmlteach.widgets.ch07 import make_pr_explorer

    ex = make_pr_explorer(predict=True)
    best = _pr_answer(ex)
    ex.predict.guess.value = ex.predict.guess.min
    ex.predict.reveal()
    assert ex.state["predictions"] == {"right": 0, "total": 1}
    assert f"reached at θ = {best:.2f}" in ex.readout.value
    assert f"{abs(ex.predict.guess.min - best):.2f} away" in ex.readout.value


def test_predict_mode_rejects_bad_arguments():
    import ipywidgets as W

    from kmlteach.widgets._predict import predict_mode, within
    from kmlteach.widgets.ch07 import make_pr_explorer

    ex = make_pr_explorer()
    with pytest.raises(ValueError, match="guess"):
        predict_mode(ex, W.Button(), lambda e: 0, [], "?")
    with pytest.raises(ValueError, match="answer"):
        predict_mode(ex, W.Dropdown(options=["a"]), 3, [], "?")
    with pytest.raises(ValueError, match="watch"):
        predict_mode(ex, W.Dropdown(options=["a"]), lambda e: "a", [], "?", watch=["nope"])
    with pytest.raises(ValueError, match="tol"):
        within(-1.0)


def test_default_mode_has_no_prediction():
    from kmlteach.widgets.ch07 import make_pr_explorer

    ex = make_pr_explorer()
    assert not hasattr(ex, "predict") and "predictions" not in ex.state


def test_the_viterbi_prediction_hides_the_true_word():
    """Review of issue 25: with the true word on screen, copying its letter was right
    whenever Viterbi was; it is hidden until the guess is revealed."""
    from kmlteach.widgets.ch05 import make_viterbi_trace

    ex = make_viterbi_trace(predict=True)
    texts = [t for a in ex.fig.axes for t in a.texts if t.get_text() == "true"]
    assert texts and not any(t.get_visible() for t in texts)
