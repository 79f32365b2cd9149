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
  (midterm, final, project) has its material, linked from the guide; the exams have points
  that add up and an answer key, which the site does not publish; the project has a rubric;
* all of the above holds for both schedules, 13 weeks and 10 weeks (where an exercise may
  come after its chapter's week, never before);
* every number of the final exam's answer key is what the course's package computes;
* each chapter plan names, by id, every concept check and recap question of its chapter
  and the prediction explorers its notebook uses (with the id their builder assigns); every
  id exists, and the minutes it is placed in are the section of the notebook that asks it.
"""

from __future__ import annotations

import json
import re
import statistics
from pathlib import Path

import numpy as np
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


SCHEDULES = {"A 13-week schedule": 13, "A 10-week schedule": 10}
_each_schedule = pytest.mark.parametrize("title", list(SCHEDULES))


def schedule(title: str = "A 13-week schedule") -> list[dict]:
    """The rows of a schedule's table, as dicts of its columns."""
    rows = []
    lines = [ln for ln in section(title).splitlines() if ln.startswith("|")]
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


@_each_schedule
def test_every_schedule_reference_names_a_section_of_its_chapter(title):
    bad, n = [], 0
    for row in schedule(title):
        for m in re.finditer(r"\b(\d\d) (§[^(;|]*)", row["lecture"]):
            for s in refs(m.group(2)):
                n += 1
                if s not in headings(m.group(1)):
                    bad.append(f"week {row['week']}: {m.group(1)} §{s}")
    assert n >= 2 * SCHEDULES[title], f"only {n} section references found in the schedule"
    assert not bad, "schedule references without a heading: " + ", ".join(bad)


# -- exercises and minutes --------------------------------------------------------------
@_each_schedule
def test_every_exercise_is_scheduled_once_and_every_scheduled_one_exists(title):
    ids = B.exercise_ids()
    rows = schedule(title)
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


@_each_schedule
def test_every_lab_fits_its_slot(title):
    minutes = exercise_minutes()
    over = {
        r["week"]: cell_minutes(r["lab"], minutes)
        for r in schedule(title)
        if cell_minutes(r["lab"], minutes) > SLOT
    }
    assert not over, f"labs above {SLOT} minutes (move the overflow to homework): {over}"


def test_a_chapter_lab_holds_exercises_of_the_chapter_it_follows():
    for r in schedule():
        lectured = set(re.findall(r"\b(\d\d) ", r["lecture"]))
        for e in _EXERCISE.findall(r["lab"]):
            assert e[:2] in lectured, f"week {r['week']}: lab exercise {e} before its lecture"


@_each_schedule
def test_no_exercise_comes_before_its_chapter_is_lectured(title):
    """The 10-week schedule moves some of chapter 04's exercises past its lecture week (the
    midterm takes that lab): later is allowed, earlier never."""
    lectured: set[str] = set()
    for r in schedule(title):
        lectured |= set(re.findall(r"\b(\d\d) ", r["lecture"]))
        for e in _EXERCISE.findall(r["lab"] + " " + r["homework"]):
            assert e[:2] in lectured, f"{title}, week {r['week']}: {e} before chapter {e[:2]}'s lecture"


@_each_schedule
def test_no_week_is_above_1_3_times_the_median_load(title):
    minutes = exercise_minutes()
    rows = schedule(title)
    assert [int(r["week"]) for r in rows] == list(range(1, SCHEDULES[title] + 1))
    loads = {int(r["week"]): week_load(r, minutes) for r in rows}
    median = statistics.median(loads.values())
    heavy = {w: v for w, v in loads.items() if v > RATIO * median}
    assert not heavy, f"weeks above {RATIO} × the median load {median}: {heavy} (all: {loads})"
    assert "load of a week" in GUIDE and "1.3" in GUIDE, "the guide must state the definition"


@_each_schedule
def test_every_chapter_with_exercises_belongs_to_an_assignment(title):
    covered = set()
    for r in schedule(title):
        for m in re.finditer(r"released \(chapters? (\d\d)(?:–(\d\d))?\)", r["assignment"]):
            lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
            covered.update(f"{k:02d}" for k in range(lo, hi + 1))
    need = {c.id for c in B.chapters if c.ready and c.exercises}
    assert need <= covered, f"chapters without an assignment: {sorted(need - covered)}"
    released = re.findall(r"(A\d) released", " ".join(r["assignment"] for r in schedule(title)))
    due = re.findall(r"(A\d) due", " ".join(r["assignment"] for r in schedule(title)))
    assert sorted(released) == sorted(due), "every assignment released is also due"
    # and both exams have their place: the midterm in a lab, the final after the last week
    text = section(title)
    assert "midterm" in text.lower() and "](midterm.md)" in text
    assert "](final.md)" in schedule(title)[-1]["assignment"], "the final exam closes the schedule"


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

    assert "midterm.md" not in PUBLISHED_DOCS and "final.md" not in PUBLISHED_DOCS
    guide = instructor_guide_page(B)
    assert "](midterm.md)" not in guide and "](final.md)" not in guide and "](project.md)" in guide
    out = stage(tmp_path / "site", B)
    toc = json.loads((out / "_toc.yml").read_text(encoding="utf-8"))
    files = [c["file"] for part in toc["parts"] for c in part["chapters"]]
    assert {"glossary", "project"} <= set(files)
    assert not (out / "midterm.md").exists() and not (out / "final.md").exists()
    needles = ["Part 2: answer key"]
    for exam in ("midterm.md", "final.md"):
        key = (DOCS / exam).read_text(encoding="utf-8").split("## Part 2", 1)[1]
        needles += [ln for ln in key.splitlines() if len(ln) > 40][:5]
    for p in out.rglob("*"):
        if p.is_file() and p.suffix in (".md", ".ipynb", ".yml", ".json", ".py"):
            body = p.read_text(encoding="utf-8", errors="replace")
            for needle in needles:
                assert needle not in body, f"{p.relative_to(out)} contains the answer key"
    # the notebooks' glossary link points at the site's own page
    nb = json.loads((out / "notebooks" / Path(B.chapter("01").notebook).name).read_text())
    first = "".join(nb["cells"][0]["source"])
    assert "](../glossary.md)" in first


# -- the final exam (chapters 04-09): its form, and every number of its key recomputed -------
FINAL = (DOCS / "final.md").read_text(encoding="utf-8")
MINUS = "\u2212"


def _num(v: float, digits: int = 3) -> str:
    """A number as the exam writes it: whole numbers without decimals, others rounded, and a
    typographic minus."""
    v = float(v)
    text = str(int(round(v))) if abs(v - round(v)) < 1e-9 else f"{v:.{digits}f}".rstrip("0").rstrip(".")
    return text.replace("-", MINUS)


def _vec(values, digits: int = 3) -> str:
    return "(" + ", ".join(_num(v, digits) for v in values) + ")"


def _answer(n: int) -> str:
    key = FINAL.split("## Part 2", 1)[1]
    return re.split(r"^### Answer \d+", key, flags=re.M)[n]


def _question(n: int) -> str:
    questions = FINAL.split("## Part 2", 1)[0]
    return re.split(r"^### Question \d+", questions, flags=re.M)[n]


def _has(text: str, *needles: str) -> None:
    flat = " ".join(text.split())
    for needle in needles:
        assert needle in flat, f"{needle!r} not in:\n{flat}"


def test_the_final_exists_is_linked_and_its_points_add_up():
    assert "](final.md)" in GUIDE, "the guide must link the final exam"
    questions, key = FINAL.split("## Part 2", 1)
    pts = _points(questions)
    assert len(pts) >= 8
    total = int(re.search(r"Total: (\d+) points", FINAL).group(1))
    assert sum(pts) == total == 100
    assert len(re.findall(r"^### Answer \d+", key, re.M)) == len(pts)
    assert "instructors only" in key.splitlines()[0]
    heads = re.findall(r"^### Question.*$", questions, re.M)
    chapters = set(re.findall(r"chapters? (\d\d)", " ".join(heads)))
    assert chapters == {"04", "05", "06", "07", "08", "09"}, chapters
    # every section a question names is a heading of its chapter's notebook
    for h in heads:
        cid = re.search(r"chapters? (\d\d)", h).group(1)
        sections = refs(h.split(":", 1)[0].replace(", §", " and §"))
        assert sections and set(sections) <= headings(cid), f"{h}: sections {sections} not in {cid}"
    # the points in brackets of each answer add up to its question's points
    for n, p in enumerate(pts, start=1):
        got = sum(int(x) for x in re.findall(r"\[(\d+)\]", _answer(n)))
        assert got == p, f"answer {n}: {got} points in brackets, question {n} has {p}"


def test_final_answer_1_multivector_and_generalized_hinge():
    from kmlteach import multiclass as MC

    W = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]])
    x = np.array([2.0, 1.0])
    _has(_question(1), "w₁ = (1, 0)", "w₂ = (0, 1)", "w₃ = (−1, −1)", "x = (2, 1)")
    scores = W @ x
    _has(
        _answer(1),
        _vec(MC.multivector_psi(x, 2, 3)),
        f"⟨w₁, x⟩ = {_num(scores[0])}, ⟨w₂, x⟩ = {_num(scores[1])}, ⟨w₃, x⟩ = {_num(scores[2])}",
        f"the prediction is class {int(np.argmax(scores)) + 1}",
        f"the loss is {_num(MC.generalized_hinge(W, x[None], [1])[0])}",
        _vec(MC.generalized_hinge_subgradient(W, x[None], [1]).ravel()),
    )


