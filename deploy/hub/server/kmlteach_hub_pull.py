"""nbgitpuller on the course's hub pulls only the course's repositories.

A Jupyter server extension, installed into the students' environment by
``python -m kmlteach hub-env`` and enabled by ``deploy/hub/jupyterhub_config.py``. An
nbgitpuller link is followed by the student's own server as the student: a link to the
course's hub with *another* repository (``repo=``) and a ``targetpath`` such as
``<edition>/notebooks/kmlteach`` or ``.ipython/profile_default/startup`` would write a
classmate's code where the student's next kernel runs it (issue 35). This extension
wraps nbgitpuller's handlers (the page ``/git-pull`` and its ``/git-pull/api`` stream,
which the legacy ``/git-sync`` and ``/interact`` redirect to) so that a pull is refused
with one line, HTTP 403, unless

* ``repo`` is one of the repositories of ``KMLTEACH_HUB_PULL_REPOS`` (the hub sets it from
  ``book.toml``'s ``[book] student_repository``; compared without a trailing ``/`` or
  ``.git`` and with the host's case ignored), and
* ``targetpath``, when given, is a relative path inside the server's folder with no part
  that starts with a dot (no ``..``, no hidden folder).
"""

from __future__ import annotations

import os
import urllib.parse
from pathlib import PurePosixPath

__all__ = ["allowed_repositories", "refusal"]

ENV = "KMLTEACH_HUB_PULL_REPOS"


def _norm(url: str) -> str:
    parts = urllib.parse.urlsplit(url.strip())
    path = parts.path.rstrip("/").removesuffix(".git").rstrip("/")
    return urllib.parse.urlunsplit((parts.scheme.lower(), parts.netloc.lower(), path, "", ""))


def allowed_repositories(value: str | None = None) -> set[str]:
    """The repositories a pull may name (``KMLTEACH_HUB_PULL_REPOS``: separated by spaces,
    commas or new lines), normalised."""
    value = os.environ.get(ENV, "") if value is None else value
    return {_norm(u) for u in value.replace(",", " ").split() if u.strip()}


def refusal(repo: str | None, targetpath: str | None, allowed: set[str]) -> str | None:
    """Why this pull is refused (one line), or None."""
    if not repo or _norm(repo) not in allowed:
        names = ", ".join(sorted(allowed)) or "none configured"
        return f"This hub pulls only the course's repository ({names}), not {repo!r}."
    if targetpath:
        p = PurePosixPath(targetpath.replace("\\", "/"))
        if p.is_absolute() or any(part.startswith(".") for part in p.parts):
            return f"targetpath must be a folder inside your home without hidden parts, not {targetpath!r}."
    return None


def _guard(handler_class) -> None:
    original = handler_class.get
    if getattr(original, "_kmlteach_guarded", False):
        return

    async def get(self, *args, **kwargs):
        target = self.get_argument("targetpath", None) or self.get_argument("targetPath", None)
        why = refusal(self.get_argument("repo", None), target, allowed_repositories())
        if why is not None:
            self.log.warning("nbgitpuller: refused %s", why)
            self.set_status(403)
            self.set_header("Content-Type", "text/plain; charset=utf-8")
            self.finish(why + "\n")
            return None
        return await original(self, *args, **kwargs)

    get._kmlteach_guarded = True
    handler_class.get = get


def _jupyter_server_extension_points():
    return [{"module": "kmlteach_hub_pull"}]


def _load_jupyter_server_extension(app) -> None:
    from nbgitpuller._compat import get_base_handler

    get_base_handler(app)  # nbgitpuller's handlers must see the server's base class first
    from nbgitpuller import handlers

    for cls in (handlers.SyncHandler, handlers.UIHandler):
        _guard(cls)
    app.log.info("kmlteach_hub_pull: nbgitpuller pulls only %s", sorted(allowed_repositories()))
