"""JupyterHub on one machine for a class taking this course.

Run as root from the instructor's environment (``pip install -e ".[hub]"`` and
``npm ci --prefix deploy/hub`` for configurable-http-proxy), after building the students'
environment (``python -m kmlteach hub-env /opt/kmlteach-hub``)::

    KMLTEACH_HUB_ENV=/opt/kmlteach-hub jupyterhub -f deploy/hub/jupyterhub_config.py

Two modes (``KMLTEACH_HUB_MODE``):

* ``system`` (default): students log in with their Unix account (PAM; members of the
  group ``KMLTEACH_HUB_GROUP``, default ``students``) and each server runs as that user
  in its home directory — :class:`limits_spawner.LimitedLocalProcessSpawner`.
* ``test``: any user name logs in (dummy authenticator, optional shared password
  ``KMLTEACH_HUB_PASSWORD``) and every server runs as the hub's user in
  ``KMLTEACH_HUB_HOMES/<name>`` — demos on a laptop only, never for a class (the load
  test, run as root, uses the system mode with Unix users it creates).

What a student can reach (deploy/hub/README.md, "Isolation", lists each layer):

* the students' environment only: every server and kernel runs from ``KMLTEACH_HUB_ENV``
  (the student edition in a venv of its own: no answer key, no grader, no instructor
  checkout);
* servers reachable only through the proxy: ``internal_ssl`` (mutual TLS between the hub,
  the proxy and every server, each student's certificate in a folder only they read),
  a server's address handed to the proxy only once the student's own process listens
  there (another port otherwise), and Landlock letting no student process bind another
  port;
* a private world per student: bubblewrap namespaces seeing an allowlist (no other home,
  no hub state, own ``/tmp`` and ``/dev/shm``), homes 0700, umask 077, the hub's state
  0700 with its database and cookie secret 0600, memory/CPU/pids limits per student,
  no debugger in the kernels;
* links pull only the course: nbgitpuller pulls only ``book.toml``'s student repository,
  and a folder beside a notebook cannot replace an installed package;
* a student's URL serves only the student's server: the server non-dumpable, no kernel
  binding a TCP port, no server code or lab extension from the home; with
  ``KMLTEACH_HUB_SUBDOMAIN_HOST`` each server on a subdomain of its own;
* one student cannot fill the proxy, a classmate's server or the machine's conntrack
  table: at most ``KMLTEACH_HUB_CONNECTIONS`` connections at once from one student to each
  of the hub's ports, none to the servers' ports (only the hub and the proxy), at most
  ``KMLTEACH_HUB_NEW_CONNECTIONS`` new ones a second (nftables), open files per process
  ``KMLTEACH_HUB_NOFILE``;
* no student process opens an MPTCP socket (Landlock does not see them), uses io_uring or
  changes another process's limits (seccomp), and a server's output reaches the hub's log
  at a bounded rate.

Idle servers are stopped by ``jupyterhub-idle-culler``; students arrive through the
per-chapter nbgitpuller links of ``links.py``. The hub listens on ``127.0.0.1`` unless
``KMLTEACH_HUB_IP`` says otherwise: put it behind a TLS reverse proxy (or set
``c.JupyterHub.ssl_cert``/``ssl_key``) before opening it to a network.
"""

import os
import sys
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from jupyterhub.app import JupyterHub  # noqa: E402
from limits_spawner import (  # noqa: E402
    CgroupLimits,
    limit_connections,
    prioritise_services,
    raise_open_files,
    unlimit_connections,
)
from sizing import LIMITS, kernel_environment  # noqa: E402  (deploy/hub is put on sys.path first)

c = get_config()  # noqa: F821  (provided by JupyterHub when it loads this file)

env = os.environ.get
mode = env("KMLTEACH_HUB_MODE", "system")
if mode not in ("system", "test"):
    raise ValueError(f"KMLTEACH_HUB_MODE must be 'system' or 'test', got {mode!r}")
on = lambda name, default="1": env(name, default) not in ("0", "false", "no", "off")  # noqa: E731

# --- the hub's own files: a folder only the hub's user enters -----------------------------
# Everything the hub writes (database and its journal, cookie secret, certificates, the
# students' runtime folders) and every server it starts get a umask of 077. Only in the
# hub's own process: a test or a tool reading this file keeps its umask.
if JupyterHub.initialized():
    os.umask(0o077)
