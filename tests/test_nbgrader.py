"""nbgrader interoperability: chapter 07 exported as an nbgrader course, released by
`nbgrader generate_assignment` and scored by `nbgrader autograde` — an all-correct
submission gets every point of book.toml, the released (empty) one gets none.

Chapter 07: the export is the same for every chapter, and its notebook runs in ~6 s
(01's in ~14 s; autograde runs it once per submission)."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kmlteach.course import book

ROOT = Path(__file__).resolve().parent.parent
CHAPTER = book.load().chapter("07")
NB = Path(CHAPTER.notebook).name


def nbgrader(course: Path, *args):
    env = dict(os.environ)
    bindir = str(Path(sys.executable).parent)  # nbgrader shells out to alembic
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env["KMLTEACH_RESULTS"] = ""  # no results log (kmlteach.exercises.progress)
    assert shutil.which("nbgrader", path=env["PATH"]), "nbgrader is in the test extra"
    r = subprocess.run(
        [os.path.join(bindir, "nbgrader"), *args],
        cwd=course,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    return r


def solution_cells(nb):
    return {
        c["metadata"]["nbgrader"]["grade_id"]: c
        for c in nb["cells"]
        if c.get("metadata", {}).get("nbgrader", {}).get("solution")
    }


@pytest.mark.slow
def test_nbgrader_generate_assignment_and_autograde_chapter_07(tmp_path):
    course = tmp_path / "course"
    r = subprocess.run(
        [sys.executable, "-m", "kmlteach", "nbgrader-export", "07", "--course", str(course)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    source = json.loads((course / "source" / "ch07" / NB).read_text())
    tests = [c for c in source["cells"] if c["metadata"].get("nbgrader", {}).get("grade")]
    assert {c["metadata"]["nbgrader"]["grade_id"]: c["metadata"]["nbgrader"]["points"] for c in tests} == {
        "ex" + e["id"].replace(".", "_") + "_test": e["points"] for e in CHAPTER.exercises
    }
    assert "widgets" not in source["metadata"]

    nbgrader(course, "generate_assignment", "ch07", "--force")
    released = json.loads((course / "release" / "ch07" / NB).read_text())
    text = json.dumps(released)
    assert "### BEGIN SOLUTION" not in text and "NotImplementedError" in text

    correct = json.loads(json.dumps(released))
    answers = solution_cells(source)
    for gid, cell in solution_cells(correct).items():
        cell["source"] = answers[gid]["source"]
    for student, nb in (("alice", correct), ("bob", released)):
        folder = course / "submitted" / student / "ch07"
        folder.mkdir(parents=True)
        (folder / NB).write_text(json.dumps(nb))
    nbgrader(course, "autograde", "ch07", "--create")

    from nbgrader.api import Gradebook

    full = sum(e["points"] for e in CHAPTER.exercises)
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        alice = gb.find_submission("ch07", "alice")
        bob = gb.find_submission("ch07", "bob")
        assert (alice.score, alice.max_score) == (full, full) == (9, 9)  # the records: 1+2+2+2+2
        assert (bob.score, bob.max_score) == (0, full)
        per = {g.name: g.score for g in alice.notebooks[0].grades}
        assert per == {"ex" + e["id"].replace(".", "_") + "_test": e["points"] for e in CHAPTER.exercises}


def test_export_refuses_unknown_and_planned_chapters(tmp_path):
    for cid, msg in (("42", "unknown chapter"), ("10", "unknown chapter")):
        r = subprocess.run(
            [sys.executable, "-m", "kmlteach", "nbgrader-export", cid, "--course", str(tmp_path)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert r.returncode == 1 and msg in r.stderr and "Traceback" not in r.stderr
