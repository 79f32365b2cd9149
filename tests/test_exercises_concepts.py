"""Ask before telling (issue 25, point 2): the concept checks of chapters 01-09.

Each chapter asks at least three concept checks (``[[question]]`` with kind = "concept"
in ``records/chNN.toml``), each in its notebook source before the cell that answers it:
the Markdown above the question (back to the section heading, the question's own
"Predict first" paragraph aside) does not state the right choice, every choice has its
feedback, and a Markdown cell after the question names the id it settles.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kmlteach.exercises import record
from kmlteach.exercises.quiz import LETTERS, questions

ROOT = Path(__file__).resolve().parent.parent
CHAPTERS = [f"{n:02d}" for n in range(1, 10)]


def _cells(path: Path) -> list[tuple[str, str]]:
    """(kind, text) of each cell of a jupytext py:percent source; Markdown without '# '."""
    cells, kind, cur = [], None, []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# %%"):
            if kind:
                cells.append((kind, "\n".join(cur)))
            kind, cur = ("markdown" if "[markdown]" in line else "code"), []
        elif kind == "markdown":
            cur.append(re.sub(r"^# ?", "", line))
        elif kind:
            cur.append(line)
    if kind:
        cells.append((kind, "\n".join(cur)))
    return cells


def _concepts(chapter: str):
    path = record.chapter_files()[chapter]
    ids = [q["id"] for q in record.load_chapter(path)["question"] if q.get("kind") == "concept"]
    by_id = {q.id: q for q in questions(chapter)}
    return [by_id[i] for i in ids]


def _source(chapter: str) -> Path:
    (path,) = sorted((ROOT / "notebooks" / "src").glob(f"{chapter}-*.py"))
    return path


def _without_prompt(text: str) -> str:
    """A Markdown cell without the question itself: from its "Predict first" paragraph (the
    prompt and the listed choices) to the end of the cell."""
    return re.split(r"\*\*Predict first\.?\*\*", text, maxsplit=1)[0]


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_chapter_asks_three_concept_checks_before_telling(chapter):
    qs = _concepts(chapter)
    assert len(qs) >= 3, f"chapter {chapter}: {len(qs)} concept checks"
    cells = _cells(_source(chapter))
    for q in qs:
        asks = [
            i
            for i, (k, t) in enumerate(cells)
            if k == "code" and re.search(rf"""^ask\(\s*["']{re.escape(q.id)}["']\s*,\s*["']\?["']""", t, re.M)
        ]
        assert len(asks) == 1, f"{q.id} is not asked (once) with ask({q.id!r}, '?')"
        at = asks[0]
        # every choice has its feedback, and a wrong choice's feedback does not name the answer
        assert len(q.feedback) == (1 if q.numeric else len(q.choices)), q.id
        assert all(f.strip() for f in q.feedback), q.id
        right = [q.choices[i] for i in q.answers()]  # (none for a numeric question)
        for i, text in enumerate(q.feedback):
            if i not in q.answers():
                assert not any(r.lower() in text.lower() for r in right), (q.id, i)
        # a Markdown cell after the question says which question the revealing cell settles
        later = [t for k, t in cells[at + 1 :] if k == "markdown" and q.id in t]
        assert later, f"no Markdown cell after ask({q.id!r}) names {q.id}"
        assert not any(q.id in t for k, t in cells[:at] if k == "markdown"), q.id
        # the text above the question (back to its section heading) does not give the answer
        start = max(
            [i for i, (k, t) in enumerate(cells[:at]) if k == "markdown" and re.search(r"^#{1,4} ", t, re.M)]
            or [0]
        )
        above = "\n\n".join(_without_prompt(t) for k, t in cells[start:at] if k == "markdown")
        for r in right:
            assert r.lower() not in above.lower(), f"{q.id}: the text above states {r!r}"


def test_the_concept_checks_have_distinct_ids_and_the_recap_is_apart():
    for chapter in CHAPTERS:
        ids = [q.id for q in _concepts(chapter)]
        assert len(ids) == len(set(ids)) and all(re.fullmatch(rf"{chapter}\.c_\w+", i) for i in ids)


def _phrase(text: str) -> str:
    """Lower case, one space between words, no punctuation but the maths signs and digits."""
    return " ".join(re.findall(r"[\w/·²³⁵⁶⁷≈.−+-]+", text.lower())).strip(" .")


def _contains(text: str, phrase: str) -> bool:
    """Whether ``phrase`` occurs in ``text`` as whole words (both normalised by ``_phrase``)."""
    return (
        bool(phrase) and re.search(rf"(?<![\w/]){re.escape(phrase)}(?![\w/²³⁵⁶⁷])", _phrase(text)) is not None
    )


