"""The results log and the progress a student sees: ``kmlteach.progress()``.

Every ``check`` appends one JSON line ``{"kind": "exercise", "id", "passed", "status",
"message", "time"}`` to the results file; the *first* answer to each concept check,
recap question and prediction appends ``{"kind": "check" | "recap" | "prediction", "id",
"correct", "time"}`` (:func:`record_first_attempt`; a later answer to the same item
records nothing, so "right the first time" stays what it says). :func:`progress` reads the
file back and shows, per chapter, the exercises passed, the concept checks and recap
questions right the first time and the predictions right — counts only, never an answer.

The file belongs to the copy of the course a notebook runs in, not to the computer's
user: ``KMLTEACH_RESULTS`` when that variable names one, else ``.kmlteach/results.jsonl``
in the course's folder (:func:`course_folder`: the first of the kernel's working folder
and its parents that holds the course's ``book.toml`` beside a ``notebooks/`` folder — a
student edition, a copy pulled onto the course's hub, the instructor's repository), else
``.kmlteach/results.jsonl`` in the working folder itself. Two copies of the course, and
the tests, never see each other's answers; it survives a kernel restart.
``KMLTEACH_RESULTS=""`` turns recording off (the notebook builds and the tests do).
``kmlteach.progress(reset=True)`` starts afresh (the old file is kept beside it, renamed).
The file is a convenience for following one's own progress: anyone can append a forged
line to it, and grading never reads it. Nothing here raises into a notebook because of
the file (unreadable, missing, full of garbage): it is then skipped.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from . import _registry
from .output import say

__all__ = [
    "KINDS",
    "FOLDER",
    "course_folder",
    "results_path",
    "log",
    "entries",
    "record_first_attempt",
    "summary",
    "progress",
]

KINDS = ("check", "recap", "prediction")
"""What :func:`record_first_attempt` records: a concept check, a recap question, a prediction."""

_SEEN: set[tuple[str, str, str]] = set()  # (file, kind, id) already attempted: no second read


FOLDER = ".kmlteach"
"""The folder, inside the course's folder, that holds the results file."""

_COURSE_MARK = "[[chapters]]"  # a line of the course's book.toml (another tool's book.toml lacks it)


def course_folder(start: str | Path | None = None) -> Path | None:
    """The copy of the course ``start`` (default: the working folder, which Jupyter sets to
    the notebook's folder) is in: the first of ``start`` and its parents that holds the
    course's ``book.toml`` beside a ``notebooks/`` folder; ``None`` outside any copy."""
    try:
        here = Path(start) if start is not None else Path.cwd()
        for folder in (here, *here.parents):
            book = folder / "book.toml"
            if book.is_file() and (folder / "notebooks").is_dir():
                with open(book, encoding="utf-8", errors="replace") as fh:
                    if _COURSE_MARK in fh.read(1 << 16):
                        return folder
    except (OSError, ValueError, RuntimeError):
        return None
    return None


def results_path() -> Path | None:
    """The results file, or ``None`` when recording is off (``KMLTEACH_RESULTS=""``):
    ``KMLTEACH_RESULTS``, else ``.kmlteach/results.jsonl`` in :func:`course_folder` (in the
    working folder outside any copy of the course)."""
    value = os.environ.get("KMLTEACH_RESULTS")
    if value is None:
        try:
            base = course_folder() or Path.cwd()
        except OSError:  # the working folder was deleted under the kernel
            return None
        return base / FOLDER / "results.jsonl"
    return Path(value) if value.strip() else None


def log(entry: dict) -> bool:
    """Append ``entry`` (with the time) as one JSON line; False when it could not be written
    or recording is off. Never raises: a results file must not break a notebook."""
    path = results_path()
    if path is None:
        return False
    line = json.dumps({**entry, "time": time.strftime("%Y-%m-%dT%H:%M:%S")}, ensure_ascii=False)
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(line + "\n")
    except (OSError, ValueError):
        return False
    return True


def entries(path: str | Path | None = None) -> list[dict]:
    """The lines of the results file that are JSON objects with a string ``id`` (the rest,
    and an unreadable file, are skipped)."""
    path = Path(path) if path is not None else results_path()
    if path is None:
        return []
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except (OSError, ValueError):
        return []
    out = []
    for line in text.splitlines():
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if isinstance(item, dict) and isinstance(item.get("id"), str):
            out.append(item)
    return out


