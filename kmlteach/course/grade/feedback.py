"""Feedback for the student: one Markdown and one HTML file per submission.

Per exercise: the verdict, points, the time on the visible cases, the first failing *visible* case with
expected vs got (students see those cases in ``check()`` anyway), and the hint. For
hidden cases it names only the kind of case that failed ("d > m", "duplicate
points"); their data and the reference's output never appear (nbgrader #1363).
"""

from __future__ import annotations

import hashlib
import html
from pathlib import Path

from .gradebook import write_atomic
from .grader import SubmissionResult, student_text

__all__ = ["feedback_markdown", "feedback_html", "write_feedback", "feedback_name"]


def _plain(text) -> str:
    return student_text(str(text), limit=300)


def feedback_markdown(r: SubmissionResult) -> str:
    """Student-produced text appears only in "got" of a failing visible case, on one line,
    escaped and capped (:func:`.grader.student_text`); for hidden cases only their kinds."""
    lines = [f"# Feedback: {_plain(r.submission)}", ""]
    if r.chapter:
        lines.append(f"Chapter {r.chapter}: **{r.total:g} / {r.max_total:g}** points.")
    lines.append(f"Status: `{r.status}`" + (f" — {r.message}" if r.message else ""))
    lines += [
        "",
        "The grade uses the cases you saw in `check()` and hidden cases of the same "
        "kinds; passing the visible cases is not enough on its own. A hidden case fails "
        "whether the function returns a wrong value, raises, runs out of time or memory or "
        "ends its process (or the submission's total time runs out): which one is not "
        "said, as that would tell something of the hidden inputs.",
        "",
    ]
    for e in r.exercises:
        lines += [f"## {e.id}: {e.verdict} ({e.points:g}/{e.max_points:g})", ""]
        count = f"{e.passed}/{e.total} cases passed"
        if e.message.startswith(count):  # "k/n cases passed (h/m hidden: ...)": said once
            count, note = e.message, ""
        else:
            note = "" if not e.message or e.message.endswith("cases passed") else f"{e.message}; "
        lines.append(f"- {note}{count}; time on the visible cases {e.time:.3f} s")
        f = e.first_visible_failure
        if f:
            lines.append(
                f"- first failing visible case: {f['case']} — expected "
                f"`{f['expected']}`, got `{student_text(f['got'])}`"
            )
            if f.get("mistake"):
                lines.append(f"- {f['mistake']}")
        if e.hidden_failed_kinds:
            lines.append("- hidden cases failed, of kind: " + "; ".join(e.hidden_failed_kinds))
        if e.verdict != "passed" and e.hint:
            lines.append(f"- hint: {e.hint}")
        lines.append("")
    return "\n".join(lines)


def feedback_html(r: SubmissionResult) -> str:
    body = []
    for line in feedback_markdown(r).splitlines():
        t = html.escape(line)
        if line.startswith("# "):
            body.append(f"<h1>{t[2:]}</h1>")
        elif line.startswith("## "):
            body.append(f"<h2>{t[3:]}</h2>")
        elif line.startswith("- "):
            body.append(f"<li>{t[2:]}</li>")
        elif line:
            body.append(f"<p>{t}</p>")
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>Feedback: {html.escape(r.submission)}</title></head><body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )


def _file_name(part: str, room: int = 240) -> str:
    """One path component of at most ``room`` bytes (long ones cut, with a hash)."""
    raw = part.encode("utf-8", "surrogateescape")
    if len(raw) <= room:
        return part
    digest = hashlib.sha256(raw).hexdigest()[:16]
    return raw[: room - 20].decode("utf-8", "ignore") + "~" + digest


def feedback_name(part: str) -> str:
    """One component of a submission id as a file name inside the feedback folder: ``%``
    written ``%25`` and a leading ``.`` written ``%2E``, so that the ids ``.``, ``..`` and
    ``...`` (from ``..ipynb`` ...) get files of their own, inside the folder, not hidden
    (they once landed beside it, one over the other)."""
    part = part.replace("%", "%25")
    return _file_name("%2E" + part[1:] if part.startswith(".") else part)


def write_feedback(folder: Path, r: SubmissionResult) -> None:
    """``folder/<submission id>.md`` and ``.html`` (sub-folders as in the submissions, each
    component through :func:`feedback_name`; a name too long for the file system is
    shortened, with a hash)."""
    base = Path(folder).joinpath(*[feedback_name(p) for p in r.submission.split("/") if p])
    base.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(base.with_name(base.name + ".md"), feedback_markdown(r))
    write_atomic(base.with_name(base.name + ".html"), feedback_html(r))
