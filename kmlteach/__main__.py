"""Command line: ``kmlteach`` (or ``python -m kmlteach``) ``warmup | check-env | chapters |
execute | release | student | grade | collect | return | nbgrader-export | slides | site |
publish-student | reveal | hub-env | docs`` (every option: ``docs/cli.md``).

A mistake in what the user typed (a missing or unreadable path, a bad option value, an
unknown chapter id) is reported in one line: the subcommands raise :class:`UsageError`
(or their tool's own error type) for it. Anything else is a bug and raises with its
traceback.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


class UsageError(Exception):
    """Bad user input on the command line: printed as one ``error:`` line, exit status 2."""


# what the student edition (kmlteach/course/edition.py) ships without: the grader, the
# solutions and references, the notebook sources and the instructor's build tools
INSTRUCTOR_ONLY = (
    "release",
    "student",
    "nbgrader-export",
    "execute",
    "grade",
    "slides",
    "site",
    "publish-student",
    "reveal",
    "docs",
    "hub-env",
    "collect",
    "return",
)


def _student_edition() -> bool:
    """Whether this package is the student edition's (its ``course/`` keeps only what
    students need, never the instructor's ``release.py`` nor ``grade/``)."""
    course = Path(__file__).resolve().parent / "course"
    return not (course / "release.py").is_file() or not (course / "grade").is_dir()


def _prog() -> str:
    return "kmlteach" if Path(sys.argv[0]).name == "kmlteach" else "python -m kmlteach"


def _load_book(path=None):
    """book.toml (the default one, or the file given with --book)."""
    from .course import book

    try:
        return book.load(path)
    except (OSError, ValueError) as exc:  # missing, a folder, not TOML, a bad entry
        raise UsageError(str(exc)) from None


