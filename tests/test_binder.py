"""Binder on the first click, and one repository URL for the whole course.

* ``start`` caps the threads of every kernel on a shared Binder machine and hands over
  to the server (``exec "$@"``); ``postBuild`` warms Numba's cache at build time under
  the same caps; live slides (jupyterlab-rise) are a runtime dependency.
* ``book.toml``'s ``repository`` is the one place to change when the course is forked:
  README, the notebooks, the site and the decks all agree with it, and changing it
  changes every link they build.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import stat
import subprocess
import tomllib
from pathlib import Path

import nbformat

from kmlteach.course import book as _book
from kmlteach.course._publish import student_binder_url

ROOT = Path(__file__).resolve().parent.parent
B = _book.load()
READY = [c for c in B.chapters if c.ready]
START = ROOT / "start"


def _slug(url: str) -> str:
    return re.sub(r"\.git$", "", url.rstrip("/")).split("github.com/")[1]


def test_start_caps_threads_and_execs_the_command():
    assert START.exists(), "start is missing"
    assert os.stat(START).st_mode & stat.S_IXUSR, "start must be executable"
    text = START.read_text()
    assert text.startswith("#!/bin/bash")
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.strip().startswith("#")]
    assert lines[-1] == 'exec "$@"', 'start must end with exec "$@"'
    subprocess.run(["bash", "-n", str(START)], check=True)
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
    }
    out = subprocess.run([str(START), "env"], capture_output=True, text=True, check=True, env=env).stdout
    got = dict(ln.split("=", 1) for ln in out.splitlines() if "=" in ln)
    assert 1 <= int(got["NUMBA_NUM_THREADS"]) <= 2 and got["OMP_NUM_THREADS"] == "1"
    # a value set by the operator (e.g. a JupyterHub) is kept
    out = subprocess.run(
        [str(START), "env"], capture_output=True, text=True, check=True, env={**env, "OMP_NUM_THREADS": "4"}
    ).stdout
    assert "OMP_NUM_THREADS=4" in out.splitlines()


def test_postbuild_warms_the_cache_under_the_same_caps():
    lines = [
        ln.strip()
        for ln in (ROOT / "postBuild").read_text().splitlines()
        if ln.strip() and not ln.strip().startswith("#")
    ]
    warm = lines.index("python -m kmlteach warmup --aot --cpu generic")  # the image runs on any node
    caps = [i for i, ln in enumerate(lines) if "NUMBA_NUM_THREADS=" in ln and "OMP_NUM_THREADS=" in ln]
    assert caps and caps[0] < warm, "postBuild must cap threads before the warm-up"


def test_live_slides_are_a_runtime_dependency():
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    assert any(d.startswith("jupyterlab-rise") for d in deps)
    assert re.search(r"^\s*-\s*jupyterlab-rise=\d+\.\d+\s*$", (ROOT / "environment.yml").read_text(), re.M)
    css = (ROOT / "notebooks" / "rise.css").read_text()
    assert "zoom: 1.5" in css, "widgets must be 1.5x their reading size in the live slideshow"


def test_readme_notebooks_and_docs_agree_with_book_toml():
    slug = _slug(B.repository)
    readme = (ROOT / "README.md").read_text()
    prefix = B.binder_url().rstrip("/") + "?urlpath=lab/tree/"
    assert prefix in readme, "README's Binder badge is not built from book.toml"
    texts = {"README.md": readme}
    texts.update({str(p.relative_to(ROOT)): p.read_text() for p in (ROOT / "docs").rglob("*.md")})
    for c in READY:
        nb = json.loads((ROOT / c.notebook).read_text())
        texts[c.notebook] = "\n".join("".join(cell["source"]) for cell in nb["cells"])
        assert prefix in texts[c.notebook], f"{c.notebook} has no Binder link built from book.toml"
    for name, text in texts.items():
        for m in re.finditer(r"(?:github\.com|mybinder\.org/v2/gh)/([\w.-]+/[\w.-]+)", text):
            if m.group(1).startswith(("kmlteach/", slug.split("/")[0] + "/")) or "kmlteach" in m.group(1):
                assert m.group(1).removesuffix(".git").startswith(slug), (
                    f"{name} links to {m.group(0)}, but book.toml's repository is {B.repository}"
                )


def test_per_chapter_binder_links_open_the_student_version():
    """In the student repository of book.toml (the edition's ``notebooks/``), never the
    instructor repository; without a student repository, the instructor's ``student/``."""
    assert B.student_repository and _slug(B.student_repository) != _slug(B.repository)
    for c in READY:
        url = student_binder_url(B, c)
        stem = Path(c.notebook).stem
        assert url == (
            f"https://mybinder.org/v2/gh/{_slug(B.student_repository)}/{B.branch}"
            f"?urlpath=lab/tree/notebooks/{stem}.ipynb"
        )
        alone = dataclasses.replace(B, student_repository="")
        assert student_binder_url(alone, c) == (
            f"https://mybinder.org/v2/gh/{_slug(B.repository)}/{B.branch}?urlpath=lab/tree/student/{stem}.ipynb"
        )


def test_forking_changes_every_link_the_site_and_decks_build():
    """Change the repository in book.toml: pages, decks and the home page follow."""
    from kmlteach.course.deck import deck_notebook
    from kmlteach.course.site import site_notebook
    from kmlteach.course.site_pages import home_page

    fork = dataclasses.replace(
        B,
        repository="https://github.com/someone/my-course",
        student_repository="https://github.com/someone/my-course-student",
        branch="fall",
    )
    ch = READY[1]
    nb = nbformat.read(ROOT / ch.notebook, as_version=4)
    for made in (site_notebook(nb, ch, fork), deck_notebook(nb, ch, fork)):
        text = json.dumps(made, ensure_ascii=False)
        assert "mybinder.org/v2/gh/someone/my-course-student/fall?urlpath=lab/tree/notebooks/" in text
        assert "v2/gh/kmlteach/kmlteach" not in text, "a Binder link ignores book.toml's repository"
        assert "v2/gh/someone/my-course/" not in text, "a Binder link opens the instructor repository"
    home = home_page(fork)
    assert "https://github.com/someone/my-course" in home and "github.com/kmlteach/kmlteach" not in home
