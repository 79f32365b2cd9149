"""Per-chapter nbgitpuller links for a JupyterHub, from ``book.toml``.

A link ``<hub>/hub/user-redirect/git-pull?repo=<student repo>&urlpath=lab/tree/<dir>/<nb>``
logs the student in, starts their server, clones the student edition into their home
(or merges the new commits into their copy, keeping their edits: nbgitpuller's
"automatic merging"), and opens the chapter in JupyterLab. The hub's address and the
student edition's repository come from ``book.toml`` (``[book] jupyterhub`` and
``student_repository``, the keys the student edition's own README links use too); the
edition keeps the released notebooks in ``notebooks/``.

``python deploy/hub/links.py`` prints the table of links (Markdown) for a course page or
an LMS; ``--hub URL`` / ``--repo URL`` override book.toml (the load test uses a local
hub and a local clone).
"""

from __future__ import annotations

import argparse
import sys
import tomllib
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Where the released notebooks sit inside the student edition (python -m kmlteach publish-student).
STUDENT_NOTEBOOK_DIR = "notebooks"
KEYS = {"hub_url": "jupyterhub", "student_repo_url": "student_repository"}  # ours: book.toml's [book]

__all__ = ["course_links", "chapter_link", "chapters", "STUDENT_NOTEBOOK_DIR"]


def course_links(book_toml: Path | None = None) -> dict[str, str]:
    """``{"hub_url", "student_repo_url", "branch"}`` from book.toml's ``[book]`` table."""
    data = tomllib.loads((book_toml or ROOT / "book.toml").read_text(encoding="utf-8"))
    meta = data.get("book", {})
    out = {}
    for ours, key in KEYS.items():
        value = meta.get(key)
        if not isinstance(value, str) or not value.startswith(("https://", "http://")):
            raise ValueError(f"book.toml [book] {key} must be an http(s) URL, got {value!r}")
        out[ours] = value.rstrip("/")
    out["branch"] = meta.get("branch", "main")
    return out


def chapters(book_toml: Path | None = None) -> list[tuple[str, str, str]]:
    """``(id, title, notebook file name)`` of every ready chapter."""
    data = tomllib.loads((book_toml or ROOT / "book.toml").read_text(encoding="utf-8"))
    return [
        (str(c["id"]), c["title"], Path(c["notebook"]).name)
        for c in data.get("chapters", [])
        if c.get("status") == "ready"
    ]


def chapter_link(
    hub_url: str,
    repo_url: str,
    notebook: str,
    branch: str | None = None,
    notebook_dir: str = STUDENT_NOTEBOOK_DIR,
) -> str:
    """The nbgitpuller link opening ``notebook`` of the student repository on ``hub_url``.

    Without ``branch`` nbgitpuller uses the repository's default branch.
    """
    for name, value in (("hub_url", hub_url), ("repo_url", repo_url), ("notebook", notebook)):
        if not isinstance(value, str) or not value:
            raise ValueError(f"{name} must be a non-empty string, got {value!r}")
    target = repo_url.rstrip("/").split("/")[-1].removesuffix(".git")
    path = "/".join(p for p in (target, notebook_dir.strip("/"), notebook) if p)
    query = {"repo": repo_url, "targetpath": target, "urlpath": f"lab/tree/{path}"}
    if branch:
        query["branch"] = branch
    return (
        hub_url.rstrip("/")
        + "/hub/user-redirect/git-pull?"
        + urllib.parse.urlencode(query, quote_via=urllib.parse.quote, safe="/")
    )


def markdown_table(
    hub_url: str, repo_url: str, branch: str | None = None, book_toml: Path | None = None
) -> str:
    lines = ["| # | Chapter | Open on the hub |", "|---|---|---|"]
    for cid, title, nb in chapters(book_toml):
        lines.append(f"| {cid} | {title} | [{nb}]({chapter_link(hub_url, repo_url, nb, branch=branch)}) |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hub", help="hub URL (default: book.toml [book] jupyterhub)")
    ap.add_argument("--repo", help="student repository URL (default: [book] student_repository)")
    args = ap.parse_args(argv)
    links = course_links() if not (args.hub and args.repo) else {}
    print(
        markdown_table(
            args.hub or links["hub_url"], args.repo or links["student_repo_url"], links.get("branch")
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
