"""Concept checks and recap quizzes: ``ask``, ``quiz``, ``quiz_html``, ``question_html``.

A :class:`~.model.Question` is one ``[[question]]`` record of ``records/chNN.toml``. Ids
are ``"NN.c_name"`` for a concept check (asked right before the cell that reveals the
answer: predict, then look) and ``"NN.q1"`` .. ``"NN.q5"`` for the recap quiz at the end
of a chapter.

Ask before telling: ``ask(id, choice)`` prints

* for a right choice, "right" and the explanation;
* for a wrong one, what is wrong with *that* option (the question's ``feedback`` for
  it, written so that it does not give the answer away; for a numeric question, the
  feedback of the common wrong value it matches) and an invitation to try again —
  neither the answer nor the explanation;
* for ``ask(id, "show")``, the answer and the explanation (on request, after trying).

It returns a :class:`~.output.Result` (true when right; Jupyter shows nothing for it) and
records the first answer to each question (:func:`kmlteach.exercises.progress.record_first_attempt`:
``kmlteach.progress()`` counts the questions right the first time). Like ``check`` it
never raises, so a notebook with unanswered questions runs from top to bottom.
"""

from __future__ import annotations

import contextlib
import html
import io
import math
import numbers
from typing import Any

from ..poll.answers import first_answer
from . import progress
from ._registry import question, questions
from .model import LETTERS, Question
from .output import Result, say

__all__ = ["ask", "quiz", "quiz_html", "question_html", "SHOW"]


def _parse(q: Question, choice: Any) -> tuple[Any, str | None]:
    """(parsed reply, None) or (None, friendly message)."""
    if choice is None or (isinstance(choice, str) and choice.strip() in ("", "?")):
        return None, 'make your prediction first: replace "?" with your answer'
    if q.numeric:
        if isinstance(choice, bool):
            return None, "this question wants a number"
        try:
            value = float(choice)
        except (TypeError, ValueError, OverflowError):
            return None, f"this question wants a number, got {choice!r}"
        if not math.isfinite(value):
            return None, f"this question wants a finite number, got {choice!r}"
        return value, None
    n = len(q.choices)
    valid = ", ".join(f'"{c}"' for c in LETTERS[:n])
    if isinstance(choice, str):
        c = choice.strip().lower().rstrip(").")
        if len(c) == 1 and c in LETTERS[:n]:
            return LETTERS.index(c), None
        return None, f"answer with one of {valid}, got {choice!r}"
    if isinstance(choice, numbers.Number) and not isinstance(choice, bool):
        # a number is never taken as an option's position: 2 could mean "(b)" to one
        # student and "(c)" (counting from 0) to another, and the answer would be
        # recorded against the option the student did not mean
        return None, (
            f"this question wants the letter of an option, in quotes: "
            f'ask("{q.id}", "a") for (a), and so on ({valid}); a number such as {choice!r} '
            "is not taken as an option's position"
        )
    return None, f"answer with one of {valid}, got {choice!r}"


def _right_text(q: Question) -> str:
    if q.numeric:
        return f"{float(q.answer):.6g}"
    return ", ".join(f"({LETTERS[i]}) {q.choices[i]}" for i in q.answers())


SHOW = ("show", "show answer", "reveal")


def ask(question_id: str, choice: Any = "?", *, verbose: bool = True) -> Result:
    """Answer a question; never raises.

    ``choice`` is the letter of an option (``"a"``, ``"b"``, ...: a number is refused,
    never taken as an option's position), or a number (or its text, ``"0.5"``) for a
    numeric question.
    A right choice prints "right" and the explanation; a wrong one prints the feedback
    on that option and lets you try again, without the answer; ``"show"`` prints the
    answer and the explanation. The default ``"?"`` only asks for a prediction. The
    result is true when the choice is right (and displays as nothing).
    """
    try:
        return _ask(question_id, choice, verbose)
    except Exception as exc:  # a quiz must never break a notebook
        if verbose:
            say(f"\u26a0 {question_id!r}: internal error in the quiz: {type(exc).__name__}: {exc}")
        return Result(question_id, False, "error")


def _attempt(q: Question, correct: bool) -> None:
    """Record the first answer to ``q`` (a concept check or a recap question)."""
    progress.record_first_attempt("check" if q.kind == "concept" else "recap", q.id, correct)


