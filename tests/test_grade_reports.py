"""Issue 35, point 6: reports that survive hostile shapes.

The similarity report never loses the gradebook or itself (a 270-term expression once
ended ``deepcopy`` in ``RecursionError``; two near-identical 12 000-node functions took
37 s), and sees through dead code (an ``if False:`` once hid a copy); the ids ``.``, ``..``
and ``...`` (files ``..ipynb``, ``...ipynb``, ``....ipynb``) get feedback files of their
own inside ``--feedback``; ``grade --show-cases ID --secret FILE [--chapter NN]`` needs
no SUBMISSIONS (COURSE.md, "The grading command").
"""

from __future__ import annotations

import subprocess
import sys
import time

import pytest
from grade_submissions import ROOT, dump, load, with_function

from kmlteach.course.grade import Limits, grade_folder
from kmlteach.course.grade.secret import show_cases
from kmlteach.course.grade.similarity import NEAR, find_similar, similarity_report

SECRET = b"0123456789abcdef-reports-secret"
PERCEPTRON = (
    "def batch_perceptron(X, y):\n    w = np.zeros(X.shape[1])\n    while True:\n"
    "        bad = np.flatnonzero(y * (X @ w) <= 0)\n        if bad.size == 0:\n            return w\n"
    "        w = w + y[bad[0]] * X[bad[0]]"
)


def _subs(**sources) -> dict[str, bytes]:
    nb = load()
    out = {}
    for name, (exercise, src) in sources.items():
        out[name] = dump(with_function(nb, exercise, src))
    return out


def _found(subs, exercise):
    return [f for f in find_similar(subs, dict.fromkeys(subs, "01")) if f["exercise"] == exercise]


def test_dead_code_does_not_hide_a_copy():
    padded = PERCEPTRON.replace(
        "    w = np.zeros(X.shape[1])\n",
        "    w = np.zeros(X.shape[1])\n    if False:\n        w = X.sum()\n    while 0:\n        pass\n"
        "    unused = np.linalg.norm(X)\n    'a note'\n    y\n",
    ).replace("            return w\n", "            return w\n            print('never')\n")
    renamed = PERCEPTRON.replace("bad", "wrong")
    other = (
        "def batch_perceptron(X, y):\n    w = np.zeros(X.shape[1])\n    for t in range(100000):\n"
        "        done = True\n        for i in range(len(y)):\n            if y[i] * np.dot(w, X[i]) <= 0:\n"
        "                w += y[i] * X[i]\n                done = False\n                break\n"
        "        if done:\n            return w\n    return w"
    )
    subs = _subs(
        a=("01.perceptron", PERCEPTRON),
        b=("01.perceptron", padded),
        c=("01.perceptron", renamed),
        d=("01.perceptron", PERCEPTRON.replace("<= 0", "< 0")),
        e=("01.perceptron", other),
    )
    found = _found(subs, "01.perceptron")
    identical = [f["members"] for f in found if f["kind"] == "identical"]
    assert ["a", "b", "c"] in identical, found
    near = [f for f in found if f["kind"] == "near"]
    assert any("d" in f["members"] and "a" in f["members"] and f["score"] >= NEAR for f in near), found
    assert not any("e" in f["members"] for f in found if f["kind"] != "library"), found


def test_a_deep_expression_and_huge_lists_cost_neither_the_report_nor_time():
    """A 270-term (and a 2000-term) expression, two lists of 12 000 zeros three elements
    apart, two of 12 000 distinct numbers one apart: the report is computed, names the pairs,
    and in seconds (difflib's matcher, quadratic in a repeated node, took 37-56 s)."""
    deep = "def distance(x, w, b):\n    return " + " + ".join(f"x[{i % 2}] * {i}" for i in range(270))
    deeper = "def distance(x, w, b):\n    return " + " - ".join(f"w[{i % 2}]" for i in range(2000))
    big = (
        "def hinge_and_subgradient(w, x, y):\n    L = ["
        + ", ".join(str(i) for i in range(12_000))
        + "]\n    return L"
    )
    zeros = (
        "def sgd_step(theta, t, lam, x, y):\n    L = ["
        + ", ".join("0" for _ in range(12_000))
        + "]\n    return L"
    )
    subs = _subs(
        deep1=("01.distance", deep),
        deep2=("01.distance", deep),
        deeper=("01.distance", deeper),
        big1=("01.hinge", big),
        big2=("01.hinge", big.replace(" 6000,", " 6001,")),
        zeros1=("01.sgd_step", zeros),
        zeros2=("01.sgd_step", zeros.replace(" 0, 0, 0,", " 0, 1, 0,", 3)),
    )
    t0 = time.process_time()  # CPU seconds: the machine's load does not count
    found = find_similar(subs, dict.fromkeys(subs, "01"))
    took = time.process_time() - t0
    assert {"kind": "identical", "members": ["deep1", "deep2"]}.items() <= next(
        f for f in found if f["exercise"] == "01.distance"
    ).items()
    assert any(f["kind"] == "near" and f["members"] == ["big1", "big2"] for f in found), found
    assert any(f["kind"] == "near" and f["members"] == ["zeros1", "zeros2"] for f in found), found
    assert took < 15, f"{took:.1f} CPU seconds (quiet: about 2; difflib took 37-56 on the zeros alone)"
    # a notebook the analysis cannot take is listed, never fatal
    from kmlteach.course.grade.scoring import SubmissionResult

    results = {k: SubmissionResult(k, chapter="01") for k in [*subs, "broken"]}
    html = similarity_report({**subs, "broken": b"\xff not json"}, results)
    assert "deep1<br>deep2" in html and "big1<br>big2" in html


