"""After ``grade``: the ``late`` column and the LMS import file (``--lms``, ``--lms-map``).

* **late** — when the graded folder was filled by ``collect --due``, the gradebook gets a
  last column ``late``: the minutes each submission was handed in after the due time (0:
  on time; empty for a notebook ``collect`` did not bring, or one changed since).
* **Canvas** (``--lms canvas FILE``) — the Gradebook import CSV: the columns ``Student``,
  ``ID``, ``SIS User ID``, ``SIS Login ID``, ``Section`` identify a student, then one
  column per assignment (here: one per chapter, headed ``Chapter NN: <title>``, the
  chapter's total points); a column Canvas does not know yet becomes a new assignment.
  Without ``--lms-map`` the hub user name goes into ``Student`` and ``SIS Login ID``.
* **Moodle** (``--lms moodle FILE``) — the CSV grade import: one identifier column, then
  one column per grade item; Moodle's import asks which user field the identifier maps to
  (username, ID number, email address). Without ``--lms-map`` the column is ``Username``
  with the hub user name.

``--lms-map FILE`` is a CSV with a header: a ``user`` column (hub user names) and the LMS's
columns for that student — for Canvas any of ``Student, ID, SIS User ID, SIS Login ID,
Section`` (a Canvas Gradebook export works as it is: without ``user``, its ``SIS Login ID``
is taken as the hub name), for Moodle one column whose header names the identifier (e.g.
``Email address``). Graded users missing from the map are listed and left out.

The user of a submission is ``collect``'s record of it, else its file name decoded
(``user_of_key``). A user that is not a plausible account name
(:data:`..grade.gradebook.ACCOUNT_NAME`), or that two submissions of one chapter map to
(``%72t2alice.ipynb`` and ``rt2alice.ipynb``), refuses the whole import file with one
line naming the submissions: never a merged row (red team G2: the better grade went to
one identity) nor a formula; the gradebook keeps every row. Every cell goes through the
gradebook's guard (:func:`..grade.gradebook.csv_cell`).
Sources: docs/classroom.md cites the Canvas and Moodle documentation of both formats.
"""

from __future__ import annotations

import csv
import io
import sys
from pathlib import Path

from ...classroom.names import user_of_key
from ..grade.gradebook import ACCOUNT_NAME, csv_text, write_atomic
from .collect import read_manifest

__all__ = ["LMS", "CANVAS_COLUMNS", "check_options", "after_grade", "mark_late", "lms_csv", "read_map"]

LMS = ("canvas", "moodle")
CANVAS_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")


def check_options(lms, lms_map) -> None:
    """Refuse bad ``--lms``/``--lms-map`` before grading (ValueError, one line)."""
    if lms_map is not None and lms is None:
        raise ValueError("--lms-map needs --lms canvas|moodle FILE")
    if lms is None:
        return
    kind, path = lms
    if kind not in LMS:
        raise ValueError(f"--lms must be canvas or moodle, got {kind!r}")
    if Path(path).is_dir():
        raise ValueError(f"--lms FILE {str(path)!r} is a folder")
    if lms_map is not None:
        read_map(lms_map, kind)


