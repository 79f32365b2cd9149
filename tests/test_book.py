"""The course manifest book.toml agrees with the notebooks, README and exercises."""

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from kmlteach.course import book
from kmlteach.exercises import registry

ROOT = Path(__file__).resolve().parent.parent
B = book.load()


def test_ten_chapters_with_required_fields():
    ids = [c.id for c in B.chapters]
    assert ids == [f"{i:02d}" for i in range(10)]
    for c in B.chapters:
        assert c.title and c.notebook.startswith("notebooks/") and c.notebook.endswith(".ipynb")
        assert c.status in ("ready", "planned")
        assert c.objectives, f"chapter {c.id} has no objectives"
    assert B.title and B.description and B.repository.startswith("https://github.com/") and B.branch


def test_the_course_is_complete():
    # all ten chapters are ready (issues "Chapter 08" and "Chapter 09")
    assert [c.status for c in B.chapters] == ["ready"] * 10


def test_ready_notebooks_exist_and_every_notebook_is_listed():
    listed = {Path(c.notebook).name for c in B.chapters}
    present = {p.name for p in (ROOT / "notebooks").glob("*.ipynb")}
    assert present <= listed, f"notebooks not in book.toml: {sorted(present - listed)}"
    for c in B.chapters:
        if c.ready:
            assert (ROOT / c.notebook).exists(), f"chapter {c.id} is ready but {c.notebook} is missing"
        else:
            assert not (ROOT / c.notebook).exists(), (
                f"{c.notebook} exists but chapter {c.id} is 'planned': mark it ready or remove it"
            )


def test_exercise_ids_unique_and_registered():
    ids = B.exercise_ids()
    assert len(ids) == len(set(ids)), "duplicate exercise ids in book.toml"
    reg = registry()
    for c in B.chapters:
        for e in c.exercises:
            assert e["id"].startswith(c.id + "."), f"exercise {e['id']} listed under chapter {c.id}"
            assert e["id"] in reg, f"exercise {e['id']} has no registered checker"
            assert isinstance(e.get("points"), int) and e["points"] > 0
            if "minutes" in e:  # estimated working time, where given
                assert isinstance(e["minutes"], int) and e["minutes"] > 0
    # and nothing is registered that the manifest does not list
    assert set(reg) <= set(ids), f"registered but not in book.toml: {sorted(set(reg) - set(ids))}"


def test_ready_chapters_with_exercises_check_them_in_the_notebook():
    for c in B.chapters:
        if not c.ready or not c.exercises:
            continue
        nb = json.loads((ROOT / c.notebook).read_text())
        code = "\n".join("".join(cell["source"]) for cell in nb["cells"] if cell["cell_type"] == "code")
        for e in c.exercises:
            assert f'check("{e["id"]}"' in code, f"{c.notebook} never checks exercise {e['id']}"
            assert "### BEGIN SOLUTION" in code


def test_readme_table_matches_book():
    text = (ROOT / "README.md").read_text()
    assert book.readme_table(text) == B.table(), (
        "README's chapter table is stale: run `python -m kmlteach chapters --update-readme`"
    )
    assert "make lab" in text and "make test" in text and "mybinder.org/badge" in text


def test_binder_links():
    url = B.binder_url("notebooks/01-svm.ipynb")
    assert url.startswith("https://mybinder.org/v2/gh/")
    assert url.endswith(f"/{B.branch}?urlpath=lab/tree/notebooks/01-svm.ipynb")


def test_ready_notebooks_link_to_binder_and_state_objectives():
    for c in B.chapters:
        if not c.ready:
            continue
        nb = json.loads((ROOT / c.notebook).read_text())
        md = "\n".join("".join(cell["source"]) for cell in nb["cells"] if cell["cell_type"] == "markdown")
        assert B.binder_url(c.notebook) in md, f"{c.notebook} lacks its Binder link"
        assert "objective" in md.lower() or "you will" in md.lower()


def test_notebooks_match_their_sources():
    """Each notebooks/NN.ipynb holds exactly the cells of notebooks/src/NN.py, with outputs."""
    from kmlteach.course.build import SRC, to_notebook

    for c in B.chapters:
        if not c.ready:
            continue
        src = SRC / (Path(c.notebook).stem + ".py")
        assert src.exists(), f"{c.notebook} has no source {src.relative_to(ROOT)}"
        expected = to_notebook(src)
        stored = json.loads((ROOT / c.notebook).read_text())
        got = [(cell["cell_type"], "".join(cell["source"])) for cell in stored["cells"]]
        want = [(cell.cell_type, cell.source) for cell in expected.cells]
        assert got == want, f"{c.notebook} is out of date with {src.name}: run `make execute NB={src.stem}`"
        code = [
            cell
            for cell in stored["cells"]
            if cell["cell_type"] == "code" and "".join(cell["source"]).strip()
        ]
        assert all(cell.get("execution_count") for cell in code), f"{c.notebook} stored without outputs"


