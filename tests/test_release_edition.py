"""The student edition (kmlteach/course/edition.py): what it holds, the leak test (no
piece of the answer key in any file, its wheel or its .pyc), its links and placeholders,
reveal. The edition installed in a venv of its own by its own `make lab` and every
notebook, exercise and question of it worked through in JupyterLab: tests/test_journey.py."""

from __future__ import annotations

import compileall
import json
import os
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from kmlteach.course import book as book_mod
from kmlteach.course.edition import MARKER, EditionError, leaks, publish, reveal, secrets
from kmlteach.exercises import registry

ROOT = Path(__file__).resolve().parent.parent
B = book_mod.load()


@pytest.fixture(scope="module")
def edition(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("edition") / "kmlteach-student"
    REPORTED[:] = []
    publish(out, report=REPORTED.append)
    return out


REPORTED: list[str] = []  # what publish() reported while writing the module's edition


@pytest.fixture(scope="module")
def answer_key():
    return secrets()


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_the_edition_holds_what_students_need_and_nothing_of_the_instructor(edition):
    names = set(_files(edition))
    ready = [c for c in B.chapters if c.ready]
    assert {f"notebooks/{Path(c.notebook).name}" for c in ready} <= names
    assert not [n for n in names if n.startswith(("kmlteach/course/grade", "notebooks/src"))]
    assert not [
        n
        for n in names
        if n.startswith("kmlteach/exercises/ch") or n.endswith(".toml") and n.startswith("kmlteach/")
    ]
    assert {
        "README.md",
        "pyproject.toml",
        "environment.yml",
        "postBuild",
        "Makefile",
        "setup.py",
        "book.toml",
        "kmlteach/exercises/records/ch01.json",
        "kmlteach/course/coursemap.py",
        "jupyter/server_config/kmlteach.json",
    } <= names
    for name, data in _files(edition).items():  # (record.py names the marker to parse it)
        assert b"### BEGIN SOLUTION" not in data or name == "kmlteach/exercises/record.py", name
    readme = (edition / "README.md").read_text(encoding="utf-8")
    for c in ready:
        nb = f"notebooks/{Path(c.notebook).name}"
        assert B.binder_url(nb, B.student_repository) in readme and B.hub_url(nb) in readme
        released = (edition / nb).read_text(encoding="utf-8")
        assert B.binder_url(c.notebook) not in released
    assert "git-pull?repo=https%3A%2F%2Fgithub.com%2Fkmlteach%2Fkmlteach-student" in readme
    assert "optional-dependencies" not in (edition / "pyproject.toml").read_text(encoding="utf-8")
    assert book_mod.load(edition / "book.toml").repository == B.student_repository
    assert os.access(edition / "postBuild", os.X_OK)
    assert "lab:" in (edition / "Makefile").read_text(encoding="utf-8")
    # the README's hub links go through nbgitpuller: the environment a hub builds has it
    env = (edition / "environment.yml").read_text(encoding="utf-8")
    assert "  - nbgitpuller>=1.2,<2\n" in env and "nbgitpuller" not in (ROOT / "environment.yml").read_text()
    assert env.replace("  - nbgitpuller>=1.2,<2\n", "") == (ROOT / "environment.yml").read_text()


def test_every_link_of_the_edition_resolves_inside_it_and_the_glossary_ships(edition):
    """Each relative link of the README and the notebooks (the glossary's ``../docs/
    glossary.md`` in all ten) names a file of the edition; only linked pages of docs/ ship."""
    from kmlteach.course._edition_files import local_links

    assert (edition / "docs" / "glossary.md").read_bytes() == (ROOT / "docs" / "glossary.md").read_bytes()
    assert {p.name for p in (edition / "docs").iterdir()} == {"glossary.md"}
    linking = [edition / "README.md", *sorted((edition / "notebooks").glob("*.ipynb"))]
    seen = set()
    for path in linking:
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".ipynb":
            cells = json.loads(text)["cells"]
            text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
        for link in local_links(text):
            target = (path.parent / link).resolve()
            assert target.is_relative_to(edition.resolve()) and target.is_file(), (path.name, link)
            seen.add(str(target.relative_to(edition.resolve())))
    assert "docs/glossary.md" in seen and "notebooks/02-kernels.ipynb" in seen


def test_publish_warns_once_for_each_placeholder_it_writes(edition, tmp_path):
    import dataclasses

    lines = list(REPORTED)
    warnings = [ln for ln in lines if ln.startswith("warning:")]
    assert len(warnings) == 2 and lines[-1].startswith("wrote the student edition"), lines
    hub, repo = warnings
    assert "jupyterhub" in hub and "hub.kmlteach.example.org" in hub and "README.md" in hub
    assert "student_repository" in repo and "kmlteach-student" in repo and "10 notebooks" in repo
    assert all("\n" not in w for w in warnings)
    # a course's own values: nothing to warn about
    own = dataclasses.replace(
        B, jupyterhub="https://hub.cs.uni.edu", student_repository="https://github.com/uni/ml-student"
    )
    lines.clear()
    publish(tmp_path / "b", book=own, report=lines.append)
    assert not [ln for ln in lines if ln.startswith("warning:")], lines
    assert "https://hub.cs.uni.edu/hub/user-redirect/git-pull" in (tmp_path / "b" / "README.md").read_text()


def test_publish_refuses_a_notebook_link_that_the_edition_would_not_hold(tmp_path, monkeypatch):
    from kmlteach.course import edition as edition_mod

    real = edition_mod.student_notebook

    def with_a_dead_link(nb, *args, **kwargs):
        out = real(nb, *args, **kwargs)
        out["cells"].append(
            {"cell_type": "markdown", "metadata": {}, "source": "see [notes](../docs/nowhere.md)"}
        )
        return out

    monkeypatch.setattr(edition_mod, "student_notebook", with_a_dead_link)
    with pytest.raises(EditionError, match=r"links to \.\./docs/nowhere\.md, which is not in the edition"):
        publish(tmp_path / "c", report=lambda msg: None)


def test_the_editions_make_lab_talks_and_opens_the_welcome_chapter(edition):
    """make lab's recipe (as make -n shows it): a line per step, the warm-up with its count
    of kernels, JupyterLab's address on notebooks/00-welcome.ipynb (not the Launcher)."""
    run = subprocess.run(
        ["make", "-n", "lab", "INSTALLER=pip"], cwd=edition, capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 0, run.stderr
    steps = [ln for ln in run.stdout.splitlines() if ln.startswith("echo")]
    assert [s.split("]")[0] for s in steps] == ['echo "[1/3', 'echo "[1/3', 'echo "[2/3', 'echo "[3/3'], steps
    assert (
        "kernels ready in" in run.stdout
        and "--LabApp.default_url=/lab/tree/notebooks/00-welcome.ipynb" in run.stdout
    )
    readme = (edition / "README.md").read_text(encoding="utf-8")
    assert "`[2/3] warm-up`" in readme and "00-welcome.ipynb" in readme


def _python_in(edition: Path, *argv: str) -> subprocess.CompletedProcess:
    """This interpreter with the edition's package first on the path, in the edition."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "KMLTEACH_AOT", "KMLTEACH_AOT_DIR")}
    env["PYTHONPATH"] = str(edition)
    return subprocess.run(
        [sys.executable, *argv], capture_output=True, text=True, cwd=edition, env=env, timeout=300
    )


def test_student_facing_messages_name_no_instructor_command(edition):
    """check_env in the edition (00-welcome runs it) names no instructor command: the
    ahead-of-time build is a server's optimisation, not a student's chore."""
    from kmlteach.__main__ import INSTRUCTOR_ONLY

    run = _python_in(edition, "-m", "kmlteach", "check-env")
    assert run.returncode == 0, run.stderr[-2000:]
    assert "ahead of time" in run.stdout and "nothing to do" in run.stdout, run.stdout
    assert "--aot" not in run.stdout and "python -m kmlteach" not in run.stdout, run.stdout
    assert not [c for c in INSTRUCTOR_ONLY if f"kmlteach {c}" in run.stdout]


def test_no_piece_of_the_answer_key_in_the_edition_its_wheel_or_its_pyc(edition, answer_key, tmp_path):
    kinds = {what.split(" of ")[0] for what, _ in answer_key}
    assert kinds == {"solution line", "reference", "last hint", "hidden case"}
    assert len(answer_key) > 500
    work = tmp_path / "edition"
    shutil.copytree(edition, work)
    assert compileall.compile_dir(str(work / "kmlteach"), quiet=2)
    wheel = subprocess.run(
        [sys.executable, "-m", "uv", "build", "--wheel", "-q", "--out-dir", str(work / "dist"), str(work)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert wheel.returncode == 0, wheel.stderr[-2000:]
    assert list((work / "dist").glob("*.whl"))
    assert len(list(work.rglob("*.pyc"))) > 50
    assert leaks(work, answer_key) == []
    # the search finds a planted piece of each kind (text, stripped lines, a double's bytes,
    # a hidden case whose values are short decimals as the run of its values)
    plant = {
        what.split(" of ")[0]: secret for what, secret in answer_key if " " not in secret or what[0] != "h"
    }
    run_what, run = next((w, s) for w, s in answer_key if w.startswith("hidden") and " " in s)
    (work / "planted.py").write_text(f"CASE = ({', '.join(run.split())},)\n")
    (work / "planted.md").write_text(
        "\n".join("    " + ln for ln in plant["reference"].splitlines())
        + "\n"
        + plant["last hint"]
        + "\n"
        + plant["solution line"]
    )
    (work / "planted.bin").write_bytes(b"\x00" + struct.pack("<d", float(plant["hidden case"])))
    found = {(what.split(" of ")[0], where) for what, where in leaks(work, answer_key)}
    assert {
        ("reference", "planted.md"),
        ("last hint", "planted.md"),
        ("solution line", "planted.md"),
        ("hidden case", "planted.bin"),
    } <= found
    assert (run_what, "planted.py") in leaks(work, answer_key)


def test_hidden_values_count_unless_the_edition_shows_them(answer_key):
    """Every value of a hidden case is part of the answer key, short decimals included,
    except those the edition's public data holds too (visible cases, their outputs, the
    shipped data files); drawn values are searched alone, short ones as their case's run."""
    from kmlteach.course.edition import DRAWN, _floats, _public_values
    from kmlteach.course.grade.cases import hidden_cases

    public = _public_values(B)
    assert "1.0" in public and len(public) > 1000
    hidden = [(w, s) for w, s in answer_key if w.startswith("hidden")]
    singles = {s for _, s in hidden if " " not in s}
    runs = {s for _, s in hidden if " " in s}
    assert runs and all(any(len(v) < DRAWN and v not in public for v in r.split()) for r in runs)
    counted = singles | {v for r in runs for v in r.split()}
    for ex_id in registry():
        for h in hidden_cases(ex_id):
            for v in map(repr, _floats([h.args, h.kwargs])):
                assert v in public or v in counted, f"{ex_id}: hidden value {v} is not counted"
    assert not singles & public


def test_instructor_commands_refuse_in_one_line_inside_the_edition(edition):
    """In the student edition, grade, release, publish-student, reveal and the other
    instructor commands say so in one line (no traceback); the students' ones run."""

    def cli(*argv):
        return _python_in(edition, *argv)

    probe = cli("-c", "import kmlteach; print(kmlteach.__file__)")
    assert Path(probe.stdout.strip()).resolve().is_relative_to(edition.resolve()), probe.stderr
    for argv in (
        ["grade", "subs", "--out", "gb.csv"],
        ["release", "01", "--out", "x"],
        ["publish-student", "--out", "x"],
        ["reveal", "01", "--edition", "."],
        ["execute", "01-svm"],
        ["nbgrader-export", "01", "--course", "c"],
        ["site"],
        ["slides"],
        ["student", "a", "b"],
    ):
        run = cli("-m", "kmlteach", *argv)
        assert run.returncode == 2 and "Traceback" not in run.stderr, (argv, run.stderr[-1500:])
        lines = run.stderr.strip().splitlines()
        assert len(lines) == 1 and "student edition" in lines[0], (argv, run.stderr)
    run = cli("-m", "kmlteach", "chapters")
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr[-1500:]


def test_a_solution_line_the_library_holds_may_repeat_outside_its_markers():
    """The release guard refuses a notebook that repeats a solution line outside its
    markers, except a line of the shipped library (public anyway: ``for i in range(r):``,
    which chapter 06's own code and a solution share)."""
    from kmlteach.course._release_guard import library_lines
    from kmlteach.course.release import ReleaseError, student_notebook

    assert "for i in range(r):" in library_lines()
    assert not [ln for ln in library_lines() if "### BEGIN SOLUTION" in ln]

    def notebook(shown: str) -> dict:
        solution = "def f(r):\n    ### BEGIN SOLUTION\n    for i in range(r):\n        total_of_squares = i * i\n    ### END SOLUTION\n"
        cells = [
            {"cell_type": "code", "metadata": {}, "source": src, "outputs": [], "execution_count": None}
            for src in (solution, shown)
        ]
        return {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells}

    student_notebook(notebook("for i in range(r):\n    print(i)"), "01")
    with pytest.raises(ReleaseError, match="repeats a line of a solution"):
        student_notebook(notebook("total_of_squares = i * i"), "01")


def test_publish_refuses_the_instructor_repository_and_foreign_folders(tmp_path):
    with pytest.raises(EditionError, match="outside the instructor"):
        publish(ROOT / "build" / "edition", report=lambda msg: None)
    (tmp_path / "mine.txt").write_text("not an edition")
    with pytest.raises(EditionError, match="not an edition"):
        publish(tmp_path, report=lambda msg: None)


def _in_edition(folder: Path, code: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(folder)}
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=folder, timeout=300
    )
    assert run.returncode == 0, run.stderr[-2000:]
    return run.stdout