def _leads(choice: str) -> set[str]:
    """A choice whole and its lead (the words before its colon), normalised."""
    return {_phrase(choice), _phrase(choice.split(":", 1)[0])}


def _numbers(text: str) -> set[float]:
    return {float(t) for t in re.findall(r"(?<![\w.])\d+(?:\.\d+)?", text)}


@pytest.mark.parametrize("chapter", ["00", *CHAPTERS])
def test_a_wrong_choice_feedback_does_not_name_the_right_choice(chapter):
    """What a wrong choice's feedback must not do, as far as text can tell: name the right
    choice, either whole or by its lead (the words before its colon, "lower" of "lower: the
    boundary bends ..."), whatever the case, spacing and punctuation; and for a numeric
    question, state the number asked for (unless the prompt itself contains it), in its
    feedback or in the reply to any of its common wrong values. Concept checks and recap
    questions alike (issue 36, point 5)."""
    for q in questions(chapter):
        if q.numeric:
            for text in [*q.feedback, *(t for _, t in q.wrong_values)]:
                assert float(q.answer) not in _numbers(text) - _numbers(q.prompt), (q.id, text)
            continue
        leads = set().union(*(_leads(q.choices[i]) for i in q.answers()))
        for i, text in enumerate(q.feedback):
            if i not in q.answers():
                named = [p for p in leads if _contains(text, p)]
                assert not named, f"{q.id} ({LETTERS[i]}): the feedback names the right choice {named}"


def test_every_wrong_recap_answer_gets_its_own_reply(capsys):
    """Issue 36, point 5: no recap question answers a wrong choice with a bare "not quite":
    each wrong choice has a reply of its own, and a numeric question has a reply for any
    wrong number and names its most common wrong values, each with a reply of its own that
    ask() prints."""
    from kmlteach.exercises import ask

    recap = questions(kind="recap")
    assert len(recap) == 50
    wrong_choices = 0
    for q in recap:
        if q.numeric:
            assert len(q.feedback) == 1 and len(q.feedback[0]) > 40, q.id
            assert len(q.wrong_values) >= 1, q.id
            replies = [q.feedback[0], *(text for _, text in q.wrong_values)]
            for value, text in q.wrong_values:
                assert not q.is_right(value), (q.id, value)
                assert not ask(q.id, value)
                assert " ".join(text.split()) in " ".join(capsys.readouterr().out.split()), (q.id, value)
        else:
            replies = [q.feedback[i] for i in range(len(q.choices)) if i not in q.answers()]
            wrong_choices += len(replies)
        assert all(len(r) > 30 for r in replies), q.id
        assert len(set(replies)) == len(replies), f"{q.id}: two wrong answers share a reply"
    assert wrong_choices == 105


def test_the_feedback_check_catches_what_it_should():
    """The normalisation of the check above, on made-up feedbacks."""
    named = lambda text, choice: any(_contains(text, p) for p in _leads(choice))  # noqa: E731
    assert named("Lower, as the boundary bends.", "lower: the boundary bends")
    assert named("It is 5 · 26² ≈ 3 400 additions", "5 · 26² ≈ 3 400")
    assert not named("It is 5 · 26 additions", "5 · 26² ≈ 3 400")
    assert _contains("the TEST accuracy is  lower", "lower")
    assert not _contains("More flexibility lowers the training error", "lower")
    assert not _contains("A loss of 1/15 would mean", _phrase("2/15"))
    assert _contains("at least 2/15 of the pairs", _phrase("2/15"))
    assert not _contains("all 600 of them", _phrase("all 60"))
    assert _contains("so all 60 are at the bound.", _phrase("all 60"))
    assert 7.0 in _numbers("the kernel is 7 here") and 1.0 not in _numbers("k = 10, x1")


def test_the_recap_headers_example_calls_fit_and_give_no_answer_away():
    """Issue 36: the header of each recap quiz shows a call of the form its question wants
    (a letter for a lettered question, a number for a numeric one), never the answer."""
    import html

    from kmlteach.exercises import quiz_html

    for chapter in ["00", *CHAPTERS]:
        head = html.unescape(quiz_html(chapter).split("</p>", 1)[0])
        calls = re.findall(r'ask\("(\d\d\.q\d)", ("?)([^")]+)"?\)', head)
        assert calls, head
        for qid, quoted, value in calls:
            (q,) = [q for q in questions(chapter) if q.id == qid]
            if q.numeric:
                assert not quoted and not q.is_right(float(value)), (qid, value)
            else:
                assert quoted and LETTERS.index(value) not in q.answers(), (qid, value)
