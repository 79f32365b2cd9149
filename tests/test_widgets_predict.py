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

    return make_viterbi_trace(predict=True), "delta", 2.5


def _best_path(U, P):
    """The best labelling of a chain, by a dynamic programme written here (scores of the
    prefixes ending in each label; ties to the smallest label, as UML §17.3's argmax)."""
    r, q = U.shape
    score, back = U[0].copy(), np.zeros((r, q), dtype=int)
    for t in range(1, r):
        cand = score[:, None] + P
        back[t] = np.argmax(cand, axis=0)
        score = cand[back[t], np.arange(q)] + U[t]
    path = [int(np.argmax(score))]
    for t in range(r - 1, 0, -1):
        path.append(int(back[t, path[-1]]))
    return np.array(path[::-1])


def _viterbi_answer(ex):
    """The positions (1-based) where the best path moves when W_pair[a, b] changes by δ."""
    U, P = ex.state["unary"], ex.state["pairwise"].copy()
    after = _best_path(U, P)
    a, b = ex.state["pair"]
    P[a, b] -= ex.state["delta"]
    before = _best_path(U, P)
    diff = tuple(int(t) + 1 for t in np.flatnonzero(before != after))
    return diff or ("none",)


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
    if isinstance(right, tuple):  # a set of indices (or "none")
        return right[:-1] if len(right) > 1 else ((1,) if right == ("none",) else ("none",))
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
    ex.predict.guess.value = ex.predict.guess.max
    ex.predict.reveal()
    assert ex.state["predictions"] == {"right": 0, "total": 1}
    assert f"the answer θ = {best:.2f}" in ex.readout.value
    assert f"{abs(ex.predict.guess.max - best):.2f} away" in ex.readout.value


def test_predict_mode_rejects_bad_arguments():
    import ipywidgets as W

    from kmlteach.widgets._predict import predict_mode, within
    from kmlteach.widgets.ch07 import make_pr_explorer

    ex = make_pr_explorer()
    with pytest.raises(ValueError, match="guess"):
        predict_mode(ex, W.Button(), lambda e: 0, [], "?")
    with pytest.raises(ValueError, match="guess must be a NumberGuess"):  # a slider's start can't be entered
        predict_mode(ex, W.FloatSlider(value=0.5), lambda e: 0, [], "?")
    with pytest.raises(ValueError, match="start empty"):
        predict_mode(ex, W.Dropdown(options=["a"]), lambda e: "a", [], "?")
    with pytest.raises(ValueError, match="answer"):
        predict_mode(ex, W.Dropdown(options=["a"], value=None), 3, [], "?")
    with pytest.raises(ValueError, match="watch"):
        predict_mode(ex, W.Dropdown(options=["a"], value=None), lambda e: "a", [], "?", watch=["nope"])
    with pytest.raises(ValueError, match="tol"):
        within(-1.0)


def test_default_mode_has_no_prediction():
    from kmlteach.widgets.ch07 import make_pr_explorer

    ex = make_pr_explorer()
    assert not hasattr(ex, "predict") and "predictions" not in ex.state


def test_the_viterbi_prediction_asks_about_the_path():
    """Issue 36: chapter 05's prediction asks where the best path changes when a pair score
    moves (not which letter a noisy glyph is). Before Reveal the path before the change is on
    screen and the one after it hidden; the true word is not shown (review of issue 25)."""
    from kmlteach.widgets.ch05 import make_viterbi_trace

    ex = make_viterbi_trace(predict=True)
    p = ex.predict
    assert "pair" in p._question() and "best path" in p._question()
    ax_tab = ex.fig.axes[1]
    before = next(ln for ln in ax_tab.get_lines() if ln.get_label() == "best path before the change")
    assert before.get_visible() and list(before.get_ydata()) == list(ex.state["before"])
    assert not any(a.get_visible() for a in p.artists())
    rows = [t.get_text() for a in ex.fig.axes for t in a.texts]
    assert "true" not in rows and "before" in rows and "after" in rows
    # the positions offered follow the word; "no change" stands alone
    r = len(ex.state["before"])
    assert [b.description for b in p.guess.boxes] == [str(t) for t in range(1, r + 1)] + ["no change"]
    p.guess.value = (1, 2)
    p.guess.boxes[-1].value = True
    assert p.guess.value == ("none",)
    # every setting next question ▶ offers is decoded as the oracle says, and scored once
    p.guess.value = _viterbi_answer(ex)
    p.reveal()
    seen = set()
    for _ in range(8):
        p.next()
        assert not p.has_guess and p.guess.value == ()
        right = _viterbi_answer(ex)
        seen.add(right == ("none",))
        p.guess.value = right
        p.reveal()
        p.reveal()
        assert ex.state["prediction"]["right"] is True
    assert ex.state["predictions"] == {"right": 9, "total": 9}
    assert seen == {True, False}, "next question ▶ should offer changes and no-changes"


