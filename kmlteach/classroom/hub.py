"""The client of the course hub's classroom service (``deploy/hub/classroom_service.py``).

On the course's hub every student's server (and so every kernel) has two variables: the
service's address ``KMLTEACH_CLASSROOM_URL`` (set by the hub for its servers, through the
hub's own proxy) and the server's hub API token ``JUPYTERHUB_API_TOKEN`` (JupyterHub's;
the hub lets it reach this service and nothing more than the server's own needs). A
request carries the token; the service asks the hub whose token it is, so a kernel can
speak only for its own student. An instructor away from the hub (a laptop running
``make lab`` in front of the projector) sets ``KMLTEACH_CLASSROOM_URL`` to the hub's
public address of the service and ``KMLTEACH_CLASSROOM_TOKEN`` to a token made on the
hub's ``/hub/token`` page.

On the hub a kernel also has ``KMLTEACH_CLASSROOM_DIRECT_URL``, the service's own port
on 127.0.0.1, and tries it first: the service attributes a direct connection to the
student's Unix account, so one classmate's flood of requests cannot use up the budget
that the others' first requests need (through the proxy every request comes from the
proxy). Where the direct port cannot be reached, the proxy's address is used.

Without those variables (Binder, ``make lab``, a grading kernel) :func:`configured` is
false and nothing here opens a connection.
"""

from __future__ import annotations

import json
import os

__all__ = ["ENV_URL", "ENV_DIRECT_URL", "ENV_TOKEN", "ClassroomError", "configured", "call", "service_url"]

ENV_URL = "KMLTEACH_CLASSROOM_URL"
ENV_DIRECT_URL = "KMLTEACH_CLASSROOM_DIRECT_URL"
_DIRECT = {"failed": False}  # the direct port could not be reached once: the proxy from then on
ENV_TOKEN = "KMLTEACH_CLASSROOM_TOKEN"


class ClassroomError(Exception):
    """The classroom service could not be reached, or refused (one-line message)."""


def service_url(var: str = ENV_URL) -> str | None:
    """The service's base address (ending in ``/``), or None off the hub."""
    url = os.environ.get(var, "").strip()
    if not url.startswith(("http://", "https://")):
        return None
    return url if url.endswith("/") else url + "/"


def _token() -> str | None:
    return (os.environ.get(ENV_TOKEN) or os.environ.get("JUPYTERHUB_API_TOKEN") or "").strip() or None


def configured() -> bool:
    """Whether this kernel runs where the classroom service is (the course's hub, or an
    instructor's machine set up for it): an address and a token. No network access."""
    return service_url() is not None and _token() is not None


def call(method: str, path: str, body=None, *, timeout: float = 10.0, raw: bytes | None = None):
    """``(status, JSON reply)`` of one request to the service (``path`` below ``api/``).

    ``body`` is sent as JSON, ``raw`` as bytes (a notebook). HTTP error statuses are
    returned, not raised; a service that cannot be reached raises :class:`ClassroomError`."""
    import urllib.error
    import urllib.request

    url, token = service_url(), _token()
    if url is None or token is None:
        raise ClassroomError("no classroom service here: this works on the course's hub")
    direct = service_url(ENV_DIRECT_URL)
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())

    class _NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):  # a redirect is the hub's login page: no
            return None

    # straight to the address given (a site's HTTP proxy variables do not apply to it)
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}), _NoRedirect)
    for base in ([direct] if direct and not _DIRECT["failed"] else []) + [url]:
        req = urllib.request.Request(base + "api/" + path.lstrip("/"), data=data, method=method)
        req.add_header("Authorization", f"token {token}")
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with opener.open(req, timeout=timeout) as resp:
                status, text = resp.status, resp.read(4 * 2**20)
            break
        except urllib.error.HTTPError as exc:
            status, text = exc.code, exc.read(64 * 1024)
            break
        except (OSError, ValueError) as exc:
            if base == direct and isinstance(
                getattr(exc, "reason", None), ConnectionRefusedError | PermissionError
            ):
                _DIRECT["failed"] = True  # (not reachable from here: a sandbox's rule) the proxy
                continue
            reason = getattr(exc, "reason", exc)
            raise ClassroomError(f"the classroom service does not answer ({reason})") from None
    try:
        reply = json.loads(text.decode("utf-8")) if text else {}
    except (ValueError, UnicodeDecodeError):
        reply = {}
    if not isinstance(reply, dict):
        reply = {}
    return status, reply
