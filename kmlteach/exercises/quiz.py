"""Concept checks and recap quizzes: ``ask``, ``quiz``, ``quiz_html``, ``questions``.

A :class:`Question` is registered once, beside the chapter's exercises in
``kmlteach/exercises/chNN.py``. Ids are ``"NN.c_name"`` for a concept check (asked
right before the cell that reveals the answer: predict, then look) and ``"NN.q1"`` ..
``"NN.q5"`` for the recap quiz at the end of a chapter.

Ask before telling: ``ask(id, choice)`` returns a bool and prints

* for a right choice, "right" and the explanation;
* for a wrong one, what is wrong with *that* option (the question's ``feedback`` for
  it, written so that it does not give the answer away) and an invitation to try again
  — neither the answer nor the explanation;
* for ``ask(id, "show")``, the answer and the explanation (on request, after trying).

Like ``check`` it never raises, so a notebook with unanswered questions runs from top
to bottom.
"""

from __future__ import annotations

import contextlib
import html
import io
import math
from dataclasses import dataclass
from typing import Any

from .core import _load_all

__all__ = [
    "Question",
    "register_question",
    "ask",
    "quiz",
    "quiz_html",
    "question_html",
    "questions",
    "LETTERS",
    "SHOW",
]

LETTERS = "abcdefghij"


@dataclass(frozen=True)
class Question:
    """A multiple-choice or numeric question.

    ``answer`` is an index into ``choices`` (or a tuple of indices, any of which is
    accepted); for a numeric question ``choices`` is empty, ``answer`` is a float and a
    reply within ``tol`` (absolute, or relative to ``|answer|`` if larger) is right.
    ``kind`` is ``"concept"`` (predict-then-reveal) or ``"recap"`` (end-of-chapter quiz).
    ``feedback`` is empty or one text per choice: what a student who picks that choice
    has probably thought, and why it does not hold (shown for a wrong choice; it must
    not name the right one). ``feedback`` of a numeric question is one text shown for
    any wrong number.
    """

    id: str
    prompt: str
    choices: tuple[str, ...]
    answer: int | tuple[int, ...] | float
    explanation: str
    kind: str = "recap"
    tol: float = 1e-6
    feedback: tuple[str, ...] = ()

    def feedback_for(self, reply: Any) -> str:
        """The feedback for a (wrong) parsed reply, or ``""``."""
        if not self.feedback:
            return ""
        if self.numeric:
            return self.feedback[0]
        return self.feedback[int(reply)]

    @property
    def chapter(self) -> str:
        return self.id.split(".", 1)[0]

    @property
    def numeric(self) -> bool:
        return len(self.choices) == 0

    def answers(self) -> tuple[int, ...]:
        """The accepted choice indices (empty for a numeric question)."""
        if self.numeric:
            return ()
        return tuple(self.answer) if isinstance(self.answer, tuple) else (int(self.answer),)

    def is_right(self, reply: Any) -> bool:
        """Whether a parsed reply (an index, or a number) is right."""
        if self.numeric:
            a = float(self.answer)
            return abs(float(reply) - a) <= self.tol * max(1.0, abs(a))
        return int(reply) in self.answers()


_QUESTIONS: dict[str, Question] = {}


def register_question(q: Question) -> Question:
    """Add a question to the registry (ids unique; answers must be valid indices)."""
    if q.id in _QUESTIONS and _QUESTIONS[q.id] is not q:
        raise ValueError(f"question id {q.id!r} is registered twice")
    if q.kind not in ("concept", "recap"):
        raise ValueError(f"question {q.id!r}: kind must be 'concept' or 'recap', got {q.kind!r}")
    if not isinstance(q.feedback, tuple) or not all(isinstance(f, str) for f in q.feedback):
        raise ValueError(f"question {q.id!r}: feedback must be a tuple of strings")
    if q.feedback and len(q.feedback) != (1 if q.numeric else len(q.choices)):
        raise ValueError(
            f"question {q.id!r}: feedback needs one text per choice "
            f"(one for a numeric question), got {len(q.feedback)}"
        )
    if q.numeric:
        if isinstance(q.answer, tuple) or not math.isfinite(float(q.answer)):
            raise ValueError(f"question {q.id!r}: a numeric answer must be one finite number")
    else:
        if len(q.choices) > len(LETTERS):
            raise ValueError(f"question {q.id!r}: at most {len(LETTERS)} choices")
        idx = q.answer if isinstance(q.answer, tuple) else (q.answer,)
        if not idx or any(
            not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < len(q.choices) for i in idx
        ):
            raise ValueError(f"question {q.id!r}: answer must index choices, got {q.answer!r}")
    _QUESTIONS[q.id] = q
    return q


