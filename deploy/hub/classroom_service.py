"""The classroom service of the course's hub: the live poll and the hand-in box (issue 39).

A JupyterHub *managed service* (``classroom_config.py`` adds it to
``jupyterhub_config.py``), reached through the hub's proxy at
``/services/kmlteach-classroom/`` (or on its own port of 127.0.0.1) and authenticated by
JupyterHub itself: a request carries a hub API token (a student's kernel sends its
server's ``JUPYTERHUB_API_TOKEN``) and the hub says whose it is
(:class:`jupyterhub.services.auth.HubOAuth`); the service's OAuth cookie (a browser that
went through the hub's login) is enough to read, never to change anything (no
cross-site request can hand in, vote or close a poll). Nothing a request says about its
sender (a name, a time, a header) is believed.

What it keeps and who reaches it:

* **polls** (in memory): ``POST api/polls/<id>`` records the sender's answer to an open
  round — at most one per user and round (a keyed hash of the name marks who answered;
  the answers are counts, never stored beside a name: anonymous even to the
  instructor); ``GET api/polls/<id>``, ``POST .../open`` and ``.../close`` are for members
  of the hub group of instructors only;
* **submissions** (files): ``POST api/submissions/<NN>`` stores the body, a chapter
  notebook, as ``<exchange>/inbound/<NN>/<user>.ipynb`` beside a receipt
  ``<user>.json`` (name from the hub, time from this service's clock, SHA-256), replacing
  the sender's earlier one; ``GET`` returns the sender's own receipt only;
* **feedback** (files written by ``python -m kmlteach return``):
  ``GET api/feedback/<NN>`` returns the sender's own Markdown and HTML.

The exchange folder belongs to the service's own Unix user (``--user``, e.g.
``kmlteach-classroom``; mode 0700): students have no file access to it at all (their
servers' sandbox does not show it, and on the host it is closed to them), so a student
writes only through this service, as themself, and reads only their own receipt and
feedback. The hub starts the service as its own user (root): it binds its port (below
1024 on a root hub: no student process can take it first, whether the service is up or
being restarted), copies the certificates of JupyterHub's internal TLS it needs to ask
the hub's API into a private folder, then drops to ``--user`` for good and asks Linux
to end it with the hub.

Limits (a hostile student knows the API, and its kernel is a process of the machine):

* each connection is attributed to the Unix account that owns its other end (the
  kernel's ``sock_diag`` answer for that socket: :func:`peer_uid`); the hub's proxy, which
  carries browsers and laptops, is one such source (the hub's own account);
* tokens the hub has not seen are looked up at most 60 a second in all (a burst of 120),
  at most 5 a second per student account (burst 10) and 20 a second through the hub's
  own account (the proxy; burst 60), at most 16 at a time and 256 waiting; a token seen (the hub's
  answer, a user or none, kept 5 minutes) is answered from memory and waits for nothing;
* connections: at most 32 per student account and 1024 in all (fewer when the file
  limit is low), idle ones closed after 30 s; at a cap, one that has waited a second or
  more for a request's headers makes room for the new one (:class:`ClassroomServer`); an
  accept that fails for lack of file descriptors pauses the listener and is logged once
  a minute;
* every request is authenticated from its headers, before any of its body is read (the
  handlers stream their bodies: ``prepare`` runs first): an unknown token is refused or
  looked up within the budgets above, a request without a user is answered 403 and its
  connection closed at once; a hub user has at most 4 requests unfinished at a time (an
  instructor 16; 429 beyond), and a body must all come within 10 s of its headers (a
  notebook within 60 s). Every request through the proxy comes from the proxy's account:
  before, a body was read first (for up to 300 s) and only then its sender was known, and
  five students' 1 100 unfinished bodies through the proxy took all 1 024 connections
  (red team C6);
* bodies: a poll answer at most 2 KiB, a notebook at most ``--max-mb`` (streamed, parsed
  off the event loop one at a time; at most 10 000 cells, each a code, Markdown or raw
  cell with a source), anything else 64 KiB; 20 requests per 10 s and 6
  hand-ins a minute per user (429 beyond);
* answers: one of the question's own options (a prediction: a guess of its declared
  kind, :func:`kmlteach.poll.answers.poll_label`), 30 labels per round (from the 30th on,
  new ones count as "other"), 500 polls; whether an answer is right is never taken from
  the request.

On a root hub the service runs in a memory cgroup of its own (``--cgroup``, made by
``classroom_config.py``): a flood cannot take the machine's memory.
"""

from __future__ import annotations

import argparse
import asyncio
import errno
import hashlib
import hmac
import json
import logging
import os
import pwd
import resource
import secrets
import shutil
import signal
import socket
import ssl
import struct
import sys
import tempfile
import time
import urllib.parse
from collections import Counter, deque
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

from tornado import httpserver, httputil, ioloop, netutil, web

from kmlteach.classroom.names import CHAPTER, POLL_ID, user_key

__all__ = ["Polls", "Dropbox", "RateLimit", "Budget", "peer_uid", "ClassroomServer", "make_app", "main"]

log = logging.getLogger("kmlteach-classroom")

