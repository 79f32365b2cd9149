"""Issue 24, points 2, 3 and 6: per-student hidden cases (``--secret``, ``--show-cases``),
the isolation line and the root policy, and the similarity report."""

from __future__ import annotations

import inspect
import io
import os
import subprocess
import sys

import numpy as np
import pytest
from grade_submissions import ROOT, dump, honest_variants, load, with_function

from kmlteach.course.grade import GradeError, Limits, grade_folder
from kmlteach.course.grade.cases import _module, hidden_cases, student_seed
from kmlteach.course.grade.isolation import mode
from kmlteach.course.grade.isolation.bwrap import bwrap_problem
from kmlteach.course.grade.isolation.cgroup import cgroup_problem
from kmlteach.course.grade.plan import chapter_plan, student_plan
from kmlteach.course.grade.secret import show_cases
from kmlteach.course.grade.similarity import find_similar

SECRET = b"0123456789abcdef-test-secret"


def _hidden_args(plan):
    return {ex.id: [repr(c.encoded) for c in ex.cases if not c.visible] for ex in plan.exercises}


@pytest.mark.parametrize("chapter", ["01", "02", "03", "04", "05", "06", "07", "08", "09"])
def test_students_get_their_own_hidden_cases_of_the_same_kinds(chapter):
    a, b = (student_plan(chapter, None, SECRET, s) for s in ("alice", "bob"))
    again = student_plan(chapter, None, SECRET, "alice")
    other_key = student_plan(chapter, None, SECRET + b"x", "alice")
    base = chapter_plan(chapter)
    for ea, eb, e0, er, ek in zip(
        a.exercises, b.exercises, base.exercises, again.exercises, other_key.exercises
    ):
        kinds = {c.label for c in e0.cases if not c.visible}
        assert {c.label for c in ea.cases if not c.visible} >= kinds  # labelled by kind, as before
        assert [c.encoded for c in ea.cases if c.visible] == [c.encoded for c in e0.cases if c.visible]
        ha, hb = _hidden_args(a)[ea.id], _hidden_args(b)[eb.id]
        assert ha != hb, f"{ea.id}: alice and bob share every hidden input"
        assert len(set(ha) & set(hb)) < len(ha), ea.id
        assert ha == _hidden_args(again)[er.id]  # reproducible
        assert ha != _hidden_args(other_key)[ek.id]  # depends on the secret


def test_without_a_secret_the_cases_are_today_s():
    for ex in chapter_plan("01").exercises:
        mine = [repr(c.encoded) for c in ex.cases if not c.visible]
        from kmlteach.course.grade.codec import encode

        assert mine == [repr(encode(h.args, h.kwargs)) for h in hidden_cases(ex.id)]
    gen = _module("01").CASES.generators["01.distance"]
    assert inspect.signature(gen).parameters["seed"].default == 101
    assert student_seed(SECRET, "alice", "01.distance") != student_seed(SECRET, "bob", "01.distance")
    with pytest.raises(ValueError, match="secret"):
        student_seed(b"", "alice", "01.distance")


