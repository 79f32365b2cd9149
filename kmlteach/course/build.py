"""Build the chapter notebooks from their reviewable sources.

Each notebook is authored as a jupytext ``py:percent`` file in ``notebooks/src/``
(``# %%`` starts a code cell, ``# %% [markdown]`` a Markdown cell). ``make execute``
(``python -m kmlteach execute``) converts each source to ``notebooks/NN-slug.ipynb``
and runs it in a clean kernel so that the stored outputs, which nbval compares in full
mode, come from one reproducible run. ``tests/test_book.py`` checks that every
``.ipynb`` holds exactly the cells of its source. Students only ever see the
``.ipynb`` files.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from .book import ROOT

SRC = ROOT / "notebooks" / "src"
OUT = ROOT / "notebooks"

__all__ = ["sources", "to_notebook", "build", "SRC", "OUT"]


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
    nb.metadata["kernelspec"] = {"display_name": "Python 3 (ipykernel)", "language": "python",
                                 "name": "python3"}
    for cell in nb.cells:
        cell.metadata.pop("lines_to_next_cell", None)
    return nb


def build(names=None, timeout: int = 600) -> int:
    import nbformat
    from nbclient import NotebookClient

    os.environ.setdefault("PYTHONHASHSEED", "0")
    os.environ.pop("KMLTEACH_RESULTS", None)
    status = 0
    for src in sources(names):
        nb = to_notebook(src)
        t0 = time.perf_counter()
        client = NotebookClient(nb, timeout=timeout, kernel_name="python3",
                                resources={"metadata": {"path": str(OUT)}})
        try:
            client.execute()
        except Exception as exc:  # report and continue with the other notebooks
            print(f"FAILED {src.name}: {type(exc).__name__}: {str(exc)[:2000]}")
            status = 1
            continue
        target = OUT / f"{src.stem}.ipynb"
        nbformat.write(nb, target)
        print(f"built {target.relative_to(ROOT)} in {time.perf_counter() - t0:.1f} s")
    return status
