"""A private world for each student's server on the single-machine hub (issue 35).

Used by ``limits_spawner.py``; everything here is a function of a few paths, so the
tests can check it piece by piece.

* :func:`bwrap_argv` — the server (and so its kernels, terminals, pulls) starts in a
  mount, PID, IPC and UTS namespace of its own through bubblewrap, as the student, with
  no capability and no way to make further user namespaces. It sees an **allowlist**,
  not the machine read-only: the operating system's programs and libraries (``/usr``
  without ``/usr/local``), the students' environment (``python -m kmlteach hub-env``),
  a few files of ``/etc`` (:data:`ETC_FILES`, with ``passwd``, ``group`` and
  ``nsswitch.conf`` written for this student alone: :func:`write_etc`), the student's
  home, the student's runtime folder (kernel sockets) and certificates, the CPU cgroup
  file the kernel extension writes, a new ``/proc`` of its own processes, a minimal
  ``/dev``, and its own empty ``/tmp`` and ``/dev/shm``. Absent: the other homes, the
  hub's state (database, cookie secret, certificates), the instructor's checkout and
  venv, ``/root``, ``/opt``, ``/srv``, ``/var``, ``/run``, the other students' processes.
* :class:`PortLock` — Landlock (Linux >= 6.7, ABI 4) on the server and everything it
  starts: binding any chosen TCP port but the server's own is refused (port 0 stays
  allowed: the kernel then picks a free port of the ephemeral range, above the servers'
  range), so no student process can take a classmate's server port first; from
  ABI 6 its processes can neither signal processes outside their sandbox nor connect to
  abstract Unix sockets made outside it. With it, the seccomp filter of
  ``server/kmlteach_hub_guard.py``: no MPTCP socket (Landlock's port rules do not apply
  to MPTCP), no io_uring, no ``prlimit`` of another process.
* :func:`port_listeners` / :func:`socket_holders` — who listens on a port (``/proc``):
  the spawner routes a student to a port only once the student's own server listens
  there, and starts the server again on another port when someone else holds it.
"""

from __future__ import annotations

import ctypes
import grp
import importlib.util
import os
import pwd
import shutil
from pathlib import Path

__all__ = [
    "BWRAP",
    "ETC_FILES",
    "PortLock",
    "bwrap_argv",
    "landlock_abi",
    "port_listeners",
    "socket_holders",
    "write_etc",
]

BWRAP = shutil.which("bwrap") or "/usr/bin/bwrap"
# What a server needs of the host's /etc (read-only; absent ones are skipped): name
# resolution, the dynamic linker's cache, the time zone, TLS roots (nbgitpuller's https
# clone, the internal certificates' OpenSSL), MIME types, the programs' alternatives
# (/usr/bin/pager, awk, ... are links into it), the terminal's shell start-up, fontconfig.
ETC_FILES = (
    "hosts",
    "resolv.conf",
    "ld.so.cache",
    "localtime",
    "ssl/certs",
    "ssl/openssl.cnf",
    "mime.types",
    "alternatives",
    "bash.bashrc",
    "profile",
    "inputrc",
    "fonts",
)
# written for each student (write_etc)
OWN_ETC = ("passwd", "group", "nsswitch.conf")


def write_etc(folder: Path, pw: pwd.struct_passwd) -> Path:
    """``passwd``, ``group`` and ``nsswitch.conf`` naming root, nobody and the user of
    passwd entry ``pw`` (and that user's groups) only, in ``folder`` (made if missing;
    files 0644)."""
    user = pw.pw_name
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o755)  # (the hub's umask is 077) the student's sandbox reads it
    users = {0: "root:x:0:0:root:/root:/usr/sbin/nologin"}
    users[65534] = "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin"
    users[pw.pw_uid] = ":".join(
        [pw.pw_name, "x", str(pw.pw_uid), str(pw.pw_gid), "", pw.pw_dir, pw.pw_shell or "/bin/sh"]
    )
    groups = {0: "root:x:0:", 65534: "nogroup:x:65534:"}
    for gid in os.getgrouplist(user, pw.pw_gid):
        try:
            name = grp.getgrgid(gid).gr_name
        except KeyError:
            continue
        groups[gid] = f"{name}:x:{gid}:{'' if gid == pw.pw_gid else user}"
    files = {
        "passwd": "\n".join(users[k] for k in sorted(users)) + "\n",
        "group": "\n".join(groups[k] for k in sorted(groups)) + "\n",
        "nsswitch.conf": "passwd: files\ngroup: files\nshadow: files\nhosts: files dns\n",
    }
    for name, text in files.items():
        (folder / name).write_text(text)
        (folder / name).chmod(0o644)
    return folder


def _top_level(name: str) -> list[str]:
    """How the sandbox gets ``/<name>`` (bin, lib, ...): the same symlink as the host's
    (merged /usr), or a read-only bind."""
    p = Path("/") / name
    if p.is_symlink():
        return ["--symlink", os.readlink(p), str(p)]
    if p.is_dir():
        return ["--ro-bind", str(p), str(p)]
    return []


