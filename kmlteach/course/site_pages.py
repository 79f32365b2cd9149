"""Generated pages of the course site: home, course map, instructor's guide.

Everything here is built from ``book.toml``, README.md, the stored notebooks and the
hand-written guide ``docs/instructor-guide.md`` (whose ``<!-- kml:... -->`` markers
are filled in), so a new chapter marked ``ready`` appears on every page by itself.
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
    "exercise_rows",
    "chapter_outline",
    "MINUTES_PER_POINT",
]

MINUTES_PER_POINT = 8  # estimate shown (marked "est.") when book.toml gives no minutes
_MARKER = re.compile(r"<!--\s*kml:(\w[\w-]*)(?:\s+(\w+))?\s*-->")


def _page(c) -> str:
    return f"notebooks/{Path(c.notebook).stem}.ipynb"


def exercise_rows(book, chapter) -> list[tuple[str, str, int, str]]:
    """(id, title, points, minutes) for each exercise of ``chapter`` in book.toml."""
    try:
        from kmlteach.exercises import registry

        reg = registry()
    except Exception:  # the site must build even if an exercise module is broken
        reg = {}
    rows = []
    for e in chapter.exercises:
        title = getattr(reg.get(e["id"]), "title", "") or ""
        minutes = e.get("minutes", e.get("estimated_minutes"))
        shown = str(minutes) if minutes else f"{MINUTES_PER_POINT * int(e['points'])} (est.)"
        rows.append((e["id"], title, int(e["points"]), shown))
    return rows


def _exercise_table(book, chapter) -> str:
    rows = exercise_rows(book, chapter)
    if not rows:
        return "*No graded exercises in this chapter.*\n"
    lines = ["| Exercise | Title | Points | Minutes |", "|---|---|---|---|"]
    lines += [f"| `{i}` | {t} | {p} | {m} |" for i, t, p, m in rows]
    total = sum(p for _, _, p, _ in rows)
    lines.append(f"| **total** | | **{total}** | |")
    return "\n".join(lines) + "\n"


def chapter_outline(book, chapter) -> list[tuple[str, list[str]]]:
    """The chapter's sections (level-2 headings) and the widgets each one shows."""
    nb = json.loads((book.root / chapter.notebook).read_text(encoding="utf-8"))
    from ._widget_snapshot import snapshot, widget_model_ids

    out: list[tuple[str, list[str]]] = []
    for cell in nb["cells"]:
        src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if cell["cell_type"] == "markdown":
            for h in re.findall(r"^##\s+(.+)$", src, re.M):
                out.append((h.strip(), []))
        elif cell["cell_type"] == "code" and out:
            for mid in widget_model_ids(cell):
                try:
                    out[-1][1].append(snapshot(nb, mid).title)
                except KeyError:
                    out[-1][1].append("widget")
    return out


def _slides_outline(book, chapter) -> str:
    lines = ["| Slide | Section | Widget to demo live |", "|---|---|---|", "| 1 | title and objectives | |"]
    for k, (title, widgets) in enumerate(chapter_outline(book, chapter), start=2):
        lines.append(f"| {k} | {title} | {', '.join(widgets)} |")
    return "\n".join(lines) + "\n"


def _links(book, c, prefix: str = "") -> str:
    stem = Path(c.notebook).stem
    return (
        f"[page]({prefix}{_page(c)}) · [Binder]({student_binder_url(book, c)}) · "
        f'<a href="{prefix}slides/{stem}.slides.html">slides</a>'
    )


def _repo_links(text: str, book) -> str:
    base = book.repository.rstrip("/")

    def fix(m):
        label, target = m.group(1), m.group(2)
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            return m.group(0)
        return f"[{label}]({base}/blob/{book.branch}/{target})"

    return re.sub(r"(?<!!)\[([^\]]+)\]\(([^)]+)\)", fix, text)


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


def instructor_guide_page(book) -> str:
    """``docs/instructor-guide.md`` with its markers filled in from book.toml and the notebooks.

    Markers: ``<!-- kml:exercises NN -->`` (exercise table), ``<!-- kml:slides NN -->``
    (the deck's outline), ``<!-- kml:other-chapters -->`` (a skeleton plan for every
    ready chapter the guide does not cover yet), ``<!-- kml:points -->`` (totals).
    A link to ``midterm.md`` becomes plain text: the site does not publish the midterm,
    whose file holds the answer key.
    """
    text = (book.root / "docs" / "instructor-guide.md").read_text(encoding="utf-8")
    text = re.sub(r"\[([^\]]+)\]\(midterm\.md\)", r"\1 (in the repository only, not on this site)", text)
    covered = set(re.findall(r"<!--\s*kml:slides\s+(\w+)\s*-->", text))

    def fill(m):
        kind, arg = m.group(1), m.group(2)
        if kind in ("exercises", "slides"):
            c = book.chapter(arg)
            if not c.ready:
                return "*This chapter is in preparation.*\n"
            return _exercise_table(book, c) if kind == "exercises" else _slides_outline(book, c)
        if kind == "other-chapters":
            parts = []
            for c in book.chapters:
                if c.ready and c.id not in covered:
                    parts += [
                        f"### {c.id} · {c.title}",
                        "",
                        "*The lecture plan of this chapter is still to be written; its deck "
                        "and exercises are below.*",
                        "",
                        _slides_outline(book, c),
                        _exercise_table(book, c),
                    ]
            return "\n".join(parts)
        if kind == "points":
            rows = [(c, sum(int(e["points"]) for e in c.exercises)) for c in book.chapters if c.ready]
            lines = ["| Chapter | Exercises | Points |", "|---|---|---|"]
            lines += [f"| {c.id} · {c.title} | {len(c.exercises)} | {p} |" for c, p in rows]
            return "\n".join(lines) + "\n"
        return m.group(0)

    return _MARKER.sub(fill, text)
