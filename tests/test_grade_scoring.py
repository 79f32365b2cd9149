"""What the kernel sends never reaches a text unchecked (red-team findings of issue 24):
forged names of guarded functions, a chosen time, invalid JSON, a FIFO or huge file among
the submissions."""

import os

import pytest

from kmlteach.course.grade.codec import ResultError, loads_limited
from kmlteach.course.grade.plan import chapter_plan
from kmlteach.course.grade.scoring import score_exercise
from kmlteach.course.grade.submission import MAX_NOTEBOOK_BYTES, read_regular


@pytest.fixture(scope="module")
def plan():
    return chapter_plan("01")


def _exercise(plan, ex_id="01.perceptron"):
    return next(e for e in plan.exercises if e.id == ex_id)


def test_forged_called_names_are_dropped_and_real_ones_kept(plan):
    ex = _exercise(plan)
    guards = tuple(plan.guards)
    assert guards, "chapter 01 guards its library functions"
    secret = "x_2_0000_1_0000 ## Grade: 13/13 [evil](https://example.invalid)"
    r = score_exercise(ex, {"cases": [], "called": [secret, "kmlteach.svm.x_2_0"], "elapsed": 0.5}, guards)
    assert r.verdict != "reference" and "x_2_0" not in r.message and "Grade" not in r.message
    real = guards[0]
    r = score_exercise(ex, {"cases": [], "called": [real], "elapsed": 0.5}, guards)
    assert r.verdict == "reference" and real in r.message


def test_the_time_shown_is_the_graders_not_the_kernels(plan):
    ex = _exercise(plan)
    reply = {"cases": [{"time": 2_000_000.0, "error": "NotImplementedError"}], "called": [], "elapsed": 0.25}
    r = score_exercise(ex, reply, tuple(plan.guards))
    assert r.time == 0.25


@pytest.mark.parametrize("text", ["{not json", "[" * 100_000, 42])
def test_an_unreadable_reply_raises_result_error_without_its_text(text):
    with pytest.raises(ResultError) as err:
        loads_limited(text)
    assert "not json" not in str(err.value) and len(str(err.value)) < 40


def test_only_regular_files_of_notebook_size_are_read(tmp_path):
    ok = tmp_path / "a.ipynb"
    ok.write_bytes(b"{}")
    assert read_regular(ok) == b"{}"
    fifo = tmp_path / "evil.ipynb"
    os.mkfifo(fifo)
    assert read_regular(fifo) is None  # returns at once: never blocks on the pipe
    big = tmp_path / "big.ipynb"
    with open(big, "wb") as fh:  # sparse: huge size, no data written
        fh.truncate(MAX_NOTEBOOK_BYTES + 1)
    assert read_regular(big) is None
    link = tmp_path / "link.ipynb"
    link.symlink_to(ok)
    assert read_regular(link) is None


def test_gradebook_cells_that_begin_like_a_formula_are_text():
    """Red team 3: a notebook named ``=HYPERLINK(...).ipynb`` (or ``+``, ``-``, ``@``, a tab,
    a CR; also a folder name) must not become a formula when the CSV is opened."""
    import csv
    import io

    from kmlteach.course.grade.gradebook import gradebook_csv
    from kmlteach.course.grade.scoring import SubmissionResult

    names = ['=HYPERLINK("http:evil","click")', "@SUM(1+1)", "+1+2", "-3+cmd|' -c calc'!A0", "\tx", "ok"]
    rows = list(
        csv.reader(io.StringIO(gradebook_csv([SubmissionResult(n, chapter="01") for n in names], [])))
    )[1:]
    cells = [c for row in rows for c in row]
    assert not [c for c in cells if c[:1] in ("=", "+", "-", "@", "\t", "\r")], cells
    assert sorted(row[0] for row in rows) == sorted(("'" + n if n != "ok" else n) for n in names)


def test_out_and_feedback_must_be_outside_the_submissions_folder(tmp_path):
    """Red team 3: the resume state (OUT.state.json) decides what needs no grading; a file a
    student slipped into the submissions folder must never be read as it."""
    from kmlteach.course.grade.runner import GradeError, grade_folder

    subs = tmp_path / "subs"
    subs.mkdir()
    for kw in ({"out": subs / "gradebook.csv"}, {"out": tmp_path / "g.csv", "feedback": subs / "fb"}):
        out = kw.pop("out")
        with pytest.raises(GradeError, match="outside the submissions folder"):
            grade_folder(subs, out, progress=None, **kw)
