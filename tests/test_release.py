"""Release of the student notebooks: the real chapters leak no solution line, the command
refuses unsafe folders with a one-line error, and edited student work is not overwritten.
The crafted notebooks of a hostile author are in tests/test_release_hostile.py."""

import base64
import json
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from kmlteach.course import book
from kmlteach.course.release import FORMAT, STUB, ReleaseError, release

ROOT = Path(__file__).resolve().parent.parent
B = book.load()
READY = [c for c in B.chapters if c.ready]
MARK = re.compile(r"^\s*### (BEGIN|END) SOLUTION\s*$")


def run_cli(*args, cwd=ROOT):
    return subprocess.run(
        [sys.executable, "-m", "kmlteach", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


def blocks(nb: dict) -> list[str]:
    """Every non-blank line between the markers, found independently of the release code."""
    lines = []
    for cell in nb["cells"]:
        inside = False
        for line in "".join(cell["source"]).splitlines():
            m = MARK.match(line)
            if m:
                inside = m.group(1) == "BEGIN"
            elif inside and line.strip():
                lines.append(line.strip())
    return lines


def all_strings(obj):
    """Every key and string of a JSON value, plus the decoded text of base64 payloads."""
    if isinstance(obj, str):
        yield obj
        if len(obj) > 16 and re.fullmatch(r"[A-Za-z0-9+/=\s]+", obj):
            try:
                yield base64.b64decode(obj).decode("utf-8", "replace")
            except ValueError:
                pass
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield str(k)
            yield from all_strings(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from all_strings(v)


@pytest.fixture(scope="module")
def released(tmp_path_factory):
    out = tmp_path_factory.mktemp("student")
    r = run_cli("release", "--out", out)
    assert r.returncode == 0, r.stderr
    return out


def test_every_ready_chapter_is_released(released):
    names = sorted(p.name for p in released.glob("*.ipynb"))
    assert names == sorted(Path(c.notebook).name for c in READY)


def test_no_line_of_any_solution_appears_anywhere_in_a_released_notebook(released):
    """Cells, outputs, metadata, attachments and ids: every string, no length threshold."""
    total = 0
    for c in READY:
        instructor = json.loads((ROOT / c.notebook).read_text())
        lines = blocks(instructor)
        assert lines, f"{c.notebook} has no solution block"
        total += len(lines)
        student = json.loads((released / Path(c.notebook).name).read_text())
        text = list(all_strings(student))
        for line in lines:
            hits = [s for s in text if line in s]
            assert not hits, f"{c.notebook}: solution line {line!r} leaked into {hits[0][:200]!r}"
    assert total >= 100


def test_released_notebooks_hold_only_the_whitelisted_fields(released):
    for c in READY:
        path = released / Path(c.notebook).name
        nb = json.loads(path.read_text())
        nbformat.validate(nbformat.reads(path.read_text(), as_version=4))
        assert set(nb) == {"cells", "metadata", "nbformat", "nbformat_minor"}
        rise = nb["metadata"].pop("rise", {})  # the live slideshow's settings (scalars only)
        assert set(rise) <= {
            "width",
            "height",
            "scroll",
            "theme",
            "transition",
            "start_slideshow_at",
            "autolaunch",
        }
        assert all(isinstance(v, (bool, int, float)) or len(v) <= 24 for v in rise.values())
        assert nb["metadata"] == {
            "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
            "kmlteach": {"chapter": c.id, "format": FORMAT},
        }
        assert isinstance(FORMAT, int)
        stubs = 0
        for i, cell in enumerate(nb["cells"]):
            # only a slide type survives (lecture mode from student/), nothing else
            assert cell["metadata"] in (
                {},
                *(
                    {"slideshow": {"slide_type": t}}
                    for t in ("slide", "subslide", "fragment", "skip", "notes", "-")
                ),
            )
            assert cell["id"] == f"cell-{i:03d}"
            if cell["cell_type"] == "code":
                assert set(cell) == {"cell_type", "id", "metadata", "source", "outputs", "execution_count"}
                assert cell["outputs"] == [] and cell["execution_count"] is None
                stubs += "".join(cell["source"]).count(STUB)
            else:
                assert set(cell) == {"cell_type", "id", "metadata", "source"}
        assert stubs == (ROOT / c.notebook).read_text().count("### BEGIN SOLUTION") > 0
        text = path.read_text()
        assert "BEGIN SOLUTION" not in text and "widgets" not in json.dumps(nb["metadata"])


def test_binder_link_points_at_the_student_notebook(released):
    nb = json.loads((released / "01-svm.ipynb").read_text())
    md = "".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    assert B.binder_url("student/01-svm.ipynb") in md
    assert B.binder_url("notebooks/01-svm.ipynb") not in md


def test_release_of_named_chapters_only(tmp_path):
    r = run_cli("release", "01", "03", "--out", tmp_path / "s")
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in (tmp_path / "s").glob("*.ipynb")) == [
        "01-svm.ipynb",
        "03-kernels-rkhs.ipynb",
    ]


@pytest.mark.parametrize(
    "args, message",
    [
        (["release", "--out", "notebooks"], "source folder"),
        (["student", "notebooks", "notebooks"], "source folder"),
        (["release", "--out", "notebooks/student"], "inside the source folder"),
        (["release", "--out", "."], "contains the source folder"),
        (["student", "notebooks", "."], "contains the source folder"),
        (["release", "--src", "no/such/folder", "--out", "{tmp}/s"], "does not exist"),
        (["release", "--src", "README.md", "--out", "{tmp}/s"], "not a folder"),
        (["release", "--out", "README.md"], "not a folder"),
        (["release", "--out", "README.md/sub"], "cannot write"),
        (["release", "42", "--out", "{tmp}/s"], "unknown chapter '42'"),
        (["release", "10", "--out", "{tmp}/s"], "10"),
    ],
)
def test_unsafe_or_wrong_requests_fail_with_one_line(tmp_path, args, message):
    before = {p: p.read_bytes() for p in (ROOT / "notebooks").glob("*.ipynb")}
    r = run_cli(*[a.format(tmp=tmp_path) for a in args])
    assert r.returncode != 0 and r.stdout == ""
    assert message in r.stderr and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert {p: p.read_bytes() for p in (ROOT / "notebooks").glob("*.ipynb")} == before
    assert not (ROOT / "notebooks" / "student").exists()


def test_symlink_to_the_source_folder_is_refused(tmp_path):
    link = tmp_path / "link"
    link.symlink_to(ROOT / "notebooks")
    with pytest.raises(ReleaseError, match="source folder"):
        release(["01"], link)
    up = tmp_path / "up"
    up.symlink_to(ROOT)
    with pytest.raises(ReleaseError, match="contains the source folder"):
        release(["01"], up)


def test_unwritable_output_is_one_line(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(ReleaseError, match="cannot write"):
        release(["01"], blocker / "student")


def test_edited_student_work_is_kept_unless_forced(tmp_path):
    out = tmp_path / "student"
    release(["01"], out)
    nb = out / "01-svm.ipynb"
    pristine = nb.read_bytes()
    assert release(["01"], out) == [nb]  # untouched: replaced silently
    nb.write_bytes(pristine.replace(b"Your turn", b"My work"))
    said = []
    assert release(["01"], out, report=said.append) == []
    assert b"My work" in nb.read_bytes() and "kept" in said[0]
    assert release(["01"], out, force=True) == [nb]
    assert nb.read_bytes() == pristine


def test_an_instructor_notebook_in_the_output_folder_is_never_overwritten(tmp_path):
    out = tmp_path / "student"
    out.mkdir()
    (out / "01-svm.ipynb").write_bytes((ROOT / "notebooks/01-svm.ipynb").read_bytes())
    with pytest.raises(ReleaseError, match="holds solutions"):
        release(["01"], out, force=True)
    assert b"### BEGIN SOLUTION" in (out / "01-svm.ipynb").read_bytes()


def test_readme_binder_badge_and_make_lab_open_the_student_version():
    readme = (ROOT / "README.md").read_text()
    badge = re.search(r"\(https://mybinder\.org/v2/gh/[^)]*\)", readme).group(0)
    assert badge == f"({B.binder_url('student/00-welcome.ipynb')})"
    post = (ROOT / "postBuild").read_text()
    assert "python -m kmlteach release --out student" in post and post.startswith("#!/bin/bash")
    assert "set -e" in post
    make = (ROOT / "Makefile").read_text()
    lab = make.split("\nlab:", 1)[1].split("\n\n", 1)[0]
    assert "student/00-welcome.ipynb" in lab and "notebooks/00-welcome.ipynb" not in lab
    assert "student/" in (ROOT / ".gitignore").read_text().splitlines()


def test_slide_metadata_cannot_carry_text_into_a_release():
    from kmlteach.course.release import student_notebook

    nb = {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {
            "kmlteach": {"chapter": "01"},
            "rise": {"width": 1280, "theme": "x = secret_solution_line(42)", "footer": "<b>answer: 42</b>"},
        },
        "cells": [
            {
                "cell_type": "markdown",
                "metadata": {"slideshow": {"slide_type": "slide", "note": "the answer is 42"}},
                "source": "# title",
            },
            {
                "cell_type": "markdown",
                "metadata": {"slideshow": {"slide_type": "answer: 42"}},
                "source": "text",
            },
        ],
    }
    out = student_notebook(nb, "01")
    assert out["metadata"]["rise"] == {"width": 1280}
    assert out["cells"][0]["metadata"] == {"slideshow": {"slide_type": "slide"}}
    assert out["cells"][1]["metadata"] == {}
    assert "42" not in json.dumps(out)
