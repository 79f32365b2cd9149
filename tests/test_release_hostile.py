"""A hostile (or careless) author: crafted instructor notebooks that try to get a solution
into the student version. Each is either stripped (nothing of SECRET survives) or refused
with a one-line error naming the notebook and the cell — and nothing is written."""

import base64
import json
import subprocess
import sys

import nbformat
import pytest

from kmlteach.course.release import FORMAT, STUB, ReleaseError, release, student_notebook

SECRET = "w_secret = 4242 * np.pi"
TOKEN = "4242"
GOOD = f"def f(x):\n    ### BEGIN SOLUTION\n    {SECRET}\n    return w_secret\n    ### END SOLUTION\n"
PNG = base64.b64encode(f"{SECRET} (an image, in fact)".encode()).decode()


def code(src, **extra):
    return {
        "cell_type": "code",
        "metadata": {},
        "source": src,
        "outputs": [],
        "execution_count": None,
        **extra,
    }


def md(src, **extra):
    return {"cell_type": "markdown", "metadata": {}, "source": src, **extra}


def raw(src, **extra):
    return {"cell_type": "raw", "metadata": {}, "source": src, **extra}


def notebook(*cells, **meta):
    return {
        "cells": list(cells),
        "metadata": {"kmlteach": {"chapter": "01"}, **meta},
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def block(begin="### BEGIN SOLUTION", end="### END SOLUTION", indent="    "):
    return f"def f(x):\n{indent}{begin}\n{indent}{SECRET}\n{indent}{end}\n"


REFUSED = {
    "marker in markdown": (notebook(md(f"### BEGIN SOLUTION\n{SECRET}\n### END SOLUTION")), 0),
    "marker in raw cell": (
        notebook(code("x = 1"), raw(f"### BEGIN SOLUTION\n{SECRET}\n### END SOLUTION")),
        1,
    ),
    "###BEGIN without space": (notebook(code(block("###BEGIN SOLUTION", "###END SOLUTION"))), 0),
    "lower-case marker": (notebook(code(block("### begin solution", "### end solution"))), 0),
    "## marker": (notebook(code(block("## BEGIN SOLUTION", "## END SOLUTION"))), 0),
    "#### marker": (notebook(code(block("#### BEGIN SOLUTION", "#### END SOLUTION"))), 0),
    "double spaces": (notebook(code(block("###  BEGIN  SOLUTION", "###  END  SOLUTION"))), 0),
    "zero-width space": (notebook(code(block("### BEGIN\u200b SOLUTION", "### END SOLUTION"))), 0),
    "BEGIN_SOLUTION": (notebook(code(block("# BEGIN_SOLUTION", "# END_SOLUTION"))), 0),
    "marker after code": (notebook(code(f"x = 1  ### BEGIN SOLUTION\n{SECRET}\n### END SOLUTION\n")), 0),
    "trailing text": (notebook(code(f"def f():\n    ### BEGIN SOLUTION: {SECRET}\n    pass\n")), 0),
    "markdown attachment": (
        notebook(code("x = 1"), md("![s](attachment:s.png)", attachments={"s.png": {"image/png": PNG}})),
        1,
    ),
    "markers inside a triple-quoted string": (
        notebook(code(f'text = """\n### BEGIN SOLUTION\n{SECRET}\n### END SOLUTION\n"""\n')),
        0,
    ),
    "markers inside a docstring": (
        notebook(
            code(f'def f():\n    """\n    ### BEGIN SOLUTION\n    {SECRET}\n    ### END SOLUTION\n    """\n')
        ),
        0,
    ),
    "BEGIN without END": (notebook(code(f"def f():\n    ### BEGIN SOLUTION\n    {SECRET}\n")), 0),
    "END without BEGIN": (notebook(code(f"def f():\n    {SECRET}\n    ### END SOLUTION\n")), 0),
    "nested BEGIN": (notebook(code(block("### BEGIN SOLUTION\n    ### BEGIN SOLUTION"))), 0),
    "hidden tests in a code cell": (
        notebook(code(GOOD), code(f"### BEGIN HIDDEN TESTS\nassert f(3) == {TOKEN}\n### END HIDDEN TESTS\n")),
        1,
    ),
    "marker inside brackets": (
        notebook(code(f"params = dict(\n    ### BEGIN SOLUTION\n    C={TOKEN},\n    ### END SOLUTION\n)\n")),
        0,
    ),
    "solution repeated in markdown": (notebook(code(GOOD), md(f"The answer: `{SECRET}`.")), 1),
    "solution repeated in a comment": (notebook(code(GOOD + f"# {SECRET}\n")), 0),
    "markers in a cell magic": (
        notebook(code(f"%%capture\n### BEGIN SOLUTION\n{SECRET}\n### END SOLUTION\n")),
        0,
    ),
    "cell that is not Python": (
        notebook(code(f"def f(:\n    ### BEGIN SOLUTION\n    {SECRET}\n    ### END SOLUTION\n    '''\n")),
        0,
    ),
    "unknown cell type": (notebook({"cell_type": "heading", "metadata": {}, "source": SECRET}), 0),
}


def check_refused(nb, cell, tmp_path, name="crafted"):
    with pytest.raises(ReleaseError) as err:
        student_notebook(nb, name=f"{name}.ipynb")
    msg = str(err.value)
    assert "\n" not in msg and f"{name}.ipynb" in msg and f"cell {cell}" in msg, msg
    return msg


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_refused(case, tmp_path):
    nb, cell = REFUSED[case]
    check_refused(nb, cell, tmp_path)


def _leaks(nb: dict) -> bool:
    text = json.dumps(nb, ensure_ascii=False)
    return TOKEN in text or PNG in text or "BEGIN" in text


STRIPPED = {
    "cell metadata": notebook(
        code(
            GOOD,
            metadata={
                "solution": SECRET,
                "tags": [SECRET],
                "nbgrader": {"solution": True, "grade_id": TOKEN},
            },
        )
    ),
    "notebook metadata": notebook(
        code(GOOD),
        secret=SECRET,
        jupytext={"text_representation": {"x": SECRET}},
        kernelspec={"display_name": SECRET, "name": "python3", "language": "python"},
        language_info={"name": "python", "version": SECRET},
    ),
    "saved widget state": notebook(
        code(GOOD),
        widgets={"application/vnd.jupyter.widget-state+json": {"state": {"m": {"state": {"value": SECRET}}}}},
    ),
    "outputs of every kind": notebook(
        code(
            GOOD,
            execution_count=7,
            outputs=[
                {"output_type": "stream", "name": "stdout", "text": SECRET},
                {
                    "output_type": "execute_result",
                    "execution_count": 7,
                    "metadata": {},
                    "data": {"text/plain": SECRET},
                },
                {"output_type": "display_data", "metadata": {}, "data": {"image/png": PNG}},
                {"output_type": "error", "ename": "E", "evalue": SECRET, "traceback": [SECRET]},
            ],
        )
    ),
    "cell id": notebook(code(GOOD, id=f"w-secret-{TOKEN}")),
    "unknown keys": {**notebook(code(GOOD, secret=SECRET)), "secret": SECRET},
    "raw cell metadata": notebook(code(GOOD), raw("plain", metadata={"raw_mimetype": SECRET})),
    "markdown cell metadata": notebook(code(GOOD), md("text", metadata={"x": SECRET})),
    "CRLF line endings": notebook(code(GOOD.replace("\n", "\r\n"))),
    "source as a list of lines": notebook(code(GOOD.splitlines(keepends=True))),
    "IPython magic in the cell": notebook(code("%matplotlib inline\n" + GOOD + "!echo hi\n")),
    "chapter only from the file name": {**notebook(code(GOOD)), "metadata": {}},
}


@pytest.mark.parametrize("case", sorted(STRIPPED))
def test_stripped(case):
    nb = STRIPPED[case]
    before = json.dumps(nb)
    out = student_notebook(nb, name="01-crafted.ipynb")
    assert json.dumps(nb) == before, "the instructor notebook must not be modified"
    assert not _leaks(out), json.dumps(out)[:500]
    nbformat.validate(nbformat.from_dict(out))
    assert out["metadata"]["kmlteach"] == {"chapter": "01", "format": FORMAT}
    assert set(out["metadata"]) == {"kernelspec", "language_info", "kmlteach"}
    code_cells = [c for c in out["cells"] if c["cell_type"] == "code"]
    assert sum(STUB in "".join(c["source"]) for c in code_cells) == 1
    for c in out["cells"]:
        assert c["metadata"] == {} and "attachments" not in c
        if c["cell_type"] == "code":
            assert c["outputs"] == [] and c["execution_count"] is None


def test_stub_keeps_the_function_runnable():
    out = student_notebook(STRIPPED["CRLF line endings"], name="x.ipynb")
    ns = {}
    exec("".join(out["cells"][0]["source"]).replace("\r\n", "\n"), ns)
    with pytest.raises(NotImplementedError):
        ns["f"](1)


def test_the_nine_leaks_of_issue_11_and_the_silent_string_rewrite_are_covered():
    """Issue 11 found nine leaks in the old writer plus markers in a string silently
    rewriting it; each is a case above (refused or stripped)."""
    refused = [
        "marker in markdown",
        "marker in raw cell",
        "###BEGIN without space",
        "lower-case marker",
        "## marker",
        "marker after code",
        "markdown attachment",
    ]
    stripped = ["cell metadata", "notebook metadata"]
    assert len(refused + stripped) == 9
    assert set(refused) <= set(REFUSED) and set(stripped) <= set(STRIPPED)
    assert "markers inside a triple-quoted string" in REFUSED


def test_cli_refuses_with_one_line_naming_notebook_and_cell_and_writes_nothing(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "01-ok.ipynb").write_text(json.dumps(notebook(code(GOOD))))
    (src / "02-bad.ipynb").write_text(json.dumps(REFUSED["marker in markdown"][0]))
    out = tmp_path / "out"
    for args in (["release", "--src", src, "--out", out], ["student", src, out]):
        r = subprocess.run(
            [sys.executable, "-m", "kmlteach", *map(str, args)], capture_output=True, text=True, timeout=60
        )
        assert r.returncode == 1 and "Traceback" not in r.stderr
        assert r.stderr.count("\n") == 1 and "02-bad.ipynb, cell 0 (markdown)" in r.stderr
        assert not out.exists()
    (src / "02-bad.ipynb").write_text("{not json")
    with pytest.raises(ReleaseError, match="02-bad.ipynb: cannot read"):
        release(None, out, src)
    (src / "02-bad.ipynb").unlink()
    assert [p.name for p in release(None, out, src)] == ["01-ok.ipynb"]
    assert not _leaks(json.loads((out / "01-ok.ipynb").read_text()))


def test_a_notebook_without_a_chapter_is_refused():
    nb = {**notebook(code("x = 1")), "metadata": {}}
    with pytest.raises(ReleaseError, match="cannot tell its chapter"):
        student_notebook(nb, name="anything.ipynb")
    with pytest.raises(ReleaseError, match="not an nbformat 4 notebook"):
        student_notebook({**nb, "nbformat": 3}, name="old.ipynb")