def record_first_attempt(kind: str, item_id: str, correct: bool) -> bool:
    """Record the answer to a concept check (``kind="check"``), a recap question
    (``"recap"``) or a prediction (``"prediction"``, id ``"NN.name"``: its chapter first)
    if it is the first one for that item; True when it was recorded.

    Call it for every answer: only the first reaches the file (a restart of the kernel
    does not make a new first answer). An unknown ``kind`` or an id that is not a string
    is a programming error (``ValueError``); the file never makes it raise.
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
    if not isinstance(item_id, str):
        raise ValueError(f"item_id must be a string like '01.name', got {item_id!r}")
    path = results_path()
    if path is None:
        return False
    key = (str(path), kind, item_id)
    if key in _SEEN:
        return False
    if any(e.get("kind") == kind and e["id"] == item_id for e in entries(path)):
        _SEEN.add(key)
        return False
    written = log({"kind": kind, "id": item_id, "correct": bool(correct)})
    if written:
        _SEEN.add(key)
    return written


def summary(path: str | Path | None = None) -> dict[str, dict[str, tuple[int, int]]]:
    """Per chapter (``"01"``), counts as ``(done, out of)`` pairs: ``"exercises"`` (passed,
    in the chapter), ``"check"`` and ``"recap"`` (right the first time, in the chapter),
    ``"prediction"`` (right the first time, tried). Chapters with nothing to count are left out."""
    log_lines = entries(path)
    passed = {
        e["id"] for e in log_lines if e.get("kind", "exercise") == "exercise" and e.get("passed") is True
    }
    first: dict[tuple[str, str], bool] = {}
    for e in log_lines:
        if e.get("kind") in KINDS and isinstance(e.get("correct"), bool):
            first.setdefault((e["kind"], e["id"]), e["correct"])
    chapters: dict[str, dict[str, tuple[int, int]]] = {}

    def add(chapter: str, what: str, done: int, total: int) -> None:
        chapters.setdefault(chapter, {})[what] = (done, total)

    by_chapter: dict[str, list[str]] = {}
    for ex_id in _registry.registry():
        by_chapter.setdefault(ex_id[:2], []).append(ex_id)
    for chapter, ids in by_chapter.items():
        add(chapter, "exercises", sum(i in passed for i in ids), len(ids))
    for what, kind in (("check", "concept"), ("recap", "recap")):
        for chapter in sorted({q.chapter for q in _registry.questions(kind=kind)}):
            ids = [q.id for q in _registry.questions(chapter, kind=kind)]
            add(chapter, what, sum(first.get((what, i), False) for i in ids), len(ids))
    tried: dict[str, list[bool]] = {}
    for (kind, item_id), ok in first.items():
        if kind == "prediction":
            tried.setdefault(item_id.split(".", 1)[0], []).append(ok)
    for chapter, oks in tried.items():
        add(chapter, "prediction", sum(oks), len(oks))
    return dict(sorted(chapters.items()))


_COLUMNS = (
    ("exercises", "exercises passed"),
    ("check", "concept checks right"),
    ("recap", "recap right"),
    ("prediction", "predictions right/tried"),
)
_OFF = (
    "Progress is not recorded in this session (KMLTEACH_RESULTS is set to an empty value). "
    "Where it is recorded, this line counts the exercises you passed and the questions and "
    "predictions you got right the first time."
)


def _cell(counts: dict, what: str) -> str:
    done, total = counts.get(what, (0, 0))
    return f"{done}/{total}" if total else "\u2013"


def progress(chapter: str | None = None, *, reset: bool = False) -> None:
    """Print your progress: for each chapter (or only ``chapter``, e.g. ``"01"``: one line),
    the exercises passed, the concept checks and recap questions right the first time and
    the predictions right, with the file it is recorded in (this copy of the course's).
    Counts only: no answer is shown. ``reset=True`` starts afresh: the file is renamed
    (``results-<date>.jsonl``, kept beside it) and nothing counts any more. Never raises."""
    try:
        if reset:
            _reset()
        else:
            _progress(chapter)
    except KeyboardInterrupt:
        raise
    except Exception as exc:  # progress must never break a notebook
        say(f"\u26a0 progress could not be shown: {type(exc).__name__}: {exc}")


def _reset() -> None:
    path = results_path()
    if path is None:
        say(_OFF)
        return
    _SEEN.clear()
    if not path.exists():
        say(f"Nothing to reset: nothing is recorded yet (the file would be {path}).")
        return
    stamp = time.strftime("%Y%m%d-%H%M%S")
    kept, n = path.with_name(f"{path.stem}-{stamp}{path.suffix}"), 1
    while kept.exists():
        n += 1
        kept = path.with_name(f"{path.stem}-{stamp}-{n}{path.suffix}")
    try:
        path.rename(kept)
    except OSError as exc:
        say(f"\u26a0 could not start afresh: {path} could not be renamed ({exc.strerror or exc}).")
        return
    say(f"Started afresh: nothing counts any more. The old record is kept as {kept}.")


def _progress(chapter) -> None:
    path = results_path()
    if path is None:
        say(_OFF)
        return
    counts = summary(path)
    if chapter is not None:
        chapter = str(chapter)
        c = counts.get(chapter, {})
        parts = [
            f"{c[w][0]} of {c[w][1]} {text}"
            for w, text in (
                ("exercises", "exercises passed"),
                ("check", "concept checks right the first time"),
                ("recap", "recap questions right the first time"),
                ("prediction", "predictions right"),
            )
            if c.get(w, (0, 0))[1]
        ]
        say(f"Chapter {chapter} so far: " + ("; ".join(parts) if parts else "nothing to count yet") + ".")
        return
    widths = [len(head) + 2 for _, head in _COLUMNS]
    lines = [
        "Your progress (a question counts with its first answer; a prediction explorer once, "
        "with the first answer it scores — its next questions are practice):"
    ]
    lines.append("chapter  " + "".join(f"{h:<{n}}" for (_, h), n in zip(_COLUMNS, widths)).rstrip())
    for ch, c in counts.items():
        lines.append(
            f"{ch:<9}" + "".join(f"{_cell(c, w):<{n}}" for (w, _), n in zip(_COLUMNS, widths)).rstrip()
        )
    say("\n".join(lines), wrapped=False)
    say(
        f"Recorded for this copy of the course only, in {path}. "
        "To start afresh: kmlteach.progress(reset=True) (the old file is kept, renamed)."
    )