def test_the_report_is_written_for_a_deep_submission(tmp_path):
    """End to end: the gradebook and the report, exit without error."""
    deep = "def distance(x, w, b):\n    return " + " + ".join(f"x[{i % 2}] * {i}" for i in range(270))
    subs = tmp_path / "subs"
    subs.mkdir()
    for name, data in _subs(deep=("01.distance", deep), copy=("01.distance", deep)).items():
        (subs / f"{name}.ipynb").write_bytes(data)
    report = tmp_path / "similar.html"
    results = grade_folder(
        subs, tmp_path / "gb.csv", limits=Limits(timeout=30), progress=None, similarity=report
    )
    assert [r.status for r in results] == ["ok", "ok"]
    assert (tmp_path / "gb.csv").exists() and "copy<br>deep" in report.read_text(encoding="utf-8")


def test_dot_ids_get_their_own_feedback_inside_the_folder(tmp_path):
    subs, fb = tmp_path / "subs", tmp_path / "out" / "fb"
    (subs / "group").mkdir(parents=True)
    names = ["..ipynb", "...ipynb", "....ipynb", ".ipynb", "%2E.ipynb", "group/..ipynb", "plain.ipynb"]
    for n in names:
        (subs / n).write_bytes(b"not a notebook")
    results = grade_folder(subs, tmp_path / "out" / "gb.csv", feedback=fb, progress=None)
    ids = sorted(r.submission for r in results)
    assert ids == sorted([".", "..", "...", ".ipynb", "%2E", "group/.", "plain"])
    written = sorted(p.relative_to(fb).as_posix() for p in fb.rglob("*") if p.is_file())
    assert written == sorted(
        f"{stem}.{ext}"
        for stem in ("%2E", "%2E.", "%2E..", "%2Eipynb", "%252E", "group/%2E", "plain")
        for ext in ("md", "html")
    ), written
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["fb", "gb.csv", "gb.csv.state.json"]
    for r in results:  # each file is its own submission's
        stem = {".": "%2E", "..": "%2E.", "...": "%2E..", "group/.": "group/%2E"}.get(r.submission)
        if stem:
            assert f"# Feedback: {r.submission}\n" in (fb / f"{stem}.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("chapter", [["--chapter", "01"], []], ids=["chapter", "every-chapter"])
def test_show_cases_needs_no_submissions(tmp_path, chapter):
    key = tmp_path / "grading.key"
    key.write_bytes(SECRET)
    out = subprocess.run(
        [sys.executable, "-m", "kmlteach", "grade", "--show-cases", "alice", "--secret", str(key), *chapter],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    assert show_cases("alice", "01", SECRET) in out.stdout
    if not chapter:
        assert "chapter 03" in out.stdout and "chapter 09" in out.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "kmlteach", "grade", "--out", str(tmp_path / "gb.csv")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert bad.returncode == 2 and "SUBMISSIONS" in bad.stderr and bad.stderr.count("\n") == 1


def test_the_feedback_says_the_count_once():
    from kmlteach.course.grade.feedback import feedback_markdown
    from kmlteach.course.grade.scoring import ExerciseResult, SubmissionResult

    msg = "3/14 cases passed (1/7 hidden: partial credit counts those)"
    r = SubmissionResult("alice", chapter="01")
    r.exercises = [ExerciseResult("01.distance", 0.14, 1.0, "partial", msg, 0.01, 3, 14)]
    (line,) = [ln for ln in feedback_markdown(r).splitlines() if "cases passed" in ln]
    assert line == f"- {msg}; time on the visible cases 0.010 s"