# -- issue 36: a guess belongs to one setting, is scored once, and Reveal works at any moment --


def _set_guess(p, value):
    """Set the guess as a student would (every guess control starts empty: setting it is a
    change; a number is typed into its box)."""
    from kmlteach.widgets._predict import NumberGuess

    if isinstance(p.guess, NumberGuess):
        p.guess.text.value = f"{value:g}"
        assert p.guess.value == pytest.approx(value, abs=1e-5), p.guess.problem
    else:
        p.guess.value = value


def _new_setting(ex, control, value):
    if control is None:
        ex.predict.next()
    else:
        ex.controls[control].value = value


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_nothing_is_preselected_and_a_new_setting_clears_the_guess(case):
    build, expected = CASES[case]
    ex, control, value = build()
    p = ex.predict
    # buttons, lists, checkboxes: nothing chosen; a number: an empty box
    assert p.guess.value in (None, ()), f"{case} opens with {p.guess.value!r} chosen"
    assert not p.has_guess
    p.reveal()  # no guess yet: nothing is scored, nothing shown
    assert ex.state["predictions"] == {"right": 0, "total": 0}
    assert "No guess for this setting" in ex.readout.value
    assert not any(a.get_visible() for a in p.artists())

    _set_guess(p, expected(ex))
    p.reveal()
    assert ex.state["predictions"] == {"right": 1, "total": 1}
    _new_setting(ex, control, value)
    assert not p.has_guess and not p.shown
    assert p.guess.value in (None, ())  # visibly cleared
    if hasattr(p.guess, "text"):
        assert p.guess.text.value == ""
    p.reveal()  # the old guess is no answer to the new question: nothing scored
    assert ex.state["predictions"] == {"right": 1, "total": 1}
    assert not any(a.get_visible() for a in p.artists())
    assert_same_as_full_redraw(ex, "after a Reveal without a guess")
    # (chapter 07's next question is another kind of question: its own answer, checked
    # from scratch in test_chapter_07_threshold_questions_from_scratch)
    _set_guess(p, expected(ex) if control is not None else p.answer(ex))
    p.reveal()
    p.reveal()
    assert ex.state["predictions"] == {"right": 2, "total": 2}


def test_reveal_after_the_browser_sends_a_dragged_point_back_rounded():
    """Issue 36: a Reveal pressed 1-3 s after a drag scored the guess, showed nothing and
    locked again (the browser's slider sent 0.6499999999999999 back for 0.65, which moved the
    point by 1e-16: a "new" question); pressed again it scored the same guess twice."""
    from kmlteach.widgets.ch01 import make_margin_explorer

    ex = make_margin_explorer(predict=True)
    p, d, ax = ex.predict, ex.drag, ex.fig.axes[0]
    X = ex.state["X"]
    d.handle(d.event(ax, *X[10], "mousedown"))
    d.handle(d.event(ax, 0.65, 0.35, "mousemove"))
    d.handle(d.event(ax, 0.65, 0.35, "mouseup"))
    assert ex.controls["x1"].value == 0.65 and list(ex.state["X"][10]) == [0.65, 0.35]
    p.guess.value = _margin_answer(ex)
    ex.controls["x1"].value = 0.6499999999999999  # the browser's echo, before the Reveal
    p.reveal()
    assert p.shown and "✔ right" in ex.readout.value
    ex.controls["x1"].value = 0.65  # ... or after it
    p.reveal()
    assert p.shown and ex.state["predictions"] == {"right": 1, "total": 1}
    assert all(a.get_visible() for a in p.artists())