def test_final_answer_2_reductions():
    import math

    _has(_answer(2), f"all pairs k(k − 1)/2 = {math.comb(5, 2)}", f"5 × 60 = {5 * 60}", f"classes, {2 * 60}")
    winners = {(1, 2): 2, (1, 3): 3, (1, 4): 1, (2, 3): 2, (2, 4): 2, (3, 4): 4}
    votes = np.bincount(list(winners.values()), minlength=5)[1:]
    assert sorted(votes)[-1] > sorted(votes)[-2]
    _has(_answer(2), f"predicts class {int(np.argmax(votes)) + 1} with {votes.max()} votes")


_CHAIN_U = np.array([[2.0, 1.0], [2.0, 0.0], [1.0, 2.0]])  # rows τ = 1..3, columns A, B
_CHAIN_P = np.array([[1.0, -1.0], [-2.0, 1.0]])  # p(previous, next)


def test_final_answer_3_viterbi():
    from kmlteach import structured as S

    _has(_question(3), "| u(τ, A) | 2 | 2 | 1 |", "| u(τ, B) | 1 | 0 | 2 |")
    _has(_question(3), "p(A, A) = 1, p(A, B) = −1, p(B, A) = −2, p(B, B) = 1")
    res = S.viterbi(_CHAIN_U, _CHAIN_P)
    text = " ".join(_answer(3).split())
    cells = re.findall(r"M_\{([AB]),(\d)\} = (?:max\([^)]*\) \+ −?\d+ = )?(−?\d+)(?: \(from ([AB])\))?", text)
    assert {(s, tau) for s, tau, _, _ in cells} == {(s, str(k)) for s in "AB" for k in (1, 2, 3)}, cells
    for s, tau, value, back in cells:
        i, t = "AB".index(s), int(tau) - 1
        assert float(value.replace(MINUS, "-")) == res.M[i, t], (s, tau, value)
        if t > 0 and back:
            assert "AB".index(back) == res.backpointers[i, t], (s, tau, back)
    assert sum(bool(b) for *_, b in cells) >= 4, "the backpointers of columns 2 and 3"
    best = "".join("AB"[k] for k in res.labels)
    _has(text, f"{best}, of score {_num(res.score)}")
    greedy = _CHAIN_U.argmax(axis=1)
    g = "".join("AB"[k] for k in greedy)
    g_score = _CHAIN_U[[0, 1, 2], greedy].sum() + sum(_CHAIN_P[greedy[t - 1], greedy[t]] for t in (1, 2))
    _has(text, f"give {g}, of score", f"= {_num(g_score)} < {_num(res.score)}")


