"""Concept checks and recap quizzes: ask / quiz / quiz_html / questions, and tiered hints."""

import numpy as np
import pytest

from kmlteach import exercises
from kmlteach.exercises import Question, _registry, ask, questions, quiz, quiz_html, register_question
from kmlteach.exercises.model import LETTERS

_QUESTIONS = _registry._QUESTIONS


@pytest.fixture
def qs():
    made = [
        Question(
            id="98.q1",
            prompt="Two plus two?",
            choices=("3", "4", "5"),
            answer=1,
            explanation="SECRET-EXPLANATION-ONE",
            feedback=("SEVEN-FEEDBACK-A", "SEVEN-FEEDBACK-B", "SEVEN-FEEDBACK-C"),
        ),
        Question(
            id="98.q2",
            prompt="Pick an even number",
            choices=("1", "2", "4"),
            answer=(1, 2),
            explanation="SECRET-EXPLANATION-TWO",
        ),
        Question(
            id="98.q3",
            prompt="Half of one?",
            choices=(),
            answer=0.5,
            tol=1e-3,
            explanation="SECRET-EXPLANATION-THREE",
        ),
        Question(
            id="98.c_guess",
            prompt="Guess",
            choices=("x", "y"),
            answer=0,
            explanation="because x",
            kind="concept",
        ),
    ]
    for q in made:
        register_question(q)
    yield made
    for q in made:
        _QUESTIONS.pop(q.id, None)


def test_letters_indices_and_numbers(qs, capsys):
    assert ask("98.q1", "b")
    assert "right" in capsys.readouterr().out
    assert ask("98.q1", "B")
    capsys.readouterr()
    assert not ask("98.q1", "a")
    out = capsys.readouterr().out
    # ask before telling: a wrong choice names the option and the feedback on it, not the answer
    assert "not quite" in out and "(a) 3" in out and "SEVEN-FEEDBACK-A" in out
    assert "SECRET-EXPLANATION-ONE" not in out and "(b) 4" not in out and "try another" in out.lower()
    assert not ask("98.q1", "c")
    assert "SEVEN-FEEDBACK-C" in capsys.readouterr().out
    assert not ask("98.q1", "show")
    out = capsys.readouterr().out
    assert "(b) 4" in out and "SECRET-EXPLANATION-ONE" in out
    assert ask("98.q2", "b") and ask("98.q2", "c") and not ask("98.q2", "a")
    assert ask("98.q3", 0.5004) and ask("98.q3", "0.5") and ask("98.q3", " 0.5 ")
    assert not ask("98.q3", 0.51)


@pytest.mark.parametrize("number", [0, 1, 2, 1.0, np.int64(1), np.float64(1.0)])
def test_a_number_for_a_letter_question_is_refused_never_taken_as_a_position(
    qs, number, capsys, tmp_path, monkeypatch
):
    """(walk report 2) ask(id, 1) for "(b)" (or for "(a)", counting from 1) is refused with
    the way to answer; nothing is scored or recorded, so the first real answer still counts."""
    log = tmp_path / "results.jsonl"
    monkeypatch.setenv("KMLTEACH_RESULTS", str(log))
    r = ask("98.q1", number)
    out = capsys.readouterr().out
    assert not r and r.status == "no-answer"
    assert "letter" in out and 'ask("98.q1", "a")' in out and "not quite" not in out and "right" not in out
    assert "(b) 4" not in out and "SECRET-EXPLANATION-ONE" not in out
    assert not log.exists()
    assert ask("98.q1", "b")
    assert '"correct": true' in log.read_text()


@pytest.mark.parametrize("bad", ["?", "", None, "z", "ab", 7, -1, 1.5, True, [1], object(), float("nan")])
def test_bad_choices_are_friendly_not_raised(qs, bad, capsys):
    assert not ask("98.q1", bad)
    out = capsys.readouterr().out
    assert out and "Traceback" not in out and "right" not in out.split(".")[0]


def test_default_asks_for_a_prediction(qs, capsys):
    assert not ask("98.c_guess")
    assert "make your prediction first" in capsys.readouterr().out


@pytest.mark.parametrize("bad", ["x", float("inf"), "nan", None, [0.5]])
def test_numeric_bad_input(qs, bad, capsys):
    assert not ask("98.q3", bad)
    assert capsys.readouterr().out


@pytest.mark.parametrize("qid", ["nope", "99.q9", None, 3, ["98.q1"]])
def test_unknown_ids_never_raise(qid, capsys):
    assert not ask(qid, "a")
    assert capsys.readouterr().out