def test_a_moved_but_unchanged_answer_is_no_free_point():
    """Issue 36 (chapter 06): a score moved without changing the order kept the old guess,
    and Reveal said "✔ right" for a guess made before the move. Walk report item 14: the
    question is the order the scores give, so such a move keeps the revealed result on
    screen (instead of throwing the guess away and asking the same question again), scores
    nothing more, and a move that changes the order is a new question."""
    from kmlteach.widgets.ch06 import make_ranking_explorer

    ex = make_ranking_explorer(predict=True)
    p = ex.predict
    _set_guess(p, _ranking_answer(ex))
    p.reveal()
    kendall, verdict = ex.state["kendall"], ex.readout.value
    s0 = ex.controls["s0"]
    s0.value = s0.value + 0.01  # the order (and so the answer) stays the same
    assert ex.state["kendall"] == kendall and p.shown and all(a.get_visible() for a in p.artists())
    assert ex.readout.value == verdict and p.guess.disabled and p.reveal_button.disabled
    p.reveal()
    assert ex.state["predictions"] == {"right": 1, "total": 1}
    # before a Reveal, the same: a guess typed for this order still answers it
    s0.value = 0.95  # item A now first: a new order, a new question
    assert not p.shown and not p.has_guess and p.guess.value is None
    _set_guess(p, _ranking_answer(ex))
    s0.value = 0.96  # still first: the same question, the guess stands
    assert p.has_guess
    p.reveal()
    assert ex.state["predictions"] == {"right": 2, "total": 2}
    assert_same_as_full_redraw(ex, "revealed, after moves that kept the order")


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_the_readout_has_a_fixed_height(case):
    """Issue 36: the readout went from three lines to one under a drag and the figure jumped
    ~56 px; a fixed height (in lines of the widgets' inline height) keeps it in place."""
    ex, _control, _value = CASES[case][0]()
    height = ex.readout.layout.height
    assert height and "--jp-widgets-inline-height" in height and ex.readout.layout.overflow == "hidden auto"
    before = height
    ex.predict.guess.value = CASES[case][1](ex)
    ex.predict.reveal()
    assert ex.readout.layout.height == before


def test_the_first_answer_of_each_prediction_is_recorded(monkeypatch, tmp_path):
    """Issue 36 point 6: the first attempt of every prediction goes to the progress log
    (``record_first_attempt("prediction", "NN.p_name", correct)``), and only the first."""
    progress = pytest.importorskip("kmlteach.exercises.progress")
    log = tmp_path / "results.jsonl"
    monkeypatch.setenv("KMLTEACH_RESULTS", str(log))
    ex, control, value = _margin()
    p = ex.predict
    p.guess.value = _wrong(p, _margin_answer(ex))
    p.reveal()
    ex.controls[control].value = value
    p.guess.value = _margin_answer(ex)
    p.reveal()
    got = [e for e in progress.entries(log) if e.get("kind") == "prediction"]
    assert [(e["id"], e["correct"]) for e in got] == [("01.p_support", False)]


def test_every_prediction_has_its_own_progress_id():
    from kmlteach.widgets._catalog import builders

    ids = {}
    for name, build in builders():
        if name.endswith("[predict]"):
            item = build().predict.item_id
            chapter = "00" if name.startswith("welcome") else name[2:4]
            assert item and item.startswith(f"{chapter}.p_"), (name, item)
            assert item not in ids, f"{name} and {ids.get(item)} share {item}"
            ids[item] = name
    assert len(ids) == 10  # chapters 00 to 09


def test_a_choice_set_is_checkboxes_with_a_value():
    from kmlteach.widgets._predict import ChoiceSet

    c = ChoiceSet([1, 2, 3, ("none", "none")], description="which:", exclusive=("none",))
    c.boxes[2].value = True
    c.boxes[0].value = True
    assert c.value == (1, 3)  # a click adds to the selection (nothing to know about Ctrl)
    c.boxes[3].value = True
    assert c.value == ("none",) and not c.boxes[0].value
    c.boxes[1].value = True
    assert c.value == (2,)
    c.value = (1, 2)
    assert [b.value for b in c.boxes] == [True, True, False, False]
    c.set_options([1, 2])
    assert c.value == (1, 2) and len(c.boxes) == 2
    c.disabled = True
    assert all(b.disabled for b in c.boxes)
    with pytest.raises(ValueError, match="unknown"):
        c.value = (7,)