SERVICE_NAME = "kmlteach-classroom"
MAX_LABEL = 40
MAX_LABELS = 30
OTHER = "other"
MAX_POLLS = 500
MAX_ANSWER_BYTES = 2048
MAX_CELLS = 10_000  # a chapter notebook has fewer than 100
CELL_TYPES = ("code", "markdown", "raw")
MIN_FREE_BYTES = 512 * 2**20  # a submission is refused when less is free on the exchange's disk
MAX_SESSION_ID = 64  # JupyterHub's session ids are 32 hex digits (a longer cookie is refused)
LOOKUPS = (60.0, 120)  # unknown tokens looked up with the hub: per second, burst (all sources)
LOOKUPS_PER_STUDENT = (5.0, 10)  # ... per student account (a direct connection)
LOOKUPS_SHARED = (20.0, 60)  # ... through the hub's own account (its proxy: browsers, laptops)
MAX_LOOKUPS_IN_FLIGHT = 16
MAX_LOOKUPS_WAITING = 256
MAX_CONNECTIONS = 1024
MAX_CONNECTIONS_PER_STUDENT = 32
MAX_UNFINISHED_PER_USER = 4  # requests of one hub user whose body has not all come (instructors: 16)
MAX_UNFINISHED_PER_INSTRUCTOR = 16
IDLE_SECONDS = 30  # an idle connection, or one whose headers have not all come, is closed
WAITING_GRACE = 1.0  # at the cap, a connection waiting this long for its headers makes room
BODY_SECONDS = 10  # a body (at most 64 KiB) must all come within this time of its headers
HAND_IN_SECONDS = 60  # ... a notebook (at most --max-mb)
MEMORY_MAX = 1024 * 2**20  # the service's memory cgroup (classroom_config.py)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


# ------------------------------------------------------------------------------------ polls
class Round:
    """One round of a poll: open until closed; counts only."""

    def __init__(self, number: int):
        self.number = number
        self.open = True
        self.opened = _now()
        self.closed: str | None = None
        self._salt = secrets.token_bytes(32)  # who answered: keyed hashes, forgotten with the round
        self._voters: set[bytes] = set()
        self.counts: Counter = Counter()
        self.version = 0

    def voter(self, name: str) -> bytes:
        return hmac.new(self._salt, name.encode("utf-8", "surrogatepass"), hashlib.sha256).digest()

    def model(self, poll_id: str) -> dict:
        return {
            "poll": poll_id,
            "round": self.number,
            "open": self.open,
            "opened": self.opened,
            "closed": self.closed,
            "n": sum(self.counts.values()),
            "counts": dict(self.counts),
            "version": self.version,
        }


class Polls:
    """The polls of this service's lifetime, in memory (a restart of the service loses them)."""

    def __init__(self, max_polls: int = MAX_POLLS):
        self.rounds: dict[str, Round] = {}
        self.max_polls = max_polls

    def open(self, poll_id: str) -> Round:
        """Start a round (a new one, with no answers, unless one is open already)."""
        r = self.rounds.get(poll_id)
        if r is not None and r.open:
            return r
        if r is None and len(self.rounds) >= self.max_polls:
            closed = [k for k, v in self.rounds.items() if not v.open]
            if not closed:
                raise web.HTTPError(507, "too many open polls")
            del self.rounds[closed[0]]
        r = Round((r.number + 1) if r is not None else 1)
        self.rounds[poll_id] = r
        return r

    def close(self, poll_id: str) -> Round | None:
        r = self.rounds.get(poll_id)
        if r is not None and r.open:
            r.open, r.closed = False, _now()
            r.version += 1
        return r

    def answer(self, poll_id: str, user: str, label: str) -> tuple[str, Round | None]:
        """``("accepted" | "closed" | "duplicate", round)``."""
        r = self.rounds.get(poll_id)
        if r is None or not r.open:
            return "closed", r
        who = r.voter(user)
        if who in r._voters:
            return "duplicate", r
        r._voters.add(who)
        if label not in r.counts and len(r.counts.keys() - {OTHER}) >= MAX_LABELS - 1:
            label = OTHER  # at most MAX_LABELS bars, "other" among them
        r.counts[label] += 1
        r.version += 1
        return "accepted", r


def _label(poll_id: str, value) -> str | None:
    """A poll answer's label: one the question ``poll_id`` can have (its option letter, a
    number, a prediction's guess of its declared kind), at most 40 printable characters."""
    from kmlteach.exercises import question
    from kmlteach.poll.answers import poll_label

    if not isinstance(value, str) or len(value) > 4 * MAX_LABEL:
        return None
    value = poll_label(poll_id, value, question)
    if value is None or not 0 < len(value) <= MAX_LABEL or not value.isprintable():
        return None
    return value