def test_every_stored_figure_has_alt_text():
    """Each PNG output of a ready notebook carries alt text (shown with kmlteach.plots.show);
    widgets get theirs from their snapshot on the site and in the decks (test_site)."""
    for c in B.chapters:
        if not c.ready:
            continue
        stored = json.loads((ROOT / c.notebook).read_text())
        for k, cell in enumerate(stored["cells"]):
            for out in cell.get("outputs", []):
                if "image/png" not in out.get("data", {}):
                    continue
                alt = (out.get("metadata", {}).get("image/png") or {}).get("alt", "")
                assert len(alt.split()) >= 5, f"{c.notebook} cell {k}: a figure without alt text"


def test_chapters_cli_prints_the_table():
    out = subprocess.run(
        [sys.executable, "-m", "kmlteach", "chapters"], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout
    assert out.strip() == B.table()


@pytest.mark.parametrize(
    "argv",
    [
        ["chapters", "--book", "/nonexistent/book.toml"],
        ["chapters", "--book", "."],
        ["chapters", "--book", "README.md"],
        ["student", "/nonexistent", "/tmp/kmlteach-student-x"],
        ["execute", "--timeout", "-5"],
    ],
)
def test_cli_mistakes_get_one_line_not_a_traceback(argv, capsys):
    _assert_one_line_error(argv, capsys)


def _assert_one_line_error(argv, capsys) -> str:
    from kmlteach.__main__ import main

    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own usage error
        code = exc.code
    err = capsys.readouterr().err
    assert code != 0
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) <= 3 and "error" in err.strip().splitlines()[-1]
    return err


