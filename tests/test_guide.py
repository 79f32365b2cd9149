"""The instructor's guide (docs/instructor-guide.md) stays true to the course.

* every section reference (§5, §3.1–3.2, …) of a chapter plan or of the schedule is a
  heading (``## 5 · …`` / ``### 3.4 …``) of that chapter's notebook; references to the
  sources (UML §15.5, HSS1 §1.3.1, …) are not section references;
* every exercise of book.toml is scheduled exactly once (lab or homework) and every
  scheduled exercise exists;
* no lab holds more than its 75 minutes of exercises (minutes from the exercise records,
  read through the Python API, not from book.toml's text);
* no week is heavier than 1.3 × the median week, where the load of a week is
  75 (the lecture) + the lab's minutes (its exercises' minutes plus any "(N min)" item,
  e.g. the midterm) + the homework's minutes (the exercises moved to homework plus every
  "(N min)" item: project milestones, revision), the definition the guide states;
* every ready chapter with exercises belongs to an assignment; every scheduled item
  (midterm, project) has its material, linked from the guide; the midterm has points that
  add up and an answer key, which the site does not publish; the project has a rubric.
"""

from __future__ import annotations

import json
import re
import statistics
from pathlib import Path

import pytest

from kmlteach.course import book as _book
from kmlteach.exercises import registry

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
GUIDE = (DOCS / "instructor-guide.md").read_text(encoding="utf-8")
B = _book.load()
SLOT = 75  # minutes of one meeting (lecture or lab)
RATIO = 1.3  # heaviest week / median week

_SOURCE_TAG = r"(?<!UML )(?<!HSS1 )(?<!HSS2 )(?<!SL )"
_SECTION = re.compile(_SOURCE_TAG + r"§(\d+(?:\.\d+)?)(?:\s*[–-]\s*§?(\d+(?:\.\d+)?))?")
# ids in backticks: exercises `01.hinge`; concept checks `01.c_support` and recap questions
# `01.q1` (question records); prediction explorers `01.p_margin`
_EXERCISE = re.compile(r"`(\d\d\.(?!c_|p_|q\d)\w+)`")
_MINUTES = re.compile(r"\((\d+) min\)")


# -- parsing ------------------------------------------------------------------------
def _expand(a: str, b: str | None) -> list[str]:
    """§3–5 → 3, 4, 5; §3.1–3.3 → 3.1, 3.2, 3.3; §3.4 → 3.4."""
    if b is None:
        return [a]
    pa, pb = a.split("."), b.split(".")
    assert pa[:-1] == pb[:-1], f"range §{a}–{b} crosses a section"
    lo, hi = int(pa[-1]), int(pb[-1])
    assert lo < hi, f"empty range §{a}–{b}"
    return [".".join(pa[:-1] + [str(k)]) for k in range(lo, hi + 1)]


def refs(text: str) -> list[str]:
    return [s for m in _SECTION.finditer(text) for s in _expand(m.group(1), m.group(2))]


def headings(chapter_id: str) -> set[str]:
    """The numbered headings of a chapter's notebook: '5' for '## 5 · …', '3.4' for '### 3.4 …'."""
    nb = json.loads((B.root / B.chapter(chapter_id).notebook).read_text(encoding="utf-8"))
    out = set()
    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown":
            src = "".join(cell["source"])
            out.update(re.findall(r"^#{2,4}\s+(\d+(?:\.\d+)?)\b", src, re.M))
    return out


def section(title: str) -> str:
    start = GUIDE.index(f"\n## {title}")
    end = GUIDE.find("\n## ", start + 1)
    return GUIDE[start : end if end > 0 else None]


_GENERATED = re.compile(r"<!--\s*kml:(\w+)[^>]*-->.*?<!--\s*/kml:\1\s*-->", re.S)


def chapter_plans() -> dict[str, str]:
    """Chapter id → the hand-written text of its plan (from its ``### NN · …`` heading to the
    next heading), without the generated tables (their section titles come from the notebook)."""
    plans = _GENERATED.sub("", section("Chapter plans"))
    parts = re.split(r"^### ", plans, flags=re.M)[1:]
    return {m.group(1): p for p in parts if (m := re.match(r"(\d\d) · ", p))}


def schedule() -> list[dict]:
    """The rows of the 13-week table, as dicts of its columns."""
    rows = []
    lines = [ln for ln in section("A 13-week schedule").splitlines() if ln.startswith("|")]
    header = [h.strip().lower() for h in lines[0].strip("|").split("|")]
    for ln in lines[2:]:
        cells = [c.strip() for c in ln.strip().strip("|").split("|")]
        assert len(cells) == len(header), f"malformed schedule row: {ln}"
        rows.append(dict(zip(header, cells)))
    return rows