# ------------------------------------------------------------------------- the hand-in box
class Dropbox:
    """The exchange folder: ``inbound/<NN>/<user>.ipynb`` + ``.json`` (receipts),
    ``feedback/<NN>/<user>.md`` + ``.html`` (returned), ``log/submissions.jsonl``,
    ``tmp/`` (uploads in flight). Every file 0600, every folder 0700."""

    def __init__(self, root: Path, chapters: set[str], max_bytes: int):
        self.root, self.chapters, self.max_bytes = Path(root), chapters, max_bytes
        for d in ("inbound", "feedback", "log", "tmp"):
            (self.root / d).mkdir(mode=0o700, exist_ok=True)
        self._locks: dict[tuple[str, str], asyncio.Lock] = {}

    def lock(self, chapter: str, key: str) -> asyncio.Lock:
        return self._locks.setdefault((chapter, key), asyncio.Lock())

    def temp(self):
        """A new upload file in ``tmp/`` (opened for writing, 0600)."""
        fd, path = tempfile.mkstemp(prefix="upload-", suffix=".part", dir=self.root / "tmp")
        return os.fdopen(fd, "wb"), Path(path)

    def free_enough(self) -> bool:
        st = os.statvfs(self.root)
        return st.f_bavail * st.f_frsize >= MIN_FREE_BYTES + self.max_bytes

    def receipt(self, chapter: str, key: str) -> dict | None:
        try:
            return json.loads((self.root / "inbound" / chapter / f"{key}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None

    def store(self, chapter: str, user: str, upload: Path, sha256: str, size: int) -> dict:
        """Move ``upload`` in as ``user``'s submission of ``chapter``; the receipt."""
        key = user_key(user)
        folder = self.root / "inbound" / chapter
        folder.mkdir(mode=0o700, exist_ok=True)
        before = self.receipt(chapter, key)
        receipt = {
            "user": user,
            "chapter": chapter,
            "received": _now(),
            "sha256": sha256,
            "bytes": size,
            "replaces": before.get("received") if isinstance(before, dict) else None,
        }
        os.replace(upload, folder / f"{key}.ipynb")
        self._write(folder / f"{key}.json", json.dumps(receipt, ensure_ascii=False) + "\n")
        with open(self.root / "log" / "submissions.jsonl", "a", encoding="utf-8") as fh:
            fh.write(json.dumps(receipt, ensure_ascii=False) + "\n")
        return receipt

    def feedback(self, chapter: str, user: str) -> dict | None:
        folder = self.root / "feedback" / chapter
        key = user_key(user)
        out = {}
        for kind in ("md", "html"):
            try:
                out[kind] = (folder / f"{key}.{kind}").read_text(encoding="utf-8", errors="replace")
            except OSError:
                pass
        if not out:
            return None
        try:
            out["returned"] = datetime.fromtimestamp(
                (folder / f"{key}.{next(iter(out))}").stat().st_mtime, UTC
            ).isoformat(timespec="seconds")
        except OSError:
            out["returned"] = None
        return out

    def _write(self, path: Path, text: str) -> None:
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)


def check_notebook(path: Path, chapter: str) -> str | None:
    """Why the uploaded file is not chapter ``chapter``'s notebook (None: it is)."""
    try:
        with open(path, "rb") as fh:
            nb = json.loads(fh.read().decode("utf-8"))
    except (OSError, ValueError, UnicodeDecodeError, RecursionError):
        return "not a notebook (not JSON in UTF-8)"
    if not isinstance(nb, dict) or nb.get("nbformat") != 4 or not isinstance(nb.get("cells"), list):
        return "not a notebook (nbformat 4 with cells)"
    cells = nb["cells"]
    if len(cells) > MAX_CELLS:
        return f"not a chapter notebook ({len(cells):,} cells; at most {MAX_CELLS:,})"
    for i, cell in enumerate(cells):
        if (
            not isinstance(cell, dict)
            or cell.get("cell_type") not in CELL_TYPES
            or not isinstance(cell.get("source"), str | list)
        ):
            return f"not a notebook (cell {i} is not a code, Markdown or raw cell with a source)"
    meta = nb.get("metadata")
    got = meta.get("kmlteach", {}).get("chapter") if isinstance(meta, dict) else None
    if isinstance(meta, dict) and not isinstance(meta.get("kmlteach"), dict):
        got = None
    if got != chapter:
        return f"not chapter {chapter}'s notebook (its metadata names chapter {got!r})"
    return None


# ----------------------------------------------------------------------------- rate limits
class RateLimit:
    """At most ``n`` events per ``window`` seconds per key (a sliding window)."""

    def __init__(self, n: int, window: float, max_keys: int = 10_000):
        self.n, self.window, self.max_keys = n, window, max_keys
        self.events: dict[str, deque] = {}

    def allow(self, key: str) -> bool:
        now = time.monotonic()
        q = self.events.get(key)
        if q is None:
            if len(self.events) >= self.max_keys:  # forget the idle ones
                for k in [k for k, v in self.events.items() if not v or v[-1] < now - self.window]:
                    del self.events[k]
            q = self.events[key] = deque()
        while q and q[0] < now - self.window:
            q.popleft()
        if len(q) >= self.n:
            return False
        q.append(now)
        return True


class Budget:
    """Token buckets: ``rate`` events a second per key, ``burst`` at once; the full
    (idle) buckets are forgotten when there are ``max_keys``."""

    def __init__(self, rate: float, burst: int, max_keys: int = 10_000):
        self.rate, self.burst, self.max_keys = rate, burst, max_keys
        self.buckets: dict[object, list[float]] = {}  # key -> [tokens, when]

    def allow(self, key) -> bool:
        now = time.monotonic()
        b = self.buckets.get(key)
        if b is None:
            if len(self.buckets) >= self.max_keys:
                full = [k for k, (t, w) in self.buckets.items() if t + (now - w) * self.rate >= self.burst]
                for k in full:
                    del self.buckets[k]
            b = self.buckets[key] = [float(self.burst), now]
        b[0] = min(float(self.burst), b[0] + (now - b[1]) * self.rate)
        b[1] = now
        if b[0] < 1.0:
            return False
        b[0] -= 1.0
        return True


# ----------------------------------------------------------- who is at the other end
_NETLINK_SOCK_DIAG, _SOCK_DIAG_BY_FAMILY, _NLM_F_REQUEST = 4, 20, 1
_NOCOOKIE = 0xFFFFFFFF


def peer_uid(conn: socket.socket) -> int | None:
    """The Unix account owning the other end of ``conn``, a TCP connection over the
    loopback interface (on this one machine every client is a local process: a student's
    kernel, the hub's proxy); None when the kernel does not say.

    One exact ``sock_diag`` look-up of the peer's socket (the 4-tuple seen from its side),
    as ``ss`` does: no scan of ``/proc/net/tcp``, whose size a student controls."""
    try:
        family = conn.family
        peer, me = conn.getpeername(), conn.getsockname()
        if family == socket.AF_INET:
            src, dst = socket.inet_aton(peer[0]) + bytes(12), socket.inet_aton(me[0]) + bytes(12)
        elif family == socket.AF_INET6:
            src, dst = socket.inet_pton(family, peer[0]), socket.inet_pton(family, me[0])
        else:
            return None
        sockid = struct.pack("!HH", peer[1], me[1]) + src + dst + struct.pack("=III", 0, _NOCOOKIE, _NOCOOKIE)
        req = struct.pack("=BBBBI", family, socket.IPPROTO_TCP, 0, 0, 0xFFFFFFFF) + sockid
        msg = struct.pack("=IHHII", 16 + len(req), _SOCK_DIAG_BY_FAMILY, _NLM_F_REQUEST, 1, 0) + req
        with socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, _NETLINK_SOCK_DIAG) as nl:
            nl.settimeout(1.0)
            nl.sendto(msg, (0, 0))
            reply = nl.recv(8192)
        length, kind = struct.unpack_from("=IH", reply)
        if kind != _SOCK_DIAG_BY_FAMILY or length < 16 + 72:
            return None  # NLMSG_ERROR: no such socket (it closed, or is not on this machine)
        return struct.unpack_from("=I", reply, 16 + 64)[0]  # inet_diag_msg.idiag_uid
    except (OSError, struct.error, ValueError):
        return None


