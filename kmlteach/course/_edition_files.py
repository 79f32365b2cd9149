"""The files of the student edition that are not copied: README, Makefile, postBuild,
pyproject.toml, book.toml and environment.yml (cut from or added to the instructor's),
.gitignore."""

from __future__ import annotations

import re
from pathlib import Path

__all__ = ["readme", "makefile", "post_build", "pyproject", "book_toml", "environment_yml", "GITIGNORE"]

GITIGNORE = ".venv/\n__pycache__/\n*.nbi\n*.nbc\n.ipynb_checkpoints/\n*.egg-info/\nbuild/\n"

MAKEFILE = """\
# make lab: create .venv, install the course package and open the first notebook.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
ALLOW_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root,)

.PHONY: lab
lab: $(VENV)/.installed
\t$(PY) -m kmlteach warmup --quiet --jobs 0
\t$(VENV)/bin/jupyter lab $(ALLOW_ROOT) --notebook-dir=. notebooks/00-welcome.ipynb

$(VENV)/.installed: pyproject.toml setup.py
\ttest -x $(PY) || $(PYTHON) -m venv $(VENV)
\t$(PY) -m pip install -q -e .
\ttouch $@
"""

POST_BUILD = """\
#!/bin/bash
# Binder (repo2docker) runs this after creating the environment from environment.yml.
set -e
export NUMBA_NUM_THREADS=2 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
pip install --no-deps -e .
# compile every Numba kernel now: the cache lands in the image, the first click is warm;
# and ahead of time, for any x86-64 CPU (the image may run on another machine), which
# `start` makes the kernels use (KMLTEACH_AOT=1: no JIT in the kernel, ~100 MiB less)
python -m kmlteach warmup --aot --cpu generic
"""

# the pyproject.toml tables a student's install needs (no test, grading or site extras)
_KEEP = (
    "build-system",
    "project",
    "tool.setuptools.packages.find",
    "tool.setuptools.package-data",
    "tool.setuptools.data-files",
)


def makefile() -> str:
    return MAKEFILE


def post_build() -> str:
    return POST_BUILD


def pyproject(text: str) -> str:
    """The instructor's ``pyproject.toml`` with only the tables in ``_KEEP``; the package
    data no longer names the instructor-only folders (slides, site)."""
    out, keep = [], True
    for line in text.splitlines():
        m = re.match(r"^\[([\w.\-]+)\]\s*$", line)
        if m:
            keep = m.group(1) in _KEEP
        if keep:
            out.append(line)
    result = "\n".join(out).rstrip() + "\n"
    return re.sub(r"^kmlteach = \[.*\]$", 'kmlteach = ["data/*", "exercises/records/*"]', result, flags=re.M)


def environment_yml(text: str) -> str:
    """The instructor's ``environment.yml`` plus nbgitpuller: the edition's README links
    open chapters on a JupyterHub through nbgitpuller's ``git-pull`` route, which a hub
    built from this environment (zero-to-jupyterhub's user image) must serve."""
    line = "  - nbgitpuller>=1.2,<2\n"
    if "nbgitpuller" in text:
        return text
    if "  - pip\n" in text:
        return text.replace("  - pip\n", line + "  - pip\n", 1)
    return text.rstrip("\n") + "\n" + line


def book_toml(text: str, student_repository: str) -> str:
    """The instructor's ``book.toml`` for the edition: its repository is the student one."""
    text = re.sub(
        r'^repository = ".*"$',
        f"repository = {student_repository!r}".replace("'", '"'),
        text,
        count=1,
        flags=re.M,
    )
    return re.sub(r'^student_repository = ".*"\n', "", text, flags=re.M)


def readme(book, chapters) -> str:
    """The student-facing README: how to start, and per chapter a Binder and a JupyterHub link."""
    rows = ["| # | Chapter | Binder | JupyterHub |", "|---|---|---|---|"]
    for c in chapters:
        nb = f"notebooks/{Path(c.notebook).name}"
        hub = f"[open on the hub]({book.hub_url(nb)})" if book.jupyterhub else "—"
        rows.append(
            f"| {c.id} | [{c.title}]({nb}) | [open on Binder]"
            f"({book.binder_url(nb, book.student_repository)}) | {hub} |"
        )
    return f"""# {book.title} — student edition

{book.description}

## Start

* **JupyterHub** (your course's server): click the chapter's "open on the hub" link below.
  The first click copies this repository into your home folder; later clicks fetch new
  chapters without touching the notebooks you have edited.
* **Binder** (nothing to install, nothing saved): click the chapter's Binder link.
* **Your own machine**: `make lab` (creates `.venv`, installs the course package and
  opens `notebooks/00-welcome.ipynb`), or `conda env create -f environment.yml`, then
  `pip install -e .` and `jupyter lab`.

## Chapters

{chr(10).join(rows)}

## Exercises

Each exercise is a function to write in the notebook, followed by
`check("NN.name", your_function)`: it runs your function on the visible cases and says
what went wrong (and names common mistakes). `hint("NN.name")`, then
`hint("NN.name", level=2)`, give hints; the last hint level and `solution("NN.name")`
become available after the due date. Your grade also uses hidden cases, so make your
function right in general, not only on the visible cases.
"""
