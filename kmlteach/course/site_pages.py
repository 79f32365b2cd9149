"""Generated pages of the course site: home, course map, instructor's guide.

Everything here is built from ``book.toml``, README.md, the stored notebooks and the
hand-written guide ``docs/instructor-guide.md`` (whose generated tables, between
``<!-- kml:... -->`` markers, are rendered here for ``python -m kmlteach docs`` and the
site), so a new chapter marked ``ready`` appears on every page by itself.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from ._publish import student_binder_url

__all__ = [
    "home_page",
    "course_map_page",
    "instructor_guide_page",
    "render_guide",
    "site_links",
    "doc_page",
    "PUBLISHED_DOCS",
    "UNPUBLISHED",
    "exercise_rows",
    "chapter_outline",
    "MINUTES_PER_POINT",
]

MINUTES_PER_POINT = 8  # estimate shown (marked "est.") when book.toml gives no minutes


def _page(c) -> str:
    return f"notebooks/{Path(c.notebook).stem}.ipynb"


def exercise_rows(book, chapter) -> list[tuple[str, str, int, str]]:
    """(id, title, points, minutes) for each exercise of ``chapter`` in book.toml."""
    from kmlteach.exercises import registry

    reg = registry()  # a broken exercise module fails the build: no table without its titles
    rows = []
    for e in chapter.exercises:
        title = getattr(reg.get(e["id"]), "title", "") or ""
        minutes = e.get("minutes", e.get("estimated_minutes"))
        shown = str(minutes) if minutes else f"{MINUTES_PER_POINT * int(e['points'])} (est.)"
        rows.append((e["id"], title, int(e["points"]), shown))
    return rows


def _text_cell(text: str) -> str:
    """Text for a Markdown table cell: "y<w, x>" must not read as an HTML tag, nor "|" end the cell."""
    for ch in "\\<>|":
        text = text.replace(ch, "\\" + ch)
    return text


def _exercise_table(book, chapter) -> str:
    rows = exercise_rows(book, chapter)
    if not rows:
        return "*No graded exercises in this chapter.*\n"
    lines = ["| Exercise | Title | Points | Minutes |", "|---|---|---|---|"]
    lines += [f"| `{i}` | {_text_cell(t)} | {p} | {m} |" for i, t, p, m in rows]
    total = sum(p for _, _, p, _ in rows)
    lines.append(f"| **total** | | **{total}** | |")
    return "\n".join(lines) + "\n"


_ASK = re.compile(r"""\bask\(\s*["'](\d\d\.c_\w+)["']""")
_BUILDER = re.compile(r"\b(make_\w+)\(")


def _recap_ids(chapter_id: str) -> list[str]:
    from kmlteach.exercises import questions

    return [q.id for q in questions(chapter_id, kind="recap")]


def _cell_widgets(nb, cell, src: str) -> list[str]:
    """The widgets a code cell shows: snapshot titles, a prediction mode marked as such, the
    recap quiz by its call."""
    from ._widget_snapshot import snapshot, widget_model_ids

    names = []
    for mid in widget_model_ids(cell):
        quiz = re.search(r"""\bquiz\(\s*["'](\d\d)["']""", src)
        if quiz:
            names.append("recap quiz " + ", ".join(f"`{i}`" for i in _recap_ids(quiz.group(1))))
            continue
        try:
            title = snapshot(nb, mid).title
        except KeyError:
            title = "widget"
        builder = _BUILDER.search(src)
        if "predict=True" in src and builder:
            title += f" — prediction mode (`{builder.group(1)}` with `predict=True`)"
        names.append(title)
    return names


def section_outline(book, chapter) -> list[tuple[str, list[str], list[str]]]:
    """(section, widgets, concept-check ids) for each level-2 heading of the chapter's
    stored notebook, in order."""
    nb = json.loads((book.root / chapter.notebook).read_text(encoding="utf-8"))
    out: list[tuple[str, list[str], list[str]]] = []
    for cell in nb["cells"]:
        src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if cell["cell_type"] == "markdown":
            for h in re.findall(r"^##\s+(.+)$", src, re.M):
                out.append((h.strip(), [], []))
        elif cell["cell_type"] == "code" and out:
            for w in _cell_widgets(nb, cell, src):
                if w not in out[-1][1]:
                    out[-1][1].append(w)
            out[-1][2].extend(i for i in _ASK.findall(src) if i not in out[-1][2])
    return out


def chapter_outline(book, chapter) -> list[tuple[str, list[str]]]:
    """The chapter's sections (level-2 headings) and the widgets each one shows."""
    return [(title, widgets) for title, widgets, _ in section_outline(book, chapter)]


def _slides_outline(book, chapter) -> str:
    lines = [
        "| # | Section of the deck | Widgets to demo live | Concept checks asked |",
        "|---|---|---|---|",
        "| 1 | title and objectives | | |",
    ]
    for k, (title, widgets, checks) in enumerate(section_outline(book, chapter), start=2):
        ids = ", ".join(f"`{i}`" for i in checks)
        lines.append(f"| {k} | {title} | {'; '.join(widgets)} | {ids} |")
    return "\n".join(lines) + "\n"


def _links(book, c, prefix: str = "") -> str:
    stem = Path(c.notebook).stem
    return (
        f"[page]({prefix}{_page(c)}) · [Binder]({student_binder_url(book, c)}) · "
        f'<a href="{prefix}slides/{stem}.slides.html">slides</a>'
    )


# The pages of docs/ that the site publishes (flat, beside index.md), besides the guide.
# The exams are deliberately absent: their files hold the answer keys.
PUBLISHED_DOCS = (
    "glossary.md",
    "project.md",
    "releasing.md",
    "grading.md",
    "security.md",
    "cli.md",
    "design.md",
)
# the exams' files hold their answer keys: the site names them but never publishes them
UNPUBLISHED = ("midterm.md", "final.md")
_LINK = re.compile(r"(?<!!)\[((?:[^\[\]]|\[[^\]]*\])+)\]\(([^)\s]+)\)")


def site_links(text: str, book, here: str = "") -> str:
    """The Markdown links of a repository file (in folder ``here``, e.g. ``"docs"``) made
    right for the site: a page the site publishes (``docs/grading.md``) becomes a link to
    its page, an exam becomes plain text, and anything else in the repository a link to
    its file on the repository's web page."""
    base = book.repository.rstrip("/")
    site_pages = set(PUBLISHED_DOCS) | {"instructor-guide.md"}

    def fix(m):
        label, target = m.group(1), m.group(2)
        if re.match(r"[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            return m.group(0)
        path, _, frag = target.partition("#")
        parts: list[str] = [p for p in here.split("/") if p]
        for seg in path.split("/"):
            if seg == "..":
                parts = parts[:-1]
            elif seg not in ("", "."):
                parts.append(seg)
        rel = "/".join(parts)
        anchor = f"#{frag}" if frag else ""
        if len(parts) == 2 and parts[0] == "docs" and parts[1] in site_pages:
            return f"[{label}]({parts[1]}{anchor})"
        if len(parts) == 2 and parts[0] == "docs" and parts[1] in UNPUBLISHED:
            return f"{label} (in the repository only, not on this site)"
        return f"[{label}]({base}/blob/{book.branch}/{rel}{anchor})"

    return _LINK.sub(fix, text)


def _repo_links(text: str, book) -> str:
    return site_links(text, book, "")


def doc_page(book, name: str) -> str:
    """A page of ``docs/`` as the site publishes it (its links made right for the site)."""
    return site_links((book.root / "docs" / name).read_text(encoding="utf-8"), book, "docs")


def home_page(book) -> str:
    """README's introduction, the chapters from book.toml, and how to run the course."""
    readme = (book.root / "README.md").read_text(encoding="utf-8")
    intro = readme.split("\n## ", 1)[0]
    intro = "\n".join(ln for ln in intro.splitlines()[1:] if "badge" not in ln).strip()
    sections = {
        s.split("\n", 1)[0].strip(): s.split("\n", 1)[1] if "\n" in s else ""
        for s in readme.split("\n## ")[1:]
    }
    lines = [
        f"# {book.title}",
        "",
        _repo_links(intro, book) or book.description,
        "",
        "## Chapters",
        "",
        "| # | Chapter | Sources | Open |",
        "|---|---|---|---|",
    ]
    for c in book.chapters:
        if c.ready:
            lines.append(f"| {c.id} | [{c.title}]({_page(c)}) | {', '.join(c.sources)} | {_links(book, c)} |")
        else:
            lines.append(f"| {c.id} | {c.title} (in preparation) | {', '.join(c.sources)} | |")
    lines += [
        "",
        "See the [course map](course-map.md) for objectives, widgets and exercises per "
        "chapter, and the [instructor's guide](instructor-guide.md) for lecture plans.",
        "",
    ]
    run = sections.get("Two commands")
    if run:
        lines += [
            "## Running the course",
            "",
            f"Every chapter opens on Binder (no installation): [launch the course]"
            f"({student_binder_url(book, next(c for c in book.chapters if c.ready))}).",
            "",
            _repo_links(run.strip(), book),
            "",
        ]
    manuals = sections.get("Manuals")
    if manuals:
        lines += ["## Manuals", "", site_links(manuals.strip(), book, ""), ""]
    src = [s for s in sections.values() if s.lstrip().startswith("| #")]
    tail = readme.split("<!-- /chapter-table -->", 1)[-1].split("\n## ", 1)[0].strip()
    if tail and not src:
        lines += [_repo_links(tail, book), ""]
    lines += [f"Source code: [{book.repository}]({book.repository}).", ""]
    return "\n".join(lines)


def course_map_page(book) -> str:
    """Every chapter with its sources, objectives, sections, widgets and exercises."""
    lines = [
        "# Course map",
        "",
        "The chapters build on each other in order: kernels (02–03) reuse the SVMs of 01; "
        "multiclass (04), structured prediction (05) and ranking (06–07) reuse the "
        "generalized hinge loss and the SGD of 01.",
        "",
    ]
    for c in book.chapters:
        lines += [f"## {c.id} · {c.title}", ""]
        if not c.ready:
            lines += ["*In preparation.*", ""]
        else:
            lines += [_links(book, c), ""]
        if c.sources:
            lines += [f"**Sources:** {', '.join(c.sources)}", ""]
        lines += ["**Objectives**", ""] + [f"- {o}" for o in c.objectives] + [""]
        if c.ready:
            outline = chapter_outline(book, c)
            lines += ["**Sections and widgets**", ""]
            lines += [f"- {t}" + (f" — *{', '.join(w)}*" if w else "") for t, w in outline] + [""]
        if c.exercises:
            lines += ["**Exercises**", "", _exercise_table(book, c)]
    return "\n".join(lines)


# A generated block of the guide: its opening marker, the text it holds (never another
# marker), and its closing marker; the first rendering of a bare opening marker adds both.
_BLOCK = re.compile(
    r"<!--\s*kml:(slides|exercises|points|schedule)(?:\s+(\w+))?\s*-->\n"
    r"(?:(?:(?!<!--\s*/?kml:).)*?<!--\s*/kml:\1\s*-->\n)?",
    re.S,
)


def _points_table(book) -> str:
    rows = [(c, sum(int(e["points"]) for e in c.exercises)) for c in book.chapters if c.ready]
    lines = ["| Chapter | Exercises | Points |", "|---|---|---|"]
    lines += [f"| {c.id} · {c.title} | {len(c.exercises)} | {p} |" for c, p in rows]
    lines.append(
        f"| **total** | **{sum(len(c.exercises) for c, _ in rows)}** | **{sum(p for _, p in rows)}** |"
    )
    return "\n".join(lines) + "\n"


def render_guide(text: str, book) -> str:
    """``text`` (the guide's Markdown) with its generated tables rendered again.

    Blocks: ``<!-- kml:exercises NN -->`` (the chapter's exercises from the records),
    ``<!-- kml:slides NN -->`` (its deck's outline, from the stored notebook),
    ``<!-- kml:points -->`` (exercises and points per chapter), ``<!-- kml:schedule N -->``
    (the N-week schedule, :func:`kmlteach.course.schedule.table`), each closed by
    ``<!-- /kml:KIND -->``. Markers of any other kind are left as they are.
    """
    from .schedule import table as schedule_table

    def fill(m):
        kind, arg = m.group(1), m.group(2)
        if kind == "points":
            body = _points_table(book)
        elif kind == "schedule":
            body = schedule_table(book, int(arg))
        else:
            c = book.chapter(arg)
            if not c.ready:
                body = "*This chapter is in preparation.*\n"
            else:
                body = _exercise_table(book, c) if kind == "exercises" else _slides_outline(book, c)
        head = f"<!-- kml:{kind}{' ' + arg if arg else ''} -->"
        return f"{head}\n\n{body}\n<!-- /kml:{kind} -->\n"

    return _BLOCK.sub(fill, text)


def instructor_guide_page(book) -> str:
    """``docs/instructor-guide.md`` for the site: its tables rendered (:func:`render_guide`)
    and its links made right for the site (:func:`site_links`): a link to an exam
    (``midterm.md``, ``final.md``) becomes plain text, since the site does not publish the
    exams, whose files hold the answer keys."""
    text = render_guide((book.root / "docs" / "instructor-guide.md").read_text(encoding="utf-8"), book)
    return site_links(text, book, "docs")