def test_questions_filter_and_order(qs):
    assert [q.id for q in questions("98", kind="recap")] == ["98.q1", "98.q2", "98.q3"]
    assert [q.id for q in questions("98", kind="concept")] == ["98.c_guess"]
    assert len(questions("98")) == 4


def test_quiz_html_lists_questions_without_answers(qs):
    text = quiz_html("98")
    for q in qs[:3]:
        assert q.prompt.split("?")[0] in text and q.id in text
    assert "SECRET-EXPLANATION" not in text and "because x" not in text
    assert "Guess" not in text  # concept checks are not part of the recap
    assert text.count("<li>") >= 6  # the choices are listed
    assert "0.5" not in text  # the numeric answer is not shown
    assert "No recap questions" in quiz_html("97")


def test_quiz_widget_checks_a_chosen_answer(qs):
    box = quiz("98")
    assert len(box.children) == 3
    first = box.children[0]
    _title, radio, buttons, out = first.children
    button, show = buttons.children
    radio.value = "a"
    button.click()
    assert "not quite" in out.value and "SECRET-EXPLANATION-ONE" not in out.value
    show.click()
    assert "SECRET-EXPLANATION-ONE" in out.value
    radio.value = "b"
    button.click()
    assert "right" in out.value and "SECRET-EXPLANATION-ONE" in out.value
    numeric = box.children[2]
    numeric.children[1].value = "0.5"
    numeric.children[2].children[0].click()
    assert "right" in numeric.children[3].value
    radio.value = "a"
    button.click()
    assert "not quite" in out.value


def test_numeric_wrong_answer_gets_its_feedback_not_the_answer(capsys):
    q = register_question(
        Question(
            id="98.q9",
            prompt="Half of one?",
            choices=(),
            answer=0.5,
            explanation="EXPL",
            feedback=("halve it",),
        )
    )
    try:
        assert not ask("98.q9", 2)
        out = capsys.readouterr().out
        assert "halve it" in out and "0.5" not in out and "EXPL" not in out
    finally:
        _QUESTIONS.pop(q.id, None)


def test_register_rejects_invalid_questions():
    with pytest.raises(ValueError, match="answer"):
        register_question(Question(id="97.q1", prompt="p", choices=("a",), answer=3, explanation=""))
    with pytest.raises(ValueError, match="kind"):
        register_question(
            Question(id="97.q2", prompt="p", choices=("a",), answer=0, explanation="", kind="exam")
        )
    with pytest.raises(ValueError, match="numeric"):
        register_question(Question(id="97.q3", prompt="p", choices=(), answer=float("nan"), explanation=""))
    with pytest.raises(ValueError, match="feedback"):
        register_question(
            Question(
                id="97.q4", prompt="p", choices=("a", "b"), answer=0, explanation="", feedback=("only one",)
            )
        )
    assert not questions("97")


def test_every_registered_question_is_valid():
    seen = questions()
    for q in seen:
        assert q.kind in ("concept", "recap")
        assert q.prompt and q.explanation, q.id
        chapter, name = q.id.split(".", 1)
        assert len(chapter) == 2 and chapter.isdigit()
        if q.kind == "recap":
            assert name[0] == "q" and name[1:].isdigit(), q.id
        else:
            assert name.startswith("c_"), q.id
        if q.numeric:
            assert ask(q.id, float(q.answer), verbose=False)
        else:
            assert len(q.choices) <= len(LETTERS)
            for i in q.answers():
                assert 0 <= i < len(q.choices)
                assert ask(q.id, LETTERS[i], verbose=False), q.id
            wrong = [i for i in range(len(q.choices)) if i not in q.answers()]
            assert wrong, f"{q.id} has no wrong choice"
            assert not ask(q.id, wrong[0], verbose=False)


def test_recap_quizzes_have_five_questions_where_present():
    chapters = {q.chapter for q in questions(kind="recap")}
    for c in chapters:
        assert [q.id for q in questions(c, kind="recap")] == [f"{c}.q{i}" for i in range(1, 6)]


