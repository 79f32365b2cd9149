"""The course manifest ``book.toml``: chapters, notebooks, exercises, Binder links."""

from __future__ import annotations

import tomllib
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

__all__ = ["Chapter", "Book", "load", "ROOT"]


@dataclass(frozen=True)
class Chapter:
    id: str
    title: str
    notebook: str
    sources: tuple[str, ...]
    objectives: tuple[str, ...]
    status: str
    exercises: tuple[dict, ...] = field(default_factory=tuple)

    @property
    def ready(self) -> bool:
        return self.status == "ready"


@dataclass(frozen=True)
class Book:
    title: str
    description: str
    repository: str
    branch: str
    chapters: tuple[Chapter, ...]
    root: Path

    def binder_url(self, notebook: str | None = None) -> str:
        """``https://mybinder.org/v2/gh/ORG/REPO/BRANCH?urlpath=lab/tree/<notebook>``."""
        slug = urllib.parse.urlparse(self.repository).path.strip("/")
        if slug.endswith(".git"):
            slug = slug[:-4]
        url = f"https://mybinder.org/v2/gh/{slug}/{self.branch}"
        if notebook:
            url += "?urlpath=" + urllib.parse.quote(f"lab/tree/{notebook}", safe="/")
        return url

    def chapter(self, chapter_id: str) -> Chapter:
        for c in self.chapters:
            if c.id == chapter_id:
                return c
        raise KeyError(f"no chapter {chapter_id!r} in book.toml")

    def exercise_ids(self) -> list[str]:
        return [e["id"] for c in self.chapters for e in c.exercises]

    def table(self) -> str:
        """The chapter table as Markdown (the README's table is checked against it)."""
        lines = ["| # | Chapter | Sources | Status | Notebook |", "|---|---|---|---|---|"]
        for c in self.chapters:
            nb = f"[{Path(c.notebook).name}]({c.notebook})" if c.ready else Path(c.notebook).name
            lines.append(f"| {c.id} | {c.title} | {', '.join(c.sources)} | {c.status} | {nb} |")
        return "\n".join(lines)


def load(path: str | Path | None = None) -> Book:
    """Read ``book.toml`` (default: the one at the repository root)."""
    p = Path(path) if path else ROOT / "book.toml"
    if not p.exists():
        raise FileNotFoundError(f"book.toml not found at {p}")
    data = tomllib.loads(p.read_text(encoding="utf-8"))
    meta = data.get("book", {})
    chapters = []
    for c in data.get("chapters", []):
        status = c.get("status", "planned")
        if status not in ("ready", "planned"):
            raise ValueError(f"chapter {c.get('id')!r}: status must be 'ready' or 'planned', got {status!r}")
        chapters.append(Chapter(
            id=str(c["id"]), title=c["title"], notebook=c["notebook"],
            sources=tuple(c.get("sources", ())), objectives=tuple(c.get("objectives", ())),
            status=status, exercises=tuple(c.get("exercises", ())),
        ))
    return Book(title=meta.get("title", ""), description=meta.get("description", ""),
                repository=meta.get("repository", ""), branch=meta.get("branch", "main"),
                chapters=tuple(chapters), root=p.parent)