class _Marked(httputil.HTTPMessageDelegate):
    """A request's delegate that tells its server when the request's headers have come."""

    def __init__(self, delegate, server, stream):
        self.delegate, self.server, self.stream = delegate, server, stream

    def headers_received(self, start_line, headers):
        self.server.waiting.pop(self.stream, None)
        return self.delegate.headers_received(start_line, headers)

    def data_received(self, chunk):
        return self.delegate.data_received(chunk)

    def finish(self):
        self.delegate.finish()

    def on_connection_close(self):
        self.delegate.on_connection_close()


class ClassroomServer(httpserver.HTTPServer):
    """The service's HTTP server: each connection's source (:func:`peer_uid`) is known
    before its first request (``stream.kml_source``); at most ``per_student`` connections
    of one student account and ``total`` in all are kept. At a cap, the connection that has
    waited longest (at least ``WAITING_GRACE``) for a request's headers — of the same
    source at its own cap, of any source at the total — is closed to make room, else the
    new one is closed at once: connections that send nothing hold no place a request
    needs (the hub's proxy opens its connection to the service when a request's headers
    come to it, and sends them on only with the first byte of the body: a request whose
    body never starts held a connection of the service for 30 s; red team C6). Its
    listener pauses when the process runs out of file descriptors and says so once a
    minute instead of once per failed accept."""

    def initialize(
        self, *args, shared_uids=(), per_student=MAX_CONNECTIONS_PER_STUDENT, total=MAX_CONNECTIONS, **kw
    ):
        super().initialize(*args, **kw)
        self.shared_uids, self.per_student, self.total = set(shared_uids), per_student, total
        self.open_by: Counter = Counter()
        self.waiting: dict = {}  # stream -> (since, source): waiting for a request's headers, oldest first
        self.refused = self.evicted = 0
        self._warned = 0.0

    def source(self, uid: int | None):
        """The budget key of a connection: ``"shared"`` (the hub's own account: its proxy),
        the student account's uid, or ``"unknown"``."""
        if uid is None:
            return "unknown"
        return "shared" if uid in self.shared_uids else uid

    def handle_stream(self, stream, address):
        uid = peer_uid(stream.socket) if stream.socket is not None else None
        src = self.source(uid)
        n = sum(self.open_by.values())
        cap = self.total if src in ("shared", "unknown") else min(self.per_student, self.total)
        if n >= self.total or self.open_by[src] >= cap:
            if not self._make_room(src if self.open_by[src] >= cap else None):
                self.refused += 1
                self._warn(
                    f"connection limit reached ({self.open_by[src]} open from {src}, {n} in all): refusing"
                )
                stream.close()
                return
        self.open_by[src] += 1
        stream.kml_source = src
        self.waiting[stream] = (time.monotonic(), src)
        super().handle_stream(stream, address)

    def _make_room(self, src) -> bool:
        """Close the connection (of ``src``, or of any source) that has waited longest, at
        least WAITING_GRACE, for a request's headers; whether there was one."""
        old = time.monotonic() - WAITING_GRACE
        victim = None
        for stream, (since, source) in self.waiting.items():
            if since > old:
                break
            if src is None or source == src:
                victim = stream
                break
        if victim is None:
            return False
        del self.waiting[victim]
        self._forget(victim)
        self.evicted += 1
        self._warn(f"connection limit reached: closing connections that send no request ({source})")
        victim.close()
        return True

    def start_request(self, server_conn, request_conn):
        """A connection waits for a request's headers (its first, or its next one)."""
        stream = server_conn.stream
        self.waiting.pop(stream, None)
        if getattr(stream, "kml_source", None) is not None:
            self.waiting[stream] = (time.monotonic(), stream.kml_source)
        return _Marked(super().start_request(server_conn, request_conn), self, stream)

    def _forget(self, stream) -> None:
        """One fewer connection from ``stream``'s source (once)."""
        src = getattr(stream, "kml_source", None)
        stream.kml_source = None
        if src is not None and self.open_by.get(src, 0) > 0:
            self.open_by[src] -= 1
            if not self.open_by[src]:
                del self.open_by[src]

    def on_close(self, server_conn) -> None:
        """A connection closed (its HTTP1ServerConnection): one fewer from its source."""
        self.waiting.pop(server_conn.stream, None)
        self._forget(server_conn.stream)
        super().on_close(server_conn)

    def _warn(self, message: str) -> None:
        now = time.monotonic()
        if now - self._warned >= 60:
            self._warned = now
            log.warning("%s (said once a minute)", message)

    def add_sockets(self, sockets) -> None:
        for sock in sockets:
            self._sockets[sock.fileno()] = sock
            self._handlers[sock.fileno()] = self._accept_handler(sock)

    def _accept_handler(self, sock):
        """tornado's ``netutil.add_accept_handler``, but EMFILE/ENFILE/ENOBUFS/ENOMEM pause
        the listener for half a second (the pending connections wait in the backlog; idle
        ones are closed meanwhile) and are logged once a minute, not as a traceback per
        accept (a tight loop that once wrote 135 MB of log in 30 s)."""
        loop = ioloop.IOLoop.current()
        short = {errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM}
        state = {"on": True}

        def resume():
            if state["on"] and sock.fileno() != -1:
                loop.add_handler(sock, accept, ioloop.IOLoop.READ)

        def accept(fd, events):
            for _ in range(128):
                if not state["on"]:
                    return
                try:
                    conn, address = sock.accept()
                except BlockingIOError:
                    return
                except ConnectionAbortedError:
                    continue
                except OSError as exc:
                    if exc.errno not in short:
                        raise
                    self._warn(f"cannot accept connections: {exc.strerror} (pausing the listener)")
                    loop.remove_handler(sock)
                    loop.call_later(0.5, resume)
                    return
                self._handle_connection(conn, address)

        loop.add_handler(sock, accept, ioloop.IOLoop.READ)

        def remove():
            state["on"] = False
            loop.remove_handler(sock)

        return remove