def test_final_answer_4_loss_augmented_decoding():
    from kmlteach import structured as S

    truth = np.zeros(3, dtype=int)  # AAA
    aug = S.loss_augmented_viterbi(_CHAIN_U, _CHAIN_P, truth)
    worst = "".join("AB"[k] for k in aug.labels)
    best = S.viterbi(_CHAIN_U, _CHAIN_P).score
    _has(
        _answer(4),
        f"(a) {worst}:",
        f"a total of {_num(aug.score)}",
        f"{_num(aug.score)} − {_num(best)} = {_num(aug.score - best)}",
    )


def test_final_answer_5_kendall_and_ndcg():
    from kmlteach import ranking as R

    y, yp = np.array([2.0, 0.0, 1.0, 0.0]), np.array([0.3, 0.5, 0.1, 0.8])
    _has(_question(5), "y = (2, 0, 1, 0)", "y′ = (0.3, 0.5, 0.1, 0.8)")
    d = R.discount(np.arange(1, 5), 4)
    _has(_question(5), f"D(4) = 1, D(3) = {_num(d[2])}, D(2) = {_num(d[1])}, D(1) = {_num(d[0])}")
    _has(
        _answer(5),
        f"π(y′) = {_vec(R.permutation(yp))}",
        f"Δ = 5/6 = {_num(R.kendall_tau_loss(yp, y))}",
        f"= {_num(R.dcg(yp, y))};",
        f"= {_num(R.dcg(y, y))};",
        f"the loss is 1 − {_num(R.dcg(yp, y))}/{_num(R.dcg(y, y))} = {_num(R.ndcg_loss(yp, y))}",
    )
    assert abs(R.kendall_tau_loss(yp, y) - 5 / 6) < 1e-12