def read_map(path, kind: str) -> tuple[list[str], dict[str, dict[str, str]]]:
    """``(LMS columns, {hub user: {column: value}})`` of an ``--lms-map`` file."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"--lms-map {str(path)!r}: cannot read it ({exc})") from None
    rows = list(csv.DictReader(io.StringIO(text)))
    header = [h.strip() for h in (csv.DictReader(io.StringIO(text)).fieldnames or [])]
    key = (
        "user"
        if "user" in header
        else ("SIS Login ID" if kind == "canvas" and "SIS Login ID" in header else None)
    )
    if key is None:
        raise ValueError(f"--lms-map {str(path)!r} needs a 'user' column of hub user names")
    if kind == "canvas":
        columns = list(CANVAS_COLUMNS)
        if not set(header) & set(CANVAS_COLUMNS):
            raise ValueError(f"--lms-map for Canvas needs one of the columns {', '.join(CANVAS_COLUMNS)}")
    else:
        others = [h for h in header if h != "user"]
        if not others:
            raise ValueError(
                "--lms-map for Moodle needs an identifier column beside 'user' (e.g. 'Email address')"
            )
        columns = [others[0]]
    out = {}
    for row in rows:
        row = {(k or "").strip(): (v or "").strip() for k, v in row.items()}
        user = row.get(key, "")
        if user:
            out[user] = {c: row.get(c, "") for c in columns}
    return columns, out


def _read_gradebook(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    with open(path, encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        return list(reader.fieldnames or []), list(reader)


def mark_late(submissions, gradebook) -> int | None:
    """Add the ``late`` column to ``gradebook`` from ``collect``'s record in ``submissions``;
    the number of late submissions (None: no record, or no due time)."""
    record = read_manifest(Path(submissions))
    if record is None or not record.get("due"):
        return None
    import hashlib

    header, rows = _read_gradebook(Path(gradebook))
    if "late" in header:
        header.remove("late")
    header.append("late")
    late = 0
    for row in rows:
        entry = record["submissions"].get(row.get("submission", ""))
        value = ""
        if isinstance(entry, dict) and isinstance(entry.get("late_minutes"), int):
            try:
                data = (Path(submissions) / f"{row['submission']}.ipynb").read_bytes()
                same = hashlib.sha256(data).hexdigest() == entry.get("sha256")
            except OSError:
                same = False
            if same:
                value = str(entry["late_minutes"])
                late += entry["late_minutes"] > 0
        row["late"] = value
    write_atomic(Path(gradebook), csv_text([header] + [[row.get(h, "") for h in header] for row in rows]))
    return late


def _titles() -> dict[str, str]:
    try:
        from ..book import load

        return {c.id: c.title for c in load().chapters}
    except Exception:  # no book here: the ids alone
        return {}


def lms_csv(
    kind: str, rows: list[dict[str, str]], manifest: dict | None, lms_map=None
) -> tuple[str, list[str]]:
    """The import file's text and the graded users it leaves out (not in the map).
    ``ValueError`` (one line naming the submissions) where a user is not an account name or
    two submissions of one chapter are one user."""
    titles = _titles()
    entries = (manifest or {}).get("submissions", {})
    grades: dict[str, dict[str, str]] = {}
    whose: dict[tuple[str, str], str] = {}  # (user, chapter) -> the submission graded for it
    chapters: list[str] = []
    problems = []
    for row in rows:
        sid, chapter = row.get("submission", ""), row.get("chapter", "")
        if not chapter or chapter.startswith("'"):
            continue
        entry = entries.get(sid)
        user = (
            entry["user"]
            if isinstance(entry, dict) and isinstance(entry.get("user"), str)
            else user_of_key(sid.rsplit("/", 1)[-1])
        )
        if not ACCOUNT_NAME.fullmatch(user):
            problems.append(f"submission {ascii(sid)} is user {ascii(user)}, not an account name")
            continue
        if (user, chapter) in whose:
            problems.append(
                f"submissions {ascii(whose[user, chapter])} and {ascii(sid)} are both user "
                f"{ascii(user)} in chapter {chapter}"
            )
            continue
        whose[user, chapter] = sid
        if chapter not in chapters:
            chapters.append(chapter)
        grades.setdefault(user, {})[chapter] = row.get("total", "")
    if problems:
        raise ValueError(
            f"{kind} import file not written: {'; '.join(problems)} (rename or remove those "
            "notebooks, or hand them in through collect, and grade again; the gradebook has every row)"
        )
    chapters.sort()
    items = [f"Chapter {c}: {titles[c]}" if c in titles else f"Chapter {c}" for c in chapters]
    if lms_map is not None:
        columns, mapping = read_map(lms_map, kind)
    else:
        columns = list(CANVAS_COLUMNS) if kind == "canvas" else ["Username"]
        mapping = {
            u: ({"Student": u, "SIS Login ID": u} if kind == "canvas" else {"Username": u}) for u in grades
        }
    table = [columns + items]
    left_out = []
    for user in sorted(grades):
        ids = mapping.get(user)
        if ids is None:
            left_out.append(user)
            continue
        table.append([ids.get(c, "") for c in columns] + [grades[user].get(c, "") for c in chapters])
    return csv_text(table), left_out


def after_grade(submissions, gradebook, lms=None, lms_map=None, report=print, error=None) -> bool:
    """What ``grade`` does after writing the gradebook: :func:`mark_late`, then the LMS file;
    ``False`` where the LMS file was refused (the reason given to ``error``, by default one
    line ``error: ...`` on stderr)."""
    if submissions is None or not Path(gradebook).is_file():
        return True
    late = mark_late(submissions, gradebook)
    if late is not None:
        report(f"late column written: {late} late submission{'s' if late != 1 else ''}")
    if lms is None:
        return True
    kind, path = lms
    _, rows = _read_gradebook(Path(gradebook))
    try:
        text, left_out = lms_csv(kind, rows, read_manifest(Path(submissions)), lms_map)
    except ValueError as exc:
        (error or (lambda line: print(line, file=sys.stderr)))(f"error: {exc}")
        return False
    write_atomic(Path(path), text)
    report(f"{kind} import file written: {path}")
    if left_out:
        report(f"warning: not in --lms-map, left out of {path}: {', '.join(left_out)}")
    return True
