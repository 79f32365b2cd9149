"""The schedules of the instructor's guide, as tables written from ``docs/schedule.toml``.

``docs/schedule.toml`` lists, week by week, what an instructor decides: the lecture, what
the lab and the homework hold (text such as the midterm or a project milestone, and the
exercise ids placed by hand), the assignment. Everything else comes from the exercise
records: an exercise that no week names is placed by :func:`weeks`, in the lab of the last
week whose lecture covers its chapter, or in that week's homework when the lab would pass
:data:`SLOT` minutes. So a new exercise appears in both schedules with no edit here, and an
exercise that is removed cannot linger in them (a week naming an unknown id is an error).

:func:`table` renders one schedule as the guide's Markdown table; ``python -m kmlteach
docs`` writes it between the guide's ``<!-- kml:schedule N -->`` markers
(:func:`kmlteach.course.site_pages.render_guide`), and ``tests/test_docs.py`` fails when
the guide's copy is stale.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["SLOT", "Week", "load", "weeks", "table", "ScheduleError"]

SLOT = 75
"""Minutes of one meeting: a lab holds at most this many minutes of work."""

_ID = re.compile(r"^\d\d\.\w+$")
_MINUTES = re.compile(r"\((\d+) min\)")
_LECTURED = re.compile(r"\b(\d\d) ")  # "01 §4–8", "00 · Welcome": the chapters a lecture covers


class ScheduleError(ValueError):
    """``docs/schedule.toml`` cannot be turned into a schedule (the message says where)."""


@dataclass
class Week:
    """One row: ``lab`` and ``homework`` are lists of items, each an exercise id or a text."""

    number: int
    lecture: str
    lab: list[str] = field(default_factory=list)
    homework: list[str] = field(default_factory=list)
    assignment: str = ""

    def chapters(self) -> list[str]:
        return _LECTURED.findall(self.lecture)


def _path(book) -> Path:
    return Path(book.root) / "docs" / "schedule.toml"


def load(book) -> dict[int, list[Week]]:
    """``{number of weeks: the weeks as docs/schedule.toml writes them}``."""
    path = _path(book)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ScheduleError(f"{path}: {exc}") from None
    out = {}
    for s in data.get("schedule", []):
        rows = []
        for i, w in enumerate(s.get("week", []), 1):
            items = [*w.get("lab", []), *w.get("homework", [])]
            if not isinstance(w.get("lecture"), str) or not all(isinstance(x, str) for x in items):
                raise ScheduleError(
                    f"{path}: schedule of {s.get('weeks')} weeks, week {i}: lecture and items are text"
                )
            rows.append(
                Week(
                    i,
                    w["lecture"],
                    list(w.get("lab", [])),
                    list(w.get("homework", [])),
                    w.get("assignment", ""),
                )
            )
        if len(rows) != s.get("weeks"):
            raise ScheduleError(f"{path}: the schedule of {s.get('weeks')} weeks lists {len(rows)}")
        out[len(rows)] = rows
    return out


def _minutes(items: list[str], minutes: dict[str, int]) -> int:
    return sum(minutes.get(x, 0) if _ID.match(x) else sum(map(int, _MINUTES.findall(x))) for x in items)


def _insert(items: list[str], ex_id: str) -> None:
    """After the last exercise id of ``items`` (at the front when there is none)."""
    last = max((i for i, x in enumerate(items) if _ID.match(x)), default=-1)
    items.insert(last + 1, ex_id)


def weeks(book, n: int) -> list[Week]:
    """The ``n``-week schedule with every exercise of the records placed exactly once."""
    by_n = load(book)
    if n not in by_n:
        raise ScheduleError(f"{_path(book)} has no schedule of {n} weeks")
    rows = by_n[n]
    minutes = {e["id"]: int(e["minutes"]) for c in book.chapters for e in c.exercises}
    named = [x for w in rows for x in w.lab + w.homework if _ID.match(x)]
    unknown = sorted(set(named) - set(minutes))
    twice = sorted({x for x in named if named.count(x) > 1})
    if unknown or twice:
        raise ScheduleError(
            f"{_path(book)}, {n} weeks: "
            + "; ".join(
                p
                for p in (
                    f"not an exercise: {unknown}" if unknown else "",
                    f"named twice: {twice}" if twice else "",
                )
                if p
            )
        )
    for ex_id in (e for e in minutes if e not in named):
        chapter = ex_id[:2]
        week = next((w for w in reversed(rows) if chapter in w.chapters()), None)
        if week is None:
            raise ScheduleError(
                f"{_path(book)}, {n} weeks: no lecture covers chapter {chapter} (for {ex_id})"
            )
        fits = _minutes(week.lab, minutes) + minutes[ex_id] <= SLOT
        _insert(week.lab if fits else week.homework, ex_id)
    return rows


def _cell(items: list[str]) -> str:
    """Items in order: consecutive exercise ids joined by ", " (in backticks), the groups and
    texts by "; "; nothing is "—"."""
    parts: list[str] = []
    in_ids = False  # whether parts[-1] is a group of exercise ids
    for x in items:
        if _ID.match(x) and in_ids:
            parts[-1] += f", `{x}`"
        else:
            parts.append(f"`{x}`" if _ID.match(x) else x)
        in_ids = bool(_ID.match(x))
    return "; ".join(parts) or "\u2014"


def table(book, n: int) -> str:
    """The ``n``-week schedule as the guide's Markdown table (ending with a newline)."""
    lines = ["| Week | Lecture | Lab | Homework | Assignment |", "|---|---|---|---|---|"]
    for w in weeks(book, n):
        cells = [str(w.number), w.lecture, _cell(w.lab), _cell(w.homework), w.assignment or "\u2014"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