def bwrap_argv(
    *,
    home: str,
    hub_env: str,
    runtime_dir: str,
    certs_dir: str | None,
    etc_dir: str,
    cgroup_dirs: list[str] = (),
    python_prefix: str | None = None,
    bwrap: str = BWRAP,
) -> list[str]:
    """The bubblewrap command line that runs a server in its own world (module doc);
    the server's own command line follows it."""
    argv = [bwrap, "--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--disable-userns"]
    argv += ["--die-with-parent", "--new-session", "--cap-drop", "ALL"]
    argv += ["--ro-bind", "/usr", "/usr"]
    if Path("/usr/local").is_dir():
        argv += ["--tmpfs", "/usr/local"]  # site tools of the machine's admins: not the students'
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        argv += _top_level(name)
    if python_prefix:  # an interpreter installed outside /usr (or in the hidden /usr/local)
        prefix = Path(python_prefix).resolve()
        if not prefix.is_relative_to("/usr") or prefix.is_relative_to("/usr/local"):
            argv += ["--ro-bind", str(prefix), str(prefix)]
    argv += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/dev/shm", "--tmpfs", "/tmp"]
    argv += ["--dir", "/etc"]
    for name in ETC_FILES:
        argv += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    for name in OWN_ETC:
        argv += ["--ro-bind", f"{etc_dir}/{name}", f"/etc/{name}"]
    argv += ["--ro-bind-try", "/sys/devices/system/cpu", "/sys/devices/system/cpu"]
    for d in cgroup_dirs:  # the student's cpu.idle (kernel/kmlteach_hub_priority.py); root owns the rest
        argv += ["--bind", d, d]
    argv += ["--ro-bind", hub_env, hub_env]
    argv += ["--bind", runtime_dir, runtime_dir]
    if certs_dir:
        argv += ["--ro-bind", certs_dir, certs_dir]
    argv += ["--bind", home, home, "--chdir", home]
    return argv


# ------------------------------------------------------------------------------ Landlock
_ACCESS_NET_BIND_TCP = 1
_SCOPE_ABSTRACT_UNIX_SOCKET, _SCOPE_SIGNAL = 1, 2


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _NetPortAttr(ctypes.Structure):
    _fields_ = [("allowed_access", ctypes.c_uint64), ("port", ctypes.c_uint64)]


def _load_guard():
    """``server/kmlteach_hub_guard.py`` (the students' environment has it as a module of its
    own): its ``restrict_self`` applies the servers' Landlock rules too."""
    path = Path(__file__).resolve().parent / "server" / "kmlteach_hub_guard.py"
    spec = importlib.util.spec_from_file_location("kmlteach_hub_guard", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_guard = _load_guard()


landlock_abi = _guard.landlock_abi  # the kernel's Landlock ABI version (0: none)


class PortLock:
    """Landlock rules for a server listening on ``port`` (module doc). Built in the hub;
    :meth:`apply` runs in the forked child before it executes bubblewrap (only system
    calls there: everything is prepared here)."""

    def __init__(self, port: int, abi: int | None = None):
        self.abi = landlock_abi() if abi is None else abi
        self.port = port
        scoped = _SCOPE_ABSTRACT_UNIX_SOCKET | _SCOPE_SIGNAL if self.abi >= 6 else 0
        self._attr = _RulesetAttr(0, _ACCESS_NET_BIND_TCP, scoped)
        self._size = ctypes.sizeof(_RulesetAttr) if self.abi >= 6 else 16
        # its own port, and port 0: the kernel then picks one of the ephemeral range (above
        # the servers' ports), as ipykernel's pipe for subprocesses' output does
        self._rules = [_NetPortAttr(_ACCESS_NET_BIND_TCP, port), _NetPortAttr(_ACCESS_NET_BIND_TCP, 0)]
        # and the guard's seccomp filter: no MPTCP socket (Landlock's port rules do not see
        # them), no io_uring, no prlimit of another process (red team H12, H14)
        self._filter = _guard.filter_program()

    @property
    def enforced(self) -> bool:
        return self.abi >= 4

    def describe(self) -> str:
        if not self.enforced:
            return f"Landlock ABI {self.abi}: no TCP port rules on this kernel (needs Linux >= 6.7)"
        extra = ", no signals or abstract sockets out of the sandbox" if self.abi >= 6 else ""
        return f"binds TCP port {self.port} and ephemeral ports only{extra}"

    def apply(self) -> None:
        """Restrict the calling process and its future children (raises OSError)."""
        if self._filter is not None:
            _guard.install_filter(self._filter)
        if not self.enforced:
            return
        _guard.restrict_self(self._attr, self._size, self._rules)


# --------------------------------------------------------------------- who holds a port
_LISTEN = "0A"
_ANY_OR_LOOPBACK4 = {"00000000", "0100007F"}  # 0.0.0.0, 127.0.0.1 (little-endian hex)
_ANY_OR_LOOPBACK6 = {"0" * 32, "0000000000000000FFFF00000100007F"}  # ::, ::ffff:127.0.0.1


def port_listeners(port: int, proc: Path = Path("/proc")) -> set[int]:
    """Socket inodes listening on TCP ``port`` at an address a server on 127.0.0.1:port
    would collide with (0.0.0.0, 127.0.0.1, ::, ::ffff:127.0.0.1)."""
    want = f":{port:04X}"
    found = set()
    for name, addrs in (("tcp", _ANY_OR_LOOPBACK4), ("tcp6", _ANY_OR_LOOPBACK6)):
        try:
            lines = (proc / "net" / name).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            if want not in line:
                continue
            f = line.split()
            addr, _, hexport = f[1].partition(":")
            if f[3] == _LISTEN and int(hexport, 16) == port and addr.upper() in addrs:
                found.add(int(f[9]))
    return found


def socket_holders(inodes: set[int], pids, proc: Path = Path("/proc")) -> set[int]:
    """The processes among ``pids`` holding one of the sockets ``inodes``."""
    want = {f"socket:[{i}]" for i in inodes}
    out = set()
    for pid in pids:
        fds = proc / str(pid) / "fd"
        try:
            names = os.listdir(fds)
        except OSError:
            continue
        for fd in names:
            try:
                if os.readlink(fds / fd) in want:
                    out.add(pid)
                    break
            except OSError:
                continue
    return out