def test_tiered_hints(capsys):
    from kmlteach.exercises import Exercise, register

    ex = register(
        Exercise(
            id="98.tiers",
            title="t",
            reference=abs,
            cases=[],
            hint=("first", "second", "code: abs(x)"),
            solution="",
            minutes=3,
        )
    )

    def hint(*args, **kwargs) -> str:
        assert exercises.hint(*args, **kwargs) is None  # printed, not returned (no Out[n])
        return capsys.readouterr().out

    try:
        text = hint("98.tiers")
        assert text.startswith("first") and "hint 1 of 3" in text and 'hint("98.tiers", level=2)' in text
        assert hint("98.tiers", level=2).startswith("second")
        last = hint("98.tiers", level=3)
        assert last.startswith("code: abs(x)") and "level=4" not in last
        assert hint("98.tiers", level="2").startswith("second") and hint("98.tiers", level=2.0).startswith(
            "second"
        )
        # (walk report 12) a level that does not exist is refused with the levels there are
        for bad in (4, 99, 0, -1):
            said = hint("98.tiers", level=bad)
            assert f"98.tiers has no hint level {bad}: its levels are 1, 2 or 3" in said, said
            assert "first" not in said and "code" not in said
        for bad in ("x", 2.5, True, None, [2]):
            said = hint("98.tiers", level=bad)
            assert said.startswith("the level of a hint is a whole number (1, 2 or 3)"), said
            assert "second" not in said
        assert "unknown" in hint("nope", level=2)
        assert "unknown" in hint(None)
        assert ex.minutes == 3 and ex.hints == ("first", "second", "code: abs(x)")
    finally:
        _registry._EXERCISES.pop("98.tiers", None)


def test_notebooks_ask_registered_questions_and_show_their_quiz():
    import re
    from pathlib import Path

    src = Path(__file__).resolve().parent.parent / "notebooks" / "src"
    known = {q.id for q in questions()}
    for path in sorted(src.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        asked = set(re.findall(r'ask\("(\d\d\.[a-z0-9_]+)"', text))
        assert asked <= known, f"{path.name} asks unregistered questions {sorted(asked - known)}"
        for chapter in re.findall(r'^quiz\("(\d\d)"\)', text, flags=re.M):
            # a chapter that shows its quiz asks every one of its concept checks, shows the
            # static list first, in a cell of its own, and its widget cell is nbval-ignored
            concept = {q.id for q in questions(chapter, kind="concept")}
            assert concept <= asked, f"{path.name} never asks {sorted(concept - asked)}"
            assert f'display(HTML(quiz_html("{chapter}")))' in text
            assert f'# NBVAL_IGNORE_OUTPUT\nquiz("{chapter}")' in text
            assert len(questions(chapter, kind="recap")) == 5


def test_a_numeric_question_names_its_common_wrong_values(capsys):
    q = register_question(
        Question(
            id="98.q8",
            prompt="The margin of the sample?",
            choices=(),
            answer=0.5,
            tol=1e-3,
            explanation="EXPL",
            feedback=("GENERIC",),
            wrong_values=((1.0, "YOU-FORGOT-THE-HALF"), (0.25, "YOU-SQUARED-IT")),
        )
    )
    try:
        ask("98.q8", 1.0004)
        out = capsys.readouterr().out
        assert "YOU-FORGOT-THE-HALF" in out and "GENERIC" not in out and "EXPL" not in out
        ask("98.q8", 0.25)
        assert "YOU-SQUARED-IT" in capsys.readouterr().out
        ask("98.q8", 7)
        assert "GENERIC" in capsys.readouterr().out
    finally:
        _QUESTIONS.pop(q.id, None)
    for bad, match in (
        (dict(choices=("a", "b"), answer=0, wrong_values=((1.0, "x"),)), "numeric"),
        (dict(choices=(), answer=0.5, wrong_values=((0.5, "x"),)), "within tol"),
        (dict(choices=(), answer=0.5, wrong_values=((float("nan"), "x"),)), "pairs"),
    ):
        with pytest.raises(ValueError, match=match):
            Question(id="97.q9", prompt="p", explanation="", **bad)


def test_wrong_values_come_from_the_record():
    from kmlteach.exercises._registry import build_question

    rec = {"id": "97.q1", "prompt": "p", "answer": 2.0, "explanation": "e", "feedback": ["f"]}
    q = build_question({**rec, "wrong_values": [{"value": 4.0, "feedback": "doubled"}]})
    assert q.wrong_values == ((4.0, "doubled"),) and q.feedback_for(4.0) == "doubled"
    with pytest.raises(ValueError, match="wrong_values"):
        build_question({**rec, "wrong_values": [{"value": 4.0}]})


def test_the_recap_header_shows_a_call_of_the_form_each_question_wants(qs):
    text = quiz_html("98")
    assert 'ask("98.q1", "a")' in text.replace("&quot;", '"')
    assert 'ask("98.q3", 2)' in text.replace("&quot;", '"')  # numeric; 0.5 would be its answer
    assert 'ask("98.q3", "a")' not in text.replace("&quot;", '"')


def test_ask_returns_a_result_jupyter_does_not_show(qs, capsys):
    from IPython.core.formatters import DisplayFormatter

    right, wrong = ask("98.q1", "b"), ask("98.q1", "a")
    assert right.ok and right.status == "right" and not wrong.ok and wrong.status == "wrong"
    assert DisplayFormatter().format(right) == ({}, {})
    capsys.readouterr()