def test_a_choice_set_with_slots_keeps_its_width_and_its_boxes():
    """Chapter 05's guess (one box per letter of the word, then "no change") had fewer boxes
    for a short word: the row it wrapped onto moved the figure 32 px when the word changed
    (the journey's note). With ``slots`` the blanks fill the gap before the exclusive
    options, each as wide as a box, and the checkboxes are reused, not created again."""
    import ipywidgets as W

    from kmlteach.widgets._predict import ChoiceSet

    def layout(c):
        """(kind, width) of each child after the label: what sets the control's width."""
        return [
            ("box" if isinstance(w, W.Checkbox) else "blank", w.layout.width, w.layout.margin)
            for w in c.children[1:]
        ]

    c = ChoiceSet([1, 2, 3, ("no change", "none")], description="at:", exclusive=("none",), slots=5)
    assert layout(c) == [("box", "46px", "0 6px 0 0")] * 3 + [("blank", "46px", "0 6px 0 0")] * 2 + [
        ("box", "auto", "0 6px 0 0")
    ]
    first = list(c.boxes)
    c.value = (2,)
    c.set_options([1, 2, 3, 4, 5, ("no change", "none")])
    assert layout(c) == [("box", "46px", "0 6px 0 0")] * 5 + [("box", "auto", "0 6px 0 0")]
    assert c.value == (2,) and [b.value for b in c.boxes] == [False, True, False, False, False, False]
    assert c.boxes[:4] == first  # reused (new labels): no new widgets for the browser
    assert [b.description for b in c.boxes] == ["1", "2", "3", "4", "5", "no change"]
    c.boxes[-1].value = True
    assert c.value == ("none",)
    c.set_options([1, ("no change", "none")])
    assert len(layout(c)) == 6 and c.value == ("none",) and c.boxes[-1].value
    assert c.children[-1] is c.boxes[-1] and c.boxes[-1].layout.width == "auto"
    c.disabled = True
    assert all(b.disabled for b in c.boxes)
    c.set_options([1, 2, ("no change", "none")])
    assert all(b.disabled for b in c.boxes)  # a box reused while the guess is locked stays so
    # more options than slots: no blank, nothing cut off
    c.set_options(list(range(1, 8)))
    assert [k for k, _w, _m in layout(c)] == ["box"] * 7
    with pytest.raises(ValueError, match="slots"):
        ChoiceSet([1, 2], slots=-1)


def test_the_viterbi_guess_is_as_wide_for_every_word():
    """The guess control of chapter 05 has the same children's widths for every word (the
    longest word's slots), so the rows around it and the figure under it never move."""
    from kmlteach.widgets.ch05 import make_viterbi_trace

    ex = make_viterbi_trace(predict=True)
    guess, word = ex.predict.guess, ex.controls["word"]
    seen, lengths = set(), set()
    for i in range(word.max + 1):
        word.value = i
        lengths.add(len(ex.state["before"]))
        seen.add(tuple((type(w).__name__ == "Checkbox", w.layout.width) for w in guess.children[1:]))
        assert [b.description for b in guess.boxes] == [
            *(str(t) for t in range(1, len(ex.state["before"]) + 1)),
            "no change",
        ]
    assert len(lengths) > 1 and len({tuple(w for _k, w in s) for s in seen}) == 1, seen


def test_chapter_07_offers_a_new_question_after_each_reveal():
    from kmlteach.widgets.ch07 import PR_QUESTIONS, make_pr_explorer

    ex = make_pr_explorer(predict=True)
    p = ex.predict
    asked = []
    for _ in range(len(PR_QUESTIONS)):
        assert p.next_button.disabled  # offered after a Reveal
        asked.append(p._question())
        _set_guess(p, p.answer(ex))
        p.reveal()
        assert "✔ right" in ex.readout.value and not p.next_button.disabled
        p.next_button.click()
        assert not p.shown and not p.has_guess
    assert len(set(asked)) == len(PR_QUESTIONS)
    assert ex.state["predictions"] == {"right": len(PR_QUESTIONS), "total": len(PR_QUESTIONS)}


def test_chapter_07_threshold_questions_from_scratch():
    """Each answer θ checked against a scan of every threshold, written here."""
    from kmlteach.plots.ch07 import example_scores
    from kmlteach.widgets.ch07 import pr_question

    s, t = (np.asarray(v, dtype=float) for v in example_scores())

    def counts(th):
        pred = s >= th
        return np.sum(pred & (t > 0)), np.sum(pred & (t < 0)), np.sum(~pred & (t > 0))

    ths = np.sort(np.unique(s))
    rec = [(th, counts(th)[0] / np.sum(t > 0)) for th in ths]
    prec = [(th, a / (a + b)) for th in ths for a, b, _c in [counts(th)] if a + b]
    _text, th, good = pr_question("recall", 0.8, s, t)
    assert th == max(x for x, r in rec if r >= 0.8) and good(th) and not good(th + 0.5)
    _text, th, good = pr_question("precision", 0.75, s, t)
    assert th == min(x for x, pr in prec if pr >= 0.75) and good(th)
    _text, th, good = pr_question("zero_one", None, s, t)
    errs = [(counts(x)[1] + counts(x)[2]) / len(s) for x in ths]
    assert np.isclose((counts(th)[1] + counts(th)[2]) / len(s), min(errs)) and good(th)


# -- walk report item 1: a guess is always something the student entered -------------------


