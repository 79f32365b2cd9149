"""Reading a submitted notebook and deciding its chapter (no code is run)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from .cells import chapter_of_ids, check_calls, code_too_large, notebook_code_cells

__all__ = [
    "InvalidSubmission",
    "read_regular",
    "read_notebook",
    "detect_chapter",
    "safe_id",
    "collect",
    "MAX_NOTEBOOK_BYTES",
]

MAX_NOTEBOOK_BYTES = 64 * 1024 * 1024


def safe_id(name: str) -> str:
    """A submission id that any file, CSV or terminal takes: ``name`` (a path as the file
    system gave it, undecodable bytes as surrogates) with undecodable bytes as ``\\xNN``
    and control characters (a newline...) as ``\\xNN`` / ``\\uNNNN``."""
    raw = os.fsencode(name).decode("utf-8", "backslashreplace")
    return "".join(
        c if c.isprintable() else (f"\\x{ord(c):02x}" if ord(c) < 256 else f"\\u{ord(c):04x}") for c in raw
    )


def read_regular(path, limit: int = MAX_NOTEBOOK_BYTES, *, dir_fd: int | None = None) -> bytes | None:
    """The bytes of ``path`` (relative to the open folder ``dir_fd`` when given) if it is a
    regular file of at most ``limit`` bytes, else ``None``: a symbolic link is not followed,
    a FIFO, device or socket named ``*.ipynb`` is never opened for a blocking read, and a
    huge (or sparse) file is refused before it is read (the exchange folder's files too,
    :func:`kmlteach.course.classroom.exchange.read_file`)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dir_fd)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
            return None
        chunks, left = [], limit + 1
        while left > 0:
            b = os.read(fd, min(left, 2**20))
            if not b:
                break
            chunks.append(b)
            left -= len(b)
        data = b"".join(chunks)
        return data if len(data) <= limit else None
    finally:
        os.close(fd)


def collect(folder: Path) -> list[tuple[str, Path]]:
    """``(submission id, path)`` of every ``*.ipynb`` below ``folder`` (checkpoints skipped).

    The id is the relative path without ``.ipynb``, escaped (:func:`.submission.safe_id`:
    undecodable bytes, newlines and other control characters as ``\\xNN``), made unique."""
    out, seen = [], set()
    for p in sorted(folder.rglob("*.ipynb")):
        rel = p.relative_to(folder)
        if ".ipynb_checkpoints" in rel.parts:
            continue
        sub_id = base = safe_id(rel.with_suffix("").as_posix())
        n = 1
        while sub_id in seen:
            n += 1
            sub_id = f"{base}~{n}"
        seen.add(sub_id)
        out.append((sub_id, p))
    return out


class InvalidSubmission(ValueError):
    """The file is not a gradable notebook (the message goes into the gradebook)."""


def read_notebook(data: bytes) -> dict:
    """Parse a submission's bytes as an nbformat-4 notebook (structure checked, not run; code
    over the caps of :func:`.cells.code_too_large` refused)."""
    if len(data) > MAX_NOTEBOOK_BYTES:
        raise InvalidSubmission(f"file too large ({len(data) // 2**20} MB)")
    try:
        nb = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise InvalidSubmission("not a notebook: the file is not valid JSON") from None
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        raise InvalidSubmission("not a notebook: no list of cells")
    if nb.get("nbformat") != 4:
        raise InvalidSubmission(f"unsupported notebook format {nb.get('nbformat')!r} (need 4)")
    if not isinstance(nb.get("metadata", {}), dict):
        raise InvalidSubmission("not a notebook: metadata is not an object")
    too_large = code_too_large(notebook_code_cells(nb))  # before any analysis of its code
    if too_large:
        raise InvalidSubmission(too_large)
    return nb


def _meta_chapter(nb: dict) -> str | None:
    km = nb.get("metadata", {}).get("kmlteach")
    if isinstance(km, dict) and km.get("chapter") is not None:
        ch = km["chapter"]
        return f"{ch:02d}" if isinstance(ch, int) and not isinstance(ch, bool) else str(ch)
    return None


def detect_chapter(nb: dict, known: set[str], expected: str | None = None) -> str:
    """The notebook's chapter: ``metadata.kmlteach.chapter``, or (when absent) the one
    its ``check()`` calls name. Disagreement, an unknown chapter, or a chapter other than
    ``expected`` raise :class:`InvalidSubmission`."""
    meta = _meta_chapter(nb)
    from_checks = chapter_of_ids(check_calls(notebook_code_cells(nb)))
    if meta is not None:
        others = from_checks - {meta}
        if others:
            raise InvalidSubmission(
                f"metadata says chapter {meta} but the exercises are of chapter {', '.join(sorted(others))}"
            )
        chapter = meta
    elif len(from_checks) == 1:
        chapter = next(iter(from_checks))
    elif not from_checks:
        raise InvalidSubmission("cannot tell the chapter: no metadata.kmlteach.chapter and no check() calls")
    else:
        raise InvalidSubmission(f"exercises of several chapters ({', '.join(sorted(from_checks))})")
    if chapter not in known:
        raise InvalidSubmission(f"chapter {chapter!r} has no graded exercises in book.toml")
    if expected is not None and chapter != expected:
        raise InvalidSubmission(f"a notebook of chapter {chapter}, not {expected}")
    return chapter