def test_student_cli_with_a_file_source_or_an_unwritable_output_gets_one_line(tmp_path, capsys):
    """Issue #15: `student SRC OUT` with SRC a file (not a folder), and with OUT a folder
    that cannot be created or written (below a regular file; read-only when not root)."""
    import os

    nb = tmp_path / "01-svm.ipynb"
    nb.write_text((ROOT / "notebooks" / "01-svm.ipynb").read_text())
    err = _assert_one_line_error(["student", str(nb), str(tmp_path / "out")], capsys)
    assert "not a folder" in err and str(nb) in err
    assert not (tmp_path / "out").exists()
    blocker = tmp_path / "plain-file"
    blocker.write_text("")
    outs = [blocker / "out"]
    if os.geteuid() != 0:  # root writes into a read-only folder anyway
        ro = tmp_path / "read-only"
        ro.mkdir()
        ro.chmod(0o500)
        outs.append(ro / "out")
    for out in outs:
        err = _assert_one_line_error(["student", str(ROOT / "notebooks"), str(out)], capsys)
        assert "cannot write" in err and str(out) in err
    # the real entry point: exit status 1 and the same single line
    run = subprocess.run(
        [sys.executable, "-m", "kmlteach", "student", str(nb), str(tmp_path / "o2")],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert run.returncode != 0 and "Traceback" not in run.stderr
    assert run.stderr.strip().splitlines() == [f"error: source {str(nb)!r} is not a folder"]


def test_instructor_notebooks_carry_chapter_and_nbgrader_metadata_consistent_with_book():
    """metadata.kmlteach.chapter; every solution cell an nbgrader autograded answer whose
    grade_id and points come from book.toml (written by `execute --metadata-only`)."""
    import re

    from nbgrader.nbgraderformat import MetadataValidator

    for c in B.chapters:
        if not c.ready:
            continue
        nb = json.loads((ROOT / c.notebook).read_text())
        assert nb["metadata"]["kmlteach"] == {"chapter": c.id}, c.notebook
        found = {}
        for cell in nb["cells"]:
            src = "".join(cell["source"])
            meta = cell.get("metadata", {})
            if cell["cell_type"] == "code" and "### BEGIN SOLUTION" in src and "check(" not in src:
                assert meta["kmlteach"] == {"ungraded": True}  # e.g. a recap quiz's answers
                assert meta["nbgrader"]["solution"] is True and meta["nbgrader"]["grade"] is False
            elif cell["cell_type"] == "code" and "### BEGIN SOLUTION" in src:
                ex = meta["kmlteach"]["exercise"]
                assert f'check("{ex}"' in src, f"{c.notebook}: {ex} metadata on the wrong cell"
                assert meta["nbgrader"] == {
                    "grade": False,
                    "locked": False,
                    "schema_version": 3,
                    "solution": True,
                    "grade_id": "ex" + ex.replace(".", "_"),
                }
                assert re.fullmatch(r"[a-zA-Z0-9_\-]+", meta["nbgrader"]["grade_id"])
                assert ex not in found
                found[ex] = meta["kmlteach"]["points"]
            else:
                assert "nbgrader" not in meta and "kmlteach" not in meta, c.notebook
        assert found == {e["id"]: e["points"] for e in c.exercises}, c.notebook
        import nbformat

        MetadataValidator().validate_nb(nbformat.reads(json.dumps(nb), as_version=4))


def test_annotate_is_a_fixed_point_on_the_stored_notebooks_and_rejects_mismatches():
    import copy

    import pytest

    from kmlteach.course.build import annotate

    c = B.chapter("01")
    stored = json.loads((ROOT / c.notebook).read_text())
    again = annotate(copy.deepcopy(stored), c)
    assert again == stored, "run `python -m kmlteach execute --metadata-only`"
    broken = copy.deepcopy(stored)
    for cell in broken["cells"]:
        if isinstance(cell["source"], list):
            cell["source"] = "".join(cell["source"])
        cell["source"] = cell["source"].replace('check("01.hinge"', 'check("01.nonexistent"')
    with pytest.raises(ValueError, match="exactly one exercise"):
        annotate(broken, c)
    lonely = copy.deepcopy(stored)
    lonely["cells"] = [x for x in lonely["cells"] if "01.perceptron" not in "".join(x["source"])]
    with pytest.raises(ValueError, match="01.perceptron"):
        annotate(lonely, c)


def test_ready_chapters_estimate_minutes_and_requirements():
    ids = {c.id for c in B.chapters}
    for c in B.chapters:
        assert set(c.requires) <= ids and c.id not in c.requires, c.id
        assert all(r < c.id for r in c.requires), f"chapter {c.id} requires a later chapter"
        assert c.reading_minutes > 0, f"chapter {c.id} has no reading_minutes"
        if c.ready:
            for e in c.exercises:
                assert isinstance(e.get("minutes"), int) and e["minutes"] > 0, (
                    f"{e['id']} has no minutes in book.toml"
                )
    assert B.chapter("01").minutes == B.chapter("01").reading_minutes + sum(
        e["minutes"] for e in B.chapter("01").exercises
    )


def _book_with_records(tmp_path, old: str, new: str):
    """A copy of book.toml whose [book] records points at a copy of the records with
    ``old`` replaced by ``new`` in ch00.toml."""
    import shutil

    records = tmp_path / "records"
    shutil.copytree(ROOT / "kmlteach" / "exercises" / "records", records)
    ch00 = records / "ch00.toml"
    text = ch00.read_text(encoding="utf-8")
    assert old in text
    ch00.write_text(text.replace(old, new), encoding="utf-8")
    p = tmp_path / "book.toml"
    p.write_text(
        (ROOT / "book.toml")
        .read_text(encoding="utf-8")
        .replace("[book]\n", f"[book]\nrecords = {str(records)!r}\n"),
        encoding="utf-8",
    )
    return p


@pytest.mark.parametrize(
    "old, new, field",
    [
        ("minutes = 5", 'minutes = "five"', "minutes"),
        ("points = 1", "points = -1", "points"),
        ("mistakes = [\n", 'mistakes = [\n  { name = "n", explain = "e" },\n', "wrong"),
        ('id = "00.margins"', 'id = "01.margins"', "id"),
    ],
)
def test_book_rejects_bad_exercise_records(tmp_path, old, new, field):
    with pytest.raises(ValueError, match=field):
        book.load(_book_with_records(tmp_path, old, new))


def test_book_reads_the_exercises_from_the_records_and_refuses_a_list_of_its_own(tmp_path):
    p = _book_with_records(tmp_path, "minutes = 5", "minutes = 7")
    assert book.load(p).chapter("00").exercises == (
        {"id": "00.margins", "points": 1, "minutes": 7, "partial": True},
    )
    assert B.chapter("00").exercises[0]["minutes"] == 5
    text = (ROOT / "book.toml").read_text(encoding="utf-8")
    assert not any("exercises" in c for c in tomllib.loads(text)["chapters"])
    # a list of exercises in the first chapter's table (after its reading_minutes line)
    p.write_text(re.sub(r"(reading_minutes = \d+\n)", r"\1exercises = []\n", text, count=1), encoding="utf-8")
    with pytest.raises(ValueError, match="not in book.toml"):
        book.load(p)


def test_exercise_minutes_and_hint_levels_agree_with_the_registry():
    reg = registry()
    for c in B.chapters:
        if not c.ready:
            continue
        for e in c.exercises:
            ex = reg[e["id"]]
            assert (ex.minutes, ex.points, ex.partial) == (e["minutes"], e["points"], e["partial"])
            assert len(ex.hints) >= 2, f"{e['id']} has a single hint level"