state = Path(env("KMLTEACH_HUB_STATE", str(HERE / "state")))
state.mkdir(mode=0o700, parents=True, exist_ok=True)
state.chmod(0o700)
for name in ("jupyterhub.sqlite", "jupyterhub_cookie_secret"):
    if (state / name).exists():
        (state / name).chmod(0o600)
c.JupyterHub.db_url = f"sqlite:///{state / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(state / "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = str(state / "jupyterhub.pid")
c.JupyterHub.cleanup_servers = True  # stopping the hub stops every student's server

# --- the students' environment (python -m kmlteach hub-env DIR) ---------------------------
hub_env = Path(env("KMLTEACH_HUB_ENV", "/opt/kmlteach-hub"))
venv = hub_env / "venv"
if not (hub_env / "hub-env.json").is_file() or not (venv / "bin" / "jupyterhub-singleuser").exists():
    raise SystemExit(
        f"no students' environment in {hub_env}: build it with `python -m kmlteach hub-env {hub_env}` "
        "(or point KMLTEACH_HUB_ENV at one)"
    )
_st = hub_env.stat()
if _st.st_uid not in (0, os.geteuid()) or _st.st_mode & 0o022:
    raise SystemExit(f"{hub_env} must be owned by root (or the hub's user) and writable by no one else")
_book = tomllib.loads((hub_env / "edition" / "book.toml").read_text(encoding="utf-8")).get("book", {})
# the repositories nbgitpuller may pull (server/kmlteach_hub_pull.py): the student edition's
pull_repos = " ".join(filter(None, [_book.get("student_repository", ""), env("KMLTEACH_HUB_PULL_REPOS", "")]))

# --- network: the public proxy port, the hub's and the proxy API's internal ports ----------
c.JupyterHub.ip = env("KMLTEACH_HUB_IP", "127.0.0.1")
c.JupyterHub.port = int(env("KMLTEACH_HUB_PORT", "8000"))
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = int(env("KMLTEACH_HUB_API_PORT", "8081"))
c.ConfigurableHTTPProxy.command = [str(HERE / "node_modules" / ".bin" / "configurable-http-proxy")]
# Mutual TLS between the hub, the proxy and every server (certificates from an internal
# CA in the state folder; each student's in their private runtime folder): a process
# holding a server's port without the student's certificate gets no traffic, and no
# student reaches another's server except through the proxy with its cookie.
c.JupyterHub.internal_ssl = on("KMLTEACH_HUB_INTERNAL_SSL")
c.JupyterHub.internal_certs_location = str(state / "internal-ssl")
_scheme = "https" if c.JupyterHub.internal_ssl else "http"
c.ConfigurableHTTPProxy.api_url = f"{_scheme}://127.0.0.1:{int(env('KMLTEACH_HUB_PROXY_API_PORT', '8001'))}"

# --- who logs in --------------------------------------------------------------------------
if mode == "test":
    c.JupyterHub.authenticator_class = "dummy"
    c.Authenticator.allow_all = True
    if env("KMLTEACH_HUB_PASSWORD"):
        c.DummyAuthenticator.password = env("KMLTEACH_HUB_PASSWORD")
    c.JupyterHub.spawner_class = "limits_spawner.LimitedSimpleSpawner"
    c.LimitedSimpleSpawner.home_dir_template = env("KMLTEACH_HUB_HOMES", "/tmp/kmlteach-hub") + "/{username}"
else:
    c.JupyterHub.authenticator_class = "pam"
    c.PAMAuthenticator.allowed_groups = {env("KMLTEACH_HUB_GROUP", "students")}
    c.Authenticator.admin_users = set(filter(None, env("KMLTEACH_HUB_ADMINS", "").split(",")))
    c.JupyterHub.spawner_class = "limits_spawner.LimitedLocalProcessSpawner"
    c.Spawner.notebook_dir = "~"

# --- where and how each student's server runs ---------------------------------------------
c.Spawner.cmd = [str(venv / "bin" / "jupyterhub-singleuser")]
c.Spawner.default_url = "/lab"
# Each server's world (limits_spawner.py, sandbox.py): namespaces seeing an allowlist,
# Landlock on its ports, a port of its own, private runtime folders, a 0700 home.
c.CgroupLimits.sandbox = "bwrap" if on("KMLTEACH_HUB_SANDBOX") else "none"
c.CgroupLimits.landlock = on("KMLTEACH_HUB_LANDLOCK")
c.CgroupLimits.hub_env = str(hub_env)
c.CgroupLimits.python_prefix = str(Path((venv / "bin" / "python").resolve()).parents[1])
c.CgroupLimits.cgroup_parent = env("KMLTEACH_HUB_CGROUP", "kmlteach-hub")
if env("KMLTEACH_HUB_RUNTIME"):
    c.CgroupLimits.runtime_base = env("KMLTEACH_HUB_RUNTIME")
