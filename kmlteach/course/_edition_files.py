"""The files of the student edition that are not copied: README, Makefile, postBuild,
pyproject.toml, book.toml and environment.yml (cut from or added to the instructor's),
.gitignore."""

from __future__ import annotations

import re
import urllib.parse
from pathlib import Path

__all__ = [
    "readme",
    "makefile",
    "post_build",
    "pyproject",
    "book_toml",
    "environment_yml",
    "local_links",
    "placeholders",
    "GITIGNORE",
    "TEMPLATE_STUDENT_REPOSITORY",
]

# .kmlteach/: the progress record of each copy of the course (kmlteach.exercises.progress)
GITIGNORE = ".venv/\n__pycache__/\n*.nbi\n*.nbc\n.ipynb_checkpoints/\n*.egg-info/\nbuild/\n.kmlteach/\n"

MAKEFILE = """\
# make lab: create .venv, install the course package, warm its kernels up and open
# notebooks/00-welcome.ipynb in JupyterLab. Each step prints one line as it starts and
# one when it is done. LAB_ARGS passes options to JupyterLab (LAB_ARGS=--no-browser).
PYTHON   ?= python3
VENV     ?= .venv
PY       := $(VENV)/bin/python
LAB_ARGS ?=
FIRST    := notebooks/00-welcome.ipynb
ALLOW_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root,)
# uv (from PyPI) installs the ~180 packages in parallel (~30 s where pip takes minutes);
# any failure of uv falls back to pip; INSTALLER=pip forces pip
INSTALLER ?= uv
install = if [ "$(INSTALLER)" = uv ] && $(PY) -m pip install -q uv \\
\t          && $(PY) -m uv pip install -q --compile-bytecode --python $(PY) $(1); then :; \\
\t      else $(PY) -m pip install -q $(1); fi

.PHONY: lab install
lab: install
\t@echo "[2/3] warm-up: loading the course's compiled kernels (the first time they are compiled: 1-3 minutes) ..."
\t@$(PY) -c "import os, time, kmlteach; t = time.perf_counter(); n = len(kmlteach.warmup(verbose=False, jobs=os.cpu_count() or 1)); print(f'[2/3] warm-up: {n} kernels ready in {time.perf_counter() - t:.0f} s')"
\t@echo "[3/3] server: starting JupyterLab on $(FIRST); open the http://127.0.0.1 address below if no browser opens (Ctrl-C twice stops it)"
\t@$(VENV)/bin/jupyter lab $(ALLOW_ROOT) --ServerApp.root_dir=. --LabApp.default_url=/lab/tree/$(FIRST) \\
\t    --ServerApp.log_level=WARN $(LAB_ARGS)

install:
\t@if [ -f $(VENV)/.installed ] && [ $(VENV)/.installed -nt pyproject.toml ] && [ $(VENV)/.installed -nt setup.py ]; \\
\tthen echo "[1/3] install: $(VENV) is up to date"; \\
\telse $(MAKE) --no-print-directory $(VENV)/.installed; fi

$(VENV)/.installed: pyproject.toml setup.py
\t@echo "[1/3] install: creating $(VENV) with the course package and JupyterLab (once; ~1 minute with uv, a few with pip) ..."
\t@t0=$$(date +%s); test -x $(PY) || $(PYTHON) -m venv $(VENV); \\
\t$(call install,-e .) && touch $@ && \\
\techo "[1/3] install: done in $$(( $$(date +%s) - t0 )) s"
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
* **Your own machine** (Python 3.11 or later): `make lab`. It prints one line per step:
  `[1/3] install` creates `.venv` and installs the course package with JupyterLab (once;
  about a minute), `[2/3] warm-up` compiles the course's kernels (once, 1-3 minutes; then
  seconds) and says how many are ready, `[3/3] server` starts JupyterLab on
  `notebooks/00-welcome.ipynb` and prints its address (open it if no browser opens;
  Ctrl-C twice stops the server). Or `conda env create -f environment.yml`, then
  `pip install -e .` and `jupyter lab notebooks/00-welcome.ipynb`.

## Chapters

{chr(10).join(rows)}

## Exercises

Each exercise is a function to write in the notebook, followed by
`check("NN.name", your_function)`: it runs your function on the visible cases and says
what went wrong (and names common mistakes). `hint("NN.name")`, then
`hint("NN.name", level=2)`, give hints; the last hint level and `solution("NN.name")`
come with the solutions, when your course releases them. Your grade also uses hidden
cases, so make your function right in general, not only on the visible cases.
"""


# -- links and placeholders -----------------------------------------------------------------

# a Markdown link or image target, or an HTML href/src (the notebooks' Markdown holds both)
_LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)|\b(?:href|src)\s*=\s*[\"']([^\"']+)[\"']")


def local_links(text: str) -> list[str]:
    """The targets of the relative links and images in Markdown/HTML ``text``: neither an
    address with a scheme (``https:``, ``mailto:``) nor an anchor of the same page; without
    their own anchor, percent-decoded."""
    out = []
    for m in _LINK.finditer(text):
        target = (m.group(1) or m.group(2) or "").strip()
        if not target or target.startswith(("#", "//")) or re.match(r"^[a-zA-Z][\w+.-]*:", target):
            continue
        path = urllib.parse.unquote(target.split("#", 1)[0].split("?", 1)[0])
        if path:
            out.append(path)
    return out


TEMPLATE_STUDENT_REPOSITORY = "https://github.com/kmlteach/kmlteach-student"
"""``book.toml``'s ``student_repository`` as the course ships it: a course publishing its own
edition pushes it to a repository of its own."""

# hosts reserved for examples and tests (RFC 2606, RFC 6761): a link to one leads nowhere
_EXAMPLE_HOST = re.compile(r"(?:^|\.)(?:example\.(?:com|net|org)|example|test|invalid|localhost)$")


def placeholders(book) -> list[tuple[str, str, str]]:
    """``(key, value, why)`` for each ``[book]`` value of ``book.toml`` that the edition
    writes into its links and that only stands for a course's own: a host reserved for
    examples, or the course template's own student repository."""
    found = []
    for key in ("jupyterhub", "student_repository"):
        value = getattr(book, key) or ""
        host = (urllib.parse.urlsplit(value).hostname or "").lower()
        if host and _EXAMPLE_HOST.search(host):
            found.append((key, value, f"{host}: a host reserved for examples"))
        elif key == "student_repository" and value.rstrip("/") == TEMPLATE_STUDENT_REPOSITORY:
            found.append((key, value, "the course template's own"))
    return found