def test_final_answer_6_assignment():
    import itertools
    import math

    from kmlteach import ranking as R

    A = np.array([[4.0, 1.0, 3.0], [2.0, 0.0, 5.0], [3.0, 2.0, 2.0]])
    v = R.assignment(A)
    cost = A[np.arange(3), v].sum()
    others = sorted(A[np.arange(3), list(p)].sum() for p in itertools.permutations(range(3)))
    assert others[0] == cost < others[1]
    _has(_answer(6), f"v = {_vec(v + 1)}", f"= {_num(cost)};", f"costs {_num(others[1])} or more")
    _has(_answer(6), f"10! = {math.factorial(10)}")


def test_final_answer_7_counts_and_scores():
    from kmlteach import metrics as M

    s = np.array([0.9, 0.8, 0.7, 0.6, 0.55, 0.4, 0.3, 0.2, 0.1, 0.05])
    t = np.array([1, 1, -1, 1, -1, -1, 1, -1, -1, -1])
    c = M.confusion_counts(s, t, 0.5)
    _has(
        _answer(7),
        f"a = {c.a}, b = {c.b}, c = {c.c}",
        f"d = {c.d}",
        f"= {_num(M.precision(s, t, 0.5))}, recall",
        f"= {_num(M.recall(s, t, 0.5))}, F₁",
        f"= {_num(M.f1(s, t, 0.5))} [3]",
        f"F₂ = 15/(15 + 2 + 4) = {_num(M.f_beta(s, t, 0.5, beta=2.0))}",
        f"2/3 = {_num(M.precision_at_k(s, t, 3))}",
    )


def test_final_answer_8_adaboost():
    from kmlteach import ensembles as E

    X, y = np.arange(5.0).reshape(-1, 1), np.array([-1.0, -1.0, 1.0, 1.0, -1.0])
    run = E.adaboost(X, y, T=3)
    stump = run.stumps[0]
    assert stump.threshold == 1.5 and float(stump.predict(np.array([[2.0]]))[0]) == 1.0
    # the question's ε₂ and ε₃ are the ones AdaBoost meets on these points
    assert abs(run.epsilons[1] - 0.25) < 1e-12 and abs(run.epsilons[2] - 1 / 6) < 1e-12
    _has(
        _answer(8),
        f"ε₁ = {_num(run.epsilons[0])}",
        f"= {_num(run.alphas[0])}",
        f"Z₁ = 2√(0.2 · 0.8) = {_num(run.Z[0])}",
        f"D₂ = {_vec(run.D[1])}",
        f"Z₂ = 2√(0.25 · 0.75) = {_num(run.Z[1])}",
        f"Z₃ = 2√((1/6)(5/6)) = {_num(run.Z[2])}",
        f"the bound is 0.8 · {_num(run.Z[1])} · {_num(run.Z[2])} = {_num(run.bound[2])}",
    )
    rounds = next(T for T in range(1, 50) if 0.8**T < 1 / 5)
    _has(_answer(8), f"first for T = {rounds}", f"0.8⁷ = {_num(0.8**7)}", f"0.8⁸ = {_num(0.8**8)}")