def test_reveal_adds_one_chapters_solutions_and_last_hints_and_nothing_else(edition, answer_key, tmp_path):
    work = tmp_path / "edition"
    shutil.copytree(edition, work)
    before = _files(work)
    code = (
        "import kmlteach; from kmlteach.exercises import solution, hint; "
        "print(kmlteach.__file__); solution('01.distance'); hint('01.distance', level=3)"
    )
    out = _in_edition(work, code)
    assert out.startswith(str(work)) and out.count("not in this copy of the course yet") == 2
    reveal("01", work)
    after = _files(work)
    changed = {n for n in after if before.get(n) != after[n]}
    assert changed == {"kmlteach/exercises/records/revealed-ch01.json", MARKER}
    assert json.loads(after[MARKER])["revealed"] == ["01"]
    assert leaks(work, secrets(exclude=("01",))) == []
    ch01 = [s for s in answer_key if " of 01" in s[0] and not s[0].startswith("hidden")]
    assert {where for _, where in leaks(work, ch01)} == {"kmlteach/exercises/records/revealed-ch01.json"}
    out = _in_edition(
        work,
        "from kmlteach.exercises import solution, hint, get; "
        "solution('01.distance'); hint('01.distance', level=3); solution('02.gram')",
    )
    flat = " ".join(out.split())  # hints are printed wrapped at word boundaries
    assert registry()["01.distance"].solution.strip() in out
    assert " ".join(registry()["01.distance"].hints[-1].split()) in flat
    assert "solution of 02.gram is not in this copy of the course yet" in flat
    publish(work, report=lambda msg: None)  # publishing again keeps the reveal
    assert (work / "kmlteach/exercises/records/revealed-ch01.json").is_file()
    with pytest.raises(EditionError, match="no exercises"):
        reveal("99", work)


def test_the_cli_reports_a_wrong_edition_in_one_line(tmp_path):
    for argv, message in (
        (["reveal", "01", "--edition", str(tmp_path)], "is not a student edition"),
        (["publish-student", "--out", str(ROOT / "build" / "x")], "outside the instructor"),
    ):
        run = subprocess.run(
            [sys.executable, "-m", "kmlteach", *argv], capture_output=True, text=True, cwd=ROOT, timeout=300
        )
        assert run.returncode == 1 and "Traceback" not in run.stderr
        assert len(run.stderr.strip().splitlines()) == 1 and message in run.stderr