# -------------------------------------------------------------------------------- handlers
def _handlers_base():
    from jupyterhub.services.auth import HubOAuthenticated, UserNotAllowed

    @web.stream_request_body
    class Base(HubOAuthenticated, web.RequestHandler):
        """Identify the sender with the hub (token, else OAuth cookie) before anything:
        from the request's headers, before any of its body is read (the body is streamed
        to :meth:`data_received`, kept up to ``body_limit`` bytes)."""

        body_limit = 64 * 1024

        def initialize(self, state):
            self.state = state
            self._body = bytearray()
            self._too_large = False
            self._counted = None  # the user whose unfinished requests count this one

        def set_default_headers(self):
            self.set_header("Content-Type", "application/json; charset=utf-8")
            self.set_header("Cache-Control", "no-store")
            self.set_header("X-Content-Type-Options", "nosniff")
            if getattr(self, "_closing", False):
                self.set_header("Connection", "close")

        async def prepare(self):
            """Who sent this request, and may they: decided from its headers. A request
            with a body that is refused is answered at once and its connection closed (the
            body is never read); one without a body is answered as any other request, on
            a connection kept open (the proxy reuses its connections)."""
            try:
                await self._authenticate()
                await self.admit()
            except web.HTTPError as exc:
                headers = self.request.headers
                if "Transfer-Encoding" in headers or headers.get("Content-Length", "0") != "0":
                    self._closing = True
                    raise
                self._refusal = exc
                setattr(self, self.request.method.lower(), self._refuse)

        def _refuse(self, *args, **kwargs):
            raise self._refusal

        async def admit(self):
            """A handler's own checks of a request before its body (after the sender's)."""

        async def _authenticate(self):
            token = self.hub_auth.get_token(self, in_cookie=False)
            if token and (len(token) > 256 or not token.isascii()):
                raise web.HTTPError(400, "malformed token")
            if len(self.hub_auth.get_session_id(self) or "") > MAX_SESSION_ID:
                raise web.HTTPError(400, "malformed session cookie")  # (a part of the cache's key)
            if token and not self._cached(token):
                model = await self._look_up()
            else:  # seen: the hub's answer (a user, or none) is in memory; nothing waits
                model = await self.hub_auth.get_user(self, sync=False)
            user = None
            if model:
                try:
                    user = self.check_hub_user(model)
                except UserNotAllowed:
                    raise web.HTTPError(403, "this hub account may not use the classroom service") from None
            self._hub_auth_user_cache = user
            if user is None or user.get("kind", "user") != "user":
                raise web.HTTPError(403, "log in to the hub first (a hub API token or the hub's login)")
            if self.request.method not in ("GET", "HEAD") and not getattr(
                self, "_token_authenticated", False
            ):
                # a browser sends the service's cookie along with any page's request: nothing
                # is changed on a cookie alone (no cross-site hand-in, vote or closed poll)
                raise web.HTTPError(403, "send a hub API token (Authorization: token ...) to change anything")
            self.user = user["name"]
            self.instructor = self.state["instructors"] in (user.get("groups") or [])
            unfinished = self.state["unfinished"]
            cap = MAX_UNFINISHED_PER_INSTRUCTOR if self.instructor else MAX_UNFINISHED_PER_USER
            if unfinished[self.user] >= cap:
                raise web.HTTPError(429, "too many requests at once: wait for the others to finish")
            unfinished[self.user] += 1
            self._counted = self.user
            if not self.instructor and not self.state["limit"].allow(self.user):
                raise web.HTTPError(429, "too many requests: wait a few seconds")

        def data_received(self, chunk):
            if self._too_large or len(self._body) + len(chunk) > self.body_limit:
                self._too_large, self._body = True, bytearray()  # (kept no further: 413)
            else:
                self._body += chunk

        def _uncount(self):
            user, self._counted = self._counted, None
            if user is not None:
                unfinished = self.state["unfinished"]
                unfinished[user] -= 1
                if unfinished[user] <= 0:
                    del unfinished[user]

        def on_finish(self):
            self._uncount()

        def on_connection_close(self):
            self._uncount()
            super().on_connection_close()

        async def _look_up(self):
            """Ask the hub about a token it has not been asked about: within the budgets of
            the sender's source (its Unix account; the proxy is one) and of all sources; at
            most MAX_LOOKUPS_IN_FLIGHT at a time, MAX_LOOKUPS_WAITING more waiting their
            turn (429 beyond: nothing piles up)."""
            state = self.state
            stream = getattr(self.request.connection, "stream", None)
            source = getattr(stream, "kml_source", "unknown")
            per = state["lookups_shared"] if source in ("shared", "unknown") else state["lookups_student"]
            if state["waiting"] >= MAX_LOOKUPS_WAITING or not per.allow(source):
                raise web.HTTPError(429, "too many unknown tokens from here: try again in a second")
            if not state["lookups"].allow("all"):
                raise web.HTTPError(429, "too many unknown tokens: try again in a second")
            state["waiting"] += 1
            try:
                async with state["in_flight"]:
                    return await self.hub_auth.get_user(self, sync=False)
            finally:
                state["waiting"] -= 1

        def _cached(self, token: str) -> bool:
            session = self.hub_auth.get_session_id(self)
            key = f"token:{session}:{hashlib.sha256(token.encode('utf8', 'replace')).hexdigest()}"
            return key in self.hub_auth.cache

        def write_error(self, status_code, **kwargs):
            reason = self._reason
            exc = kwargs.get("exc_info", (None, None))[1]
            if isinstance(exc, web.HTTPError) and exc.log_message:
                reason = exc.log_message
            self.finish(json.dumps({"error": reason, "status": status_code}))

        def reply(self, status: int, body: dict) -> None:
            self.set_status(status)
            self.finish(json.dumps(body, ensure_ascii=False))

        def require_instructor(self):
            if not self.instructor:
                raise web.HTTPError(403, "only the instructors read or run a poll")

        def json_body(self, limit: int) -> dict:
            if self._too_large or len(self._body) > limit:
                raise web.HTTPError(413, "request too large")
            try:
                data = json.loads(bytes(self._body).decode("utf-8") or "{}")
            except (ValueError, UnicodeDecodeError, RecursionError):
                raise web.HTTPError(400, "the body is not JSON") from None
            if not isinstance(data, dict):
                raise web.HTTPError(400, "the body must be a JSON object")
            return data

    return Base


