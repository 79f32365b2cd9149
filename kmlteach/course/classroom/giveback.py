"""``python -m kmlteach return CHAPTER --feedback DIR --exchange DIR``.

For each student who handed in the chapter through the hub (a receipt in the exchange
folder), the feedback ``grade --feedback DIR`` wrote for their submission
(``DIR/<user>.md`` and ``.html``, or ``DIR/NN/<user>.*`` when the graded folder had one
folder per chapter) is copied to ``<exchange>/feedback/NN/<user>.md`` and ``.html``,
files of the classroom service's user, mode 0600: the service hands them to that student
alone (``feedback("NN")`` in a notebook, which also keeps a copy in the student's
``~/feedback/NN/``). Students without a feedback file are listed; feedback files of no
hand-in are left where they are.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..grade.feedback import feedback_name
from .exchange import ExchangeError, open_folder, owner_of, read_file, receipts, write_file

__all__ = ["give_back"]

MAX_FEEDBACK = 8 * 2**20


def _feedback_files(folder: Path, chapter: str, key: str) -> dict[str, bytes]:
    name = feedback_name(key)
    for base in (folder, folder / chapter):
        out = {}
        for kind in ("md", "html"):
            path = base / f"{name}.{kind}"
            try:
                if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_FEEDBACK:
                    continue
                out[kind] = path.read_bytes()
            except OSError:
                continue
        if out:
            return out
    return {}


def give_back(chapter: str, feedback, exchange, report=print) -> dict[str, list[str]]:
    """Return chapter ``chapter``'s feedback through the exchange folder; ``{"returned":
    users, "missing": users without feedback}``."""
    feedback, exchange = Path(feedback), Path(exchange)
    if not feedback.is_dir():
        raise ExchangeError(
            f"--feedback {str(feedback)!r} is not a folder (grade ... --feedback DIR writes it)"
        )
    found, problems = receipts(exchange, chapter)
    owner = owner_of(exchange)
    returned, missing = [], []
    if found:
        fd = open_folder(exchange, "feedback", chapter, create=True, owner=owner)
        try:
            for r in found:
                files = _feedback_files(feedback, chapter, r.key)
                if not files:
                    missing.append(r.user)
                    continue
                for kind, data in files.items():
                    write_file(fd, f"{r.key}.{kind}", data, owner=owner if os.geteuid() == 0 else None)
                for kind in {"md", "html"} - set(files):  # an older file of the other kind would not match
                    if read_file(fd, f"{r.key}.{kind}", MAX_FEEDBACK) is not None:
                        os.unlink(f"{r.key}.{kind}", dir_fd=fd)
                returned.append(r.user)
        finally:
            os.close(fd)
    report(
        f"returned chapter {chapter}'s feedback to {len(returned)} student{'s' if len(returned) != 1 else ''}"
        + (f"; no feedback file for {len(missing)}: {', '.join(missing[:10])}" if missing else "")
        + ("" if found else f" (no hand-in of chapter {chapter} in {exchange})")
    )
    for p in problems:
        report(f"warning: {p}")
    return {"returned": returned, "missing": missing}