def exercise_minutes() -> dict[str, int]:
    reg = registry()
    out = {}
    for eid in B.exercise_ids():
        ex = reg.get(eid)
        assert ex is not None, f"{eid} is in book.toml but not in the exercise registry"
        assert isinstance(ex.minutes, int) and ex.minutes > 0, f"{eid} has no minutes"
        out[eid] = ex.minutes
    return out


def cell_minutes(cell: str, minutes: dict[str, int]) -> int:
    return sum(minutes[e] for e in _EXERCISE.findall(cell) if e in minutes) + sum(
        int(n) for n in _MINUTES.findall(cell)
    )


def week_load(row: dict, minutes: dict[str, int]) -> int:
    return SLOT + cell_minutes(row["lab"], minutes) + cell_minutes(row["homework"], minutes)


# -- the parsers themselves -----------------------------------------------------------
def test_the_section_parser_expands_ranges_and_skips_source_references():
    assert refs("§3–5 and §3.1–3.3, then §4") == ["3", "4", "5", "3.1", "3.2", "3.3", "4"]
    assert refs("UML §15.5, HSS1 §1.3.1, HSS2 §2.4 and SL §2") == []
    assert refs("01 §1–3 (x)") == ["1", "2", "3"]
    assert "3.4" in headings("03") and "5" in headings("01")


def test_the_load_counts_exercises_and_stated_minutes():
    minutes = {"01.a": 10, "01.b": 20}
    row = {"lab": "`01.a`, `01.b`", "homework": "project: report (45 min)"}
    assert week_load(row, minutes) == SLOT + 30 + 45


# -- section references ---------------------------------------------------------------
def test_every_chapter_plan_names_sections_of_its_notebook():
    plans = chapter_plans()
    assert set(plans) == {c.id for c in B.chapters if c.ready}, "a ready chapter has no plan"
    bad, n = [], 0
    for cid, text in plans.items():
        have = headings(cid)
        for s in refs(text):
            n += 1
            if s not in have:
                bad.append(
                    f"chapter {cid}: §{s} (notebook has {sorted(have, key=lambda h: [int(p) for p in h.split('.')])})"
                )
    assert n >= 50, f"only {n} section references found in the plans"
    assert not bad, "section references without a heading:\n" + "\n".join(bad)


def test_chapter_01_plan_covers_every_section_of_its_notebook():
    numbered = {h for h in headings("01") if "." not in h}
    numbered.discard(max(numbered, key=int))  # the last one is "Exercises"
    assert set(refs(chapter_plans()["01"])) >= numbered


def test_every_schedule_reference_names_a_section_of_its_chapter():
    bad, n = [], 0
    for row in schedule():
        for m in re.finditer(r"\b(\d\d) (§[^(;|]*)", row["lecture"]):
            for s in refs(m.group(2)):
                n += 1
                if s not in headings(m.group(1)):
                    bad.append(f"week {row['week']}: {m.group(1)} §{s}")
    assert n >= 20, f"only {n} section references found in the schedule"
    assert not bad, "schedule references without a heading: " + ", ".join(bad)


# -- exercises and minutes --------------------------------------------------------------
def test_every_exercise_is_scheduled_once_and_every_scheduled_one_exists():
    ids = B.exercise_ids()
    rows = schedule()
    scheduled = [e for r in rows for e in _EXERCISE.findall(r["lab"] + " " + r["homework"])]
    missing = sorted(set(ids) - set(scheduled))
    unknown = sorted(set(scheduled) - set(ids))
    twice = sorted({e for e in scheduled if scheduled.count(e) > 1})
    assert not missing, f"exercises of book.toml never scheduled: {missing}"
    assert not unknown, f"scheduled exercises not in book.toml: {unknown}"
    assert not twice, f"exercises scheduled twice: {twice}"
    # the derivations the old schedule forgot
    assert {"01.dual", "02.kernel_sgd"} <= set(scheduled)
    # and no exercise id anywhere in the guide that book.toml does not know
    assert not set(_EXERCISE.findall(GUIDE)) - set(ids)


def test_every_lab_fits_its_slot():
    minutes = exercise_minutes()
    over = {
        r["week"]: cell_minutes(r["lab"], minutes)
        for r in schedule()
        if cell_minutes(r["lab"], minutes) > SLOT
    }
    assert not over, f"labs above {SLOT} minutes (move the overflow to homework): {over}"


def test_a_chapter_lab_holds_exercises_of_the_chapter_it_follows():
    for r in schedule():
        lectured = set(re.findall(r"\b(\d\d) ", r["lecture"]))
        for e in _EXERCISE.findall(r["lab"]):
            assert e[:2] in lectured, f"week {r['week']}: lab exercise {e} before its lecture"


