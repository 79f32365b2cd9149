"""Command line: ``python -m kmlteach warmup | check-env | chapters | execute | student | slides | site``."""

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


def _cmd_slides(args) -> int:
    from .course import book
    from .course.slides import apply_to_notebooks

    b = book.load()
    if args.apply:
        paths = [b.root / c.notebook for c in b.chapters if c.ready]
        changed = apply_to_notebooks(paths)
        print(f"slide metadata written to {len(changed)} of {len(paths)} notebooks")
        return 0
    from .course.deck import build_decks

    build_decks(args.out, chapters=args.chapters or None, book=b)
    return 0


def _cmd_site(args) -> int:
    from .course.site import build_site

    try:
        build_site(args.out, slides=not args.no_slides)
    except RuntimeError as err:
        print(err, file=sys.stderr)
        return 1
    return 0


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
    p.add_argument("--timeout", type=int, default=600)
    p.set_defaults(fn=_cmd_execute)
    p = sub.add_parser("slides", help="write a reveal.js deck per ready chapter (offline), "
                                      "or --apply slide metadata to the stored notebooks")
    p.add_argument("chapters", nargs="*", help="chapter ids such as 01 (default: every ready chapter)")
    p.add_argument("--out", type=Path, default=Path("build/slides"))
    p.add_argument("--apply", action="store_true",
                   help="write slide metadata into notebooks/*.ipynb (no execution) instead")
    p.set_defaults(fn=_cmd_slides)
    p = sub.add_parser("site", help="build the static course site into build/site (offline)")
    p.add_argument("--out", type=Path, default=Path("build/site"))
    p.add_argument("--no-slides", action="store_true", help="leave the decks out of the site")
    p.set_defaults(fn=_cmd_site)
    args = ap.parse_args(argv)
    return args.fn(args)


if __name__ == "__main__":
    sys.exit(main())
