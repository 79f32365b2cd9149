"""Progress a student can see (issue 36, point 6): the results log, the first attempts of
concept checks, recap questions and predictions, and ``kmlteach.progress()``."""

from __future__ import annotations

import json

import numpy as np
import pytest

import kmlteach
from kmlteach.exercises import (
    Case,
    Exercise,
    Question,
    _registry,
    ask,
    check,
    progress,
    register,
    register_question,
)
from kmlteach.exercises.progress import record_first_attempt, results_path, summary


@pytest.fixture
def log(tmp_path, monkeypatch):
    path = tmp_path / "results.jsonl"
    monkeypatch.setenv("KMLTEACH_RESULTS", str(path))
    progress._SEEN.clear()
    yield path
    progress._SEEN.clear()


@pytest.fixture
def chapter_95():
    """A chapter of two exercises, two concept checks and two recap questions."""
    made = [
        register(
            Exercise(
                id=f"95.{name}",
                title=name,
                reference=lambda v: np.asarray(v) ** 2,
                cases=[Case((np.arange(3.0),))],
                hint="square it",
            )
        )
        for name in ("one", "two")
    ]
    qs = [
        register_question(
            Question(
                id=qid,
                prompt="Which?",
                choices=("SECRET-CHOICE-X", "SECRET-CHOICE-Y"),
                answer=1,
                explanation="SECRET-EXPLANATION",
                kind=kind,
            )
        )
        for qid, kind in (
            ("95.c_a", "concept"),
            ("95.c_b", "concept"),
            ("95.q1", "recap"),
            ("95.q2", "recap"),
        )
    ]
    yield made, qs
    for x in made:
        _registry._EXERCISES.pop(x.id, None)
    for q in qs:
        _registry._QUESTIONS.pop(q.id, None)


