"""The static course site (``make site`` / ``python -m kmlteach site``).

Builds ``build/site/`` offline with jupyter-book 1.x (Sphinx, sphinx-book-theme):

* a home page from README.md and ``book.toml``; the course map; the instructor's guide
  (source ``docs/instructor-guide.md``, its tables rendered from ``book.toml``, the
  exercise records and the notebooks); the manuals of ``PUBLISHED_DOCS`` (releasing,
  grading, security, the command-line reference, the design, the glossary, the project),
  their links to other files of the repository pointing at the repository's web page;
  never the exams, whose files hold the answer keys (``docs/midterm.md`` and
  ``docs/final.md`` are for instructors only);
* one page per *ready* chapter of ``book.toml``, made from the stored notebook
  without executing it: solutions stripped (the cells that held one lose their
  outputs), each widget replaced by its static snapshot, every figure given alt
  text, a bar with "launch on Binder" (the student version: the student repository's
  ``notebooks/NN-slug.ipynb``, see :func:`._publish.student_binder_url`),
  "download the notebook" and "slides" links;
* the chapters' reveal.js decks under ``slides/`` (see :mod:`kmlteach.course.deck`);
* MathJax from the vendored copy (``mathjax_path``), Sphinx's own search.

The repository URL appears once, in ``book.toml``; every Binder and source link of
the site is built from it.
"""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from . import book as _book
from ._publish import rewrite_markdown, student_binder_url
from ._widget_snapshot import replace_widget_views
from .release import strip_solutions
from .site_pages import PUBLISHED_DOCS, course_map_page, doc_page, home_page, instructor_guide_page
from .slides import is_solution_cell

HERE = Path(__file__).resolve().parent
MATHJAX = HERE / "vendor" / "mathjax"

__all__ = ["site_notebook", "stage", "build_site", "figure_alt", "PUBLISHED_DOCS"]

_SITE_DOCS_LINK = re.compile(r"\]\(\.\./docs/(" + "|".join(re.escape(d) for d in PUBLISHED_DOCS) + r")")


def _src(cell) -> str:
    s = cell.get("source", "")
    return "".join(s) if isinstance(s, list) else s


def figure_alt(chapter, section: str, code: str, k: int) -> str:
    """Alt text for the k-th figure of a chapter: its section and the titles set in its code."""
    titles = re.findall(r"title\s*=\s*f?[\"']([^\"'{}]{3,80})[\"']", code)
    text = f"Figure {k} of chapter {chapter.id}, section “{section}”"
    if titles:
        text += ": " + "; ".join(dict.fromkeys(titles))
    return text + ". The text around it states what it shows."


def site_notebook(nb, chapter, book):
    """A copy of ``nb`` fit for the public site: no solutions, no live widgets, alt texts."""
    nb = copy.deepcopy(nb)
    replace_widget_views(nb, student_binder_url(book, chapter))
    section, k = chapter.title, 0
    for cell in nb["cells"]:
        cell["metadata"].pop("slideshow", None)
        if cell["cell_type"] == "markdown":
            src = _SITE_DOCS_LINK.sub(r"](../\1", _src(cell))  # the site's own copy
            cell["source"] = rewrite_markdown(src, book, chapter, lambda stem: f"{stem}.ipynb")
            heads = re.findall(r"^#{1,3}\s+(.+)$", cell["source"], re.M)
            section = heads[-1].strip() if heads else section
            continue
        if cell["cell_type"] != "code":
            continue
        # nbval's markers are for the test suite, not for readers
        cell["source"] = re.sub(r"(?m)^# NBVAL_[A-Z_]+[ \t]*\n", "", _src(cell))
        if is_solution_cell(cell):
            cell["source"] = strip_solutions(_src(cell))
            cell["outputs"], cell["execution_count"] = [], None
            continue
        for out in cell.get("outputs", []):
            data = out.get("data") or {}
            if "image/png" in data:
                meta = out.setdefault("metadata", {}).setdefault("image/png", {})
                if not meta.get("alt"):
                    k += 1
                    meta["alt"] = figure_alt(chapter, section, _src(cell), k)
    nb["metadata"].pop("rise", None)
    nb["metadata"]["kmlteach"] = {
        **nb["metadata"].get("kmlteach", {}),
        "chapter": chapter.id,
        "version": "site",
    }
    name = Path(chapter.notebook).name
    bar = (
        f"[▶ Launch on Binder]({student_binder_url(book, chapter)}) · "
        f"{{download}}`⬇ Download the notebook <{name}>` · "
        f'<a href="../slides/{Path(name).stem}.slides.html">Slides</a> · '
        f"[Course map](../course-map.md)"
    )
    import nbformat

    nb["cells"].insert(1, nbformat.v4.new_markdown_cell(bar))
    return nb


def _config(book) -> dict:
    return {
        "title": book.title,
        "author": "the kmlteach authors",
        "copyright": "2026",
        "only_build_toc_files": True,
        "exclude_patterns": ["_build", "**.ipynb_checkpoints"],
        "execute": {"execute_notebooks": "off"},
        "parse": {"myst_enable_extensions": ["colon_fence", "dollarmath", "amsmath"]},
        "html": {
            "use_repository_button": True,
            "use_issues_button": False,
            "use_edit_page_button": False,
            "home_page_in_navbar": True,
            "use_multitoc_numbering": False,
            "extra_footer": "",
        },
        "launch_buttons": {"binderhub_url": "", "thebe": False},
        "repository": {"url": book.repository, "branch": book.branch, "path_to_book": ""},
        "sphinx": {
            "local_extensions": {"kml_site_fixes": "_ext"},
            "config": {
                # _static/*.css and *.js are added to every page by jupyter-book itself; MathJax
                # lives outside it (html_extra_path) so that only Sphinx's math support loads it
                "html_extra_path": ["_extra"],
                "mathjax_path": "../mathjax/tex-svg-full.js",
                "mathjax3_config": {"tex": {"processEscapes": True}, "svg": {"fontCache": "global"}},
                "html_show_sourcelink": False,
                # ids for headings down to ###, so that `grading.md#the-command` resolves
                "myst_heading_anchors": 3,
                "nb_render_image_options": {},
                "suppress_warnings": ["myst.header", "mystnb.unknown_mime_type"],
                "html_theme_options": {
                    "use_download_button": True,
                    "use_fullscreen_button": False,
                    "navigation_with_keys": False,
                },
            },
        },
    }


