"""JupyterHub on one machine for a class taking this course.

Run from the course's environment (``pip install -e ".[hub]"`` and
``npm ci --prefix deploy/hub`` for configurable-http-proxy)::

    jupyterhub -f deploy/hub/jupyterhub_config.py

Two modes (``KMLTEACH_HUB_MODE``):

* ``system`` (default): students log in with their Unix account (PAM; members of the
  group ``KMLTEACH_HUB_GROUP``, default ``students``) and each server runs as that user
  in its home directory — :class:`limits_spawner.LimitedLocalProcessSpawner`.
* ``test``: any user name logs in (dummy authenticator, optional shared password
  ``KMLTEACH_HUB_PASSWORD``) and every server runs as the hub's user in
  ``KMLTEACH_HUB_HOMES/<name>`` — for the load test (benchmarks/bench_hub.py) and demos
  on a laptop only, never for a class.

In both, every server is confined to a per-user cgroup with the memory and CPU limits
of ``sizing.py`` (see ``limits_spawner.py``; a production single-machine hub would rather
install The Littlest JupyterHub, whose systemdspawner sets the same limits through
systemd), idle servers are stopped by ``jupyterhub-idle-culler`` and students arrive
through the per-chapter nbgitpuller links of ``links.py``. The hub listens on
``127.0.0.1`` unless ``KMLTEACH_HUB_IP`` says otherwise: put it behind a TLS reverse
proxy (or set ``c.JupyterHub.ssl_cert``/``ssl_key``) before opening it to a network.
"""

import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from jupyterhub.app import JupyterHub  # noqa: E402
from limits_spawner import prioritise_services  # noqa: E402  (deploy/hub is put on sys.path first)
from sizing import LIMITS, kernel_environment  # noqa: E402  (deploy/hub is put on sys.path first)

c = get_config()  # noqa: F821  (provided by JupyterHub when it loads this file)

env = os.environ.get
mode = env("KMLTEACH_HUB_MODE", "system")
if mode not in ("system", "test"):
    raise ValueError(f"KMLTEACH_HUB_MODE must be 'system' or 'test', got {mode!r}")
state = Path(env("KMLTEACH_HUB_STATE", str(HERE / "state")))
state.mkdir(parents=True, exist_ok=True)
bindir = Path(sys.executable).parent  # the course's environment: its singleuser server and kernels

# --- network: the public proxy port, the hub's and the proxy API's internal ports -------
c.JupyterHub.ip = env("KMLTEACH_HUB_IP", "127.0.0.1")
c.JupyterHub.port = int(env("KMLTEACH_HUB_PORT", "8000"))
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = int(env("KMLTEACH_HUB_API_PORT", "8081"))
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{int(env('KMLTEACH_HUB_PROXY_API_PORT', '8001'))}"
c.ConfigurableHTTPProxy.command = [str(HERE / "node_modules" / ".bin" / "configurable-http-proxy")]
c.JupyterHub.db_url = f"sqlite:///{state / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(state / "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = str(state / "jupyterhub.pid")
c.JupyterHub.cleanup_servers = True  # stopping the hub stops every student's server

# --- who logs in, where their server runs ------------------------------------------------
if mode == "test":
    c.JupyterHub.authenticator_class = "dummy"
    c.Authenticator.allow_all = True
    if env("KMLTEACH_HUB_PASSWORD"):
        c.DummyAuthenticator.password = env("KMLTEACH_HUB_PASSWORD")
    c.JupyterHub.spawner_class = "limits_spawner.LimitedSimpleSpawner"
    c.LimitedSimpleSpawner.home_dir_template = env("KMLTEACH_HUB_HOMES", "/tmp/kmlteach-hub") + "/{username}"
    if os.geteuid() == 0:  # every server runs as the hub's user: root in a container or CI
        c.Spawner.args = ["--ServerApp.allow_root=True"]
else:
    c.JupyterHub.authenticator_class = "pam"
    c.PAMAuthenticator.allowed_groups = {env("KMLTEACH_HUB_GROUP", "students")}
    c.Authenticator.admin_users = set(filter(None, env("KMLTEACH_HUB_ADMINS", "").split(",")))
    c.JupyterHub.spawner_class = "limits_spawner.LimitedLocalProcessSpawner"
    c.Spawner.notebook_dir = "~"