def test_no_week_is_above_1_3_times_the_median_load():
    minutes = exercise_minutes()
    rows = schedule()
    assert [int(r["week"]) for r in rows] == list(range(1, 14))
    loads = {int(r["week"]): week_load(r, minutes) for r in rows}
    median = statistics.median(loads.values())
    heavy = {w: v for w, v in loads.items() if v > RATIO * median}
    assert not heavy, f"weeks above {RATIO} × the median load {median}: {heavy} (all: {loads})"
    assert "load of a week" in GUIDE and "1.3" in GUIDE, "the guide must state the definition"


def test_every_chapter_with_exercises_belongs_to_an_assignment():
    covered = set()
    for r in schedule():
        for m in re.finditer(r"released \(chapters? (\d\d)(?:–(\d\d))?\)", r["assignment"]):
            lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
            covered.update(f"{k:02d}" for k in range(lo, hi + 1))
    need = {c.id for c in B.chapters if c.ready and c.exercises}
    assert need <= covered, f"chapters without an assignment: {sorted(need - covered)}"
    released = re.findall(r"(A\d) released", " ".join(r["assignment"] for r in schedule()))
    due = re.findall(r"(A\d) due", " ".join(r["assignment"] for r in schedule()))
    assert sorted(released) == sorted(due), "every assignment released is also due"


# -- scheduled items have their material ---------------------------------------------------
def _points(text: str) -> list[int]:
    return [int(p) for p in re.findall(r"^### Question \d+ \((\d+) points?\)", text, re.M)]


def test_the_midterm_exists_is_linked_and_its_points_add_up():
    text = (DOCS / "midterm.md").read_text(encoding="utf-8")
    assert "midterm" in section("A 13-week schedule").lower()
    assert "](midterm.md)" in GUIDE, "the guide must link the midterm"
    assert re.search(r"answer key.*must not|never.*students", GUIDE, re.I | re.S)
    questions, key = text.split("## Part 2", 1)
    pts = _points(questions)
    assert len(pts) >= 8
    total = int(re.search(r"Total: (\d+) points", text).group(1))
    assert sum(pts) == total == 100
    n_answers = len(re.findall(r"^### Answer \d+", key, re.M))
    assert n_answers == len(pts), "every question needs an answer in the key"
    assert "instructors only" in key.splitlines()[0]
    # it covers chapters 00-03, and only those
    chapters = set(
        re.findall(r"chapters? (\d\d)", " ".join(re.findall(r"^### Question.*$", questions, re.M)))
    )
    chapters |= set(re.findall(r"and (\d\d):", questions))
    assert chapters == {"00", "01", "02", "03"}, chapters


def test_the_project_exists_is_linked_and_has_a_rubric():
    text = (DOCS / "project.md").read_text(encoding="utf-8")
    assert "](project.md)" in GUIDE, "the guide must link the project"
    week13 = next(r for r in schedule() if r["week"] == "13")
    assert "project" in (week13["lecture"] + week13["lab"]).lower()
    rubric = text.split("## Rubric", 1)[1]
    rows = re.findall(r"^\| [^|]+ \| (\d+) \|", rubric, re.M)
    assert len(rows) >= 4 and sum(map(int, rows)) == 100
    assert "week 13" in text.lower() or "| 13 |" in text


def test_the_site_publishes_glossary_and_project_but_never_the_answer_key(tmp_path):
    pytest.importorskip("nbformat")
    from kmlteach.course.site import PUBLISHED_DOCS, stage
    from kmlteach.course.site_pages import instructor_guide_page

    assert "midterm.md" not in PUBLISHED_DOCS
    guide = instructor_guide_page(B)
    assert "](midterm.md)" not in guide and "](project.md)" in guide
    out = stage(tmp_path / "site", B)
    toc = json.loads((out / "_toc.yml").read_text(encoding="utf-8"))
    files = [c["file"] for part in toc["parts"] for c in part["chapters"]]
    assert {"glossary", "project"} <= set(files)
    assert not (out / "midterm.md").exists()
    key = (DOCS / "midterm.md").read_text(encoding="utf-8").split("## Part 2", 1)[1]
    needles = ["Part 2: answer key"] + [ln for ln in key.splitlines() if len(ln) > 40][:5]
    for p in out.rglob("*"):
        if p.is_file() and p.suffix in (".md", ".ipynb", ".yml", ".json", ".py"):
            body = p.read_text(encoding="utf-8", errors="replace")
            for needle in needles:
                assert needle not in body, f"{p.relative_to(out)} contains the answer key"
    # the notebooks' glossary link points at the site's own page
    nb = json.loads((out / "notebooks" / Path(B.chapter("01").notebook).name).read_text())
    first = "".join(nb["cells"][0]["source"])
    assert "](../glossary.md)" in first