def make_app(
    exchange: Path,
    *,
    chapters: set[str],
    instructors: str = "instructors",
    max_bytes: int = 16 * 2**20,
    prefix: str | None = None,
    per_user: tuple[int, float] = (20, 10.0),
    hand_ins: tuple[int, float] = (6, 60.0),
    lookups: tuple[float, int] = LOOKUPS,
    lookups_student: tuple[float, int] = LOOKUPS_PER_STUDENT,
    lookups_shared: tuple[float, int] = LOOKUPS_SHARED,
    hub_tls: ssl.SSLContext | None = None,
) -> web.Application:
    """The service's tornado application (``prefix``: ``$JUPYTERHUB_SERVICE_PREFIX``;
    ``hub_tls``: the client context for the hub's API, :func:`hub_tls_context`)."""
    from jupyterhub.services.auth import HubOAuth, HubOAuthCallbackHandler

    _share_tls(HubOAuth.instance(), hub_tls)
    Base = _handlers_base()
    prefix = prefix or os.environ.get("JUPYTERHUB_SERVICE_PREFIX", f"/services/{SERVICE_NAME}/")
    state = {
        "polls": Polls(),
        "box": Dropbox(exchange, chapters, max_bytes),
        "instructors": instructors,
        "limit": RateLimit(*per_user),
        "lookups": Budget(*lookups),
        "lookups_student": Budget(*lookups_student),
        "lookups_shared": Budget(*lookups_shared),
        "in_flight": asyncio.Semaphore(MAX_LOOKUPS_IN_FLIGHT),
        "waiting": 0,  # look-ups started or waiting for one of the MAX_LOOKUPS_IN_FLIGHT
        "unfinished": Counter(),  # hub user -> requests of theirs authenticated, not finished
        "hand_ins": RateLimit(*hand_ins),
        # a notebook is parsed off the event loop (polls keep answering), one at a time
        # (the memory of one parsed notebook at most)
        "parser": ThreadPoolExecutor(1, thread_name_prefix="notebook-check"),
        "max_bytes": max_bytes,
    }

    def poll_id(value: str) -> str:
        if not POLL_ID.fullmatch(value):
            raise web.HTTPError(400, "a poll id looks like 01.c_support")
        return value

    def chapter_id(value: str) -> str:
        if not CHAPTER.fullmatch(value) or value not in chapters:
            raise web.HTTPError(404, f"no chapter {value[:8]!r} in this course")
        return value

    def _model(pid: str, r: Round | None) -> dict:
        if r is None:  # never opened
            return {"poll": pid, "round": 0, "open": False, "n": 0, "counts": {}, "version": 0}
        return r.model(pid)

    class Me(Base):
        def get(self):
            self.reply(
                200, {"name": self.user, "instructor": self.instructor, "max_bytes": state["max_bytes"]}
            )

    class PollList(Base):
        def get(self):
            self.require_instructor()
            rounds = state["polls"].rounds
            self.reply(200, {"polls": [r.model(k) for k, r in rounds.items()]})

    class Poll(Base):
        body_limit = MAX_ANSWER_BYTES

        def get(self, pid):
            self.require_instructor()
            r = state["polls"].rounds.get(poll_id(pid))
            self.reply(200, _model(pid, r))

        def post(self, pid):
            pid = poll_id(pid)
            data = self.json_body(MAX_ANSWER_BYTES)
            label = _label(pid, data.get("answer"))
            if label is None:
                raise web.HTTPError(
                    400, f"{pid} has no such answer (one of its options or its kind of guess)"
                )
            right = data.get("right")  # a kernel's own verdict: checked for type, never counted
            if right is not None and not isinstance(right, bool):
                raise web.HTTPError(400, "right must be true, false or absent")
            outcome, r = state["polls"].answer(pid, self.user, label)
            if outcome == "accepted":
                self.reply(201, {"accepted": True, "round": r.number})
            else:
                self.reply(409, {"accepted": False, "reason": outcome, "round": r.number if r else 0})

    class PollAction(Base):
        def post(self, pid, action):
            self.require_instructor()
            pid = poll_id(pid)
            polls = state["polls"]
            r = polls.open(pid) if action == "open" else polls.close(pid)
            self.reply(200, _model(pid, r))

    class Submission(Base):
        upload = None

        async def admit(self):
            if self.request.method != "POST":
                return
            self.chapter = chapter_id(self.path_args[0])
            if not state["hand_ins"].allow(self.user):
                raise web.HTTPError(429, "too many hand-ins in a minute: wait a little")
            length = self.request.headers.get("Content-Length")
            if length is not None and (not length.isdigit() or int(length) > state["max_bytes"]):
                raise web.HTTPError(413, f"a notebook may have at most {state['max_bytes'] // 2**20} MB")
            self.request.connection.set_max_body_size(state["max_bytes"])
            self.request.connection.set_body_timeout(HAND_IN_SECONDS)
            if not state["box"].free_enough():
                raise web.HTTPError(507, "the hand-in box is full: tell your instructor")
            self.fh, self.upload = state["box"].temp()
            self.digest, self.size = hashlib.sha256(), 0

        def data_received(self, chunk):
            if self.upload is None:
                return
            self.size += len(chunk)
            if self.size > state["max_bytes"]:
                raise web.HTTPError(413, "too large")
            self.digest.update(chunk)
            self.fh.write(chunk)

        def on_finish(self):
            self._discard()
            super().on_finish()

        def on_connection_close(self):
            self._discard()
            super().on_connection_close()

        def _discard(self):
            if self.upload is not None:
                try:
                    self.fh.close()
                except OSError:
                    pass
                self.upload.unlink(missing_ok=True)
                self.upload = None

        def get(self, chapter):
            r = state["box"].receipt(chapter_id(chapter), user_key(self.user))
            if r is None or r.get("user") != self.user:
                self.reply(404, {"error": f"nothing handed in for chapter {chapter} yet", "status": 404})
                return
            self.reply(200, r)

        async def post(self, chapter):
            self.fh.flush()
            os.fsync(self.fh.fileno())
            self.fh.close()
            loop = asyncio.get_running_loop()
            problem = await loop.run_in_executor(state["parser"], check_notebook, self.upload, self.chapter)
            if problem:
                raise web.HTTPError(422, problem)
            box = state["box"]
            async with box.lock(self.chapter, user_key(self.user)):
                receipt = box.store(self.chapter, self.user, self.upload, self.digest.hexdigest(), self.size)
            self.upload = None
            self.reply(201, receipt)

    class Feedback(Base):
        def get(self, chapter):
            fb = state["box"].feedback(chapter_id(chapter), self.user)
            if fb is None:
                self.reply(404, {"error": f"no feedback for chapter {chapter} yet", "status": 404})
                return
            self.reply(200, {"chapter": chapter, **fb})

    class Home(Base):
        def get(self):
            self.reply(200, {"service": SERVICE_NAME, "user": self.user, "instructor": self.instructor})

    @web.stream_request_body
    class Callback(HubOAuthCallbackHandler):
        """The OAuth callback (a browser's GET, no body): any other method is refused from
        its headers, before a body is read."""

        def prepare(self):
            if self.request.method not in ("GET", "HEAD"):
                raise web.HTTPError(405)

    @web.stream_request_body
    class NotFound(web.RequestHandler):
        """Any other path: 404 from the headers, the body left unread."""

        def prepare(self):
            raise web.HTTPError(404)

    p = prefix.rstrip("/")
    api = p + "/api"
    return web.Application(
        [
            (p + "/?", Home, {"state": state}),
            (p + "/oauth_callback", Callback),
            (api + "/me", Me, {"state": state}),
            (api + "/polls", PollList, {"state": state}),
            (api + r"/polls/([^/]{1,80})", Poll, {"state": state}),
            (api + r"/polls/([^/]{1,80})/(open|close)", PollAction, {"state": state}),
            (api + r"/submissions/([^/]{1,8})", Submission, {"state": state}),
            (api + r"/feedback/([^/]{1,8})", Feedback, {"state": state}),
        ],
        default_handler_class=NotFound,
        cookie_secret=secrets.token_bytes(32),
        xsrf_cookies=False,
        login_url=p + "/oauth_callback",
        state=state,
    )