c.CgroupLimits.cgroup_parent = env("KMLTEACH_HUB_CGROUP", "kmlteach-hub")
# The hub and the proxy relay every widget update: their own CPU cgroup, weighted above the
# class's cells (limits_spawner.prioritise_services; nothing happens without root). Only
# in the hub's own process (not when a test or a tool reads this file), before it starts
# the proxy, which then follows it.
if JupyterHub.initialized():
    prioritise_services()
# A student's server loads no extension a student does not use: nbgrader's (the
# instructor's tooling, installed with the course's [test] extra), the language server
# (no language servers are installed) and jupytext (students open the released .ipynb).
# Each start then costs ~1 s of CPU less (3.1-3.7 -> 1.9-2.5 s, ServerApp.initialize).
UNUSED = [f"nbgrader.server_extensions.{x}" for x in ("formgrader", "validate_assignment", "assignment_list")]
UNUSED += ["nbgrader.server_extensions.course_list", "jupyter_lsp", "jupyterlab_jupytext"]
args = c.Spawner.args if "args" in c.Spawner else []
c.Spawner.args = [*args, f"--ServerApp.jpserver_extensions={dict.fromkeys(UNUSED, False)!r}"]
c.Spawner.cmd = [str(bindir / "jupyterhub-singleuser")]
c.Spawner.default_url = "/lab"
c.Spawner.mem_guarantee = LIMITS["mem_guarantee"]
c.Spawner.mem_limit = LIMITS["mem_limit"]
c.Spawner.cpu_guarantee = LIMITS["cpu_guarantee"]
c.Spawner.cpu_limit = LIMITS["cpu_limit"]
# Interactive before batch: the hub's kernelspec loads kernel/kmlteach_hub_priority.py,
# which marks the student's CPU cgroup idle while a cell runs, so that widget updates
# take the CPU first (limits_spawner hands the user its cgroup's cpu.idle). JUPYTER_PATH
# puts this "python3" before the environment's own (students must be able to read the
# state directory's jupyter/ and deploy/hub/kernel/).
kernels = state / "jupyter" / "kernels" / "python3"
kernels.mkdir(parents=True, exist_ok=True)
(kernels / "kernel.json").write_text(
    json.dumps(
        {
            "argv": [str(bindir / "python"), "-m", "ipykernel_launcher", "-f", "{connection_file}"]
            + ["--ext=kmlteach_hub_priority"],
            "env": {"PYTHONPATH": str(HERE / "kernel")},
            "display_name": "Python 3 (ipykernel)",
            "language": "python",
            "metadata": {"debugger": True},
            "kernel_protocol_version": "5.5",
        },
        indent=1,
    )
)
# A kernel's threads may not outnumber the cores it is allowed (Numba's Gram matrices and
# BLAS would otherwise start one thread per host CPU in every student's kernel).
# glibc returns freed large arrays to the system (sizing.MALLOC_ENV).
path = f"{bindir}:/usr/local/bin:/usr/bin:/bin"
c.Spawner.environment = {**kernel_environment(), "PATH": path, "JUPYTER_PATH": str(state / "jupyter")}
# a class arriving at once on a busy machine: give servers time, queue the rest
c.Spawner.start_timeout = int(env("KMLTEACH_HUB_START_TIMEOUT", "300"))
c.Spawner.http_timeout = int(env("KMLTEACH_HUB_START_TIMEOUT", "300"))
c.JupyterHub.concurrent_spawn_limit = int(env("KMLTEACH_HUB_SPAWN_LIMIT", "100"))

# --- idle culler: stop servers nobody used for an hour (checked every 5 minutes) ----------
c.JupyterHub.load_roles = [
    {
        "name": "idle-culler",
        "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"],
        "services": ["idle-culler"],
    }
]
c.JupyterHub.services = [
    {
        "name": "idle-culler",
        "command": [
            sys.executable,
            "-m",
            "jupyterhub_idle_culler",
            f"--timeout={int(env('KMLTEACH_HUB_CULL_TIMEOUT', '3600'))}",
            f"--cull-every={int(env('KMLTEACH_HUB_CULL_EVERY', '300'))}",
        ],
    }
]