def test_final_answer_9_split_gains():
    from kmlteach.ensembles import decision_tree

    X = np.r_[np.zeros(6), np.ones(6)].reshape(-1, 1)
    y = np.r_[np.ones(6), [1.0, 1.0], -np.ones(4)]  # 6+ | 2+ 4-
    gains = {}
    for crit in ("error", "gini", "entropy"):
        tree = decision_tree(X, y, max_depth=1, criterion=crit)
        assert tree.counts.tolist() == [[4, 8], [0, 6], [4, 2]]
        gains[crit] = tree.impurity[0] - 0.5 * tree.impurity[1] - 0.5 * tree.impurity[2]
    _has(
        _answer(9),
        f"= 1/6 = {_num(gains['error'])}",
        f"= 2/9 = {_num(gains['gini'])}",
        f"{_num(gains['entropy'])} [3]",
    )


def test_final_answer_10_norma_nu_and_rademacher():
    from kmlteach import online, svm, theory

    X, y = np.array([[1.0, 0.0], [0.0, 1.0], [0.6, 0.5]]), np.array([1.0, -1.0, 1.0])
    run = online.norma(X, y, lam=0.2, eta=0.5, kernel="linear", loss="hinge")
    _has(
        _answer(10),
        f"f₃(x₃) = 0.45 · 0.6 − 0.5 · 0.5 = {_num(run.predictions[2])}",
        f"(c₁, c₂, c₃) = {_vec(run.coef)}",
    )
    # the ν-property on a ν-SVM with ν = 0.15, n = 200 and ρ > 0
    rng = np.random.default_rng(0)
    Xn = np.vstack([rng.normal(-1.0, 1.0, (100, 2)), rng.normal(1.0, 1.0, (100, 2))])
    yn = np.r_[-np.ones(100), np.ones(100)]
    sol = svm.nu_svm(Xn, yn, 0.15, kernel="gaussian", sigma=1.0)
    assert sol.rho > 0 and np.size(sol.margin_errors) <= 0.15 * 200 <= np.size(sol.support)
    _has(_answer(10), f"At most νn = {round(0.15 * 200)} margin errors and at least {round(0.15 * 200)}")
    # the bound W (Σ‖x‖²)^½ / n, against kmlteach's estimate for the unit ball (scaled by W)
    Z = rng.normal(size=(400, 5))
    Z *= 2.0 / np.linalg.norm(Z, axis=1, keepdims=True)
    rad = theory.rademacher_linear(Z, n_draws=500, seed=0)
    bound = 3.0 * rad.bound  # the unit ball's bound (Σ‖x‖²)^½ / n, scaled by W = 3
    assert abs(bound - 3.0 * np.sqrt((Z**2).sum()) / 400) < 1e-12
    assert bound / np.sqrt(2) <= 3.0 * rad.estimate <= bound
    _has(_answer(10), f"= {_num(bound)};", f"halves, to {_num(bound / 2)}")


# -- concept checks, recap questions and prediction explorers, by id -------------------------
_QUESTION = re.compile(r"`(\d\d\.(?:c_\w+|q\d+))`")
_PREDICTION_ID = re.compile(r"`(\d\d\.p_\w+)`")
_BUILDER = re.compile(r"`(make_\w+)\(([^`]*)\)`")
_SLOT = re.compile(r"\((\d+–\d+)\b")


def _widget_module(chapter_id: str) -> str:
    return "kmlteach.widgets.welcome" if chapter_id == "00" else f"kmlteach.widgets.ch{chapter_id}"


def _questions() -> dict[str, object]:
    from kmlteach.exercises import questions

    return {q.id: q for q in questions()}


def _by_id(plan: str) -> str:
    assert "*By id*" in plan, "a chapter plan without its *By id* list"
    return plan.split("*By id*", 1)[1].split("*Ask the room:*", 1)[0]