if env("KMLTEACH_HUB_SERVER_PORTS"):  # e.g. "20000-30000"
    low, high = (int(x) for x in env("KMLTEACH_HUB_SERVER_PORTS").split("-"))
    c.CgroupLimits.server_ports = (low, high)
if os.geteuid() == 0 and mode == "test":  # every server runs as the hub's user: root in a container or CI
    c.Spawner.args = ["--ServerApp.allow_root=True"]
# A student's server loads no extension a student does not use (the language server: no
# language servers are installed; jupytext: students open the released .ipynb), and loads
# kmlteach_hub_pull: nbgitpuller pulls only the course's repositories.
# kmlteach_hub_guard makes the server non-dumpable (the student's own kernel cannot copy its
# listening socket nor read its memory) and, once it listens, lets nothing it starts bind a
# TCP port (red team H1: a kernel that took over its server's port served its own pages on
# the hub's origin). No terminals: the course needs none, and a shell is one more process
# outside the kernels' own Landlock layer.
EXTENSIONS = {
    "jupyter_lsp": False,
    "jupyterlab_jupytext": False,
    "kmlteach_hub_pull": True,
    "kmlteach_hub_guard": True,
}
args = c.Spawner.args if "args" in c.Spawner else []
c.Spawner.args = [
    *args,
    f"--ServerApp.jpserver_extensions={EXTENSIONS!r}",
    "--ServerApp.terminals_enabled=False",
]
# no configuration from the student's home (a pulled ~/.jupyter could turn the guard off);
# limits_spawner also points the server's Jupyter config and data folders into the
# students' environment (read-only): no server extension, configuration file or lab
# extension a student writes is loaded; lab settings and workspaces stay in the home.
c.Spawner.disable_user_config = True
# Nothing of the hub's own environment reaches a server (VIRTUAL_ENV, PYTHONPATH, ... name
# the instructor's checkout); what a kernel needs is set here. A kernel's threads may not
# outnumber the cores it is allowed (Numba's Gram matrices and BLAS would otherwise start
# one thread per host CPU), glibc returns freed large arrays (sizing.MALLOC_ENV), and the
# kernels compiled ahead of time are used (KMLTEACH_AOT=1).
c.Spawner.env_keep = ["LANG", "LC_ALL"]
c.Spawner.environment = {
    **kernel_environment(),
    "PATH": f"{venv / 'bin'}:/usr/bin:/bin",
    "KMLTEACH_HUB_PULL_REPOS": pull_repos,
}
c.Spawner.mem_guarantee = LIMITS["mem_guarantee"]
c.Spawner.mem_limit = LIMITS["mem_limit"]
c.Spawner.cpu_guarantee = LIMITS["cpu_guarantee"]
c.Spawner.cpu_limit = LIMITS["cpu_limit"]
c.CgroupLimits.pids_limit = LIMITS["pids_limit"]
# Open files (so TCP connections) per process of a student: the server and what it starts;
# at most pids_limit x nofile_limit (512 x 1024) for one student (below: red team H9).
c.CgroupLimits.nofile_limit = int(env("KMLTEACH_HUB_NOFILE", "1024"))
# a class arriving at once on a busy machine: give servers time, queue the rest
c.Spawner.start_timeout = int(env("KMLTEACH_HUB_START_TIMEOUT", "300"))
c.Spawner.http_timeout = int(env("KMLTEACH_HUB_START_TIMEOUT", "300"))
c.JupyterHub.concurrent_spawn_limit = int(env("KMLTEACH_HUB_SPAWN_LIMIT", "100"))

# The hub and the proxy relay every widget update: their own CPU cgroup, weighted above the
# class's cells (limits_spawner.prioritise_services; nothing happens without root). Only
# in the hub's own process (not when a test or a tool reads this file), before it starts
# the proxy, which then follows it.
if JupyterHub.initialized():
    prioritise_services()