# --------------------------------------------------------------------- start-up as root
TLS_ENV = {
    "key": "JUPYTERHUB_SSL_KEYFILE",
    "cert": "JUPYTERHUB_SSL_CERTFILE",
    "ca": "JUPYTERHUB_SSL_CLIENT_CA",
}


def hub_tls_context(env=os.environ) -> ssl.SSLContext | None:
    """The client TLS context for the hub's API (internal_ssl: this service's certificate
    and key, the hub's CA), made once — as root at start-up, from the hub's own files —
    and used for every look-up; None without internal_ssl. The service then needs no
    copy of its key on disk after it drops root (it kept one, in a folder shared by every
    hub of the machine, before), and no new context per request (JupyterHub's HubAuth
    makes one per request, and its HTTP client keeps a pooled connection per context: a
    flood of unknown tokens piled them up in memory)."""
    from jupyterhub.utils import make_ssl_context

    key, cert = env.get(TLS_ENV["key"]), env.get(TLS_ENV["cert"])
    if not key or not cert:
        return None
    return make_ssl_context(key, cert, cafile=env.get(TLS_ENV["ca"]) or None)


def _share_tls(auth, context: ssl.SSLContext | None) -> None:
    """Make ``auth`` (the HubOAuth instance) use ``context`` for every request to the hub
    instead of reading its files and making a context each time."""
    if context is None or getattr(auth, "_kml_tls", None) is context:
        return
    request = type(auth)._api_request

    async def api_request(method, url, /, **kwargs):
        kwargs["ssl"] = context
        return await request(auth, method, url, **kwargs)

    auth.keyfile = auth.certfile = ""  # (HubAuth would otherwise make a context per request)
    auth._api_request = api_request
    auth._kml_tls = context


LEGACY_RUN = Path("/run/kmlteach-classroom")


def remove_stale_copies(base: Path = LEGACY_RUN) -> list[Path]:
    """Remove the TLS key copies that services of earlier versions left below ``base``
    (one shared folder for every hub of the machine) whose owner runs no process any more
    (a system uid is reused: a later service account would own them); ``base`` itself once
    empty. As root, at start-up; the folders removed."""
    if not base.is_dir() or base.is_symlink():
        return []
    running = set()
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                running.add(d.stat().st_uid)
            except OSError:
                pass
    gone = []
    for d in base.iterdir():
        try:
            st = d.lstat()
        except OSError:
            continue
        if d.name.startswith("tls-") and not d.is_symlink() and st.st_uid not in running:
            shutil.rmtree(d, ignore_errors=True)
            gone.append(d)
    try:
        base.rmdir()
    except OSError:
        pass
    return gone