def _minute_rows(plan: str) -> dict[str, list[str]]:
    """Minutes of a plan's table → the sections its Slides column names."""
    rows = {}
    for line in plan.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and re.fullmatch(r"\d+–\d+", cells[0]):
            rows[cells[0]] = refs(cells[-1])
    return rows


def _asked_where(chapter_id: str) -> dict[str, set[str]]:
    """Concept-check ids and prediction builders of a chapter's notebook → the numbered
    sections (``2``, ``3.2``) of the cell that asks or builds them."""
    nb = json.loads((B.root / B.chapter(chapter_id).notebook).read_text(encoding="utf-8"))
    where: dict[str, set[str]] = {}
    current: list[str] = []
    for cell in nb["cells"]:
        src = "".join(cell["source"])
        if cell["cell_type"] == "markdown":
            for level, number in re.findall(r"^(#{2,4})\s+(\d+(?:\.\d+)?)\b", src, re.M):
                current = [number] if level == "##" else [current[0] if current else "", number]
            continue
        names = re.findall(r"""\bask\(\s*["'](\d\d\.c_\w+)["']""", src)
        names += [
            b
            for b, args in re.findall(r"\b(make_\w+)\(([^()]*(?:\([^()]*\)[^()]*)*)\)", src)
            if "predict=True" in args
        ]
        for name in names:
            where.setdefault(name, set()).update(current)
    return where


def _prediction_ids() -> dict[str, str]:
    """Every prediction id a widget gives its prediction mode (``item_id="01.p_..."``) → the
    file that assigns it."""
    out = {}
    for path in (ROOT / "kmlteach" / "widgets").rglob("*.py"):
        for pid in re.findall(r"""item_id\s*=\s*["'](\d\d\.p_\w+)["']""", path.read_text(encoding="utf-8")):
            out[pid] = str(path)
    return out


def test_every_question_id_the_guide_names_exists():
    known = _questions()
    named = set(_QUESTION.findall(GUIDE))
    assert len(named) >= 70, f"only {len(named)} question ids in the guide"
    unknown = sorted(named - set(known))
    assert not unknown, f"the guide names questions that do not exist: {unknown}"


def test_every_plan_names_its_concept_checks_recap_and_prediction_explorers():
    known = _questions()
    for cid, plan in chapter_plans().items():
        block = _by_id(plan)
        named = set(_QUESTION.findall(block))
        mine = {q for q in known if q.startswith(cid + ".")}
        missing = sorted(mine - named)
        assert not missing, f"the plan of chapter {cid} does not name {missing}"
        assert not {q for q in named if not q.startswith(cid + ".")}, f"chapter {cid} names another's ids"
        builders = {b for b, args in _BUILDER.findall(block) if "predict=True" in args}
        in_notebook = {n for n in _asked_where(cid) if n.startswith("make_")}
        assert builders == in_notebook, (
            f"chapter {cid}: prediction explorers named {sorted(builders)}, in the notebook {sorted(in_notebook)}"
        )
        # the prediction id of each explorer the notebook uses (assigned in its builder's file)
        import importlib
        import inspect

        widgets = importlib.import_module(_widget_module(cid))
        files = {inspect.getsourcefile(getattr(widgets, b)) for b in in_notebook}
        for pid, path in _prediction_ids().items():
            if pid.startswith(cid + ".") and path in files:
                assert f"`{pid}`" in block, f"the plan of chapter {cid} does not name the prediction {pid}"


def test_every_prediction_id_the_guide_names_exists_in_its_builder():
    import importlib
    import inspect

    ids = _prediction_ids()
    for cid, plan in chapter_plans().items():
        for line in _by_id(plan).splitlines():
            for pid in _PREDICTION_ID.findall(line):
                assert pid in ids, f"the guide names prediction {pid}, which no widget assigns"
                for builder, _args in _BUILDER.findall(line):
                    fn = getattr(importlib.import_module(_widget_module(cid)), builder)
                    assert inspect.getsourcefile(fn) == ids[pid], f"{pid} is not assigned by {builder}"


