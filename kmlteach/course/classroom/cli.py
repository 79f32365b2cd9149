"""The classroom's commands: ``collect`` and ``return`` (``python -m kmlteach``), and the
``--lms``/``--lms-map`` options of ``grade`` (docs/classroom.md)."""

from __future__ import annotations

import sys
from pathlib import Path

__all__ = ["add_commands", "add_grade_options"]


def _collect(args) -> int:
    from .collect import collect

    try:
        collect(args.chapter, args.exchange, args.out, due=args.due)
    except (ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


def _return(args) -> int:
    from .giveback import give_back

    try:
        give_back(args.chapter, args.feedback, args.exchange)
    except (ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


def add_commands(sub) -> None:
    """Add ``collect`` and ``return`` to the command line's subparsers."""
    p = sub.add_parser(
        "collect",
        help="gather each student's latest hand-in of a chapter from the hub's exchange folder",
        description="Copy every student's latest hand-in of CHAPTER (submit() on the hub) from the "
        "classroom service's exchange folder into SUBMISSIONS, one <user>.ipynb each, for grade; "
        "with --due, the minutes late go to the gradebook's late column.",
    )
    p.add_argument("chapter", metavar="CHAPTER", help="chapter id such as 01")
    p.add_argument("--exchange", type=Path, required=True, help="the classroom service's exchange folder")
    p.add_argument(
        "--out", type=Path, required=True, metavar="SUBMISSIONS", help="folder to fill (one per chapter)"
    )
    p.add_argument(
        "--due", default=None, metavar="ISO-8601", help="due time, e.g. 2027-03-01T23:59 (local time)"
    )
    p.set_defaults(fn=_collect)
    p = sub.add_parser(
        "return",
        help="hand each student their feedback through the hub (feedback() in a notebook)",
        description="Copy grade's feedback for each student who handed in CHAPTER on the hub into the "
        "exchange folder, where the classroom service gives it to that student alone.",
    )
    p.add_argument("chapter", metavar="CHAPTER", help="chapter id such as 01")
    p.add_argument("--feedback", type=Path, required=True, help="the folder grade --feedback wrote")
    p.add_argument("--exchange", type=Path, required=True, help="the classroom service's exchange folder")
    p.set_defaults(fn=_return)


def add_grade_options(p) -> None:
    """``--lms canvas|moodle FILE`` and ``--lms-map FILE`` on ``grade``'s parser."""
    p.add_argument(
        "--lms",
        nargs=2,
        default=None,
        metavar=("canvas|moodle", "FILE"),
        help="also write a grade-import CSV for Canvas or Moodle (one column per chapter)",
    )
    p.add_argument(
        "--lms-map",
        type=Path,
        default=None,
        metavar="FILE",
        help="CSV mapping hub user names (column 'user') to the LMS's student columns",
    )
