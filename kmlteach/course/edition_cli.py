"""The student-edition subcommands of ``python -m kmlteach``: ``publish-student`` and
``reveal`` (kept here so that ``__main__`` only registers them)."""

from __future__ import annotations

import sys
from pathlib import Path

__all__ = ["add_commands"]


def _one_line_errors(action) -> int:
    """Run ``action``; an :class:`EditionError` becomes one line on stderr and status 1."""
    from .edition import EditionError

    try:
        action()
    except EditionError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


def _publish(args) -> int:
    from .edition import publish

    return _one_line_errors(lambda: publish(args.out))


def _reveal(args) -> int:
    from .edition import reveal

    return _one_line_errors(lambda: print(f"wrote {reveal(args.chapter, args.edition)}"))


def add_commands(sub) -> None:
    """Add ``publish-student`` and ``reveal`` to the CLI's subparsers ``sub``."""
    p = sub.add_parser(
        "publish-student",
        help="write the student edition: a self-contained "
        "repository without the answer key (see kmlteach/course/edition.py)",
    )
    p.add_argument("--out", type=Path, required=True, help="the edition's folder (outside this repository)")
    p.set_defaults(fn=_publish)
    p = sub.add_parser("reveal", help="add one chapter's solutions and last hints to a student edition")
    p.add_argument("chapter", metavar="CHAPTER", help="chapter id such as 01")
    p.add_argument("--edition", type=Path, required=True, help="the edition's folder")
    p.set_defaults(fn=_reveal)
