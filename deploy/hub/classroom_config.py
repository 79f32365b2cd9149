"""The classroom section of ``jupyterhub_config.py``: the live poll, hand-in and feedback.

:func:`configure` adds to the hub's configuration ``c``:

* the managed service ``kmlteach-classroom`` (``classroom_service.py``), run by the
  students' environment's interpreter (``python -I``), listening on 127.0.0.1 on a port
  below 1024 (picked here among the free ones; a root hub's service binds it before it
  drops to its own user: no student process can take the port first and receive the
  requests, with the tokens in them, meant for the service), reached by browsers and
  kernels at ``/services/kmlteach-classroom/`` through the hub's proxy. Plain HTTP on the
  loopback interface: JupyterHub 6.1 checks an ``https`` service's start with its own
  server-side TLS context, which cannot make a client connection (``start_service`` is
  handed the hub's ``Purpose.CLIENT_AUTH`` context), so a managed HTTPS service never
  comes up; what TLS protects the students' servers from — a classmate on the port
  first — the privileged port excludes. The hub starts it as root; it drops to its own
  Unix user (``KMLTEACH_HUB_CLASSROOM_USER``, default ``kmlteach-classroom``, a system
  account made here when missing) before serving;
* its exchange folder (``KMLTEACH_HUB_EXCHANGE``, default ``/srv/kmlteach/exchange``, or
  ``exchange`` beside the hub's state folder when ``KMLTEACH_HUB_STATE`` moves that):
  owned by that user, 0700, outside every student's sandbox; its parents must let that
  user pass (checked here: the hub refuses to start otherwise, rather than restart a
  service that cannot reach its folder);
* access: every user's role, and the token of every server (``JUPYTERHUB_API_TOKEN``
  in the student's kernels), may *access* the service — nothing more: what a request may
  do is decided by the service from the hub's answer about its token (the user's own
  name, the user's hub groups);
* the hub group ``instructors`` (``KMLTEACH_HUB_INSTRUCTORS``: user names, comma-separated;
  more can be added on the hub's admin page): only they read and run polls;
* ``KMLTEACH_CLASSROOM_URL`` in every server's environment: where ``submit``,
  ``feedback`` and ``ask`` find the service (the proxy's address on 127.0.0.1, which the
  students' sandboxes reach), and ``KMLTEACH_CLASSROOM_DIRECT_URL``, the service's own
  port, which a kernel tries first: a connection straight from a student's kernel is
  attributed by the service to that student's Unix account (its budgets of connections
  and token look-ups are the student's own), one through the proxy only to the proxy;
* on a root hub, a cgroup of the service's own (``kmlteach-classroom-<port>`` beside the
  students' cgroups, :func:`service_cgroups`): memory at most
  ``KMLTEACH_HUB_CLASSROOM_MEMORY_MB`` (1024), no swap, 256 processes; the service joins
  it before it drops root. Cgroups of earlier services left empty are removed.

``KMLTEACH_HUB_CLASSROOM=0`` leaves all of this out; ``KMLTEACH_HUB_CLASSROOM_PORT`` fixes
the service's port (default: a free one below 1024 at each start; keep it below 1024),
``_MAX_MB`` the largest notebook accepted (16 MB).
"""

from __future__ import annotations

import os
import pwd
import random
import shutil
import socket
import subprocess
import sys
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
NAME = "kmlteach-classroom"
INSTRUCTORS = "instructors"
EXCHANGE = Path("/srv/kmlteach/exchange")

__all__ = ["configure", "NAME", "INSTRUCTORS", "service_user", "exchange_folder", "service_cgroups"]


def _free_port(privileged: bool) -> int:
    """A port nothing listens on: below 1024 (root only can bind it) for a root hub, else
    any (the hub's test mode: demos, never a class)."""
    if not privileged:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            return s.getsockname()[1]
    for port in random.SystemRandom().sample(range(600, 1024), 424):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        return port
    raise SystemExit("no free port below 1024 for the classroom service: set KMLTEACH_HUB_CLASSROOM_PORT")


