"""One record per exercise: the records, the solution texts, mistakes, the plain-data cases."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from kmlteach.exercises import (
    Case,
    Exercise,
    Mistake,
    _registry,
    check,
    get,
    hint,
    record,
    register,
    registry,
    solution,
)
from kmlteach.exercises.compare import comparator, predicate, preparer
from kmlteach.exercises.plain import from_plain, to_plain

ROOT = Path(__file__).resolve().parent.parent


def test_every_exercise_has_one_record_its_code_and_its_notebook_solution():
    reg = registry()
    ids = [r["id"] for c in record.chapter_files().values() for r in record.load_chapter(c)["exercise"]]
    assert sorted(ids) == sorted(reg) and len(ids) == len(set(ids))
    for ex_id, ex in reg.items():
        assert callable(ex.reference) and ex.all_cases(), ex_id
        assert ex.solution and re.search(r"^def \w+\(", ex.solution, re.M), ex_id
        assert "### BEGIN" not in ex.solution and "### END" not in ex.solution, ex_id


def _body_lines(text: str) -> list[str]:
    lines = [ln.strip() for ln in text.splitlines()]
    return [ln for ln in lines if ln and not ln.startswith(("def ", "from ", "import "))]


def test_no_solution_text_exists_twice():
    """The notebook source is the only home of a solution: no other file of the package
    (chapter modules, records) holds a solution's body as a whole."""
    files = [p for p in (ROOT / "kmlteach").rglob("*") if p.suffix in (".py", ".toml", ".json")]
    texts = {p: "\n".join(ln.strip() for ln in p.read_text(encoding="utf-8").splitlines()) for p in files}
    for ex_id, ex in registry().items():
        body = _body_lines(ex.solution)
        if len(body) < 2:  # a one-line body can coincide with a reference's line
            continue
        block = "\n".join(body)
        assert not [p for p, t in texts.items() if block in t], ex_id


def test_the_notebook_solution_is_what_solution_prints(capsys):
    assert solution("01.distance") is None  # printed, as written (not wrapped), not returned
    text = capsys.readouterr().out
    src = (ROOT / "notebooks" / "src" / "01-svm.py").read_text(encoding="utf-8")
    assert "def distance(x, w, b):\n" in text and "return abs(np.dot(w, x) + b)" in text
    for line in text.splitlines()[1:]:
        assert line in src
    assert text.strip() == get("01.distance").solution.strip()
    assert get("03.ngram").solution.startswith("from collections import Counter\n")


def test_records_mark_instructor_only_parts_and_the_student_cut_drops_them():
    rec = record.load_chapter(record.chapter_files()["01"])["exercise"][0]
    cut = record.student_record({**rec, "mistakes": [{"name": "n", "explain": "e", "wrong": "f"}]})
    assert not set(record.INSTRUCTOR_ONLY) & set(cut)
    assert cut["mistakes"] == [{"name": "n", "explain": "e"}]
    assert cut["hints"] == rec["hints"] and cut["points"] == rec["points"]


@pytest.mark.parametrize(
    "bad, field",
    [
        ({"minutes": "5"}, "minutes"),
        ({"points": True}, "points"),
        ({"hints": [""]}, "hints"),
        ({"id": "1.x"}, "id"),
        ({"mistakes": [{"name": "n", "explain": "e", "wrong": "f", "predicate": "negated"}]}, "exactly one"),
        ({"mistakes": [{"name": "n", "explain": "e", "wrong": "f", "kind": "habit"}]}, "kind"),
    ],
)
def test_bad_records_are_refused_naming_the_field(tmp_path, bad, field):
    rec = {"id": "01.x", "title": "t", "points": 1, "minutes": 5, "hints": ["a"], **bad}
    path = tmp_path / "ch01.json"
    path.write_text(json.dumps({"exercise": [rec]}), encoding="utf-8")
    with pytest.raises(ValueError, match=field):
        record.load_chapter(path)


