"""The gradebook CSV and the resume state beside it, both written atomically.

Every cell of every CSV the course writes (this gradebook, its ``late`` column, the
Canvas/Moodle import files of ``grade --lms``) goes through one guard, :func:`csv_cell`,
applied to the final text of the cell (after any decoding): a spreadsheet shows it as
text, never as a formula (:func:`csv_text` writes whole tables through it).

The state file ``<gradebook>.state.json`` maps each submission id to the SHA-256 of
the file that was graded and its result; a rerun with the same options, book and
grader skips every submission whose hash is unchanged (resumable after a crash or
Ctrl-C: the state is rewritten after every graded submission, the CSV at the end).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import re
import tempfile
from pathlib import Path

from .grader import SubmissionResult

__all__ = ["write_atomic", "gradebook_csv", "State", "fingerprint", "csv_cell", "csv_text", "ACCOUNT_NAME"]

FIXED = ["submission", "chapter"]
TAIL = ["total", "max_total", "status", "message"]


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` via a temporary file in the same folder + ``os.replace``."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _num(x: float) -> str:
    return f"{x:g}"


_FORMULA = ("=", "+", "-", "@")
_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029\x85]")
_NUMBER = re.compile(r"-?\d+(\.\d+)?([eE][-+]?\d+)?")

ACCOUNT_NAME = re.compile(r"[a-z0-9_][a-z0-9_.@-]{0,63}")
"""A plausible hub/Unix account name: lower-case letters, digits, ``_ . @ -``, not starting
with ``. @ -``, at most 64 characters (Unix: ``[a-z_][a-z0-9_-]*``; JupyterHub lower-cases
names; OAuth hubs use ``@``, ``.`` and names starting with a digit). Nothing a spreadsheet
reads as a formula or a second row."""


def csv_cell(value) -> str:
    """One cell of a CSV the course writes, safe in a spreadsheet: control characters
    (tab, CR, LF: a row or a cell broken in two) become spaces, and text that begins like a
    formula (``= + - @``, after leading spaces) gets a leading apostrophe, OWASP's advice
    (a file named ``=HYPERLINK(...).ipynb``: red team 3; ``%3D...``, ``%09=...``, ``x%0A=...``
    decoded into user names by ``grade --lms``: red team G2). Numbers (``-1.5``) are kept;
    a guarded cell is unchanged by the guard."""
    text = _CONTROL.sub(" ", str(value))
    if _NUMBER.fullmatch(text):
        return text
    return "'" + text if text.lstrip(" ").startswith(_FORMULA) else text


def csv_text(rows) -> str:
    """CSV text of ``rows`` (lists of cells, the header first), every cell through
    :func:`csv_cell`."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    for row in rows:
        w.writerow([csv_cell(c) for c in row])
    return buf.getvalue()


def gradebook_csv(results: list[SubmissionResult], exercise_ids: list[str]) -> str:
    """CSV text: one row per submission, one column per exercise id (points earned)."""
    rows = [FIXED + exercise_ids + TAIL]
    for r in sorted(results, key=lambda r: r.submission):
        pts = {e.id: e.points for e in r.exercises}
        rows.append(
            [r.submission, r.chapter]
            + [_num(pts[i]) if i in pts else "" for i in exercise_ids]
            + [_num(r.total), _num(r.max_total), r.status, " ".join(r.message.split())[:300]]
        )
    return csv_text(rows)


def fingerprint(*parts) -> str:
    """A hash of the grading options, book.toml and the grader's own source."""
    h = hashlib.sha256()
    for p in parts:
        h.update(json.dumps(p, sort_keys=True, default=str).encode())
    here = Path(__file__).parent
    for f in sorted(here.rglob("*.py")):
        h.update(f.read_bytes())
    return h.hexdigest()


class State:
    """Results already graded, keyed by submission id, with the hash of what was graded."""

    def __init__(self, path: Path, config: str):
        self.path, self.config = Path(path), config
        self.entries: dict[str, dict] = {}
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            if data.get("config") == config:
                self.entries = dict(data.get("entries", {}))
        except (OSError, ValueError, AttributeError):
            pass

    def cached(self, sub_id: str, sha: str) -> SubmissionResult | None:
        e = self.entries.get(sub_id)
        if e and e.get("sha256") == sha:
            try:
                return SubmissionResult.from_dict(e["result"])
            except (KeyError, TypeError):
                return None
        return None

    def put(self, sub_id: str, sha: str, result: SubmissionResult) -> None:
        self.entries[sub_id] = {"sha256": sha, "result": result.to_dict()}
        self.save()

    def save(self) -> None:
        write_atomic(self.path, json.dumps({"config": self.config, "entries": self.entries}))
