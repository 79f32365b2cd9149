"""Export chapters as an nbgrader course: ``python -m kmlteach nbgrader-export``.

The instructor notebooks already carry nbgrader's metadata on their solution cells
(:func:`kmlteach.course.build.annotate`). What they lack are nbgrader's *test* cells —
a grade cell scores its points when it runs without an exception, and ``check`` never
raises, so a test cell has to turn its verdict into one. The export writes
``COURSE/source/chNN/NN-slug.ipynb``: the instructor notebook without outputs or saved
widget state, with after each exercise cell a locked grade cell::

    from kmlteach.exercises import check
    assert check("01.distance", distance), "01.distance: see the message above"

whose ``points`` come from ``book.toml`` (``grade_id`` ``ex01_distance_test``). It also
writes ``COURSE/nbgrader_config.py`` (unless present) with our stub as
``ClearSolutions.code_stub``. Then, in ``COURSE``: ``nbgrader generate_assignment ch01``,
``nbgrader autograde ch01`` as usual (``tests/test_nbgrader.py`` does exactly that).

nbgrader runs these asserts in the student's own kernel on the *visible* cases only, so
its scores are as forgeable as ``check`` itself; ``python -m kmlteach grade`` (hidden
cases, checked outside the student's process) is the grader to trust.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

from .build import grade_id
from .release import STUB

__all__ = ["export", "test_cell"]

_CALL = re.compile(r"""\bcheck\(\s*["'](\d{2}\.\w+)["']\s*,\s*([A-Za-z_]\w*)""")

CONFIG = """# Written by `python -m kmlteach nbgrader-export`.
c = get_config()  # noqa: F821 (provided by nbgrader)
c.CourseDirectory.root = {root!r}
c.ClearSolutions.code_stub = {{"python": {stub!r}}}
"""


def test_cell(exercise: str, function: str, points: int) -> dict:
    """nbgrader's autograder test cell for one exercise (locked, with its points)."""
    src = (
        f"from kmlteach.exercises import check\n"
        f'assert check("{exercise}", {function}), "{exercise}: see the message above"'
    )
    return {
        "cell_type": "code",
        "execution_count": None,
        "outputs": [],
        "source": src,
        "id": grade_id(exercise).replace("_", "-") + "-test",
        "metadata": {
            "nbgrader": {
                "grade": True,
                "grade_id": grade_id(exercise) + "_test",
                "locked": True,
                "points": points,
                "schema_version": 3,
                "solution": False,
            }
        },
    }


def _source(cell) -> str:
    return cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])


def export(chapters, course, *, src: Path | None = None, book=None) -> list[Path]:
    """Write the nbgrader source notebooks of ``chapters`` (ids) below ``course``."""
    from . import book as book_mod
    from .release import ReleaseError

    book = book or book_mod.load()
    src = Path(src) if src else book.root / "notebooks"
    course = Path(course)
    written = []
    for cid in chapters:
        try:
            chapter = book.chapter(cid)
        except KeyError:
            raise ReleaseError(f"unknown chapter {cid!r}") from None
        if not chapter.ready:
            raise ReleaseError(f"chapter {cid} is planned, not ready")
        path = src / Path(chapter.notebook).name
        nb = json.loads(path.read_text(encoding="utf-8"))
        nb = copy.deepcopy(nb)
        nb["metadata"].pop("widgets", None)
        cells = []
        for cell in nb["cells"]:
            if cell["cell_type"] == "code":
                cell["outputs"], cell["execution_count"] = [], None
                cell.get("metadata", {}).pop("execution", None)
            cells.append(cell)
            meta = cell.get("metadata", {}).get("kmlteach")
            if not meta:
                continue
            calls = dict(_CALL.findall(_source(cell)))
            if meta["exercise"] not in calls:
                raise ReleaseError(f"{path}: the cell of {meta['exercise']} does not call check()")
            cells.append(test_cell(meta["exercise"], calls[meta["exercise"]], meta["points"]))
        if sum("nbgrader" in c.get("metadata", {}) for c in cells) != 2 * len(chapter.exercises):
            raise ReleaseError(f"{path}: run `python -m kmlteach execute --metadata-only` first")
        nb["cells"] = cells
        target = course / "source" / f"ch{chapter.id}" / path.name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        written.append(target)
    config = course / "nbgrader_config.py"
    if not config.exists():
        config.write_text(CONFIG.format(root=str(course.resolve()), stub=STUB), encoding="utf-8")
    return written