def test_comparisons_and_preparations_are_named_data():
    assert comparator({"kind": "allclose", "rtol": 0.0, "atol": 0.5})(1.0, 1.4)
    assert not comparator(None)(1.0, 1.4)
    assert comparator("exact")(np.array([1, 2]), np.array([1, 2]))
    assert preparer("int_tuple")([1.0, 2.0]) == (1, 2)
    assert predicate("negated")(np.array([1.0, -2.0]), np.array([-1.0, 2.0]))
    for bad, fn in (
        ("nope", comparator),
        ({"kind": "allclose", "tol": 1}, comparator),
        ("nope", preparer),
        ("nope", predicate),
    ):
        with pytest.raises(ValueError):
            fn(bad)


def test_every_visible_case_survives_the_plain_data_round_trip_bit_for_bit():
    for ex_id, ex in registry().items():
        for case in ex.all_cases():
            data = json.loads(json.dumps(to_plain((case.args, case.kwargs, ex.expected(case)))))
            args, kwargs, expected = from_plain(data)
            again = Case(args, kwargs, case.label, expected)
            assert check.__module__ and ex.compare(ex.expected(case), ex.expected(again)), ex_id
            for a, b in zip(case.args, args):
                if isinstance(a, np.ndarray):
                    assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
                elif callable(a):
                    x, t = np.eye(3), np.array([1.0, -1.0, 1.0])
                    assert np.array_equal(a(x, t), b(x, t)), ex_id
                else:
                    assert type(a) is type(b) and a == b, ex_id
    with pytest.raises(ValueError):
        from_plain({"object": "os.system"})
    with pytest.raises(TypeError):
        to_plain(object())


@pytest.fixture
def mistaken():
    def wrong_sign(v):
        return -(np.asarray(v) ** 2)

    ex = register(
        Exercise(
            id="97.square",
            title="square",
            reference=lambda v: np.asarray(v, dtype=float) ** 2,
            cases=[Case((np.array([1.0, 2.0]),))],
            hint=("first", "second"),
            withheld=1,
            mistakes=(
                Mistake("doubled", "you multiplied by 2", outputs=(np.array([2.0, 4.0]),)),
                Mistake("the sign", "squares are never negative", wrong=wrong_sign),
                Mistake("halved", "you divided by 2", predicate=lambda e, g: np.allclose(g, e / 2)),
                Mistake(
                    "ties",
                    "here the tie goes up",
                    predicate=lambda e, g: np.allclose(g, e + 1),
                    kind="convention",
                ),
            ),
        )
    )
    yield ex
    _registry._EXERCISES.pop("97.square", None)


@pytest.mark.parametrize(
    "answer, name",
    [
        (lambda v: 2 * v, "doubled"),
        (lambda v: -v * v, "the sign"),
        (lambda v: v * v / 2, "halved"),
        (lambda v: v * v + 1, "ties"),
        (lambda v: v + 7, None),
    ],
)
def test_check_names_a_catalogued_mistake(mistaken, capsys, answer, name):
    assert not check("97.square", answer)
    out = capsys.readouterr().out
    label = "Convention" if name == "ties" else "Common mistake"
    if name:
        assert f"{label}: {name} \u2014" in out and "expected" in out
        assert ("Common mistake" in out) == (label == "Common mistake")
    else:
        assert "Common mistake" not in out and "Convention" not in out


def test_a_mistake_kind_is_mistake_or_convention():
    assert Mistake("n", "e").line() == "Common mistake: n \u2014 e"
    assert Mistake("n", "e", kind="convention").line() == "Convention: n \u2014 e"
    with pytest.raises(ValueError, match="kind"):
        Mistake("n", "e", kind="habit")


