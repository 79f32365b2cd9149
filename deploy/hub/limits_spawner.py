"""Local spawners that enforce JupyterHub's ``mem_limit`` and ``cpu_limit`` with cgroups.

JupyterHub's own ``LocalProcessSpawner`` only passes ``MEM_LIMIT``/``CPU_LIMIT`` to the
server as environment variables; nothing stops one student's kernel from taking the whole
machine. On one machine a real deployment would use The Littlest JupyterHub's
``systemdspawner`` (a transient systemd unit per user with ``MemoryMax=`` and
``CPUQuota=``). This module does the same with the kernel's cgroup file system directly,
so that it also works where there is no systemd (containers, CI, this course's test VM):

* each user's server is moved, before it executes, into its own cgroup
  ``<hub's cgroup>/<cgroup_parent>/<user>``; everything it starts (kernels, their
  children) stays there and is counted together;
* memory: ``memory.max`` (cgroup v2) or ``memory.limit_in_bytes`` (v1) = ``mem_limit``,
  and ``mem_guarantee`` as the soft floor/limit (``memory.low`` / ``soft_limit_in_bytes``);
* CPU: a CFS quota of ``cpu_limit`` cores per 100 ms period (``cpu.max`` /
  ``cpu.cfs_quota_us``); the user's ``cpu.idle`` starts at 1 (start-up is batch work)
  and is handed to the user, whose kernels keep it 1 while a cell runs and set 0 when a
  cell ends (``kernel/kmlteach_hub_priority.py``); the hub and the proxy get a CPU
  cgroup of their own above the students' (:func:`prioritise_services`);
* when the server stops, every process left in the cgroup is killed and the cgroup removed;
* kernels talk to their server over Unix sockets (``KernelManager.transport = "ipc"``,
  in a private runtime folder per user, :meth:`CgroupLimits.runtime_dir`), not TCP: a
  kernel's five TCP ports are picked by binding port 0 and closing it, so two kernels
  starting in the same second could pick the same port (load test, 40 students: a
  kernel failed "Address already in use" at each restart and was removed);
* ports: each server gets a port of its own below Linux's ephemeral range
  (``server_ports``, :func:`server_port`). JupyterHub's default picks a random free port
  and the server binds it seconds later; the students' kernels pick their five ports the
  same way in the ephemeral range, so in a class arriving at once a kernel could take a
  server's port first (load test, 40 students: one server never came up, its port
  answering with a kernel's ZeroMQ greeting).

* processes: ``pids.max`` = ``pids_limit`` (512) per student, threads included (one
  kernel made 3 013 threads: issue 35), beside the memory and CPU limits;
* a private world (``sandbox = "bwrap"``, :mod:`sandbox`): the server starts through
  bubblewrap in namespaces of its own, seeing an allowlist of the machine (the
  students' environment, the operating system's programs, its home, its runtime
  folder); Landlock lets it bind no TCP port but its own;
* its port is its own: :meth:`CgroupLimits.start` hands the address to the hub only
  once the student's own server listens there; when another process took the port
  first, the server starts again on another (``port_attempts``). With
  ``internal_ssl`` the proxy and the hub also reach servers only by mutual TLS, with
  the student's certificate in a folder only that student reads
  (:meth:`CgroupLimits.move_certs`);
* a home the student alone can enter (0700, checked and mended at every start) and a
  umask of 077 for everything the server makes.
* the hub's log: a server's stdout and stderr (its kernels' too) pass through a pipe
  the hub reads (:class:`OutputRelay`): 1 MiB at once, then 2 KiB a second into the
  log, the rest dropped and counted (``log_rate``, ``log_burst``).

Writing cgroups needs root (or a delegated subtree). Where that is not possible the
spawner logs one warning and runs the server without limits (the limits are still
passed as ``MEM_LIMIT``/``CPU_LIMIT`` for the front end's resource display).
"""

from __future__ import annotations

import asyncio
import os
import pwd
import random
import resource
import shutil
import signal
import socket
import stat
import time
from pathlib import Path

import sandbox
from jupyterhub.spawner import LocalProcessSpawner, SimpleLocalProcessSpawner
from traitlets import Bool, Enum, Integer, Tuple, Unicode, default
from traitlets.config import LoggingConfigurable

CGROUP_ROOT = Path("/sys/fs/cgroup")
CFS_PERIOD_US = 100_000

__all__ = [
    "CgroupLimits",
    "LimitedLocalProcessSpawner",
    "LimitedSimpleSpawner",
    "cgroup_layout",
    "limit_connections",
    "prioritise_services",
    "raise_open_files",
    "unlimit_connections",
]


SERVICES = "kmlteach-hub-services"  # the hub's and the proxy's CPU cgroup (prioritise_services)
DRIVER = "kmlteach-loadtest-driver"  # the load test's simulated browsers (loadtest.run_class)
SERVICES_WEIGHT = {"cpu.shares": 262144, "cpu.weight": 10000}  # the largest each version takes


