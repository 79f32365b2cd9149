"""``python -m kmlteach collect CHAPTER --exchange DIR --out SUBMISSIONS [--due ISO-8601]``.

Copies each student's latest hand-in of the chapter from the classroom service's exchange
folder into ``SUBMISSIONS/<user>.ipynb`` (the submission id ``grade`` gives it is the hub
user's name, percent-encoded where it is not a plain file name), after checking that the
file is the one the receipt's SHA-256 names. ``SUBMISSIONS/.kmlteach-collect.json``
records, per submission id, the user, the time the service received it (its own clock:
nothing a student wrote) and, with ``--due``, the minutes late; ``grade`` reads it to fill
the gradebook's ``late`` column. A due time without a UTC offset is this machine's local
time. Collect again after a late hand-in: files are replaced, the record is rewritten.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from datetime import UTC, datetime
from pathlib import Path

from .exchange import ExchangeError, open_folder, read_file, receipts

__all__ = ["MANIFEST", "collect", "parse_due", "minutes_late", "read_manifest"]

MANIFEST = ".kmlteach-collect.json"


def parse_due(text: str | None) -> datetime | None:
    """``--due``: an ISO 8601 time (``2027-03-01T23:59``, ``...+01:00``, ``...Z``); without
    an offset, this machine's local time."""
    if text is None:
        return None
    try:
        due = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(f"--due must be an ISO 8601 time such as 2027-03-01T23:59, got {text!r}") from None
    return due.astimezone() if due.tzinfo is None else due


def minutes_late(received: datetime, due: datetime | None) -> int | None:
    """Whole minutes after ``due``, rounded up (a second late is a minute late); 0 when on
    time; None without a due time."""
    if due is None:
        return None
    seconds = (received - due).total_seconds()
    return max(0, math.ceil(seconds / 60))


def read_manifest(submissions: Path) -> dict | None:
    """The record ``collect`` left in ``submissions`` (None: none, or unreadable)."""
    try:
        data = json.loads((Path(submissions) / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("submissions"), dict) else None


def _private_folder(path: Path) -> Path:
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    if path.is_symlink() or not path.is_dir():
        raise ValueError(f"--out {str(path)!r} must be a folder")
    return path


def collect(chapter: str, exchange, out, due: str | None = None, report=print) -> dict:
    """Gather chapter ``chapter``'s hand-ins into ``out``; returns the record written."""
    exchange, out = Path(exchange), Path(out)
    deadline = parse_due(due)
    found, problems = receipts(exchange, chapter)
    out = _private_folder(out)
    if out.resolve().is_relative_to(exchange.resolve()):
        raise ExchangeError("--out must be outside the exchange folder")
    record = read_manifest(out) or {}
    if record.get("chapter") not in (None, chapter):
        raise ValueError(
            f"--out {str(out)!r} holds chapter {record['chapter']}'s submissions: collect each chapter into a folder of its own"
        )
    entries = dict(record.get("submissions", {}))
    copied, late = 0, []
    if found:
        fd = open_folder(exchange, "inbound", chapter)
        try:
            for r in found:
                data = read_file(fd, f"{r.key}.ipynb")
                if data is None or hashlib.sha256(data).hexdigest() != r.sha256:
                    problems.append(f"{r.key}.ipynb: missing or not the file its receipt names (skipped)")
                    continue
                target = out / f"{r.key}.ipynb"
                tmp = out / f".{r.key}.ipynb.part"
                tmp.unlink(missing_ok=True)
                fdw = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
                with os.fdopen(fdw, "wb") as fh:
                    fh.write(data)
                os.replace(tmp, target)
                minutes = minutes_late(r.received, deadline)
                entries[r.key] = {
                    "user": r.user,
                    "received": r.received.isoformat(timespec="seconds"),
                    "sha256": r.sha256,
                    "late_minutes": minutes,
                }
                copied += 1
                if minutes:
                    late.append(f"{r.user} ({minutes} min)")
        finally:
            os.close(fd)
    record = {
        "chapter": chapter,
        "collected": datetime.now(UTC).isoformat(timespec="seconds"),
        "due": deadline.isoformat(timespec="seconds") if deadline else None,
        "exchange": str(exchange),
        "submissions": dict(sorted(entries.items())),
    }
    tmp = out / f"{MANIFEST}.part"
    tmp.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, out / MANIFEST)
    line = f"collected {copied} submission{'s' if copied != 1 else ''} of chapter {chapter} into {out}"
    if deadline:
        line += f"; {len(late)} late" + (
            f": {', '.join(late[:10])}" + (" ..." if len(late) > 10 else "") if late else ""
        )
    report(line)
    for p in problems:
        report(f"warning: {p}")
    return record