def test_a_withheld_last_hint_says_when_it_comes(mistaken, capsys):
    hint("97.square")
    assert "hint 1 of 3" in capsys.readouterr().out
    hint("97.square", level=3)
    last = " ".join(capsys.readouterr().out.split())
    assert "not in this copy of the course yet: it comes with the solutions" in last and "second" not in last
    assert "due date" not in last  # no promise of a date nobody keeps for the student
    solution("97.square")
    assert "not in this copy of the course yet" in capsys.readouterr().out
    # (walk report 12) each pointer says how many levels there are now, not the total
    hint("97.square", level=2)
    said = " ".join(capsys.readouterr().out.split())
    assert said.startswith("second") and "level=3" not in said and "the last one in this copy for now" in said
    hint("97.square", level=4)
    said = " ".join(capsys.readouterr().out.split())
    assert "97.square has no hint level 4" in said and "2 levels in this copy now" in said
    assert not check("97.square", lambda v: v + 7)
    said = " ".join(capsys.readouterr().out.split())
    assert 'hint("97.square", level=2) and so on (2 levels in this copy now; the third' in said, said
    assert "(3 levels)" not in said
    solution(None)
    assert capsys.readouterr().out.startswith("unknown")


def test_book_points_minutes_and_partial_are_the_records():
    from kmlteach.course import book

    for c in book.load().chapters:
        for e in c.exercises:
            ex = get(e["id"])
            assert (e["points"], e["minutes"], e["partial"]) == (ex.points, ex.minutes, ex.partial)


def _records_naming_code():
    """(chapter, exercise id, [(what, name)]) for every instructor record: the names of
    functions of ``chNN.py`` it gives (reference, cases_from, each mistake's wrong)."""
    for chapter, path in record.chapter_files().items():
        if path.suffix != ".toml":
            continue
        for rec in record.load_chapter(path)["exercise"]:
            names = [("reference", rec.get("reference")), ("cases_from", rec.get("cases_from"))]
            names += [
                (f"mistake {m['name']!r}: wrong", m["wrong"]) for m in rec.get("mistakes", []) if "wrong" in m
            ]
            yield chapter, rec["id"], names


@pytest.mark.parametrize(
    "chapter, ex_id, names",
    list(_records_naming_code()),
    ids=lambda v: v if isinstance(v, str) and "." in v else "",
)
def test_every_function_a_record_names_is_in_its_chapter_code(chapter, ex_id, names):
    code = _registry.chapter_code()
    assert chapter in code, f"records/ch{chapter}.toml has no kmlteach/exercises/ch{chapter}.py"

    def usable(what, obj):  # the visible cases may be a list instead of a function drawing them
        return callable(obj) or (what == "cases_from" and isinstance(obj, (list, tuple)))

    module = code[chapter]
    missing = [
        f"{what} = {name!r}" for what, name in names if not usable(what, getattr(module, name or "", None))
    ]
    where = f"kmlteach/exercises/ch{chapter}.py"
    assert not missing, f"{ex_id}: nothing in {where} is named by " + "; ".join(missing)


def test_loading_a_record_that_names_a_missing_function_says_which(tmp_path):
    import types

    from kmlteach.exercises._registry import build_exercise

    rec = {"id": "01.x", "title": "t", "points": 1, "minutes": 5, "hints": ["a"]}
    code = types.SimpleNamespace(ref=abs, cases=lambda: [])
    with pytest.raises(
        ValueError, match=r"reference = 'gone' names no function of kmlteach/exercises/ch01.py"
    ):
        build_exercise({**rec, "reference": "gone", "cases_from": "cases"}, code, None)
    with pytest.raises(ValueError, match=r"cases_from = 'nope'"):
        build_exercise({**rec, "reference": "ref", "cases_from": "nope"}, code, None)
    with pytest.raises(ValueError, match=r"mistake 'm' names no function 'wrong_one'"):
        build_exercise(
            {
                **rec,
                "reference": "ref",
                "cases_from": "cases",
                "mistakes": [{"name": "m", "explain": "e", "wrong": "wrong_one"}],
            },
            code,
            None,
        )
    with pytest.raises(ValueError, match="ch01.py is missing"):
        build_exercise({**rec, "reference": "ref", "cases_from": "cases"}, None, None)
