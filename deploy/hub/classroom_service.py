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

Limits (a hostile student knows the API): request bodies of a poll answer at most 2 KiB,
a notebook at most ``--max-mb``, parsed off the event loop one at a time; 20 requests
per 10 s and 6 hand-ins a minute per user (429 beyond); tokens the hub has not seen
checked at most 50 per second; idle connections closed after a minute; labels at most 40 printable
characters, 30 labels per round (from the 30th on, new ones count as "other"), 500 polls.
"""

from __future__ import annotations

import argparse
import asyncio
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
import sys
import tempfile
import time
import urllib.parse
from collections import Counter, deque
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

from tornado import httpserver, ioloop, netutil, web

from kmlteach.classroom.names import CHAPTER, POLL_ID, user_key

__all__ = ["Polls", "Dropbox", "RateLimit", "make_app", "main"]

log = logging.getLogger("kmlteach-classroom")

SERVICE_NAME = "kmlteach-classroom"
MAX_LABEL = 40
MAX_LABELS = 30
OTHER = "other"
MAX_POLLS = 500
MAX_ANSWER_BYTES = 2048
MIN_FREE_BYTES = 512 * 2**20  # a submission is refused when less is free on the exchange's disk


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
        self.right: Counter = Counter()
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
            "right": dict(self.right),
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

    def answer(self, poll_id: str, user: str, label: str, right: bool | None) -> tuple[str, Round | None]:
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
        if right:
            r.right[label] += 1
        r.version += 1
        return "accepted", r


def _label(value) -> str | None:
    """A poll answer's label: a string of 1..40 printable characters, stripped."""
    if not isinstance(value, str):
        return None
    value = " ".join(value.split())
    if not 0 < len(value) <= MAX_LABEL or not value.isprintable():
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