# --- per-user subdomains: no student's page shares the hub's origin -----------------------
# A server answers under /user/<name>/ on the hub's own origin; whatever a student manages
# to serve there (an HTML file through an extension, a taken-over server) can read the hub's
# pages in a classmate's browser (GHSA-7r3h-4ph8-w38g). With subdomains every student's
# server has an origin of its own (<name>.hub.example.org) and the hub's cookies are
# __Host- cookies the students' origins never get. Needs wildcard DNS and a wildcard
# certificate (README, "Isolation"); always for a class of untrusted students.
if env("KMLTEACH_HUB_SUBDOMAIN_HOST"):
    c.JupyterHub.subdomain_host = env("KMLTEACH_HUB_SUBDOMAIN_HOST").rstrip("/")
    c.JupyterHub.cookie_host_prefix_enabled = True

# --- services: each with its role; add more here (run as the hub's user, with the hub's ---
# --- internal certificates when internal_ssl is on: JUPYTERHUB_SSL_* in their environment) --
services, roles = [], []
# stop servers nobody used for an hour (checked every 5 minutes)
culler = [sys.executable, "-m", "jupyterhub_idle_culler"]
culler += [f"--timeout={int(env('KMLTEACH_HUB_CULL_TIMEOUT', '3600'))}"]
culler += [f"--cull-every={int(env('KMLTEACH_HUB_CULL_EVERY', '300'))}"]
if c.JupyterHub.internal_ssl:
    culler += ["--ssl-enabled=true", f"--internal-certs-location={state / 'internal-ssl'}"]
services.append({"name": "idle-culler", "command": culler})
roles.append(
    {
        "name": "idle-culler",
        "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"],
        "services": ["idle-culler"],
    }
)
c.JupyterHub.services = services
c.JupyterHub.load_roles = roles

# ==== the classroom (issue 39): live poll, hand-in and feedback ===========================
# One service, kmlteach-classroom, its exchange folder and its access rules; everything in
# classroom_config.py (KMLTEACH_HUB_CLASSROOM=0 leaves it out). Keep this section last: it
# adds to the services, scopes, groups and server environment set above.
from classroom_config import configure as configure_classroom  # noqa: E402  (deploy/hub is on sys.path)

configure_classroom(c, hub_env=hub_env, state=state)
# ==== end of the classroom section ========================================================

# --- what the students' sockets may open (nftables; after the classroom section: its ------
# --- service's user is exempted like the hub's) --------------------------------------------
# Red team H9: at most KMLTEACH_HUB_CONNECTIONS (256) connections at once from one student to
# each of the hub's ports, and the proxy (started by the hub, inheriting its limit) with as
# many open files as allowed. H11: no student's process connects to the servers' ports at
# all (only the hub and the proxy do). H13: at most KMLTEACH_HUB_NEW_CONNECTIONS (20) new
# connections a second per student, in bursts of ten times as many (the machine's
# conntrack table). The table is removed when the hub exits.
if JupyterHub.initialized():
    import pwd

    raise_open_files()
    _exempt = {0, os.geteuid()}
    try:  # the classroom service's own user (classroom_config.service_user)
        _exempt.add(pwd.getpwnam(env("KMLTEACH_HUB_CLASSROOM_USER", "kmlteach-classroom")).pw_uid)
    except KeyError:
        pass
    _table = f"kmlteach_hub_{c.JupyterHub.port}"
    _ports = [c.JupyterHub.port, c.JupyterHub.hub_port, int(env("KMLTEACH_HUB_PROXY_API_PORT", "8001"))]
    _rate = int(env("KMLTEACH_HUB_NEW_CONNECTIONS", "20"))
    _why = limit_connections(
        _ports,
        int(env("KMLTEACH_HUB_CONNECTIONS", "256")),
        _table,
        server_ports=tuple(
            c.CgroupLimits.server_ports
            if "server_ports" in c.CgroupLimits
            else CgroupLimits.server_ports.default()
        ),
        exempt=_exempt,
        new_per_second=_rate,
        burst=10 * _rate,
    )
    if _why is None:
        import atexit

        atexit.register(unlimit_connections, _table)
    else:
        import logging
        import resource

        logging.getLogger("JupyterHub").warning(
            "no per-student limits on connections (%s): one student's processes may hold up "
            "to %d connections to the hub's ports, the proxy %d; any local user may connect "
            "to the students' servers' ports",
            _why,
            c.CgroupLimits.pids_limit * c.CgroupLimits.nofile_limit,
            resource.getrlimit(resource.RLIMIT_NOFILE)[0],
        )
