"""Build the chapter notebooks from their reviewable sources.

Each notebook is authored as a jupytext ``py:percent`` file in ``notebooks/src/``
(``# %%`` starts a code cell, ``# %% [markdown]`` a Markdown cell). ``make execute``
(``python -m kmlteach execute``) converts each source to ``notebooks/NN-slug.ipynb``
and runs it in a clean kernel so that the stored outputs, which nbval compares in full
mode, come from one reproducible run. ``tests/test_book.py`` checks that every
``.ipynb`` holds exactly the cells of its source. Students get the released version
(:mod:`kmlteach.course.release`), never these files.

After execution, :func:`annotate` adds the course metadata from ``book.toml``:
``metadata.kmlteach.chapter`` on the notebook, and on every cell holding a solution
block nbgrader's metadata of an autograded answer (``solution: true``, ``grade:
false``, ``locked: false``, ``grade_id`` such as ``ex01_distance``, ``schema_version:
3``) plus ``metadata.kmlteach = {"exercise": "01.distance", "points": 1}``. nbgrader's
grade cells (with the points) are not in these notebooks: an nbgrader test cell must
raise on failure, and ``check`` never raises, so the test cells are added only by
``python -m kmlteach nbgrader-export`` (:mod:`kmlteach.course.nbgrader`).
``python -m kmlteach execute --metadata-only`` applies :func:`annotate` to the stored
notebooks without running them.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

from .book import ROOT
from .slides import apply_slides

SRC = ROOT / "notebooks" / "src"
OUT = ROOT / "notebooks"

__all__ = ["sources", "to_notebook", "build", "annotate", "annotate_files", "grade_id", "SRC", "OUT"]

BEGIN = "### BEGIN SOLUTION"
_CHECK = re.compile(r"""\bcheck\(\s*["'](\d{2}\.\w+)["']""")


def sources(names=None) -> list[Path]:
    paths = sorted(SRC.glob("*.py"))
    if names:
        wanted = {n.removesuffix(".py").removesuffix(".ipynb") for n in names}
        paths = [p for p in paths if p.stem in wanted]
        missing = wanted - {p.stem for p in paths}
        if missing:
            raise SystemExit(f"no source notebooks/src/{sorted(missing)[0]}.py")
    return paths


def to_notebook(src: Path):
    """Read a py:percent source as an nbformat notebook with our kernelspec."""
    import jupytext

    nb = jupytext.read(src, fmt="py:percent")
    nb.metadata.pop("jupytext", None)
    nb.metadata["kernelspec"] = {
        "display_name": "Python 3 (ipykernel)",
        "language": "python",
        "name": "python3",
    }
    for cell in nb.cells:
        cell.metadata.pop("lines_to_next_cell", None)
    return nb


def build(names=None, timeout: int = 600) -> int:
    import nbformat
    from nbclient import NotebookClient

    os.environ.setdefault("PYTHONHASHSEED", "0")
    os.environ["KMLTEACH_RESULTS"] = ""  # record nothing (kmlteach.exercises.progress): outputs as nbval's
    status = 0
    for src in sources(names):
        nb = to_notebook(src)
        t0 = time.perf_counter()
        client = NotebookClient(
            nb, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": str(OUT)}}
        )
        try:
            client.execute()
        except Exception as exc:  # report and continue with the other notebooks
            print(f"FAILED {src.name}: {type(exc).__name__}: {str(exc)[:2000]}")
            status = 1
            continue
        target = OUT / f"{src.stem}.ipynb"
        try:
            annotate(nb, _chapter_for(target))
            apply_slides(nb)
        except ValueError as exc:
            print(f"FAILED {src.name}: {exc}")
            status = 1
            continue
        nbformat.write(nb, target)
        print(f"built {target.relative_to(ROOT)} in {time.perf_counter() - t0:.1f} s")
    return status


def grade_id(exercise_id: str) -> str:
    """nbgrader's id of an exercise (``^[a-zA-Z0-9_\\-]*$``): ``01.distance`` -> ``ex01_distance``."""
    out = "ex" + exercise_id.replace(".", "_")
    if not re.fullmatch(r"[A-Za-z0-9_\-]+", out):
        raise ValueError(f"exercise id {exercise_id!r} cannot be an nbgrader grade_id")
    return out


def _chapter_for(path: Path):
    from . import book

    for c in book.load().chapters:
        if Path(c.notebook).name == path.name:
            return c
    raise SystemExit(f"{path.name} is not listed in book.toml")


def annotate(nb, chapter):
    """Add the course and nbgrader metadata to an instructor notebook (in place; returns it).

    ``chapter`` is a :class:`kmlteach.course.book.Chapter`. Idempotent: stale metadata
    from an earlier run is replaced. Raises ``ValueError`` when a solution cell checks
    no exercise of the chapter, or an exercise of ``book.toml`` has no solution cell.
    A solution cell with no ``check(...)`` call at all (e.g. the answers of a recap quiz) is
    an *ungraded* solution: nbgrader still needs ``solution: true`` on it, so it gets a
    grade id of its own and ``kmlteach: {"ungraded": true}``.
    """
    points = {e["id"]: e["points"] for e in chapter.exercises}
    nb["metadata"]["kmlteach"] = {"chapter": chapter.id}
    seen = set()
    for i, cell in enumerate(nb["cells"]):
        md = cell.setdefault("metadata", {})
        md.pop("nbgrader", None)
        md.pop("kmlteach", None)
        src = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
        if cell["cell_type"] != "code" or not any(l.strip() == BEGIN for l in src.splitlines()):
            continue
        if not _CHECK.findall(src):
            md["nbgrader"] = {
                "grade": False,
                "grade_id": f"ungraded_{chapter.id}_{i}",
                "locked": False,
                "schema_version": 3,
                "solution": True,
            }
            md["kmlteach"] = {"ungraded": True}
            continue
        ids = [e for e in _CHECK.findall(src) if e in points]
        if len(ids) != 1 or ids[0] in seen:
            raise ValueError(
                f"chapter {chapter.id}, cell {i}: a solution cell must check exactly "
                f"one exercise of book.toml, found {ids}"
            )
        ex = ids[0]
        seen.add(ex)
        md["nbgrader"] = {
            "grade": False,
            "grade_id": grade_id(ex),
            "locked": False,
            "schema_version": 3,
            "solution": True,
        }
        md["kmlteach"] = {"exercise": ex, "points": points[ex]}
    if seen != set(points):
        raise ValueError(f"chapter {chapter.id}: no solution cell for {sorted(set(points) - seen)}")
    return nb


def annotate_files(names=None) -> list[Path]:
    """Apply :func:`annotate` and the slide metadata (:func:`~kmlteach.course.slides.apply_slides`)
    to the stored ``notebooks/*.ipynb`` (no execution)."""
    import nbformat

    done = []
    for src in sources(names):
        target = OUT / f"{src.stem}.ipynb"
        if not target.exists():
            continue
        nb = nbformat.read(target, as_version=4)
        before = nbformat.writes(nb)
        annotate(nb, _chapter_for(target))
        apply_slides(nb)
        if nbformat.writes(nb) != before:
            nbformat.write(nb, target)
            done.append(target)
    return done
