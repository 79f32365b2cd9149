"""Command line: ``python -m kmlteach warmup | check-env | chapters | execute | student``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def _cmd_warmup(args) -> int:
    from . import warmup

    warmup(verbose=not args.quiet)
    return 0


def _cmd_check_env(args) -> int:
    from . import check_env

    check_env()
    return 0


def _cmd_chapters(args) -> int:
    from .course import book

    b = book.load(args.book)
    print(b.table())
    if args.update_readme:
        changed = book.update_readme(b)
        print("README.md chapter table " + ("updated" if changed else "already up to date"))
    return 0


def _cmd_student(args) -> int:
    from .course.release import write_student_version

    for p in write_student_version(args.src, args.out):
        print(f"wrote {p}")
    return 0


def _cmd_execute(args) -> int:
    from .course.build import build

    return build(args.names, timeout=args.timeout)


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {value}")
    return value


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m kmlteach", description=__doc__)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("warmup", help="compile every Numba kernel, print per-kernel time")
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(fn=_cmd_warmup)
    p = sub.add_parser("check-env", help="versions, Numba cache, widget support")
    p.set_defaults(fn=_cmd_check_env)
    p = sub.add_parser("chapters", help="print the chapter table from book.toml")
    p.add_argument("--book", default=None)
    p.add_argument("--update-readme", action="store_true",
                   help="rewrite README.md's chapter table from book.toml")
    p.set_defaults(fn=_cmd_chapters)
    p = sub.add_parser("student", help="write student versions (solutions stubbed, outputs cleared)")
    p.add_argument("src", type=Path)
    p.add_argument("out", type=Path)
    p.set_defaults(fn=_cmd_student)
    p = sub.add_parser("execute", help="build notebooks/NN-*.ipynb from notebooks/src/*.py and run them")
    p.add_argument("names", nargs="*", help="notebook stems such as 01-svm (default: all)")
    p.add_argument("--timeout", type=_positive_int, default=600,
                   help="seconds per notebook (default 600)")
    p.set_defaults(fn=_cmd_execute)
    args = ap.parse_args(argv)
    try:
        return args.fn(args)
    except (ValueError, TypeError, OSError, KeyError) as exc:
        # a one-line error for the user's mistakes (a missing or wrong path, a bad
        # value); tracebacks are for bugs
        print(f"python -m kmlteach {args.cmd}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
