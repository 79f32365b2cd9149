"""The course map of 00-welcome: depths, time estimates and points come from book.toml."""

import matplotlib

matplotlib.use("Agg")

import pytest
from matplotlib.text import Annotation

from kmlteach.course import book
from kmlteach.course.coursemap import (
    alt_text,
    course_map,
    course_rows,
    depths,
    direct_requires,
    format_minutes,
)


def test_depths_follow_requires():
    B = book.load()
    d = depths(B)
    assert d["00"] == 0
    for c in B.chapters:
        for r in c.requires:
            assert d[c.id] > d[r]
        if c.requires:
            assert d[c.id] == 1 + max(d[r] for r in c.requires)


def test_rows_sum_minutes_and_points():
    B = book.load()
    rows = {r["id"]: r for r in course_rows(B)}
    c = B.chapter("01")
    assert rows["01"]["minutes"] == c.reading_minutes + sum(e["minutes"] for e in c.exercises)
    assert rows["01"]["points"] == sum(e["points"] for e in c.exercises)
    assert ("01.dual", 3) in rows["01"]["graded"]


def test_format_minutes():
    assert format_minutes(40) == "40 min"
    assert format_minutes(60) == "1 h"
    assert format_minutes(95) == "1 h 35 min"


def test_map_draws_every_chapter_and_every_edge():
    B = book.load()
    ax = course_map(B)
    texts = [t.get_text() for t in ax.texts]
    for c in B.chapters:
        assert any(t.startswith(f"{c.id} ") for t in texts), c.id
        assert any(format_minutes(c.minutes) in t for t in texts if t.startswith(f"{c.id} "))
    arrows = [t for t in ax.texts if isinstance(t, Annotation) and t.arrow_patch is not None]
    assert len(arrows) == sum(len(v) for v in direct_requires(B).values())
    assert "chapter 09" in alt_text(B)


def test_cycle_is_reported(tmp_path):
    text = (
        (book.ROOT / "book.toml").read_text(encoding="utf-8").replace("requires = []", 'requires = ["01"]', 1)
    )
    p = tmp_path / "book.toml"
    p.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match="requires itself"):
        depths(book.load(p))


def test_direct_requires_drops_implied_edges_only():
    B = book.load()
    direct = direct_requires(B)
    for c in B.chapters:
        assert set(direct[c.id]) <= set(c.requires)
        for r in set(c.requires) - set(direct[c.id]):
            # a dropped edge is implied: some kept requirement reaches it
            reach, stack = set(), list(direct[c.id])
            while stack:
                x = stack.pop()
                if x not in reach:
                    reach.add(x)
                    stack.extend(B.chapter(x).requires)
            assert r in reach, (c.id, r)
    assert direct["09"] == ("02",) and direct["02"] == ("01",)