# A local Sphinx extension: jupyter-book 1.0.4 registers sphinx-thebe's inline script
# twice ("Identifier 'THEBE_JS_URL' has already been declared"); the site has no thebe
# (launch buttons off), so its scripts are dropped, and any other duplicate with them.
FIXES_EXT = """
def _scripts(app, pagename, templatename, context, doctree):
    seen, kept = set(), []
    for js in context.get("script_files", []):
        key = (str(js), tuple(sorted(getattr(js, "attributes", {}).items())))
        body = getattr(js, "attributes", {}).get("body", "")
        if "thebe" in str(js) or "THEBE" in body or "thebe" in body or key in seen:
            continue
        seen.add(key)
        kept.append(js)
    context["script_files"] = kept


def setup(app):
    app.connect("html-page-context", _scripts, priority=900)
    return {"parallel_read_safe": True}
"""

SITE_CSS = """
/* kmlteach: readable static widget snapshots, contrast-safe links in the chapter bar */
.kml-snapshot-caption p { margin: 0.2em 0; }
.kml-readout table { border-collapse: collapse; }
.kml-readout td, .kml-readout th { padding: 0 0.5em; }
"""


def stage(out: str | Path, book=None) -> Path:
    """Write the jupyter-book project (config, toc, pages, chapter notebooks) into ``out``."""
    import nbformat

    book = book or _book.load()
    out = Path(out)
    if out.exists():
        shutil.rmtree(out)
    (out / "notebooks").mkdir(parents=True)
    (out / "_static").mkdir()
    (out / "_ext").mkdir()
    (out / "_ext" / "kml_site_fixes.py").write_text(FIXES_EXT, encoding="utf-8")
    shutil.copytree(MATHJAX, out / "_extra" / "mathjax")
    (out / "_static" / "kml-site.css").write_text(SITE_CSS, encoding="utf-8")
    ready = [c for c in book.chapters if c.ready]
    for ch in ready:
        nb = nbformat.read(book.root / ch.notebook, as_version=4)
        nbformat.write(site_notebook(nb, ch, book), out / "notebooks" / Path(ch.notebook).name)
    (out / "index.md").write_text(home_page(book), encoding="utf-8")
    (out / "course-map.md").write_text(course_map_page(book), encoding="utf-8")
    (out / "instructor-guide.md").write_text(instructor_guide_page(book), encoding="utf-8")
    docs = [d for d in PUBLISHED_DOCS if (book.root / "docs" / d).is_file()]
    for d in docs:
        (out / d).write_text(doc_page(book, d), encoding="utf-8")
    toc = {
        "format": "jb-book",
        "root": "index",
        "parts": [
            {
                "caption": "Chapters",
                "chapters": [{"file": f"notebooks/{Path(c.notebook).stem}"} for c in ready],
            },
            {
                "caption": "Course",
                "chapters": [{"file": "course-map"}, {"file": "instructor-guide"}]
                + [{"file": Path(d).stem} for d in docs],
            },
        ],
    }
    (out / "_toc.yml").write_text(json.dumps(toc, indent=1, ensure_ascii=False), encoding="utf-8")
    (out / "_config.yml").write_text(
        json.dumps(_config(book), indent=1, ensure_ascii=False), encoding="utf-8"
    )
    return out


def _world_readable(root: Path) -> None:
    """LinkChecker run as root drops to ``nobody``: every file must be readable by all."""
    for dirpath, _dirnames, filenames in os.walk(root):
        os.chmod(dirpath, 0o755)
        for f in filenames:
            os.chmod(os.path.join(dirpath, f), 0o644)


def build_site(
    out_dir: str | Path = "build/site",
    work_dir: str | Path | None = None,
    book=None,
    slides: bool = True,
    verbose: bool = True,
) -> Path:
    """Build the whole site into ``out_dir`` (offline); returns ``out_dir``.

    Raises ``RuntimeError`` with jupyter-book's log when the build fails or warns.
    """
    from .deck import build_decks

    book = book or _book.load()
    out = Path(out_dir).resolve()
    work = Path(work_dir).resolve() if work_dir else out.parent / (out.name + "-src")
    t0 = time.perf_counter()
    stage(work, book)
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "from jupyter_book.cli.main import main; main()",
            "build",
            str(work),
            "--builder",
            "html",
            "--path-output",
            str(work),
            "--keep-going",
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "PYDEVD_DISABLE_FILE_VALIDATION": "1"},
    )
    log = proc.stdout + proc.stderr
    warnings = [ln for ln in log.splitlines() if "WARNING" in ln or "ERROR" in ln]
    if proc.returncode != 0 or warnings:
        raise RuntimeError("jupyter-book build failed:\n" + "\n".join(warnings or log.splitlines()[-40:]))
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(work / "_build" / "html", out)
    if slides:
        build_decks(out / "slides", book=book, verbose=False)
    _world_readable(out)
    if verbose:
        print(
            f"built {out} ({sum(1 for c in book.chapters if c.ready)} chapters) "
            f"in {time.perf_counter() - t0:.1f} s"
        )
    return out