def _lines(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_only_the_first_answer_of_each_question_is_recorded(log, chapter_95, capsys):
    assert not ask("95.c_a", "a")  # wrong first
    assert ask("95.c_a", "b")  # then right: still wrong the first time
    assert ask("95.c_b", "b")  # right first
    assert not ask("95.c_b", "?")  # no answer: nothing recorded (and it was recorded already)
    ask("95.q1", "show")  # the answer shown before answering: not right the first time
    ask("95.q1", "b")
    assert not ask("95.q2", "?")  # a placeholder is no attempt
    first = [(e["kind"], e["id"], e["correct"]) for e in _lines(log)]
    assert first == [("check", "95.c_a", False), ("check", "95.c_b", True), ("recap", "95.q1", False)]
    capsys.readouterr()


def test_a_restarted_kernel_does_not_make_a_new_first_attempt(log, chapter_95, capsys):
    ask("95.c_a", "a")
    progress._SEEN.clear()  # what a new process knows
    ask("95.c_a", "b")
    assert [e["correct"] for e in _lines(log)] == [False]
    capsys.readouterr()


def test_predictions_are_recorded_by_the_widgets_the_same_way(log):
    assert record_first_attempt("prediction", "95.margin_drag", True)
    assert not record_first_attempt("prediction", "95.margin_drag", False)
    assert record_first_attempt("prediction", "95.other", False)
    assert summary(log)["95"]["prediction"] == (1, 2)
    with pytest.raises(ValueError, match="kind"):
        record_first_attempt("exam", "95.x", True)
    with pytest.raises(ValueError, match="item_id"):
        record_first_attempt("check", 95, True)


def test_progress_counts_per_chapter_without_any_answer(log, chapter_95, capsys):
    check("95.one", lambda v: v + v, verbose=False)  # wrong, then right: passed
    check("95.one", lambda v: v * v, verbose=False)
    ask("95.c_a", "b")
    ask("95.q1", "a")
    ask("95.q2", "b")
    record_first_attempt("prediction", "95.p1", True)
    c = summary()["95"]
    assert c == {"exercises": (1, 2), "check": (1, 2), "recap": (1, 2), "prediction": (1, 1)}
    capsys.readouterr()
    kmlteach.progress()
    table = capsys.readouterr().out
    row = next(line for line in table.splitlines() if line.startswith("95 "))
    assert row.split() == ["95", "1/2", "1/2", "1/2", "1/1"]
    assert "exercises passed" in table and "concept checks right" in table and str(log) in table
    kmlteach.progress("95")
    line = " ".join(capsys.readouterr().out.split())
    assert line == (
        "Chapter 95 so far: 1 of 2 exercises passed; 1 of 2 concept checks right the first time; "
        "1 of 2 recap questions right the first time; 1 of 1 predictions right."
    )
    assert "SECRET" not in table + line  # counts only: no choice, no explanation


def test_progress_of_a_chapter_with_nothing_done(log, chapter_95, capsys):
    kmlteach.progress("95")
    assert " ".join(capsys.readouterr().out.split()).startswith("Chapter 95 so far: 0 of 2 exercises passed;")
    kmlteach.progress("42")
    assert "nothing to count yet" in capsys.readouterr().out


def test_recording_off_writes_nothing_and_says_so(tmp_path, monkeypatch, chapter_95, capsys):
    monkeypatch.setenv("KMLTEACH_RESULTS", "")
    assert results_path() is None
    ask("95.c_a", "a")
    assert not record_first_attempt("prediction", "95.p", True)
    kmlteach.progress("95")
    assert "not recorded in this session" in capsys.readouterr().out
    assert not list(tmp_path.iterdir())


def _copy_of_the_course(folder):
    """A folder laid out as a copy of the course: book.toml (with its chapters) beside notebooks/."""
    (folder / "notebooks").mkdir(parents=True)
    (folder / "book.toml").write_text('[book]\ntitle = "t"\n\n[[chapters]]\nid = "00"\n', encoding="utf-8")
    return folder


def test_the_default_file_belongs_to_the_copy_of_the_course(tmp_path, monkeypatch, chapter_95, capsys):
    """(walk report 4) Two copies of the course record apart, whatever the OS user's data
    folder holds: the file is in the copy's own folder, found from the notebook's folder."""
    monkeypatch.delenv("KMLTEACH_RESULTS")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    progress._SEEN.clear()
    a, b = _copy_of_the_course(tmp_path / "a"), _copy_of_the_course(tmp_path / "b")
    monkeypatch.chdir(a / "notebooks")
    assert progress.course_folder() == a
    assert results_path() == a / ".kmlteach" / "results.jsonl"
    assert check("95.one", lambda v: v * v, verbose=False)
    assert record_first_attempt("prediction", "95.first_in_a_new_folder", True)
    assert summary()["95"]["exercises"] == (1, 2)
    monkeypatch.chdir(b / "notebooks")
    assert results_path() == b / ".kmlteach" / "results.jsonl"
    assert summary().get("95", {}).get("exercises") == (0, 2)
    assert record_first_attempt("prediction", "95.first_in_a_new_folder", False)  # b's own first answer
    assert not (tmp_path / "data").exists()
    kmlteach.progress()
    said = " ".join(capsys.readouterr().out.split())
    assert f"Recorded for this copy of the course only, in {b / '.kmlteach' / 'results.jsonl'}" in said
    assert "kmlteach.progress(reset=True)" in said
    progress._SEEN.clear()


def test_outside_a_copy_of_the_course_the_working_folder_keeps_the_file(tmp_path, monkeypatch):
    monkeypatch.delenv("KMLTEACH_RESULTS")
    other = tmp_path / "elsewhere"
    other.mkdir()
    (other / "book.toml").write_text("[book]\ntitle = 'another tool'\n", encoding="utf-8")
    (other / "notebooks").mkdir()  # a book.toml without the course's chapters is not the course's
    monkeypatch.chdir(other / "notebooks")
    assert progress.course_folder() is None
    assert results_path() == other / "notebooks" / ".kmlteach" / "results.jsonl"


def test_reset_starts_afresh_and_keeps_the_old_record(log, chapter_95, capsys):
    assert check("95.one", lambda v: v * v, verbose=False)
    ask("95.c_a", "a")
    capsys.readouterr()
    kmlteach.progress(reset=True)
    said = " ".join(capsys.readouterr().out.split())
    assert said.startswith("Started afresh") and "results-" in said
    kept = [p for p in log.parent.iterdir() if p.name.startswith("results-")]
    assert len(kept) == 1 and '"95.one"' in kept[0].read_text() and not log.exists()
    assert summary().get("95", {}).get("exercises") == (0, 2)
    ask("95.c_a", "b")  # a first answer again, after the reset (the one before was wrong)
    assert summary()["95"]["check"][0] == 1
    log.unlink()
    kmlteach.progress(reset=True)
    assert "Nothing to reset" in capsys.readouterr().out


def test_a_hostile_or_broken_results_file_never_breaks_a_notebook(log, chapter_95, capsys):
    log.write_text(
        'not json\n{"id": 3}\n[1, 2]\n{"kind": "check", "id": "95.c_a", "correct": "yes"}\n'
        '{"kind": "exercise", "id": "95.two", "passed": true}\n\x00\xff\n',
        encoding="utf-8",
    )
    assert summary()["95"]["exercises"] == (1, 2) and summary()["95"]["check"] == (0, 2)
    kmlteach.progress()
    kmlteach.progress("95")
    log.unlink()
    log.mkdir()  # a folder where the file should be: nothing can be written or read
    assert not record_first_attempt("check", "95.c_b", True)
    assert check("95.one", lambda v: v * v, verbose=False)
    kmlteach.progress()
    assert "Traceback" not in capsys.readouterr().out
