"""The exchange folder of the hub's classroom service, read and written by the instructor.

The folder belongs to the service's Unix user (``deploy/hub/classroom_service.py``):
``inbound/NN/<key>.ipynb`` with its receipt ``<key>.json`` (the hub user's name, the time
the service received it, SHA-256, size), ``feedback/NN/<key>.md`` and ``.html``. The
instructor's commands run as root and so must not be led anywhere by what is inside: every
folder is opened component by component without following a symbolic link
(``O_NOFOLLOW | O_DIRECTORY``), every file likewise, only regular files of a bounded size
are read, and files are written under a fresh name (``O_EXCL``), given to the folder's
owner and renamed into place.
"""

from __future__ import annotations

import json
import os
import re
import secrets
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from ...classroom.names import CHAPTER, user_key
from ..grade.submission import read_regular

__all__ = ["Receipt", "ExchangeError", "open_folder", "read_file", "write_file", "receipts", "owner_of"]

MAX_NOTEBOOK = 64 * 2**20
_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class ExchangeError(ValueError):
    """The exchange folder is missing or not what the service makes (one-line message)."""


@dataclass(frozen=True)
class Receipt:
    """One student's latest hand-in of a chapter, as the service recorded it."""

    user: str
    key: str
    chapter: str
    received: datetime
    sha256: str
    bytes: int


def open_folder(root: Path, *parts: str, create: bool = False, owner: tuple[int, int] | None = None) -> int:
    """A file descriptor of ``root/parts...``, opened one component at a time without
    following links (``create``: missing ones made 0700, given to ``owner``)."""
    try:
        fd = os.open(root, _DIR)
    except OSError as exc:
        raise ExchangeError(
            f"--exchange {str(root)!r}: {exc.strerror} (the service's exchange folder)"
        ) from None
    for part in parts:
        if part in ("", ".", "..") or "/" in part:
            os.close(fd)
            raise ExchangeError(f"bad folder name {part!r}")
        try:
            nxt = os.open(part, _DIR, dir_fd=fd)
        except FileNotFoundError:
            if not create:
                os.close(fd)
                raise
            os.mkdir(part, 0o700, dir_fd=fd)
            nxt = os.open(part, _DIR, dir_fd=fd)
            if owner is not None:
                os.fchown(nxt, *owner)
        except OSError as exc:
            os.close(fd)
            raise ExchangeError(f"{part!r} in {str(root)!r}: {exc.strerror} (not a plain folder)") from None
        os.close(fd)
        fd = nxt
    return fd


def read_file(dir_fd: int, name: str, limit: int = MAX_NOTEBOOK) -> bytes | None:
    """The bytes of regular file ``name`` in ``dir_fd`` when at most ``limit`` long (None:
    absent, a link, not a regular file, too large): the grader's
    :func:`~kmlteach.course.grade.submission.read_regular`."""
    return read_regular(name, limit, dir_fd=dir_fd)


def write_file(dir_fd: int, name: str, data: bytes, owner: tuple[int, int] | None = None) -> None:
    """Replace ``name`` in ``dir_fd`` by ``data`` (mode 0600, given to ``owner``): a new
    file under a random name, then renamed over it (a link in its place is replaced, never followed)."""
    tmp = f".tmp-{secrets.token_hex(8)}"
    fd = os.open(
        tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=dir_fd
    )
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
            if owner is not None:
                os.fchown(fh.fileno(), *owner)
        os.rename(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        try:
            os.unlink(tmp, dir_fd=dir_fd)
        except OSError:
            pass
        raise


def owner_of(root: Path) -> tuple[int, int]:
    """The uid and gid owning the exchange folder (the service's user)."""
    st = os.lstat(root)
    return st.st_uid, st.st_gid


def receipts(root: Path, chapter: str) -> tuple[list[Receipt], list[str]]:
    """The hand-ins of ``chapter``: ``(receipts, problems)``, one receipt per student, sorted
    by user; a receipt that is not what the service writes is a problem, not a receipt."""
    if not CHAPTER.fullmatch(chapter):
        raise ExchangeError(f"CHAPTER must be a chapter id such as 01, got {chapter!r}")
    try:
        fd = open_folder(Path(root), "inbound", chapter)
    except FileNotFoundError:
        return [], []
    out, problems = [], []
    try:
        names = sorted(os.listdir(fd))
        for name in names:
            if not name.endswith(".json") or name.startswith("."):
                continue
            key = name[: -len(".json")]
            data = read_file(fd, name, 64 * 1024)
            try:
                r = json.loads(data.decode("utf-8")) if data else None
                user = r["user"]
                if not isinstance(user, str) or user_key(user) != key or r["chapter"] != chapter:
                    raise ValueError("names another user or chapter")
                received = datetime.fromisoformat(r["received"])
                if received.tzinfo is None or not re.fullmatch(r"[0-9a-f]{64}", r["sha256"]):
                    raise ValueError("time or hash malformed")
                out.append(Receipt(user, key, chapter, received, r["sha256"], int(r["bytes"])))
            except (ValueError, KeyError, TypeError, AttributeError, UnicodeDecodeError) as exc:
                problems.append(f"{name}: not a receipt of the service ({exc})")
    finally:
        os.close(fd)
    return out, problems