def _output_folder(path: Path, option: str) -> Path:
    """A folder given on the command line, created if missing; refused in one line when
    it cannot be (a file in the way, no permission)."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(
            f"{option} {str(path)!r}: cannot create the folder ({exc.strerror or exc})"
        ) from None
    return path


def _cmd_warmup(args) -> int:
    import os

    from . import warmup

    if args.status:
        from ._aot import status

        print(f"KMLTEACH_AOT=1: {status()}")
        return 0
    jobs = args.jobs if args.jobs > 0 else (os.cpu_count() or 1)
    warmup(verbose=not args.quiet, jobs=jobs)
    if args.aot:
        from ._aot import build

        build(args.aot_dir, cpu=args.cpu, verbose=not args.quiet)
    return 0


def _cmd_check_env(args) -> int:
    from . import check_env

    check_env()
    return 0


def _cmd_chapters(args) -> int:
    from .course import book

    b = _load_book(args.book)
    print(b.table())
    if args.update_readme:
        try:
            changed = book.update_readme(b)
        except (OSError, ValueError) as exc:  # no README.md, or no chapter-table markers in it
            raise UsageError(f"--update-readme: {exc}") from None
        print("README.md chapter table " + ("updated" if changed else "already up to date"))
    return 0


def _cmd_release(args) -> int:
    from .course.release import ReleaseError, release

    try:
        for p in release(args.chapters, args.out, args.src, force=args.force):
            print(f"wrote {p}")
    except ReleaseError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


def _cmd_nbgrader_export(args) -> int:
    from .course.nbgrader import export
    from .course.release import ReleaseError

    try:
        for p in export(args.chapters, args.course):
            print(f"wrote {p}")
    except (ReleaseError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


def _cmd_execute(args) -> int:
    from .course.build import annotate_files, build

    if args.metadata_only:
        for p in annotate_files(args.names):
            print(f"annotated {p}")
        return 0
    return build(args.names, timeout=args.timeout)


def _positive_int(text: str, minimum: int = 1) -> int:
    kind = "a positive" if minimum == 1 else "a non-negative"
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be {kind} integer, got {text!r}") from None
    if value < minimum:
        raise argparse.ArgumentTypeError(f"must be {kind} integer, got {value}")
    return value


def _nonnegative_int(text: str) -> int:
    return _positive_int(text, minimum=0)


def _cmd_grade(args) -> int:
    import signal

    from .course.grade import GradeError, Limits, grade_folder

    def _stop(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, _stop)
    import logging

    logging.getLogger("asyncio").setLevel(logging.CRITICAL)  # cancelled kernels on Ctrl-C
    try:
        if args.show_cases is not None:
            from .course.grade.secret import show_cases_for

            if args.secret is None:
                raise UsageError("--show-cases needs --secret FILE")
            sys.stdout.write(show_cases_for(args.submissions, args.show_cases, args.secret, args.chapter))
            return 0
        if args.submissions is None:
            raise UsageError("SUBMISSIONS (the folder of notebooks) is required")
        if args.out is None:
            raise UsageError("--out FILE is required")
        limits = Limits(timeout=args.timeout, memory_mb=args.memory, total=args.total)
        from .course.classroom.lms import after_grade, check_options  # --lms, --lms-map, late

        check_options(args.lms, args.lms_map)
    except ValueError as exc:  # --timeout or --memory out of range, --show-cases or --secret misused
        raise UsageError(str(exc)) from None
    try:
        grade_folder(
            args.submissions,
            args.out,
            limits=limits,
            jobs=args.jobs,
            feedback=args.feedback,
            executor=args.executor,
            scheduler=args.scheduler,
            chapter=args.chapter,
            secret=args.secret,
            run_all=args.run_all,
            unsafe_root=args.unsafe_allow_root_kernels,
            similarity=args.similarity,
        )
    # ValueError: a --secret file that cannot be read or is too short (grade/secret.py)
    except (GradeError, ValueError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted: rerun the same command to resume", file=sys.stderr)
        return 130
    return 0 if after_grade(args.submissions, args.out, args.lms, args.lms_map) else 1


def _cmd_slides(args) -> int:
    from .course.slides import apply_to_notebooks

    b = _load_book()
    ready = [c.id for c in b.chapters if c.ready]
    unknown = [c for c in args.chapters if c not in ready]
    if unknown:
        raise UsageError(f"no ready chapter {unknown[0]!r} (ready: {', '.join(ready) or 'none'})")
    if args.apply:
        paths = [b.root / c.notebook for c in b.chapters if c.ready]
        changed = apply_to_notebooks(paths)
        print(f"slide metadata written to {len(changed)} of {len(paths)} notebooks")
        return 0
    from .course.deck import build_decks

    build_decks(_output_folder(args.out, "--out"), chapters=args.chapters or None, book=b)
    return 0


def _cmd_docs(args) -> int:
    from .course.docs import update

    return update(build_parser("python -m kmlteach"), INSTRUCTOR_ONLY, check=args.check)


def _cmd_site(args) -> int:
    from .course.site import build_site

    try:
        build_site(_output_folder(args.out, "--out"), slides=not args.no_slides)
    except RuntimeError as err:
        print(err, file=sys.stderr)
        return 1
    return 0


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    """The whole command line (``docs/cli.md`` is generated from it)."""
    ap = argparse.ArgumentParser(prog=prog or _prog(), description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("warmup", help="compile every Numba kernel, print per-kernel time")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    p.add_argument(
        "--jobs",
        type=_nonnegative_int,
        default=1,
        help="compile in this many processes (0: one per core); default 1",
    )
    p.add_argument(
        "--aot", action="store_true", help="also compile ahead of time, for KMLTEACH_AOT=1 kernels"
    )
    p.add_argument("--cpu", choices=("host", "generic"), default="host", help="--aot for this CPU or any")
    p.add_argument("--aot-dir", default=None, help="--aot output folder (default: the package's __pycache__)")
    p.add_argument("--status", action="store_true", help="what KMLTEACH_AOT=1 would use, and why")
    p.set_defaults(fn=_cmd_warmup)
    p = sub.add_parser("check-env", help="versions, Numba cache, widget support")
    p.set_defaults(fn=_cmd_check_env)
    p = sub.add_parser("chapters", help="print the chapter table from book.toml")
    p.add_argument("--book", default=None, help="the book.toml to read (default: the repository's)")
    p.add_argument(
        "--update-readme", action="store_true", help="rewrite README.md's chapter table from book.toml"
    )
    p.set_defaults(fn=_cmd_chapters)
    p = sub.add_parser(
        "release",
        help="write the student notebooks (solutions stubbed, outputs "
        "and instructor metadata removed); see kmlteach/course/release.py",
    )
    p.add_argument("chapters", nargs="*", metavar="CHAPTER", help="chapter ids such as 01 (default: all)")
    p.add_argument("--out", type=Path, required=True, help="folder to write (not inside --src)")
    p.add_argument("--src", type=Path, default=None, help="instructor notebooks (default notebooks/)")
    p.add_argument("--force", action="store_true", help="replace notebooks edited since the last release")
    p.set_defaults(fn=_cmd_release)
    p = sub.add_parser("student", help="alias: release every notebook of SRC into OUT")
    p.add_argument("src", type=Path, help="folder of instructor notebooks")
    p.add_argument("out", type=Path, help="folder to write the student notebooks into")
    p.set_defaults(fn=_cmd_release, chapters=None, force=False)
    p = sub.add_parser(
        "nbgrader-export",
        help="write chapters as nbgrader source notebooks (with test cells) into an nbgrader course folder",
    )
    p.add_argument("chapters", nargs="+", metavar="CHAPTER", help="chapter ids such as 01")
    p.add_argument("--course", type=Path, required=True, help="nbgrader course folder")
    p.set_defaults(fn=_cmd_nbgrader_export)
    p = sub.add_parser("execute", help="build notebooks/NN-*.ipynb from notebooks/src/*.py and run them")
    p.add_argument("names", nargs="*", help="notebook stems such as 01-svm (default: all)")
    p.add_argument("--timeout", type=_positive_int, default=600, help="seconds per notebook (default 600)")
    p.add_argument(
        "--metadata-only",
        action="store_true",
        help="only (re)write the chapter and nbgrader metadata, without running",
    )
    p.set_defaults(fn=_cmd_execute)
    p = sub.add_parser(
        "grade",
        help="grade a folder of submitted notebooks into a gradebook CSV",
        description="Grade every *.ipynb below SUBMISSIONS, each in a fresh sandboxed kernel; "
        "see docs/grading.md.",
    )
    p.add_argument(
        "submissions",
        type=Path,
        nargs="?",
        metavar="SUBMISSIONS",
        help="folder of submissions: every *.ipynb below it (not needed with --show-cases)",
    )
    p.add_argument("--out", type=Path, default=None, help="gradebook CSV to write (required)")
    p.add_argument(
        "--secret",
        type=Path,
        default=None,
        help="file of >= 16 secret bytes: each submission gets its own hidden cases",
    )
    p.add_argument(
        "--show-cases",
        default=None,
        metavar="ID",
        help="print the hidden cases submission ID gets under --secret FILE and exit (every chapter, "
        "or --chapter NN, or the chapter of SUBMISSIONS/ID.ipynb when SUBMISSIONS is given)",
    )
    p.add_argument(
        "--run-all",
        action="store_true",
        help="run every cell top to bottom instead of the code the exercises need",
    )
    p.add_argument(
        "--similarity",
        type=Path,
        default=None,
        metavar="FILE.html",
        help="write a report of near-identical exercise functions (points unchanged)",
    )
    p.add_argument(
        "--unsafe-allow-root-kernels",
        action="store_true",
        help="as root without bubblewrap or an unprivileged uid: grade anyway",
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=60.0,
        help="wall-clock seconds for running a submission's code (default 60; "
        "the kernel's start-up is limited separately)",
    )
    p.add_argument(
        "--total",
        type=float,
        default=None,
        help="wall-clock seconds for a whole submission, every exercise and every run of its "
        "code together (default 5 x --timeout)",
    )
    p.add_argument(
        "--memory",
        type=int,
        default=3000,
        help="MB of ADDRESS SPACE (RLIMIT_AS, not resident memory) per process of a "
        "submission (default 3000; a kernel with NumPy and Numba reserves ~1.4 GB)",
    )
    p.add_argument("--jobs", type=int, default=1, help="submissions graded in parallel (default 1)")
    p.add_argument(
        "--feedback",
        type=Path,
        default=None,
        help="folder for one Markdown + HTML feedback file per submission",
    )
    p.add_argument("--chapter", default=None, help="only accept notebooks of this chapter (e.g. 01)")
    p.add_argument(
        "--executor",
        choices=["local", "dask"],
        default="local",
        help="grade on this machine or on a Dask cluster",
    )
    p.add_argument("--scheduler", default=None, help="Dask scheduler address (with --executor dask)")
    p.set_defaults(fn=_cmd_grade, lms=None, lms_map=None)
    try:  # the classroom's commands: kmlteach/course/classroom, not in the student edition
        from .course.classroom.cli import add_commands as add_classroom
        from .course.classroom.cli import add_grade_options
    except ImportError:
        pass
    else:
        add_grade_options(p)
        add_classroom(sub)

    p = sub.add_parser(
        "slides",
        help="write a reveal.js deck per ready chapter (offline), "
        "or --apply slide metadata to the stored notebooks",
    )
    p.add_argument("chapters", nargs="*", help="chapter ids such as 01 (default: every ready chapter)")
    p.add_argument("--out", type=Path, default=Path("build/slides"))
    p.add_argument(
        "--apply",
        action="store_true",
        help="write slide metadata into notebooks/*.ipynb (no execution) instead",
    )
    p.set_defaults(fn=_cmd_slides)
    p = sub.add_parser("site", help="build the static course site into build/site (offline)")
    p.add_argument("--out", type=Path, default=Path("build/site"))
    p.add_argument("--no-slides", action="store_true", help="leave the decks out of the site")
    p.set_defaults(fn=_cmd_site)
    from .course.edition_cli import add_commands  # publish-student, reveal

    add_commands(sub)
    try:  # hub-env: kmlteach/course/hub_env.py, not in the student edition
        from .course.hub_env import add_command as add_hub_env
    except ImportError:
        pass
    else:
        add_hub_env(sub)
    p = sub.add_parser(
        "docs",
        help="regenerate the generated parts of docs/: the command-line reference (docs/cli.md) "
        "and the instructor's guide's slide, exercise and points tables",
    )
    p.add_argument("--check", action="store_true", help="write nothing; exit status 1 if a file is stale")
    p.set_defaults(fn=_cmd_docs)
    return ap


def main(argv=None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    try:
        if args.cmd in INSTRUCTOR_ONLY and _student_edition():
            raise UsageError(
                f"'{args.cmd}' is an instructor command, not part of the student edition of the "
                "course (run it in the instructor repository)"
            )
        return args.fn(args)
    except UsageError as exc:  # only the user's mistakes: a bug keeps its traceback
        print(f"{ap.prog} {args.cmd}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
