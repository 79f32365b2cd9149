"""``grade --secret FILE``: per-submission hidden cases, and ``--show-cases`` to see them.

The secret is the bytes of a file the instructor keeps (e.g. ``head -c 32 /dev/urandom >
grading.key``; at least 16 bytes). Each submission's hidden cases of each exercise are
drawn with the seed HMAC-SHA256(secret, "<submission id>\\0<exercise id>")
(:func:`.cases.student_seed`): the same kinds of case for everyone, different inputs per
student, the same inputs for the same student on every re-run. The kernel never sees the
file (it is hidden inside the sandbox's namespaces and outside Landlock's read roots).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

__all__ = ["read_secret", "show_cases"]

MIN_SECRET_BYTES = 16


def read_secret(path) -> bytes:
    """The secret's bytes; ``ValueError`` naming ``--secret`` when unusable."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise ValueError(f"--secret {str(path)!r} cannot be read ({exc.strerror or exc})") from None
    if len(data.strip()) < MIN_SECRET_BYTES:
        raise ValueError(
            f"--secret {str(path)!r} must hold at least {MIN_SECRET_BYTES} bytes "
            "(e.g. head -c 32 /dev/urandom > grading.key)"
        )
    return data


def _fmt(v) -> str:
    if isinstance(v, np.ndarray):
        with np.printoptions(precision=6, threshold=10_000, linewidth=100):
            return np.array2string(v, separator=", ")
    return repr(v)


def show_cases(submission: str, chapter: str, secret: bytes, book_path=None) -> str:
    """The hidden cases ``submission`` was graded on (text for the instructor)."""
    from .codec import ResultError, decode_result
    from .plan import student_plan

    def dec(x):
        try:
            return decode_result(x)
        except ResultError:  # a grader-supplied helper function
            return f"<function {x['F'][0]}>" if isinstance(x, dict) and "F" in x else "<?>"

    student_plan_ = student_plan(chapter, book_path, secret, submission)
    lines = [f"hidden cases of {submission!r}, chapter {chapter} (seeded by --secret)"]
    for ex in student_plan_.exercises:
        lines.append(f"\n{ex.id} ({ex.function}):")
        for case in (c for c in ex.cases if not c.visible):
            args = [dec(a) for a in case.encoded[0]["T"]]
            kwargs = {dec(k_): dec(v) for k_, v in case.encoded[1]["D"]}
            shown = ", ".join([_fmt(a) for a in args] + [f"{k_}={_fmt(v)}" for k_, v in kwargs.items()])
            lines.append(f"  [{case.label}] args: {shown}")
            lines.append(f"      expected: {_fmt(case.expected)}")
    return "\n".join(lines) + "\n"


def show_cases_for(
    submissions, submission: str, secret_path, chapter: str | None = None, book_path=None
) -> str:
    """``grade --show-cases ID --secret FILE [--chapter NN] [SUBMISSIONS]``: the hidden cases
    of ``--chapter``; without it, of the chapter of the submission's own notebook when
    SUBMISSIONS is given, else of every chapter with graded exercises (COURSE.md's form
    needs no SUBMISSIONS)."""
    from .plan import book_exercises
    from .submission import InvalidSubmission, collect, detect_chapter, read_notebook

    secret = read_secret(secret_path)
    known = book_exercises(book_path)
    if chapter is None and submissions is not None:
        paths = dict(collect(Path(submissions))) if Path(submissions).is_dir() else {}
        if submission not in paths:
            raise ValueError(
                f"--show-cases: no submission {submission!r} below {str(submissions)!r} "
                "(give --chapter, or no SUBMISSIONS, to show the cases anyway)"
            )
        try:
            chapter = detect_chapter(read_notebook(paths[submission].read_bytes()), set(known))
        except InvalidSubmission as exc:
            raise ValueError(f"--show-cases: {exc}") from None
    if chapter is not None and chapter not in known:
        raise ValueError(f"--chapter {chapter!r} has no graded exercises in book.toml")
    chapters = [chapter] if chapter is not None else sorted(known)
    return "\n".join(show_cases(submission, ch, secret, book_path) for ch in chapters)