# -------------------------------------------------------------------------------- handlers
def _handlers_base():
    from jupyterhub.services.auth import HubOAuthenticated, UserNotAllowed

    class Base(HubOAuthenticated, web.RequestHandler):
        """Identify the sender with the hub (token, else OAuth cookie) before anything."""

        def initialize(self, state):
            self.state = state

        def set_default_headers(self):
            self.set_header("Content-Type", "application/json; charset=utf-8")
            self.set_header("Cache-Control", "no-store")
            self.set_header("X-Content-Type-Options", "nosniff")

        async def prepare(self):
            token = self.hub_auth.get_token(self, in_cookie=False)
            if token and (len(token) > 256 or not token.isascii()):
                raise web.HTTPError(400, "malformed token")
            known = token and self._cached(token)
            if token and not known and not self.state["lookups"].allow("hub"):
                raise web.HTTPError(429, "too many unknown tokens: try again in a second")
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
            if not self.instructor and not self.state["limit"].allow(self.user):
                raise web.HTTPError(429, "too many requests: wait a few seconds")

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
            if len(self.request.body) > limit:
                raise web.HTTPError(413, "request too large")
            try:
                data = json.loads(self.request.body.decode("utf-8") or "{}")
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
    lookups_per_second: int = 50,
) -> web.Application:
    """The service's tornado application (``prefix``: ``$JUPYTERHUB_SERVICE_PREFIX``)."""
    from jupyterhub.services.auth import HubOAuthCallbackHandler

    Base = _handlers_base()
    prefix = prefix or os.environ.get("JUPYTERHUB_SERVICE_PREFIX", f"/services/{SERVICE_NAME}/")
    state = {
        "polls": Polls(),
        "box": Dropbox(exchange, chapters, max_bytes),
        "instructors": instructors,
        "limit": RateLimit(*per_user),
        "lookups": RateLimit(lookups_per_second, 1.0),
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
            return {"poll": pid, "round": 0, "open": False, "n": 0, "counts": {}, "right": {}, "version": 0}
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
        def get(self, pid):
            self.require_instructor()
            r = state["polls"].rounds.get(poll_id(pid))
            self.reply(200, _model(pid, r))

        def post(self, pid):
            pid = poll_id(pid)
            data = self.json_body(MAX_ANSWER_BYTES)
            label = _label(data.get("answer"))
            if label is None:
                raise web.HTTPError(400, f"answer must be a text of 1 to {MAX_LABEL} printable characters")
            right = data.get("right")
            if right is not None and not isinstance(right, bool):
                raise web.HTTPError(400, "right must be true, false or absent")
            outcome, r = state["polls"].answer(pid, self.user, label, right)
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

    @web.stream_request_body
    class Submission(Base):
        async def prepare(self):
            self.upload = None
            await super().prepare()
            if self.request.method != "POST":
                return
            self.chapter = chapter_id(self.path_args[0])
            if not state["hand_ins"].allow(self.user):
                raise web.HTTPError(429, "too many hand-ins in a minute: wait a little")
            length = self.request.headers.get("Content-Length")
            if length is not None and (not length.isdigit() or int(length) > state["max_bytes"]):
                raise web.HTTPError(413, f"a notebook may have at most {state['max_bytes'] // 2**20} MB")
            self.request.connection.set_max_body_size(state["max_bytes"])
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

        def on_connection_close(self):
            self._discard()

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

    p = prefix.rstrip("/")
    api = p + "/api"
    return web.Application(
        [
            (p + "/?", Home, {"state": state}),
            (p + "/oauth_callback", HubOAuthCallbackHandler),
            (api + "/me", Me, {"state": state}),
            (api + "/polls", PollList, {"state": state}),
            (api + r"/polls/([^/]{1,80})", Poll, {"state": state}),
            (api + r"/polls/([^/]{1,80})/(open|close)", PollAction, {"state": state}),
            (api + r"/submissions/([^/]{1,8})", Submission, {"state": state}),
            (api + r"/feedback/([^/]{1,8})", Feedback, {"state": state}),
        ],
        cookie_secret=secrets.token_bytes(32),
        xsrf_cookies=False,
        login_url=p + "/oauth_callback",
        state=state,
    )


# --------------------------------------------------------------------- start-up as root
def _private_copies(paths: dict[str, str], owner: pwd.struct_passwd | None) -> tuple[dict[str, str], Path]:
    """Copies of the TLS files in a fresh folder only ``owner`` (else this user) reads:
    below ``/run/kmlteach-classroom`` (a root service; given to ``owner``, who removes its
    folder on exit), else in the temporary folder."""
    base = None
    if os.geteuid() == 0 and os.access("/run", os.W_OK):
        base = Path("/run/kmlteach-classroom")
        _own_folder(base, owner)
    folder = Path(tempfile.mkdtemp(prefix="tls-", dir=base))
    out = {}
    for key, src in paths.items():
        dst = folder / f"{key}.pem"
        shutil.copyfile(src, dst)
        os.chmod(dst, 0o600)
        if owner is not None:
            os.chown(dst, owner.pw_uid, owner.pw_gid)
        out[key] = str(dst)
    if owner is not None:
        os.chown(folder, owner.pw_uid, owner.pw_gid)
    return out, folder


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


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--exchange", type=Path, required=True, help="the exchange folder (made 0700)")
    ap.add_argument("--user", default="", help="Unix user to run as (the hub starts the service as root)")
    ap.add_argument("--chapters", default="", help="chapter ids accepted, comma-separated (e.g. 00,01,02)")
    ap.add_argument("--instructors", default="instructors", help="hub group whose members read polls")
    ap.add_argument("--max-mb", type=float, default=16.0, help="largest notebook accepted, in MB")
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
    env = os.environ
    tls_files = {
        k: env[v]
        for k, v in (
            ("key", "JUPYTERHUB_SSL_KEYFILE"),
            ("cert", "JUPYTERHUB_SSL_CERTFILE"),
            ("ca", "JUPYTERHUB_SSL_CLIENT_CA"),
        )
        if env.get(v)
    }
    tls_dir = None
    if tls_files:  # internal_ssl: the hub's API wants this service's certificate
        copies, tls_dir = _private_copies(tls_files, owner)
        # HubAuth reads these files again for each request to the hub's API: the copies
        # stay readable after the drop; the originals (the hub's state, 0700) do not
        env["JUPYTERHUB_SSL_KEYFILE"], env["JUPYTERHUB_SSL_CERTFILE"] = copies["key"], copies["cert"]
        if "ca" in copies:
            env["JUPYTERHUB_SSL_CLIENT_CA"] = copies["ca"]
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
    )
    # bodies are streamed (submissions) or checked (answers); headers stay small
    # idle or trickling connections are dropped (a student's process can open many)
    server = httpserver.HTTPServer(
        app,
        max_body_size=app.settings["state"]["max_bytes"],
        max_header_size=16 * 1024,
        idle_connection_timeout=60,
        body_timeout=300,
    )
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
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
        if tls_dir is not None:
            shutil.rmtree(tls_dir, ignore_errors=True)
        ioloop.IOLoop.current().add_callback_from_signal(ioloop.IOLoop.current().stop)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        ioloop.IOLoop.current().start()
    finally:
        if tls_dir is not None:
            shutil.rmtree(tls_dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