def _own_cgroup(controller: str) -> str | None:
    """This process's cgroup path for ``controller`` (v1), or of the unified hierarchy ('').

    Once :func:`prioritise_services` moved the hub into ``SERVICES`` (or the load test's
    driver into ``DRIVER``), its own cgroup is still the one above: the students' cgroups
    stay siblings of the services'."""
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, ctrls, path = line.split(":", 2)
        names = ctrls.split(",")
        if (controller == "" and names == [""]) or (controller and controller in names):
            head, _, tail = path.rstrip("/").rpartition("/")
            return (head or "/") if tail in (SERVICES, DRIVER) else path
    return None


def prioritise_services(name: str = SERVICES, pid: int | None = None) -> Path | None:
    """Move ``pid`` (default: this process, the hub) into a CPU cgroup ``name`` beside the
    students' with the largest CPU weight; what it starts later (the proxy, the culler)
    follows it. Returns the cgroup, or None where it cannot be made (no root, no CPU
    controller), which changes nothing else.

    Why: every widget update of every student passes through the proxy (and the hub
    checks each request's cookie): they are the interactive path of the whole class.
    Left in the root cgroup, on Linux with autogroups (the default) they form one
    session's group of weight 1024 against the students' parent, weighted 1024 per
    student (``_scale_cpu_weight``): with 40 students running cells they would get ~2 %
    of the CPU and every round trip would queue behind the class's cells. They sleep
    nearly all the time, so a large weight costs the students nothing until a message
    arrives, and then the message goes first.
    """
    layout = cgroup_layout()
    if layout is None:
        return None
    d = layout["cpu"] / name
    try:
        d.mkdir(exist_ok=True)
        for f, w in SERVICES_WEIGHT.items():
            if (d / f).exists():
                _write(d / f, str(w))
        _write(d / "cgroup.procs", str(pid or os.getpid()))
    except OSError:
        return None
    return d


def raise_open_files(nr_open: Path = Path("/proc/sys/fs/nr_open")) -> int:
    """Raise this process's open-file limit (RLIMIT_NOFILE; the proxy the hub starts
    inherits it) to the kernel's maximum ``fs.nr_open`` as root (where the machine grants
    root CAP_SYS_RESOURCE), else to its hard limit; returns the new soft limit. More room
    for the class's connections beside :func:`limit_connections` (red team H9)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = hard
    if os.geteuid() == 0:
        try:
            want = max(hard, int(nr_open.read_text()))
        except (OSError, ValueError):
            pass
    for limit in (want, hard):
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))
            return limit
        except (OSError, ValueError):
            continue
    return soft


def limit_connections(
    ports,
    per_user: int,
    name: str,
    *,
    server_ports: tuple[int, int] | None = None,
    exempt=(0,),
    new_per_second: int = 0,
    burst: int = 0,
) -> str | None:
    """nftables rules on what local users' sockets may open (every uid but ``exempt``:
    root, and the hub's own user when it is not root), in a table ``inet <name>`` made
    anew (idempotent) and removed by :func:`unlimit_connections`. Returns None when done,
    else why not (no ``nft``, not root, no nf_tables): then only the open-file limits hold.

    * at most ``per_user`` TCP connections at once from one user to each of ``ports``
      (the hub's public port, its API's, the proxy API's): a dynamic set counts the
      connections of each (uid, port) (``ct count``), the next ones are reset. Every
      student's kernel may connect to the hub's public port (the classroom is reached
      through it); one kernel holding 22 000 idle connections filled the proxy's open
      files and the hub answered nobody (red team H9);
    * no connection at all to a local address on the servers' ports ``server_ports``
      ([low, high)): only the hub and the proxy (``exempt``) talk to a student's server.
      A classmate's kernel held 3 000 idle connections to a server's port, which ran out
      of open files and answered its student 503 for as long (red team H11); mutual TLS
      refused those connections only after they were accepted;
    * at most ``new_per_second`` new connections (conntrack entries: TCP, UDP, any) per
      second from one user, in bursts of ``burst``: a kernel opening and closing loopback
      connections added 28 000 entries to the machine's conntrack table (262 144, shared
      with everything on the machine; a TCP entry outlives its connection by 120 s in
      TIME_WAIT) in 5 s (red team H13). Refused connections are never entered.

    Browsers connect from other machines: not counted."""
    nft = shutil.which("nft")
    if nft is None or os.geteuid() != 0:
        return "nft (Debian: apt-get install nftables) and root are needed"
    ports = ", ".join(str(int(p)) for p in ports)
    uids = ", ".join(str(int(u)) for u in sorted(set(exempt) | {0}))
    rules = [
        f"meta skuid != {{ {uids} }} tcp dport {{ {ports} }} ct state new add @conns "
        f"{{ meta skuid . tcp dport ct count over {int(per_user)} }} counter reject with tcp reset"
    ]
    if server_ports is not None:
        low, high = (int(p) for p in server_ports)
        rules.append(
            f'meta skuid != {{ {uids} }} oifname "lo" tcp dport {low}-{high - 1} counter reject with tcp reset'
        )
    if new_per_second > 0:
        rate = f"limit rate over {int(new_per_second)}/second burst {max(1, int(burst))} packets"
        rules.append(
            f"meta skuid != {{ {uids} }} ct state new update @rate {{ meta skuid {rate} }} counter jump refuse"
        )
    body = "\n        ".join(rules)
    text = f"""table inet {name}