def questions(chapter: str | None = None, kind: str | None = None) -> list[Question]:
    """Registered questions, optionally of one chapter ("01") and/or one kind, in id order.

    Recap questions sort by their number (q1, q2, ... q10).
    """
    _load_all()
    out = [
        q
        for q in _QUESTIONS.values()
        if (chapter is None or q.chapter == str(chapter)) and (kind is None or q.kind == kind)
    ]
    return sorted(out, key=_sort_key)


def _sort_key(q: Question):
    tail = q.id.split(".", 1)[-1]
    num = int(tail[1:]) if tail[:1] == "q" and tail[1:].isdigit() else -1
    return (q.chapter, q.kind != "concept", num, q.id)


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
    if isinstance(choice, bool):
        return None, f"answer with one of {valid}"
    try:
        i = int(choice)
        if i != choice:
            raise ValueError
    except (TypeError, ValueError, OverflowError):
        return None, f"answer with one of {valid}, got {choice!r}"
    if not 0 <= i < n:
        return None, f"answer with one of {valid} (or an index 0..{n - 1}), got {choice!r}"
    return i, None


def _right_text(q: Question) -> str:
    if q.numeric:
        return f"{float(q.answer):.6g}"
    return ", ".join(f"({LETTERS[i]}) {q.choices[i]}" for i in q.answers())


SHOW = ("show", "show answer", "reveal")


def ask(question_id: str, choice: Any = "?", *, verbose: bool = True) -> bool:
    """Answer a question; never raises.

    ``choice`` is a letter ``"a"``.., an index 0.., or a number for numeric questions.
    A right choice prints "right" and the explanation; a wrong one prints the feedback
    on that option and lets you try again, without the answer; ``"show"`` prints the
    answer and the explanation. The default ``"?"`` only asks for a prediction.
    """
    try:
        return _ask(question_id, choice, verbose)
    except Exception as exc:  # a quiz must never break a notebook
        if verbose:
            print(f"⚠ {question_id!r}: internal error in the quiz: {type(exc).__name__}: {exc}")
        return False


def _ask(question_id: Any, choice: Any, verbose: bool) -> bool:
    _load_all()
    q = _QUESTIONS.get(question_id) if isinstance(question_id, str) else None
    if q is None:
        if verbose:
            print(f"unknown question id {question_id!r}")
        return False
    if isinstance(choice, str) and choice.strip().lower() in SHOW:
        if verbose:
            print(f"→ {q.id}: the answer is {_right_text(q)}. {q.explanation}")
        return False
    reply, problem = _parse(q, choice)
    if problem is not None:
        if verbose:
            print(f"… {q.id}: {problem}")
        return False
    ok = q.is_right(reply)
    if verbose:
        if ok:
            print(f"✓ {q.id}: right. {q.explanation}")
        else:
            picked = f"{reply:.6g}" if q.numeric else f"({LETTERS[reply]}) {q.choices[reply]}"
            why = q.feedback_for(reply)
            print(
                f"✗ {q.id}: {picked} — not quite. "
                + (f"{why} " if why else "")
                + f'Try another answer, or ask("{q.id}", "show") for the answer.'
            )
    return ok


def _choices_html(q: Question, attrs: str = 'type="a"') -> str:
    """The options of ``q`` as a lettered list (or the request for a number); no answer."""
    if q.numeric:
        return "<p><i>Answer with a number.</i></p>"
    return f"<ol {attrs}>" + "".join(f"<li>{html.escape(c)}</li>" for c in q.choices) + "</ol>"


def quiz_html(chapter: str) -> str:
    """The recap questions of ``chapter`` as static HTML, WITHOUT answers or explanations."""
    qs = questions(chapter, kind="recap")
    if not qs:
        return f"<p>No recap questions for chapter {html.escape(str(chapter))}.</p>"
    parts = [
        f'<div class="kml-quiz"><p><b>Recap quiz, chapter {html.escape(str(chapter))}</b> '
        f'(answer with <code>ask("{html.escape(qs[0].id)}", "a")</code> etc.)</p><ol>'
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
    _load_all()
    q = _QUESTIONS.get(question_id) if isinstance(question_id, str) else None
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
