"""The student edition (kmlteach/course/edition.py): what it holds, the leak test (no
piece of the answer key in any file, its wheel or its .pyc), reveal, and the edition
installed and run in a venv of its own."""

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
    publish(out, report=lambda msg: None)
    return out


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
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(edition)

    def cli(*argv):
        return subprocess.run(
            [sys.executable, *argv], capture_output=True, text=True, cwd=edition, env=env, timeout=300
        )

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


def _numba_cache(src_pkg: Path, dst_pkg: Path) -> None:
    """Give the copied package the instructor's Numba cache (same sources, same mtimes), so
    the edition's run does not compile every kernel again."""
    for cache in src_pkg.rglob("__pycache__"):
        files = [p for p in cache.iterdir() if p.suffix in (".nbi", ".nbc")]
        target = dst_pkg / cache.relative_to(src_pkg)
        if not files or not target.parent.is_dir():
            continue
        target.mkdir(exist_ok=True)
        for p in files:
            shutil.copy2(p, target / p.name)
    for py in dst_pkg.rglob("*.py"):
        src = src_pkg / py.relative_to(dst_pkg)
        if src.is_file() and src.read_bytes() == py.read_bytes():
            st = src.stat()
            os.utime(py, ns=(st.st_atime_ns, st.st_mtime_ns))


@pytest.mark.slow
def test_the_edition_runs_in_a_venv_of_its_own(edition, tmp_path):
    work = tmp_path / "kmlteach-student"
    shutil.copytree(edition, work)
    _numba_cache(ROOT / "kmlteach", work / "kmlteach")
    venv = tmp_path / "venv"
    py = venv / "bin" / "python"
    for cmd in (
        ["venv", "-q", "--python", sys.executable, str(venv)],
        ["pip", "install", "-q", "--python", str(py), "-e", str(work)],
    ):
        run = subprocess.run([sys.executable, "-m", "uv", *cmd], capture_output=True, text=True, timeout=900)
        assert run.returncode == 0, run.stderr[-2000:]
    solutions = tmp_path / "solutions.json"
    solutions.write_text(json.dumps({k: e.solution for k, e in registry().items()}))
    # without PYTHONDONTWRITEBYTECODE (set on CI): the fresh venv has no .pyc, and each of
    # the eleven processes below (this one, a kernel per notebook) would compile NumPy,
    # matplotlib, IPython and Numba from source again (3-9 s each); the first writes them
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONDONTWRITEBYTECODE")
    }
    run = subprocess.run(
        [str(py), str(ROOT / "tests" / "edition_run.py"), str(work), str(solutions)],
        capture_output=True,
        text=True,
        timeout=1500,
        cwd=tmp_path,
        env=env,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert Path(result["package"]) == (work / "kmlteach").resolve()
    assert result["checks"].keys() == registry().keys()
    # no reference in the edition; the notebook's solution passes; a wrong answer fails
    assert {k: v for k, v in result["checks"].items() if v != [True, True, False]} == {}
    built = {w for nb in result["notebooks"].values() for w in nb["widgets"]}
    assert len(result["catalog"]) > 20 and set(result["catalog"]) <= built, set(result["catalog"]) - built
    for c in B.chapters:
        if c.ready:
            nb = result["notebooks"][Path(c.notebook).name]
            assert (nb["not_implemented"], nb["errors"]) == (len(c.exercises), 0), c.id


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