delete table inet {name}
table inet {name} {{
    set conns {{
        type uid . inet_service
        size 65535
        flags dynamic
    }}
    set rate {{
        type uid
        size 65535
        flags dynamic,timeout
        timeout 1m
    }}
    chain refuse {{
        meta l4proto tcp reject with tcp reset
        reject
    }}
    chain output {{
        type filter hook output priority filter; policy accept;
        {body}
    }}
}}
"""
    import subprocess

    r = subprocess.run([nft, "-f", "-"], input=text, capture_output=True, text=True)
    return None if r.returncode == 0 else (r.stderr.strip() or f"nft exited with {r.returncode}")


def unlimit_connections(name: str) -> None:
    """Remove the table of :func:`limit_connections` (nothing when there is none)."""
    nft = shutil.which("nft")
    if nft is not None and os.geteuid() == 0:
        import subprocess

        subprocess.run([nft, "delete", "table", "inet", name], capture_output=True)


def cgroup_layout() -> dict[str, Path] | None:
    """Where this process may create child cgroups: ``{"memory": dir, "cpu": dir}``, with
    ``"pids": dir`` too where that controller is available.

    cgroup v2 (one hierarchy with the memory and cpu controllers enabled) or v1 (separate
    ``memory``, ``cpu`` and ``pids`` hierarchies); None when neither is present and writable.
    """
    v2 = CGROUP_ROOT / "cgroup.controllers"
    if v2.exists():
        own = CGROUP_ROOT / (_own_cgroup("") or "/").lstrip("/")
        ctrls = (
            set((own / "cgroup.controllers").read_text().split())
            if (own / "cgroup.controllers").exists()
            else set()
        )
        if {"memory", "cpu"} <= ctrls and os.access(own, os.W_OK):
            return {"memory": own, "cpu": own, **({"pids": own} if "pids" in ctrls else {})}
        return None
    out = {}
    for ctrl in ("memory", "cpu", "pids"):
        base = CGROUP_ROOT / ctrl
        path = _own_cgroup(ctrl)
        if path is None or not base.is_dir():
            if ctrl == "pids":  # optional: no process limit where the kernel has no such controller
                continue
            return None
        own = base / path.lstrip("/")
        if not os.access(own, os.W_OK):
            if ctrl == "pids":
                continue
            return None
        out[ctrl] = own
    return out


def _write(path: Path, value: str) -> None:
    path.write_text(value)


_TAKEN: dict[int, str] = {}  # server port -> user, for the servers this hub started


def _bindable(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def server_port(user_id: int, low: int, high: int, bindable=_bindable, rng=None, exclude=()) -> int:
    """A free port in [low, high) for a user's server, drawn at random (a port a student
    could predict, such as ``low + user id``, could be bound first by that student and
    the victim's address taken over), skipping the ports of this hub's other servers and
    any port something else holds (``user_id`` is not used to choose)."""
    span = high - low
    if span <= 0:
        raise ValueError(f"server_ports must be (low, high) with low < high, got ({low}, {high})")
    rng = rng or random.SystemRandom()
    for port in rng.sample(range(low, high), span):
        if port not in _TAKEN and port not in exclude and bindable(port):
            return port
    raise RuntimeError(f"no free port for a server in [{low}, {high})")


class OutputRelay:
    """A pipe for a server's stdout and stderr (its kernels' too: they inherit them) whose
    bytes the hub copies into its own stderr (its log) at most ``rate`` bytes a second
    after a first ``burst``; the rest is read, dropped and counted (a warning at most once
    a minute). The hub reads at most ``drain`` bytes a second: a process writing faster
    waits on the full pipe, in the student's own sandbox.

    Why: a server wrote into the hub's log directly, and so did anything of the student's
    that reached its stderr: a kernel that lowered its server's open files to 3 made its
    accept loop log 84 MiB of tracebacks in 10 s (red team H14), and a kernel can write to
    the server's stderr it inherited (ipykernel keeps a copy of it) as fast as the disk
    takes it."""

    TICK = 0.1

    def __init__(self, name: str, log, rate: int, burst: int, drain: int = 2 << 20, out_fd: int = 2):
        self.name, self.log, self.rate, self.burst = name, log, rate, burst
        self.per_tick = max(1 << 16, int(drain * self.TICK))
        self.out_fd = out_fd
        self.read_fd, self.write_fd = os.pipe()
        os.set_blocking(self.read_fd, False)
        self.tokens, self.last = float(burst), time.monotonic()
        self.dropped = self.reported = 0
        self.warned = -1e9
        self.tick_start, self.tick_bytes = self.last, 0
        self.loop = None

    def attach(self) -> None:
        """Start copying (in the hub's event loop), once the server holds the write end;
        the hub's copy of it is closed."""
        if self.write_fd >= 0:
            os.close(self.write_fd)
            self.write_fd = -1
        self.loop = asyncio.get_running_loop()
        self.loop.add_reader(self.read_fd, self._readable)

    def _readable(self) -> None:
        try:
            data = os.read(self.read_fd, 1 << 16)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:  # every writer is gone
            self.close()
            return
        now = time.monotonic()
        self.tokens = min(float(self.burst), self.tokens + (now - self.last) * self.rate)
        self.last = now
        keep = data[: int(self.tokens)]
        self.tokens -= len(keep)
        self.dropped += len(data) - len(keep)
        while keep:
            try:
                keep = keep[os.write(self.out_fd, keep) :]
            except OSError:
                break
        if self.dropped > self.reported and now - self.warned >= 60:
            self.log.warning(
                "%s's server wrote more than its share of the hub's log: %d bytes dropped so far "
                "(%d bytes a second after the first %d)",
                self.name,
                self.dropped,
                self.rate,
                self.burst,
            )
            self.reported, self.warned = self.dropped, now
        if now - self.tick_start >= self.TICK:
            self.tick_start, self.tick_bytes = now, 0
        self.tick_bytes += len(data)
        if self.tick_bytes >= self.per_tick:  # pause: the writers wait on the full pipe
            self.loop.remove_reader(self.read_fd)
            self.loop.call_later(self.TICK, self._resume)

    def _resume(self) -> None:
        if self.read_fd >= 0:
            self.tick_start, self.tick_bytes = time.monotonic(), 0
            self.loop.add_reader(self.read_fd, self._readable)

    def close(self) -> None:
        for attr in ("read_fd", "write_fd"):
            fd = getattr(self, attr)
            if fd < 0:
                continue
            if attr == "read_fd" and self.loop is not None:
                self.loop.remove_reader(fd)
            os.close(fd)
            setattr(self, attr, -1)


class CgroupLimits(LoggingConfigurable):
    """Mixin for a ``LocalProcessSpawner``: the server runs in a per-user cgroup with limits,
    in a private world, on a port of its own (see the module docstring)."""

    server_ports = Tuple(
        (20000, 30000),
        config=True,
        help="Ports [low, high) for the users' servers: below the kernels' ephemeral range "
        "(/proc/sys/net/ipv4/ip_local_port_range, 32768-60999 by default).",
    )

    port_attempts = Integer(
        5,
        config=True,
        help="Starts of a server, each on a new port, before giving up when another process "
        "holds the port first.",
    )

    runtime_base = Unicode(
        config=True,
        help="Folder (owned by the hub's user, not writable by others, not a symlink) holding "
        "one private folder per user: the kernels' Unix sockets and connection files, the "
        "user's certificates and the /etc files of the user's sandbox. "
        "Default: /run/kmlteach-hub for a root hub (no student can make it first), else "
        "/tmp/kmlteach-hub-run-<hub's uid>.",
    )

    cgroup_parent = Unicode(
        "kmlteach-hub",
        config=True,
        help="Name of the cgroup, under the hub's own, that holds one cgroup per user.",
    )

    pids_limit = Integer(
        512,
        config=True,
        help="Processes and threads one user's server and kernels may have at once (pids.max); 0: no limit.",
    )

    nofile_limit = Integer(
        1024,
        config=True,
        help="Open files (RLIMIT_NOFILE, soft and hard) of the server and of every process it "
        "starts; with pids_limit it bounds the connections one student can hold open to the "
        "proxy. 0: the hub's own limit.",
    )

    log_rate = Integer(
        2048,
        config=True,
        help="Bytes a second of one server's output (its and its kernels' stdout and stderr) "
        "copied into the hub's log after a first log_burst; the rest is dropped and counted "
        "(OutputRelay). 0: the server writes into the hub's log directly.",
    )

    log_burst = Integer(1 << 20, config=True, help="See log_rate.")

    sandbox = Enum(
        ["bwrap", "none"],
        "bwrap",
        config=True,
        help="'bwrap': each server in namespaces of its own that see only an allowlist of the "
        "machine (deploy/hub/sandbox.py); 'none': measurements only.",
    )

    landlock = Bool(
        True,
        config=True,
        help="Landlock: a server and its processes may bind no TCP port but the server's own.",
    )

    hub_env = Unicode(
        "",
        config=True,
        help="The students' environment (python -m kmlteach hub-env DIR): bound read-only into each sandbox.",
    )

    python_prefix = Unicode(
        "",
        config=True,
        help="The prefix of the students' interpreter, bound read-only when it is outside /usr.",
    )

    # ------------------------------------------------------------------ private folders
    @default("runtime_base")
    def _runtime_base_default(self) -> str:
        if os.geteuid() == 0 and os.path.isdir("/run") and os.access("/run", os.W_OK):
            return "/run/kmlteach-hub"
        return f"/tmp/kmlteach-hub-run-{os.geteuid()}"

    def user_folder(self) -> Path:
        """``<runtime_base>/<user id>``: made by the hub, owned by the hub's user, searchable
        but not listable by others (0711), in a base only the hub's user may write (checked,
        else the server does not start): no student can make, swap or fill another's, nor
        their own (``runtime/``, ``certs/`` and ``etc/`` below it). The path stays short
        enough for a Unix socket's (at most 107 bytes: ``.../kernel-<uuid>-ipc-5`` under a
        long home folder is not)."""
        base = Path(self.runtime_base)
        base.mkdir(mode=0o711, parents=True, exist_ok=True)  # not listable
        st = base.lstat()  # a symlink is refused: whoever owns it could point it elsewhere later
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid() or st.st_mode & 0o022:
            raise RuntimeError(
                f"{base} must be a folder (not a symlink) owned by the hub's user and writable by no one else "
                f"(owner uid {st.st_uid}, mode {oct(st.st_mode & 0o777)}): remove it or set runtime_base"
            )
        if st.st_mode & 0o777 != 0o711:  # (the hub's umask is 077) students pass through, list nothing
            os.chmod(base, 0o711)
        d = base / str(self.user.id)
        d.mkdir(mode=0o711, exist_ok=True)
        os.chmod(d, 0o711)
        return d

    def _users_folder(self, name: str, mode: int) -> Path:
        """``user_folder()/name``, owned by the user (the hub's user in test mode)."""
        d = self.user_folder() / name
        d.mkdir(mode=mode, exist_ok=True)
        uid = self._uid()
        if uid is not None:
            os.lchown(d, uid, pwd.getpwuid(uid).pw_gid)
        os.chmod(d, mode)
        return d

    def runtime_dir(self) -> Path:
        """The user's runtime folder (0700): the kernels' sockets and connection files."""
        return self._users_folder("runtime", 0o700)

    async def move_certs(self, paths):
        """The server's certificate, key and trust bundle (``internal_ssl``) into
        ``user_folder()/certs``, readable by the user alone (JupyterHub's own
        ``LocalProcessSpawner.move_certs`` writes into ``~/.jupyterhub`` as root, following
        whatever symlink the student put there). The hub's copies of the key pair are
        removed, as JupyterHub's spawner does by moving them."""
        d = self.user_folder() / "certs"
        if d.is_dir() and not d.is_symlink():
            shutil.rmtree(d)
        d.mkdir(mode=0o700)
        out = {}
        for key in ("keyfile", "certfile", "cafile"):
            src = Path(paths[key])
            dst = d / src.name
            shutil.copyfile(src, dst)
            os.chmod(dst, 0o400 if key == "keyfile" else 0o444)
            out[key] = str(dst)
        for key in ("keyfile", "certfile"):
            Path(paths[key]).unlink(missing_ok=True)
        uid = self._uid()
        if uid is not None:
            gid = pwd.getpwuid(uid).pw_gid
            for f in (d, *d.iterdir()):
                os.lchown(f, uid, gid)
        os.chmod(d, 0o500)
        return out

    def get_env(self):
        env = super().get_env()
        env["JUPYTER_RUNTIME_DIR"] = str(self.runtime_dir())
        env.update(self._jupyter_folders())
        return env

    def _jupyter_folders(self) -> dict[str, str]:
        """The server's Jupyter folders: its configuration and data folders (where server
        configuration files, kernelspecs and lab extensions are looked for) are the
        students' environment's own, read-only, so nothing a student writes into
        ``~/.jupyter`` or ``~/.local/share/jupyter`` runs in the server or is served as a lab
        extension; JupyterLab's settings and workspaces stay where they were, in the home
        (red team H1). No user site-packages either."""
        if not self.hub_env:
            return {}
        venv, home = Path(self.hub_env) / "venv", Path(self._home())
        return {
            "JUPYTER_CONFIG_DIR": str(venv / "etc" / "jupyter"),
            "JUPYTER_DATA_DIR": str(venv / "share" / "jupyter"),
            "JUPYTERLAB_SETTINGS_DIR": str(home / ".jupyter" / "lab" / "user-settings"),
            "JUPYTERLAB_WORKSPACES_DIR": str(home / ".jupyter" / "lab" / "workspaces"),
            "PYTHONNOUSERSITE": "1",
        }

    def get_args(self):
        args = [*super().get_args(), "--KernelManager.transport=ipc"]
        if self.hub_env:  # notebook trust (a database and its secret, no code): the home's data folder
            args.append(f"--NotebookNotary.data_dir={Path(self._home()) / '.local' / 'share' / 'jupyter'}")
        return args

    # ---------------------------------------------------------------------- the world
    def _pw(self):
        """The passwd entry the server runs as (test mode: the hub's user, home from the template)."""
        uid = self._uid()
        if uid is not None:
            return pwd.getpwuid(uid)
        me = pwd.getpwuid(os.geteuid())
        return pwd.struct_passwd((me.pw_name, "x", me.pw_uid, me.pw_gid, "", self._home(), "/bin/bash"))

    def _home(self) -> str:
        if isinstance(self, SimpleLocalProcessSpawner):
            return self.home_dir
        return pwd.getpwnam(self.user.name).pw_dir

    def _private_home(self) -> str:
        """The user's home, made 0700 if it was not (a Debian ``useradd -m`` home is 0755:
        classmates read each other's notebooks; issue 35). A home that is not a folder
        owned by the user (a symlink, someone else's) stops the server."""
        home, uid = self._home(), self._uid()
        if uid is None:
            Path(home).mkdir(mode=0o700, parents=True, exist_ok=True)
        try:
            st = os.lstat(home)
        except FileNotFoundError:
            raise RuntimeError(f"the home folder of {self.user.name}, {home}, does not exist") from None
        owner = os.geteuid() if uid is None else uid
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != owner:
            raise RuntimeError(f"{home} must be a folder (not a symlink) owned by {self.user.name}")
        if st.st_mode & 0o077:
            os.chmod(home, 0o700)
            self.log.info(
                "made the home of %s private (0700, was %s)", self.user.name, oct(st.st_mode & 0o777)
            )
        return home

    def _sandbox_argv(self, home: str) -> list[str]:
        """bubblewrap's command line for this user (:func:`sandbox.bwrap_argv`)."""
        folder = self.user_folder()
        etc = sandbox.write_etc(folder / "etc", self._pw())
        layout = cgroup_layout()
        cpu = [layout["cpu"] / self.cgroup_parent / self.user.name] if layout else []
        certs = folder / "certs"
        return sandbox.bwrap_argv(
            home=home,
            hub_env=self.hub_env or str(Path(self.cmd[0]).resolve().parents[2]),
            runtime_dir=str(self.runtime_dir()),
            certs_dir=str(certs) if certs.is_dir() else None,
            etc_dir=str(etc),
            cgroup_dirs=[str(d) for d in cpu if d.is_dir()],
            python_prefix=self.python_prefix or None,
        )

    # ---------------------------------------------------------------------- the start
    _base_cmd: list[str] | None = None
    _cgroups: list[Path] = []

    async def start(self):
        """Start the server on a port of its own, in its sandbox; hand the address to the
        hub once the user's own server listens there. A port another process holds by
        then (bound between the choice and the server's bind: a classmate watching for
        it) is given up, the attempt's processes killed, and the server started again on
        another port, up to ``port_attempts`` times."""
        home = self._private_home()
        if self._base_cmd is None:
            self._base_cmd = list(self.cmd)
        taken: set[int] = set()
        for attempt in range(1, self.port_attempts + 1):
            # a new port on every start, also a retry after a failed start (JupyterHub keeps the
            # spawner and its old port, which stop() has already given back)
            if self.port == 0 or getattr(self, "_port_from_range", False):
                self.port = server_port(self.user.id, *self.server_ports, exclude=taken)
                self._port_from_range = True
            _TAKEN[self.port] = self.user.name
            self._cgroups = self._prepare_cgroups()
            self._lock = sandbox.PortLock(self.port) if self.landlock else None
            wrap = self._sandbox_argv(home) if self.sandbox == "bwrap" else []
            self.cmd = [*wrap, *self._base_cmd]
            self._relay_output()
            try:
                address = await super().start()
            finally:
                if self._relay is not None:
                    self._relay.attach()
            outcome = await self._own_listener()
            if outcome in ("up", "timeout"):
                return address
            if outcome == "exited":
                status = self.proc.poll() if self.proc is not None else None
                raise RuntimeError(
                    f"the server of {self.user.name} exited (status {status}) before listening on port {self.port}"
                )
            self.log.warning(
                "port %d of %s's server is held by another process (attempt %d of %d): starting again on another port",
                self.port,
                self.user.name,
                attempt,
                self.port_attempts,
            )
            taken.add(self.port)
            _TAKEN.pop(self.port, None)
            await self._kill_processes()
            if self.proc is not None:
                self.proc.wait()
                self.proc = None
            self.port = 0
        raise RuntimeError(
            f"{self.user.name}: {self.port_attempts} ports in a row were taken by other processes"
        )

    _relay: OutputRelay | None = None

    def _relay_output(self) -> None:
        """The server's stdout and stderr into a new :class:`OutputRelay` (``log_rate``)."""
        if self._relay is not None:
            self._relay.close()
            self._relay = None
        if self.log_rate > 0:
            self._relay = OutputRelay(self.user.name, self.log, self.log_rate, self.log_burst)
            self.popen_kwargs = {
                **self.popen_kwargs,
                "stdout": self._relay.write_fd,
                "stderr": self._relay.write_fd,
            }

    def _tree(self) -> set[int]:
        """The server's processes: its cgroup's, else the server and its descendants."""
        pids = set()
        for d in self._cgroups:
            try:
                pids |= {int(p) for p in (d / "cgroup.procs").read_text().split()}
            except OSError:
                pass
        if not pids and self.pid:
            import psutil

            try:
                pids = {self.pid} | {p.pid for p in psutil.Process(self.pid).children(recursive=True)}
            except psutil.NoSuchProcess:
                pass
        return pids

    async def _own_listener(self) -> str:
        """``"up"`` once this server's own process listens on its port, ``"taken"`` when
        another process does (or holds it so that the server could not bind), ``"exited"``
        when the server died otherwise, ``"timeout"`` after ``start_timeout``."""
        deadline = time.monotonic() + self.start_timeout
        delay = 0.1
        while time.monotonic() < deadline:
            inodes = sandbox.port_listeners(self.port)
            if inodes:
                return "up" if sandbox.socket_holders(inodes, self._tree()) else "taken"
            if self.proc is not None and self.proc.poll() is not None:
                return "taken" if sandbox.port_listeners(self.port) or not _bindable(self.port) else "exited"
            await asyncio.sleep(delay)
            delay = min(0.5, delay * 1.5)
        return "timeout"

    def make_preexec_fn(self, name):
        inner = super().make_preexec_fn(name)
        procs = [str(d / "cgroup.procs") for d in self._cgroups]
        lock = getattr(self, "_lock", None)
        nofile = self.nofile_limit

        def preexec():
            for p in procs:  # join the user's cgroups before dropping privileges
                fd = os.open(p, os.O_WRONLY)
                try:
                    os.write(fd, str(os.getpid()).encode())
                finally:
                    os.close(fd)
            if nofile:  # soft and hard: no process of the student raises it again
                resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))
            if inner is not None:
                inner()
            if lock is not None:  # after the user's ids: this process and all it starts
                lock.apply()
            os.umask(0o077)

        return preexec

    async def _signal(self, sig):
        """SIGINT/SIGTERM go to the server inside the sandbox (bubblewrap ignores SIGINT and
        would end the server with SIGKILL): it stops its kernels and exits, and
        bubblewrap with it."""
        if sig in (signal.SIGINT, signal.SIGTERM) and self.sandbox == "bwrap" and self.pid:
            import psutil

            try:
                for p in psutil.Process(self.pid).children(recursive=True):
                    if any(a.endswith("jupyterhub-singleuser") for a in p.cmdline()[:3]):
                        p.send_signal(signal.SIGTERM)
                        return await super()._signal(0)
            except psutil.Error:
                pass
        return await super()._signal(sig)

    # ------------------------------------------------------------------------ cgroups
    _warned = False

    def cgroup_dirs(self) -> list[Path]:
        """The user's cgroup directories (one on v2, one per controller on v1)."""
        layout = cgroup_layout()
        if layout is None:
            return []
        dirs = {p / self.cgroup_parent / self.user.name for p in layout.values()}
        return sorted(dirs)

    def _prepare_cgroups(self) -> list[Path]:
        try:
            return self._make_cgroups()
        except OSError as exc:  # e.g. cgroup v2 refusing controllers below a cgroup with processes
            self.log.warning(
                "could not set up the cgroup of %s (%s): its limits are NOT enforced", self.user.name, exc
            )
            return []

    def _make_cgroups(self) -> list[Path]:
        layout = cgroup_layout()
        if layout is None:
            if not CgroupLimits._warned:
                self.log.warning("cgroups not writable here: per-user memory and CPU limits are NOT enforced")
                CgroupLimits._warned = True
            return []
        v2 = layout["memory"] == layout["cpu"]
        made = []
        for ctrl, base in layout.items():
            parent = base / self.cgroup_parent
            d = parent / self.user.name
            if d in made:
                continue
            if v2 and not parent.exists():  # (v2 is written to the kernel's rules, untested here: v1)
                wanted = "+memory +cpu" + (" +pids" if "pids" in layout else "")
                _write(base / "cgroup.subtree_control", wanted)
                parent.mkdir(exist_ok=True)
                _write(parent / "cgroup.subtree_control", wanted)
            d.mkdir(parents=True, exist_ok=True)
            for x in (parent, d):  # (the hub's umask is 077) the student's sandbox reaches its cpu.idle
                x.chmod(0o755)
            made.append(d)
            if ctrl == "memory" or v2:
                if self.mem_limit:
                    _write(d / ("memory.max" if v2 else "memory.limit_in_bytes"), str(int(self.mem_limit)))
                if self.mem_guarantee:
                    _write(
                        d / ("memory.low" if v2 else "memory.soft_limit_in_bytes"),
                        str(int(self.mem_guarantee)),
                    )
                if v2 and self.mem_limit and (d / "memory.swap.max").exists():
                    _write(d / "memory.swap.max", "0")
            if ctrl == "cpu" or v2:
                self._scale_cpu_weight(parent, v2)
                self._delegate_idle(d)
                if self.cpu_limit:
                    quota = max(1000, int(self.cpu_limit * CFS_PERIOD_US))
                    if v2:
                        _write(d / "cpu.max", f"{quota} {CFS_PERIOD_US}")
                    else:
                        _write(d / "cpu.cfs_period_us", str(CFS_PERIOD_US))
                        _write(d / "cpu.cfs_quota_us", str(quota))
            if (ctrl == "pids" or v2) and self.pids_limit and (d / "pids.max").exists():
                _write(d / "pids.max", str(int(self.pids_limit)))
        return made

    def _delegate_idle(self, d: Path) -> None:
        """Start the user's cgroup idle (``cpu.idle`` = 1) and let the user write that file
        (nothing else): the kernel extension ``kernel/kmlteach_hub_priority.py`` keeps it
        1 while a cell runs and sets 0 when a cell ends.

        Starting idle makes the server's start-up, the nbgitpuller pull and the kernel's
        imports batch work too (about 4 s of CPU per student, 160 s for a class of 40
        arriving at once): they yield to the widgets of the students already working.
        The student's first finished cell makes the cgroup interactive; before it, the
        student has no widget to move."""
        idle = d / "cpu.idle"
        if not idle.exists():  # Linux < 5.15: no idle cgroups, every cell at normal priority
            return
        _write(idle, "1")
        uid = self._uid()
        if uid is not None and uid != os.geteuid():
            os.chown(idle, uid, -1)

    def _uid(self) -> int | None:
        """The uid the user's server runs as (None: the hub's own, the simple spawner)."""
        if isinstance(self, SimpleLocalProcessSpawner):
            return None
        try:
            return pwd.getpwnam(self.user.name).pw_uid
        except KeyError:
            return None

    @staticmethod
    def _scale_cpu_weight(parent: Path, v2: bool) -> None:
        """Give the students' parent cgroup the CPU weight of one process per student.

        The scheduler weighs a cgroup like one process: with the default weight, every
        student together would get the share of a single process against the rest of
        the machine (on a shared machine under load, a small fraction of a core for the
        whole class). Scaling it by the number of students keeps each student's share
        what it would be without cgroups; the limits stay per user.
        """
        n = max(1, sum(1 for d in parent.iterdir() if d.is_dir()))
        try:
            if v2:
                _write(parent / "cpu.weight", str(min(10000, 100 * n)))
            else:
                _write(parent / "cpu.shares", str(1024 * n))
        except OSError:
            pass

    # ---------------------------------------------------------------------- the stop
    async def _kill_processes(self) -> None:
        """SIGKILL every process left in the user's cgroups (kernels and what they started)."""
        for d in self.cgroup_dirs():
            if not d.exists():
                continue
            for _ in range(50):
                pids = [int(p) for p in (d / "cgroup.procs").read_text().split()]
                if not pids:
                    break
                for pid in pids:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                await asyncio.sleep(0.1)

    async def stop(self, now=False):
        await super().stop(now=now)
        if _TAKEN.get(self.port) == self.user.name:
            del _TAKEN[self.port]
        # kernels and anything they started die with the server's cgroup
        await self._kill_processes()
        for d in self.cgroup_dirs():
            if not d.exists():
                continue
            try:
                d.rmdir()
            except OSError as exc:
                self.log.warning("could not remove cgroup %s: %s", d, exc)
            if (d.parent / ("cpu.weight" if (d.parent / "cpu.weight").exists() else "cpu.shares")).exists():
                self._scale_cpu_weight(d.parent, (d.parent / "cpu.weight").exists())
        # the dead kernels' sockets, the certificates, the sandbox's /etc: once nothing can
        # write there any more
        shutil.rmtree(Path(self.runtime_base) / str(self.user.id), ignore_errors=True)


class LimitedLocalProcessSpawner(CgroupLimits, LocalProcessSpawner):
    """Each user's server runs as that system user, in a cgroup with limits, in its sandbox."""


class LimitedSimpleSpawner(CgroupLimits, SimpleLocalProcessSpawner):
    """Every user's server runs as the hub's own user, in ``/tmp/<user>``, with limits.

    No isolation between users beyond the limits and the sandbox: for the load test and
    demos only.
    """
