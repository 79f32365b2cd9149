"""Small text helpers shared by the site and the slide decks."""

from __future__ import annotations

import re
from pathlib import Path

__all__ = ["student_path", "student_binder_url", "rewrite_markdown", "split_at_headings"]

_BADGE = re.compile(r"\[!\[([^\]]*)\]\(([^)]*)\)\]\(([^)]*)\)")
_BINDER_LINK = re.compile(r"(?<!!)\[([^\]]*)\]\((https://mybinder\.org/v2/gh/[^)]*)\)")
_NB_LINK = re.compile(r"\[([^\]]+)\]\((\d\d-[\w-]+)\.ipynb(#[^)]*)?\)")
_DOCS_LINK = re.compile(r"\]\(\.\./docs/([\w-]+\.md)(#[^)]*)?\)")


def student_path(chapter, book=None) -> str:
    """The student version of ``chapter`` in the repository its Binder link opens: the
    student edition's ``notebooks/NN-slug.ipynb`` (``python -m kmlteach publish-student``)
    when ``book.toml`` names a ``student_repository``; else ``student/NN-slug.ipynb`` of the
    instructor repository, which Binder's postBuild writes."""
    folder = "notebooks" if book is not None and book.student_repository else "student"
    return f"{folder}/{Path(chapter.notebook).name}"


def student_binder_url(book, chapter) -> str:
    """The Binder link that opens the student version of ``chapter``: in the student
    repository when ``book.toml`` names one (never the instructor repository, which holds
    every solution), else the instructor repository's ``student/`` folder."""
    return book.binder_url(student_path(chapter, book), book.student_repository or None)


def rewrite_markdown(text: str, book, chapter, target) -> str:
    """Prepare a notebook's Markdown for a published page.

    * a Binder badge (a remote image) or a Binder link becomes a text link to the
      chapter's student version on Binder, so nothing is fetched from the network;
    * a link to another chapter's notebook ``NN-slug.ipynb`` becomes
      ``target(stem)`` for a ready chapter, and plain text for a planned one;
    * a link to a page of ``docs/`` (``../docs/glossary.md``) becomes its address in the
      repository (the site rewrites the pages it publishes itself before this).
    """
    student = f"[Open this chapter on Binder]({student_binder_url(book, chapter)})"
    text = _BADGE.sub(lambda m: student, text)
    text = _BINDER_LINK.sub(lambda m: student, text)
    ready = {Path(c.notebook).stem for c in book.chapters if c.ready}

    def link(m):
        label, stem, anchor = m.group(1), m.group(2), m.group(3) or ""
        return f"[{label}]({target(stem)}{anchor})" if stem in ready else f"{label} (coming soon)"

    base = f"{book.repository.rstrip('/')}/blob/{book.branch}/docs/"
    text = _DOCS_LINK.sub(lambda m: f"]({base}{m.group(1)}{m.group(2) or ''})", text)
    return _NB_LINK.sub(link, text)


def split_at_headings(text: str) -> list[str]:
    """Split Markdown before every level-1/2 heading that is not at its start."""
    parts, cur = [], []
    fence = False
    for line in text.splitlines():
        if line.strip().startswith("```"):
            fence = not fence
        if not fence and re.match(r"#{1,2}\s", line) and any(s.strip() for s in cur):
            parts.append("\n".join(cur).strip("\n"))
            cur = []
        cur.append(line)
    parts.append("\n".join(cur).strip("\n"))
    return [p for p in parts if p.strip()]
