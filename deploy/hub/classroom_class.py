"""A class on the course's hub for the classroom's tests and measurements.

:func:`hub_with_instructor` starts ``loadtest.LocalHub`` (the hub of
``jupyterhub_config.py`` in its PAM mode, as root) with the classroom service under a Unix
account made for the run, and with student 0 in the hub group ``instructors`` (its Unix
account exists before the hub starts, as the group's members must).
:func:`log_in_with_tokens` logs simulated students in through the hub's login form and
gives each a hub API token of their own that may reach the classroom service (what a
student gets on the hub's ``/hub/token`` page): the simulated class of
``tests/test_classroom.py`` and ``benchmarks/bench_classroom.py``.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import loadtest  # noqa: E402  (deploy/hub is put on sys.path first)

ACCESS = "access:services!service=kmlteach-classroom"
PREFIX = "/services/kmlteach-classroom/"

__all__ = ["ACCESS", "PREFIX", "hub_with_instructor", "log_in_with_tokens", "token", "remove_service_user"]


def hub_with_instructor(report=print, **kw) -> tuple[loadtest.LocalHub, str]:
    """A started LocalHub whose student 0 is an instructor, and the name of the classroom
    service's Unix account made for the run (stop the hub, then
    :func:`remove_service_user`). On failure everything is stopped and removed."""
    service_user = f"klc{secrets.token_hex(3)}"
    extra = {"KMLTEACH_HUB_CLASSROOM_USER": service_user, **kw.pop("extra_env", {})}
    hub = loadtest.LocalHub(unix_users=True, extra_env=extra, **kw)
    original = loadtest.UnixStudents

    class WithInstructor(original):
        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            self.add(1)
            hub.env["KMLTEACH_HUB_INSTRUCTORS"] = self.name(0)

    loadtest.UnixStudents = WithInstructor  # LocalHub.start makes its students' accounts with it
    try:
        hub.start(report=report)
    except BaseException:
        hub.stop()
        hub.cleanup()
        remove_service_user(service_user)
        raise
    finally:
        loadtest.UnixStudents = original
    return hub, service_user


def remove_service_user(name: str) -> None:
    subprocess.run(["userdel", name], capture_output=True)
    subprocess.run(["groupdel", name], capture_output=True)


async def token(student, scopes: list[str]) -> str:
    """A hub API token of ``student``'s own, made with their login cookie."""
    await student.fetch("/hub/home")
    xsrf = student.jar.get("_xsrf", "/hub/") or ""
    resp = await student.fetch(
        f"/hub/api/users/{student.name}/tokens",
        method="POST",
        body=json.dumps({"scopes": scopes, "note": "classroom"}),
        headers={"X-XSRFToken": xsrf, "Content-Type": "application/json"},
    )
    if resp.code != 201:
        raise RuntimeError(f"token of {student.name}: HTTP {resp.code}")
    return json.loads(resp.body)["token"]


async def log_in_with_tokens(students) -> list[str]:
    """Log ``students`` in (all at once) and make each a token for the classroom service."""
    await asyncio.gather(*(s.login() for s in students))
    return await asyncio.gather(*(token(s, [ACCESS]) for s in students))