def service_user(name: str, create: bool) -> pwd.struct_passwd | None:
    """The service's Unix account (made as a system account without a home or a shell
    when missing and ``create``); None when it cannot be had."""
    try:
        return pwd.getpwnam(name)
    except KeyError:
        pass
    if not create or shutil.which("useradd") is None:
        return None
    made = subprocess.run(
        ["useradd", "--system", "--user-group", "--no-create-home", "--home-dir", "/nonexistent"]
        + ["--shell", "/usr/sbin/nologin", name],
        capture_output=True,
        text=True,
    )
    try:  # (another hub starting at the same moment may have made it: fine)
        pw = pwd.getpwnam(name)
    except KeyError:
        raise SystemExit(
            f"could not make the classroom service's account {name!r}: {made.stderr.strip()}"
        ) from None
    if made.returncode == 0:
        print(f"[classroom] made the system account {name!r} for the classroom service", file=sys.stderr)
    return pw


def exchange_folder(path: Path, owner: pwd.struct_passwd | None) -> Path:
    """Make the exchange folder (parents 0755, itself 0700 and ``owner``'s) and check that
    ``owner`` can pass every parent; raises SystemExit with the reason otherwise."""
    path = path.absolute()
    missing = [p for p in [path, *path.parents] if not p.exists()]
    for p in reversed(missing[1:]):
        p.mkdir(mode=0o755)
        p.chmod(0o755)  # (the hub's umask is 077)
    path.mkdir(mode=0o700, exist_ok=True)
    if path.is_symlink() or not path.is_dir():
        raise SystemExit(f"KMLTEACH_HUB_EXCHANGE {path}: not a folder")
    if owner is not None:
        os.chown(path, owner.pw_uid, owner.pw_gid)
        for p in path.parents:
            st = p.stat()
            if not (st.st_mode & 0o001 or (st.st_uid == owner.pw_uid and st.st_mode & 0o100)):
                raise SystemExit(
                    f"the classroom service's user {owner.pw_name!r} cannot pass {p} (mode "
                    f"{oct(st.st_mode & 0o777)}) to reach {path}: put the exchange elsewhere "
                    "(KMLTEACH_HUB_EXCHANGE) or chmod o+x it"
                )
    path.chmod(0o700)
    return path


def service_cgroups(port: int, memory_bytes: int, layout=None) -> list[Path]:
    """Cgroups ``kmlteach-classroom-<port>`` for the service, beside the students' (the
    memory and pids folders of the hub's layout, ``limits_spawner.cgroup_layout``; none
    without root or cgroups): memory at most ``memory_bytes`` without swap, at most 256
    processes, and (cgroup v2, where one folder holds every controller) the CPU weight of
    the hub's own services. The empty ``kmlteach-classroom-*`` cgroups of earlier
    services are removed first. (v1: the service stays in the hub's CPU cgroup.)"""
    from limits_spawner import SERVICES_WEIGHT  # (deploy/hub is on sys.path)

    if layout is None:
        from limits_spawner import cgroup_layout

        layout = cgroup_layout()
    if not layout:
        return []
    made = []
    for base in sorted({Path(layout[k]) for k in ("memory", "pids") if k in layout}):
        for old in base.glob(f"{NAME}-*"):
            try:
                old.rmdir()  # only an empty cgroup goes (a running service's stays)
            except OSError:
                pass
        d = base / f"{NAME}-{port}"
        limits = {
            "memory.max": str(memory_bytes),
            "memory.swap.max": "0",
            "memory.limit_in_bytes": str(memory_bytes),
            "memory.memsw.limit_in_bytes": str(memory_bytes),
            "pids.max": "256",
            "cpu.weight": str(SERVICES_WEIGHT["cpu.weight"]),
        }
        try:
            d.mkdir(exist_ok=True)
        except OSError as exc:
            print(f"[classroom] no cgroup {d} for the classroom service: {exc}", file=sys.stderr)
            continue
        for f, v in limits.items():
            if (d / f).exists():
                try:
                    (d / f).write_text(v)
                except OSError:
                    pass  # (memsw without swap accounting)
        made.append(d)
    return made