def test_a_number_guess_starts_empty_and_reads_what_is_typed():
    from kmlteach.widgets._predict import NumberGuess

    g = NumberGuess("guess:", 0, 1)
    assert g.value is None and g.text.value == "" and g.text.placeholder == "0 to 1"
    for typed, value in (("0", 0.0), ("0,25", 0.25), (" 1 ", 1.0), ("", None)):
        g.text.value = typed
        assert g.value == value and g.problem == "", typed
    for typed in ("abc", "2", "-0.1", "nan", "inf"):
        g.text.value = typed
        assert g.value is None and g.problem.startswith(f"“{typed}” is not a number from 0 to 1"), typed
    g.value = 0.5  # set from the kernel: shown in the box
    assert g.text.value == "0.5" and g.problem == ""
    g.value = None
    assert g.text.value == ""
    with pytest.raises(ValueError, match="from 0 to 1"):
        g.value = 3.0
    n = NumberGuess("count:", 0, 30, integer=True)
    assert n.text.placeholder == "0 to 30"
    n.text.value = "12"
    assert n.value == 12 and isinstance(n.value, int)
    n.text.value = "2.5"
    assert n.value is None and "whole number" in n.problem
    p = NumberGuess("%:", 0, 100)
    p.text.value = "85%"
    assert p.value == 85.0
    n.disabled = True
    assert n.text.disabled
    with pytest.raises(ValueError, match="min and max"):
        NumberGuess("x", 1, 1)


def test_a_guess_equal_to_the_old_start_is_entered_and_scored():
    """Walk report item 1 (00 cell-007): after *next question ▶* (angle 300°) the student typed
    0 into "wrong side:" (which already held 0), pressed Enter and Reveal, and read "No guess
    for this setting yet" although the answer was 0: the control's start could not be entered."""
    from kmlteach.datasets import separable
    from kmlteach.widgets.welcome import make_angle_demo

    X, y = separable(m=30, d=2, margin=0.6, seed=0)
    ex = make_angle_demo(X * 2.5, y, predict=True)
    p = ex.predict

    def wrong_side(a):
        w = np.array([np.cos(np.deg2rad(a)), np.sin(np.deg2rad(a))])
        return int(np.sum(y * (X * 2.5 @ w) <= 0))

    ex.controls["angle"].value = float(min(range(0, 360, 15), key=wrong_side))
    assert ex.state["mistakes"] == 0 and p.guess.value is None and p.guess.text.value == ""
    p.guess.text.value = "0"  # typed, then Enter (or a click on Reveal: the box loses the focus)
    assert p.has_guess
    p.reveal()
    assert "✔ right" in ex.readout.value and ex.state["predictions"] == {"right": 1, "total": 1}
    p.next()  # a new question: the box is empty again, and the same text typed again counts
    assert p.guess.text.value == "" and not p.has_guess
    p.guess.text.value = "0"
    assert p.has_guess
    p.reveal()
    assert ex.state["predictions"]["total"] == 2


@pytest.mark.parametrize("case", ["ch02.boundary_explorer", "ch06.ranking_explorer", "ch09.nu_explorer"])
def test_the_old_slider_starts_can_be_guessed(case):
    """02's accuracy slider started at 75, 06's and 09's at 0.50 on every new question: those
    values could only be entered by moving away and back."""
    ex, _control, _value = CASES[case][0]()
    p = ex.predict
    old_start = 75.0 if case.startswith("ch02") else 0.5
    p.guess.text.value = f"{old_start:g}"
    assert p.guess.value == old_start and p.has_guess
    p.reveal()
    assert p.shown and ex.state["predictions"]["total"] == 1
    assert ex.state["prediction"]["guess"] == old_start


def test_an_unreadable_number_is_no_guess_and_the_readout_says_why():
    ex, _control, _value = CASES["ch09.nu_explorer"][0]()
    p = ex.predict
    p.guess.text.value = "half"
    assert "“half” is not a number from 0 to 1: no guess yet." in ex.readout.value
    p.reveal()  # Reveal with the unreadable text still there: the reason stays in view
    assert not p.shown and ex.state["predictions"]["total"] == 0
    assert "“half” is not a number from 0 to 1: no guess yet." in ex.readout.value
    p.guess.text.value = ""
    p.reveal()  # nothing typed: no guess
    assert "No guess for this setting" in ex.readout.value
    p.guess.text.value = "0.4"  # a guess now: the "no guess" line goes at once
    assert "No guess" not in ex.readout.value and "not a number" not in ex.readout.value
    assert "Predict first" in ex.readout.value and "Type a number from 0 to 1" in ex.readout.value
    p.reveal()
    assert p.shown and ex.state["predictions"]["total"] == 1