def test_each_id_is_placed_in_the_minutes_of_the_section_that_asks_it():
    n = 0
    for cid, plan in chapter_plans().items():
        rows = _minute_rows(plan)
        where = _asked_where(cid)
        for line in re.split(r"\n(?=\* )", _by_id(plan)):
            for group in re.finditer(r"((?:`[^`]+`(?:,| and)?\s*)+)\((\d+–\d+)\b", line):
                slot = group.group(2)
                assert slot in rows, f"chapter {cid}: no row {slot} in the plan's table"
                names = _QUESTION.findall(group.group(1)) + [b for b, _ in _BUILDER.findall(group.group(1))]
                for name in names:
                    if name not in where or not rows[slot]:
                        continue  # a recap question, or a row named by its slides rather than a §
                    n += 1
                    assert where[name] & set(rows[slot]), (
                        f"chapter {cid}: {name} is asked in §{sorted(where[name])}, "
                        f"but the plan puts it in {slot} (§{rows[slot]})"
                    )
    assert n >= 35, f"only {n} ids placed"


def test_the_python_the_guide_shows_runs():
    from kmlteach.exercises import quiz
    from kmlteach.exercises.quiz import question_html

    assert "from kmlteach.exercises.quiz import question_html" in GUIDE
    assert "[01.c_support]" in question_html("01.c_support")
    assert 'kmlteach.exercises.quiz("01")' in GUIDE and callable(quiz)


def test_the_midterm_answers_are_what_kmlteach_computes():
    """The midterm's key (chapters 00-03), recomputed with the course's package."""
    from kmlteach import kernel_methods as KM
    from kmlteach import kernels as K
    from kmlteach import structured_kernels as SK
    from kmlteach import svm

    mid = (DOCS / "midterm.md").read_text(encoding="utf-8").split("## Part 2", 1)[1]
    answers = re.split(r"^### Answer \d+", mid, flags=re.M)
    d = svm.distance_to_hyperplane(np.array([[3.0, 1.0]]), np.array([3.0, 4.0]), -5.0)[0]
    _has(answers[2], f"8/5 = {_num(d)}")
    hard = svm.hard_svm(np.array([[1.0, 0.0], [-1.0, 0.0], [3.0, 0.0]]), np.array([1.0, -1.0, 1.0]))
    assert hard.w.tolist() == [1.0, 0.0] and hard.b == 0.0 and hard.margin == 1.0
    assert hard.alpha.tolist() == [0.5, 0.5, 0.0] and hard.support.tolist() == [0, 1]
    _has(answers[3], "w = (1, 0), b = 0", "α₁ = α₂ = ½", "α₃ = 0")
    _has(answers[4], f"(2/0.25)² = {round((2 / 0.25) ** 2)}")
    k = K.gram("polynomial", np.array([[1.0, 2.0]]), np.array([[0.0, 1.0]]), degree=2)[0, 0]
    phi = K.polynomial_features(np.array([[1.0, 2.0], [0.0, 1.0]]), 2)
    assert abs(phi[0] @ phi[1] - k) < 1e-12
    n_features = K.polynomial_features(np.zeros((1, 10)), 3).shape[1]
    _has(answers[7], f"the kernel is {_num(k)}", f"C(13, 3) = {n_features}")
    ridge = KM.kernel_ridge(np.array([[2.0, 1.0], [1.0, 2.0]]), np.array([1.0, 0.0]), lam=0.5)
    assert np.allclose(ridge.alpha, [3 / 8, -1 / 8])
    assert abs(np.array([2.0, 1.0]) @ ridge.alpha - 5 / 8) < 1e-12
    _has(answers[8], "α = (3/8, −1/8)", "= 5/8")
    G = np.array([[4.0, 2.0], [2.0, 3.0]])
    assert abs(K.rkhs_distances(G)[0, 1] - np.sqrt(3)) < 1e-12
    assert np.allclose(K.center(G), [[0.75, -0.75], [-0.75, 0.75]])
    assert abs(K.rkhs_norm(np.array([2.0, -1.0]), G) ** 2 - 11) < 1e-9
    _has(answers[9], "= √3", "K̃ = [[0.75, −0.75], [−0.75, 0.75]]", "= 11 for α = (2, −1)")
    _has(answers[10], f"1·1 + 2·2 + 2·1 = {SK.ngram_kernel('banana', 'bandana', 2)}")