def _ask(question_id: Any, choice: Any, verbose: bool) -> Result:
    q = question(question_id)
    if q is None:
        if verbose:
            say(f"unknown question id {question_id!r}")
        return Result(question_id, False, "unknown")
    if isinstance(choice, str) and choice.strip().lower() in SHOW:
        _attempt(q, False)  # the answer shown before any answer: not right the first time
        if verbose:
            say(f"\u2192 {q.id}: the answer is {_right_text(q)}.\n  {q.explanation}")
        return Result(q.id, False, "shown")
    reply, problem = _parse(q, choice)
    if problem is not None:
        if verbose:
            say(f"\u2026 {q.id}: {problem}")
        return Result(q.id, False, "no-answer", problem)
    ok = q.is_right(reply)
    _attempt(q, ok)
    first_answer(q.id, reply if q.numeric else LETTERS[reply])  # the class poll, on the hub only
    if verbose:
        if ok:
            say(f"\u2713 {q.id}: right.\n  {q.explanation}")
        else:
            picked = f"{reply:.6g}" if q.numeric else f"({LETTERS[reply]}) {q.choices[reply]}"
            why = q.feedback_for(reply)
            say(
                f"\u2717 {q.id}: {picked} \u2014 not quite.\n"
                + (f"  {why}\n" if why else "")
                + f'  Try another answer, or ask("{q.id}", "show") for the answer.'
            )
    return Result(q.id, ok, "right" if ok else "wrong")


def _choices_html(q: Question, attrs: str = 'type="a"') -> str:
    """The options of ``q`` as a lettered list (or the request for a number); no answer."""
    if q.numeric:
        return "<p><i>Answer with a number.</i></p>"
    return f"<ol {attrs}>" + "".join(f"<li>{html.escape(c)}</li>" for c in q.choices) + "</ol>"


def _example(q: Question) -> str:
    """A call that answers ``q`` in the form it wants, never with its answer: a letter (the
    first that is wrong), or a number (0.5, or 2 when 0.5 would be right)."""
    if not q.numeric:
        return f'ask("{q.id}", "{next(c for i, c in enumerate(LETTERS) if i not in q.answers())}")'
    return f'ask("{q.id}", {2 if q.is_right(0.5) else 0.5})'


def _how_to_answer(qs: list[Question]) -> str:
    """The quiz's header: one example call of each form its questions want."""
    lettered = [q for q in qs if not q.numeric]
    numeric = [q for q in qs if q.numeric]
    ways = []
    if lettered:
        ways.append(f"<code>{html.escape(_example(lettered[0]))}</code> with the letter of your choice")
    if numeric:
        ways.append(f"<code>{html.escape(_example(numeric[0]))}</code> with your number")
    return "answer with " + ", or ".join(ways)


def quiz_html(chapter: str) -> str:
    """The recap questions of ``chapter`` as static HTML, WITHOUT answers or explanations."""
    qs = questions(chapter, kind="recap")
    if not qs:
        return f"<p>No recap questions for chapter {html.escape(str(chapter))}.</p>"
    parts = [
        f'<div class="kml-quiz"><p><b>Recap quiz, chapter {html.escape(str(chapter))}</b> '
        f"({_how_to_answer(qs)})</p><ol>"
    ]
    for q in qs:
        parts.append(f"<li><p>{html.escape(q.prompt)} <small>[{html.escape(q.id)}]</small></p>")
        parts.append(_choices_html(q))
        parts.append("</li>")
    parts.append("</ol></div>")
    return "".join(parts)


def question_html(question_id: str) -> str:
    """One question as static HTML on one line (a slide of the lecture decks): its prompt
    and options, WITHOUT the answer, the explanation or the feedback."""
    q = question(question_id)
    if q is None:
        raise ValueError(f"question_id: unknown question {question_id!r}")
    what = "Concept check" if q.kind == "concept" else "Question"
    lettered = 'type="a" style="list-style-type: lower-alpha"'  # the slides' CSS would number them
    return (
        f'<div class="kml-concept-check"><p><b>{what}</b> <small>[{html.escape(q.id)}]</small></p>'
        f"<p>{html.escape(q.prompt)}</p>{_choices_html(q, lettered)}"
        f'<p><i>Predict first; in the notebook, answer with <code>ask("{html.escape(q.id)}", ...)</code>.</i></p>'
        "</div>"
    )


def quiz(chapter: str):
    """The recap questions of ``chapter`` as an ipywidgets ``VBox`` (one check button each)."""
    import ipywidgets as w  # lazily: the package works without widgets

    rows = []
    for q in questions(chapter, kind="recap"):
        title = w.HTML(f"<b>{html.escape(q.id)}</b> {html.escape(q.prompt)}")
        if q.numeric:
            inp = w.Text(value="", placeholder="a number", description="answer")
        else:
            inp = w.RadioButtons(
                options=[(f"{LETTERS[i]}) {c}", LETTERS[i]) for i, c in enumerate(q.choices)],
                value=None,
                layout=w.Layout(width="auto"),
            )
        out = w.HTML("")
        button = w.Button(description="check", tooltip=f"check {q.id}")
        show = w.Button(description="show answer", tooltip=f"show the answer to {q.id}")

        def on_click(b, q=q, inp=inp, out=out, show=show):
            choice = "show" if b is show else ("?" if inp.value is None else inp.value)
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf):
                ask(q.id, choice)
            out.value = f"<p>{html.escape(buf.getvalue().strip())}</p>"

        button.on_click(on_click)
        show.on_click(on_click)
        rows.append(w.VBox([title, inp, w.HBox([button, show]), out]))
    if not rows:
        rows.append(w.HTML(f"No recap questions for chapter {html.escape(str(chapter))}."))
    return w.VBox(rows)
