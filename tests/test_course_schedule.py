"""The guide's schedules are generated (issue 37, point 4): docs/schedule.toml holds what an
instructor decides, the exercise records the rest, and a new exercise lands in both
schedules with no edit of either file."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from kmlteach.course import book as _book
from kmlteach.course import schedule
from kmlteach.course.site_pages import render_guide

ROOT = Path(__file__).resolve().parent.parent
B = _book.load()


def _ids(cell: str) -> list[str]:
    return re.findall(r"`(\d\d\.\w+)`", cell)


def _rows(text: str) -> list[list[str]]:
    return [[c.strip() for c in ln.strip("|").split("|")] for ln in text.splitlines()[2:]]


@pytest.mark.parametrize("n", [13, 10])
def test_each_schedule_places_every_exercise_once(n):
    rows = _rows(schedule.table(B, n))
    assert len(rows) == n and [r[0] for r in rows] == [str(i) for i in range(1, n + 1)]
    placed = [e for r in rows for e in _ids(r[2]) + _ids(r[3])]
    assert sorted(placed) == sorted(B.exercise_ids())


def _book_with(tmp_path, toml: str, extra=()):
    """A book whose records are this course's plus ``extra`` exercise entries."""
    (tmp_path / "docs").mkdir(exist_ok=True)
    (tmp_path / "docs" / "schedule.toml").write_text(toml, encoding="utf-8")
    chapters = []
    for c in B.chapters:
        more = tuple(e for e in extra if e["id"][:2] == c.id)
        chapters.append(dataclasses.replace(c, exercises=c.exercises + more))
    return SimpleNamespace(root=tmp_path, chapters=chapters)


def test_a_new_exercise_needs_no_schedule_edit(tmp_path):
    toml = (ROOT / "docs" / "schedule.toml").read_text(encoding="utf-8")
    new = {"id": "04.new_one", "points": 1, "minutes": 10, "partial": False}
    rows = _rows(schedule.table(_book_with(tmp_path, toml, [new]), 13))
    week = next(r for r in rows if r[1].startswith("04 "))
    assert "04.new_one" in _ids(week[2])  # the lab of chapter 04's (last) lecture: 58 + 10 min
    big = {"id": "04.big_one", "points": 1, "minutes": 30, "partial": False}
    rows = _rows(schedule.table(_book_with(tmp_path, toml, [big]), 13))
    week = next(r for r in rows if r[1].startswith("04 "))
    assert "04.big_one" not in week[2] and week[3].startswith("`04.big_one`; [project]")  # over 75: homework
    rows = _rows(schedule.table(_book_with(tmp_path, toml, [new]), 10))  # the 10-week one too
    assert "04.new_one" in [e for r in rows for e in _ids(r[2]) + _ids(r[3])]


@pytest.mark.parametrize(
    "weeks, message",
    [
        ('lecture = "01 §1"\nlab = ["01.nope"]', r"not an exercise: \['01.nope'\]"),
        ('lecture = "01 §1"\nlab = ["01.dual", "01.dual"]', r"named twice: \['01.dual'\]"),
        ('lecture = "review"', "no lecture covers chapter 00"),
    ],
)
def test_a_schedule_that_cannot_be_right_is_refused(tmp_path, weeks, message):
    toml = f"[[schedule]]\nweeks = 1\n\n[[schedule.week]]\n{weeks}\n"
    with pytest.raises(schedule.ScheduleError, match=message):
        schedule.table(_book_with(tmp_path, toml), 1)
    with pytest.raises(schedule.ScheduleError, match="no schedule of 13 weeks"):
        schedule.table(_book_with(tmp_path, toml), 13)


def test_cells_group_exercise_ids_and_keep_texts_in_order():
    assert schedule._cell([]) == "\u2014"
    assert schedule._cell(["set-up", "00.a", "01.b"]) == "set-up; `00.a`, `01.b`"
    assert schedule._cell(["01.b", "project (45 min)", "02.c"]) == "`01.b`; project (45 min); `02.c`"


def test_the_guide_renders_a_schedule_between_its_markers():
    text = "intro\n\n<!-- kml:schedule 13 -->\n\nstale\n<!-- /kml:schedule -->\n\nafter\n"
    out = render_guide(text, B)
    assert out.startswith("intro\n\n<!-- kml:schedule 13 -->\n\n| Week | Lecture |") and out.endswith(
        "after\n"
    )
    assert "stale" not in out and render_guide(out, B) == out