def test_show_cases_reproduces_one_student_s_cases(tmp_path):
    text = show_cases("alice", "01", SECRET)
    plan = student_plan("01", None, SECRET, "alice")
    hid = [c for c in plan.exercises[0].cases if not c.visible]
    assert f"[{hid[-1].label}]" in text and "expected:" in text
    x = np.frombuffer(__import__("base64").b64decode(hid[-1].encoded[0]["T"][0]["A"][2]))
    assert f"{x[0]:.6f}"[:7] in text
    key = tmp_path / "grading.key"
    key.write_bytes(SECRET)
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "alice.ipynb").write_bytes(honest_variants()["honest"][0])
    out = subprocess.run(
        [sys.executable, "-m", "kmlteach", "grade", str(subs), "--show-cases", "alice", "--secret", str(key)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout == text
    bad = subprocess.run(
        [sys.executable, "-m", "kmlteach", "grade", str(subs), "--show-cases", "alice"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    # a misused option is a usage error: one line, exit status 2 (kmlteach.__main__.UsageError)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "--secret" in bad.stderr
    (tmp_path / "short.key").write_bytes(b"short")
    with pytest.raises(ValueError, match="--secret"):
        grade_folder(subs, tmp_path / "gb.csv", secret=tmp_path / "short.key", progress=None)


def test_grading_with_a_secret_and_a_similarity_report(tmp_path):
    """Instructor solutions score full marks on their own hidden cases; the report names a
    renamed copy and a copy of the library's perceptron kernel, and changes no points."""
    nb = load()
    renamed = with_function(
        nb,
        "01.perceptron",
        (
            'def batch_perceptron(A, labels):\n    """my own"""\n    vec = np.zeros(A.shape[1])  # start\n'
            "    while True:\n        wrong = np.flatnonzero(labels * (A @ vec) <= 0)\n"
            "        if wrong.size == 0:\n            return vec\n"
            "        vec = vec + labels[wrong[0]] * A[wrong[0]]"
        ),
    )
    import kmlteach.svm  # noqa: F401  (the module of the kernel)

    kernel = inspect.getsource(sys.modules["kmlteach.svm.perceptron"]._perceptron_kernel.py_func)
    kernel = kernel.split("\n", 1)[1].replace("_perceptron_kernel", "_my_kernel")  # no decorator
    copied = with_function(
        nb,
        "01.perceptron",
        kernel
        + (
            "\n\ndef batch_perceptron(X, y):\n"
            "    return _my_kernel(np.asarray(X, dtype=float), np.asarray(y, dtype=float), 100000)[0]"
        ),
    )
    subs = tmp_path / "subs"
    subs.mkdir()
    for name, data in {"alice": dump(nb), "bob": dump(renamed), "carol": dump(copied)}.items():
        (subs / f"{name}.ipynb").write_bytes(data)
    key = tmp_path / "grading.key"
    key.write_bytes(SECRET)
    report = tmp_path / "similar.html"
    results = grade_folder(
        subs,
        tmp_path / "gb.csv",
        limits=Limits(timeout=30),
        jobs=2,
        progress=None,
        secret=key,
        similarity=report,
    )
    assert [(r.submission, r.total, r.status) for r in results] == [
        ("alice", 13, "ok"),
        ("bob", 13, "ok"),
        ("carol", 13, "ok"),
    ]
    html = report.read_text(encoding="utf-8")
    assert "alice<br>bob" in html and "01.perceptron" in html
    assert "carol<br>kmlteach.svm.perceptron._perceptron_kernel" in html
    found = find_similar(
        {p.stem: p.read_bytes() for p in subs.iterdir()}, {"alice": "01", "bob": "01", "carol": "01"}
    )
    perc = [f for f in found if f["exercise"] == "01.perceptron"]
    assert {"kind": "identical", "members": ["alice", "bob"]}.items() <= next(
        f for f in perc if f["kind"] == "identical"
    ).items()
    assert not any(f["kind"] == "identical" and "carol" in f["members"] for f in perc)


def test_the_isolation_line_and_the_root_policy(tmp_path, monkeypatch):
    subs = tmp_path / "subs"
    subs.mkdir()
    err = io.StringIO()
    grade_folder(subs, tmp_path / "gb.csv", progress=err)
    line = err.getvalue().splitlines()[0]
    assert line.startswith("sandbox: ")
    if bwrap_problem() is None:
        assert "bwrap (pid ipc net mount uts namespaces" in line and "no capabilities" in line
    if cgroup_problem() is None:
        assert "cgroup pids<=64 memory<=2000 MB" in line
    assert (
        "files: allowlist" in line
        and "seccomp (no user namespaces, connect, io_uring, SysV IPC, mqueues, keyrings, others' rlimits)"
        in line
    )
    if os.geteuid() == 0 and bwrap_problem() is None:  # the kernel is not root on the host
        assert "a dedicated uid per kernel" in line and "user namespace," not in line
    # a root grader without bwrap and without a usable uid refuses, in one line
    monkeypatch.setattr(mode.os, "geteuid", lambda: 0)
    monkeypatch.setattr(mode, "runs_on_host", lambda: False)
    mode._detect.cache_clear()
    try:
        with pytest.raises(GradeError, match="--unsafe-allow-root-kernels") as exc:
            grade_folder(subs, tmp_path / "gb.csv", limits=Limits(bwrap=False), progress=None)
        assert "\n" not in str(exc.value)
        grade_folder(subs, tmp_path / "gb.csv", limits=Limits(bwrap=False), progress=None, unsafe_root=True)
        monkeypatch.setattr(mode, "runs_on_host", lambda: True)
        mode._detect.cache_clear()
        assert mode.detect(Limits(bwrap=False)).refusal() is None
    finally:
        mode._detect.cache_clear()