def join_cgroups(dirs: list[str], pid: int | None = None) -> list[str]:
    """Move this process into each cgroup folder of ``dirs`` (made, with its memory limit,
    by ``classroom_config.py``): before dropping root. Those it could not join: the hub
    starts the service anyway (a cgroup is a bound on a flood, not a condition to run)."""
    failed = []
    for d in dirs:
        try:
            Path(d, "cgroup.procs").write_text(str(pid or os.getpid()))
        except OSError as exc:
            failed.append(f"{d} ({exc.strerror})")
    if failed:
        log.warning("not in the cgroups %s", ", ".join(failed))
    return failed


def _own_folder(path: Path, owner: pwd.struct_passwd | None) -> None:
    """``path`` made (with parents) and given to ``owner``, mode 0700; a symlink is refused."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    st = path.lstat()
    if not os.path.isdir(path) or os.path.islink(path):
        raise SystemExit(f"{path} must be a folder, not a symlink")
    if owner is not None and (st.st_uid, st.st_gid) != (owner.pw_uid, owner.pw_gid):
        os.chown(path, owner.pw_uid, owner.pw_gid)
    os.chmod(path, 0o700)


def drop_privileges(pw: pwd.struct_passwd) -> None:
    """Become ``pw``'s user for good (no supplementary groups, real, effective and saved ids)."""
    os.setgroups([])
    os.setresgid(pw.pw_gid, pw.pw_gid, pw.pw_gid)
    os.setresuid(pw.pw_uid, pw.pw_uid, pw.pw_uid)
    os.environ["HOME"] = pw.pw_dir if os.path.isdir(pw.pw_dir) else "/"
    os.environ["USER"] = os.environ["LOGNAME"] = pw.pw_name
    if os.getuid() == 0 or os.geteuid() == 0:
        raise SystemExit("could not drop root")


def _die_with_parent(parent: int) -> None:
    """Ask Linux for SIGTERM when the hub that started this process dies (set after the
    drop of privileges, which clears it), and leave now if it is gone already."""
    import ctypes

    PR_SET_PDEATHSIG = 1
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:
        raise SystemExit("the hub that started the classroom service is gone")


def make_server(app: web.Application, shared_uids=()) -> ClassroomServer:
    """The HTTP server of ``app``: bodies streamed (submissions, up to the notebook limit)
    or at most 64 KiB, at most 256 KiB read ahead per connection (pipelined requests),
    small headers, idle or trickling connections dropped, connections capped per student
    account and in all (:class:`ClassroomServer`), below the file limit."""
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    total = MAX_CONNECTIONS if soft == resource.RLIM_INFINITY else max(16, min(MAX_CONNECTIONS, soft - 64))
    return ClassroomServer(
        app,
        max_body_size=64 * 1024,
        max_buffer_size=256 * 1024,
        max_header_size=16 * 1024,
        idle_connection_timeout=IDLE_SECONDS,
        body_timeout=BODY_SECONDS,
        shared_uids=shared_uids,
        total=total,
    )


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--exchange", type=Path, required=True, help="the exchange folder (made 0700)")
    ap.add_argument("--user", default="", help="Unix user to run as (the hub starts the service as root)")
    ap.add_argument("--chapters", default="", help="chapter ids accepted, comma-separated (e.g. 00,01,02)")
    ap.add_argument("--instructors", default="instructors", help="hub group whose members read polls")
    ap.add_argument("--max-mb", type=float, default=16.0, help="largest notebook accepted, in MB")
    ap.add_argument("--cgroup", action="append", default=[], help="a cgroup folder to join (as root)")
    args = ap.parse_args(argv)
    parent = os.getppid()
    logging.basicConfig(level=logging.INFO, format="[%(levelname).1s %(asctime)s classroom] %(message)s")
    logging.getLogger("alembic").setLevel(logging.WARNING)  # (imported by jupyterhub's modules)
    os.umask(0o077)
    owner = None
    if args.user and os.geteuid() == 0:
        try:
            owner = pwd.getpwnam(args.user)
        except KeyError:
            raise SystemExit(f"no Unix user {args.user!r} for the classroom service") from None
        if owner.pw_uid == 0:
            raise SystemExit("--user must not be root")
    _own_folder(args.exchange, owner)
    for d in ("inbound", "feedback", "log", "tmp"):
        _own_folder(args.exchange / d, owner)

    url = urllib.parse.urlsplit(os.environ.get("JUPYTERHUB_SERVICE_URL", "http://127.0.0.1:10101"))
    if url.scheme != "http" or url.hostname not in ("127.0.0.1", "localhost") or not url.port:
        raise SystemExit(f"the classroom service listens on http://127.0.0.1:PORT only, not {url.geturl()}")
    # the port, bound now: as root a port below 1024, which no student process can take
    # (classroom_config.py picks one), then served as --user
    sockets = netutil.bind_sockets(url.port, "127.0.0.1")
    # internal_ssl: the hub's API wants this service's certificate; read now, as root,
    # from the hub's own files (0700 in its state), kept in memory only
    hub_tls = hub_tls_context()
    if os.geteuid() == 0:
        join_cgroups(args.cgroup)
        remove_stale_copies()
    hub_uid = os.getuid()  # the hub's account: its proxy's connections are one shared source
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    if owner is not None:
        drop_privileges(owner)
    _die_with_parent(parent)
    chapters = {c for c in args.chapters.split(",") if CHAPTER.fullmatch(c)} or {
        f"{i:02d}" for i in range(100)
    }
    app = make_app(
        args.exchange,
        chapters=chapters,
        instructors=args.instructors,
        max_bytes=int(args.max_mb * 2**20),
        hub_tls=hub_tls,
    )
    server = make_server(app, shared_uids={hub_uid, 0})
    server.add_sockets(sockets)
    log.info(
        "serving %s on %s as %s (exchange %s, instructors: hub group %r)",
        SERVICE_NAME,
        url.geturl(),
        pwd.getpwuid(os.geteuid()).pw_name,
        args.exchange,
        args.instructors,
    )

    def stop(*_):
        ioloop.IOLoop.current().add_callback_from_signal(ioloop.IOLoop.current().stop)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    ioloop.IOLoop.current().start()
    return 0


if __name__ == "__main__":
    sys.exit(main())
