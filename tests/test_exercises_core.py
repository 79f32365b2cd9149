"""check / hint / solution, the results log, and the student-version writer."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from kmlteach import exercises
from kmlteach.course.release import STUB, strip_solutions, student_notebook
from kmlteach.exercises import Case, Exercise, Result, _registry, check, core, register

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def square_ex():
    ex = Exercise(
        id="99.square",
        title="square a vector",
        reference=lambda v: np.asarray(v) ** 2,
        cases=lambda: [Case((np.arange(3.0),)), Case((np.array([-1.5, 2.0]),), label="negatives")],
        hint="multiply v by itself",
        solution="def square(v):\n    return v * v\n",
    )
    register(ex)
    yield ex
    _registry._EXERCISES.pop("99.square", None)


def test_correct_function_passes(square_ex, capsys):
    assert check("99.square", lambda v: v * v)
    out = capsys.readouterr().out
    assert "✓ 99.square" in out
    assert "visible cases passed (2/2) — the grade also uses hidden cases" in out
    assert "all" not in out.split("\n", 1)[1]


@pytest.mark.parametrize("exc", [SystemExit(3), GeneratorExit(), type("Odd", (BaseException,), {})()])
def test_base_exceptions_from_the_student_are_reported_not_raised(square_ex, capsys, exc):
    def f(v):
        raise exc

    assert not check("99.square", f)
    out = capsys.readouterr().out
    assert f"raised {type(exc).__name__}" in out and "case 1/2" in out


def test_keyboard_interrupt_passes_through(square_ex):
    def f(v):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        check("99.square", f)


def test_unprintable_exceptions_and_lying_objects_never_raise(square_ex, capsys):
    class Nasty(Exception):
        def __str__(self):
            raise SystemExit("no")

    class Liar:
        def __eq__(self, other):
            raise SystemExit("eq")

        __array__ = __float__ = __repr__ = __eq__

    def raises_nasty(v):
        raise Nasty

    assert not check("99.square", raises_nasty)
    assert not check("99.square", lambda v: Liar())
    out = capsys.readouterr().out
    assert "raised Nasty" in out and "SystemExit" in out


def test_a_broken_stdout_does_not_make_check_raise(square_ex, monkeypatch):
    class Broken:
        def write(self, text):
            raise SystemExit("stdout closed")

        flush = write

    monkeypatch.setattr(sys, "stdout", Broken())
    assert check("99.square", lambda v: v * v)
    assert not check("99.square", lambda v: v)
    assert not check("no.such", lambda v: v)


def test_endless_loop_is_stopped_with_a_clear_verdict(square_ex, capsys, tmp_path, monkeypatch):
    import time

    log = tmp_path / "results.jsonl"
    monkeypatch.setenv("KMLTEACH_RESULTS", str(log))

    def spin(v):
        while True:
            pass

    t0 = time.monotonic()
    assert not check("99.square", spin, seconds=0.5)
    assert time.monotonic() - t0 < 3
    out = capsys.readouterr().out
    assert "still running after 0.5 s" in out and "case 1/2" in out
    assert json.loads(log.read_text())["status"] == "timeout"


def test_a_loop_that_swallows_the_first_stop_is_stopped_again(square_ex, capsys):
    import time

    def stubborn(v):
        try:
            while True:
                time.sleep(0.001)
        except BaseException:
            pass
        while True:
            pass

    t0 = time.monotonic()
    assert not check("99.square", stubborn, seconds=0.3)
    assert time.monotonic() - t0 < 3 and "still running" in capsys.readouterr().out


def test_time_limit_off_the_main_thread(square_ex):
    import threading

    result = {}

    def spin(v):
        while True:
            pass

    t = threading.Thread(
        target=lambda: result.setdefault("ok", bool(check("99.square", spin, seconds=0.3, verbose=False)))
    )
    t.start()
    t.join(10)
    assert not t.is_alive() and result["ok"] is False
    assert check("99.square", lambda v: v * v, verbose=False)


def test_an_outer_alarm_timer_is_restored(square_ex):
    import signal

    fired = []
    old = signal.signal(signal.SIGALRM, lambda *a: fired.append(1))
    try:
        signal.setitimer(signal.ITIMER_REAL, 30.0)
        assert check("99.square", lambda v: v * v, verbose=False)
        left, _ = signal.getitimer(signal.ITIMER_REAL)
        assert 25 < left <= 30 and not fired
        assert signal.getsignal(signal.SIGALRM) is not None
        signal.setitimer(signal.ITIMER_REAL, 0.05)
        import time

        time.sleep(0.2)
        assert fired == [1]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def test_a_slow_but_finishing_function_is_not_stopped(square_ex):
    import time

    def slow(v):
        time.sleep(0.2)
        return v * v

    assert check("99.square", slow, seconds=2, verbose=False)


def test_check_documents_that_it_is_not_secure():
    doc = check.__doc__ + core.__doc__
    assert "Not secure" in doc and "never" in doc and "forged" in doc


def test_check_returns_a_result_that_jupyter_does_not_display(square_ex, capsys):
    from IPython.core.formatters import DisplayFormatter

    good, bad = check("99.square", lambda v: v * v), check("99.square", lambda v: v + v)
    assert isinstance(good, Result) and good.ok is True and good.status == "passed" and good.id == "99.square"
    assert bad.ok is False and bad.status == "wrong" and "expected" in bad.message
    assert DisplayFormatter().format(good) == ({}, {}) and DisplayFormatter().format(bad) == ({}, {})
    assert "ok=True" in repr(good)  # outside Jupyter, a plain repr
    capsys.readouterr()


def test_feedback_lines_wrap_at_word_boundaries(square_ex, capsys):
    from kmlteach.exercises.output import WIDTH, wrap

    long = "a " * 30 + "supercalifragilistic " * 4 + "x" * 100
    lines = wrap(long).splitlines()
    assert all(len(ln) <= WIDTH or " " not in ln.strip() for ln in lines)
    assert " ".join(" ".join(lines).split()) == " ".join(long.split())  # no word cut, none lost
    assert lines[1].startswith("  ") and wrap("  short") == "  short"
    check("99.square", lambda v: v + v)
    out = capsys.readouterr().out
    assert max(map(len, out.splitlines())) <= WIDTH


def test_wrong_function_reports_case_expected_and_got(square_ex, capsys):
    assert not check("99.square", lambda v: v + v)
    out = capsys.readouterr().out
    assert "✗ 99.square" in out and "expected" in out and "got" in out and "case 1/2" in out


def test_stub_reports_not_implemented(square_ex, capsys):
    def square(v):
        raise NotImplementedError

    assert not check("99.square", square)
    assert "not implemented yet" in capsys.readouterr().out


def test_exception_in_student_code_never_raises(square_ex, capsys):
    assert not check("99.square", lambda v: 1 / 0)
    assert "ZeroDivisionError" in capsys.readouterr().out
    assert not check("99.square", "not a function")
    assert not check("no.such.exercise", lambda v: v)
    assert "unknown exercise" in capsys.readouterr().out


def test_student_cannot_corrupt_the_reference_inputs(square_ex):
    def mutating(v):
        v[:] = 0
        return v * v

    assert not check("99.square", mutating, verbose=False)


def test_wrong_shape_fails(square_ex):
    assert not check("99.square", lambda v: (v * v)[:1], verbose=False)


def test_results_log(square_ex, tmp_path, monkeypatch):
    log = tmp_path / "results.jsonl"
    monkeypatch.setenv("KMLTEACH_RESULTS", str(log))
    check("99.square", lambda v: v * v, verbose=False)
    check("99.square", lambda v: v, verbose=False)
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    assert [r["passed"] for r in rows] == [True, False] and {r["kind"] for r in rows} == {"exercise"}
    assert rows[1]["status"] == "wrong" and rows[0]["id"] == "99.square"


def test_hint_and_solution_print_once_and_return_nothing(square_ex, capsys):
    assert exercises.hint("99.square") is None
    assert capsys.readouterr().out == "multiply v by itself\n"
    assert exercises.solution("99.square") is None
    assert capsys.readouterr().out == "def square(v):\n    return v * v\n\n"


def test_duplicate_id_rejected(square_ex):
    with pytest.raises(ValueError, match="registered twice"):
        register(Exercise(id="99.square", title="x", reference=abs, cases=[], hint="", solution=""))


def test_every_registered_reference_passes_its_own_check():
    for ex_id, ex in exercises.registry().items():
        assert check(ex_id, ex.reference, verbose=False), ex_id


# --- student version -------------------------------------------------------------------

SRC = '''def f(x):
    """doc"""
    ### BEGIN SOLUTION
    y = x + 1
    return y
    ### END SOLUTION

check("01.x", f)'''


def test_strip_solutions_keeps_indentation_and_surroundings():
    out = strip_solutions(SRC)
    assert "y = x + 1" not in out and "BEGIN SOLUTION" not in out
    assert f"    {STUB}" in out.splitlines()
    assert out.startswith('def f(x):\n    """doc"""') and out.endswith('check("01.x", f)')
    ns = {}
    exec(out.replace('check("01.x", f)', ""), ns)
    with pytest.raises(NotImplementedError):
        ns["f"](1)


@pytest.mark.parametrize(
    "bad",
    [
        "### BEGIN SOLUTION\nx",
        "x\n### END SOLUTION",
        "### BEGIN SOLUTION\n### BEGIN SOLUTION\n### END SOLUTION",
    ],
)
def test_unbalanced_markers_are_errors(bad):
    with pytest.raises(ValueError):
        strip_solutions(bad)


def test_student_notebook_clears_outputs():
    nb = {
        "cells": [
            {
                "cell_type": "code",
                "source": SRC.splitlines(True),
                "outputs": [{"x": 1}],
                "execution_count": 3,
                "metadata": {},
            },
            {"cell_type": "markdown", "source": ["# Title"], "metadata": {}},
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    out = student_notebook(nb)
    assert out["cells"][0]["outputs"] == [] and out["cells"][0]["execution_count"] is None
    assert STUB in out["cells"][0]["source"]
    assert nb["cells"][0]["outputs"] == [{"x": 1}], "input notebook must not be modified"


def test_student_cli_and_student_chapter_01_runs_under_nbval_lax(tmp_path):
    out = tmp_path / "student"
    subprocess.run(
        [sys.executable, "-m", "kmlteach", "student", str(ROOT / "notebooks"), str(out)],
        check=True,
        capture_output=True,
        text=True,
    )
    nb_path = out / "01-svm.ipynb"
    assert nb_path.exists()
    text = nb_path.read_text()
    assert "### BEGIN SOLUTION" not in text and "NotImplementedError" in text
    log = tmp_path / "results.jsonl"
    env = {**__import__("os").environ, "KMLTEACH_RESULTS": str(log)}
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--nbval-lax",
            "--nbval-current-env",
            "-o",
            "addopts=",
            str(nb_path),
        ],
        capture_output=True,
        text=True,
        cwd=out,
        env=env,
        timeout=600,
    )
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    rows = [row for row in rows if row["kind"] == "exercise"]
    assert rows and all(row["status"] == "not-implemented" for row in rows)


def test_endless_loop_is_stopped_inside_a_jupyter_kernel(tmp_path):
    """Where students run it: a real kernel (cells run on its main thread, SIGALRM); and
    what a cell ending with check/ask/hint/solution shows there: the message once, no Out."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell(
            "from kmlteach.exercises import ask, check, hint, solution\n"
            "def margins(X, y, w):\n    while True:\n        pass\n"
            "print(bool(check('00.margins', margins, seconds=1)))"
        ),
        nbformat.v4.new_code_cell("check('00.margins', lambda X, y, w: y * (X @ w))"),
        nbformat.v4.new_code_cell("check('00.margins', lambda X, y, w: X @ w)"),
        nbformat.v4.new_code_cell("ask('00.c_sign', 'a')"),
        nbformat.v4.new_code_cell("hint('00.margins')"),
        nbformat.v4.new_code_cell("solution('00.margins')"),
    ]
    NotebookClient(
        nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}
    ).execute()
    text = "".join(o.get("text", "") for o in nb.cells[0].outputs)
    assert "still running after 1 s" in text and text.strip().endswith("False"), text
    for cell in nb.cells[1:]:
        kinds = [o["output_type"] for o in cell.outputs]
        assert kinds == ["stream"], (cell.source, cell.outputs)  # printed once, no Out[n]
    assert "visible cases passed" in nb.cells[1].outputs[0]["text"]
    assert nb.cells[4].outputs[0]["text"].count("(hint 1 of") == 1