def _get(section, key: str, default):
    """A value set in the configuration, else ``default`` (an unset key is no value)."""
    return section[key] if key in section else default


def configure(c, *, hub_env: Path, state: Path, env=os.environ.get) -> None:
    """Add the classroom (module doc) to JupyterHub's configuration ``c`` (``hub_env``: the
    students' environment, whose edition's ``book.toml`` names the chapters)."""
    if env("KMLTEACH_HUB_CLASSROOM", "1") in ("0", "false", "no", "off"):
        return
    root = os.geteuid() == 0
    owner = service_user(env("KMLTEACH_HUB_CLASSROOM_USER", NAME), create=True) if root else None
    if root and owner is None:
        raise SystemExit(
            "the classroom service needs its Unix user (KMLTEACH_HUB_CLASSROOM_USER): useradd failed"
        )
    default = Path(env("KMLTEACH_HUB_STATE")).parent / "exchange" if env("KMLTEACH_HUB_STATE") else EXCHANGE
    exchange = exchange_folder(Path(env("KMLTEACH_HUB_EXCHANGE") or default), owner)

    book = tomllib.loads((hub_env / "edition" / "book.toml").read_text(encoding="utf-8"))
    chapters = [str(ch["id"]) for ch in book.get("chapters", [])]
    port = int(env("KMLTEACH_HUB_CLASSROOM_PORT", "0")) or _free_port(privileged=root)
    hub = c.JupyterHub
    command = [str(hub_env / "venv" / "bin" / "python"), "-I", str(HERE / "classroom_service.py")]
    command += ["--exchange", str(exchange), "--instructors", INSTRUCTORS, "--chapters", ",".join(chapters)]
    command += ["--max-mb", str(float(env("KMLTEACH_HUB_CLASSROOM_MAX_MB", "16")))]
    if owner is not None:
        command += ["--user", owner.pw_name]
    if root:
        memory = int(float(env("KMLTEACH_HUB_CLASSROOM_MEMORY_MB", "1024")) * 2**20)
        for d in service_cgroups(port, memory):
            command += ["--cgroup", str(d)]
    service = {
        "name": NAME,
        "url": f"http://127.0.0.1:{port}",
        "command": command,
        "oauth_no_confirm": True,
        "display": False,
    }
    hub.services = [*_get(hub, "services", []), service]

    access = f"access:services!service={NAME}"
    hub.extra_user_scopes = {*_get(hub, "extra_user_scopes", set()), access}
    # the server's token (JUPYTERHUB_API_TOKEN in its kernels): the default "server" role's
    # scopes (or those set above) and this service
    scopes = _get(c.Spawner, "server_token_scopes", None)
    scopes = (
        list(scopes)
        if isinstance(scopes, (list, tuple))
        else ["users:activity!user", "access:servers!server"]
    )
    c.Spawner.server_token_scopes = [*scopes, access]
    members = [u.strip() for u in env("KMLTEACH_HUB_INSTRUCTORS", "").split(",") if u.strip()]
    groups = dict(_get(hub, "load_groups", {}))
    group = groups.setdefault(INSTRUCTORS, {"users": []})
    group["users"] = sorted(set(group.get("users", [])) | set(members))
    hub.load_groups = groups

    ip = _get(hub, "ip", "")
    ip = ip if ip not in ("", "0.0.0.0", "::") else "127.0.0.1"
    public = f"{'https' if _get(hub, 'ssl_cert', '') else 'http'}://{ip}:{_get(hub, 'port', 8000)}"
    base = _get(hub, "base_url", "/")
    c.Spawner.environment = {
        **_get(c.Spawner, "environment", {}),
        "KMLTEACH_CLASSROOM_URL": f"{public}{base.rstrip('/')}/services/{NAME}/",
        "KMLTEACH_CLASSROOM_DIRECT_URL": f"http://127.0.0.1:{port}{base.rstrip('/')}/services/{NAME}/",
    }
