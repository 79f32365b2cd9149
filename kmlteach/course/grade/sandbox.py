"""The isolation layers around a grading kernel that need help from outside the kernel:
bubblewrap's namespaces and cgroup limits; and the line ``grade`` prints about them.

* **bubblewrap** (``bwrap``, Debian's ``bubblewrap``): the kernel runs in new PID, IPC,
  network, mount and UTS namespaces (and a user namespace when bwrap needs one), with no
  capabilities and ``no_new_privs``; its file system holds only the system and Python
  folders, read-only, minus the grader's own files (``kmlteach/exercises``,
  ``kmlteach/course``, the submissions, the gradebook, the secret: empty there), a
  private ``/tmp``, ``/dev`` and ``/proc``, and its scratch folder, the one writable
  place, where the Unix sockets it talks to the grader over live (Jupyter's ``ipc``
  transport: its network namespace stays empty). Ending the namespace's first process
  ends every process of the submission, however it forked.
* **cgroups** (v2, or v1's ``pids`` and ``memory`` controllers) where the grader may
  create one: at most ``Limits.nproc`` processes and ``Limits.cgroup_memory_mb`` of
  memory for the whole submission; ``cgroup.procs`` names every process left to kill.

Pattern taken from bubblewrap's own ``demos/bubblewrap-shell.sh`` and Flatpak's use of it
(``--ro-bind`` of the runtime, ``--tmpfs`` over what must not be seen, ``--die-with-parent``).
"""

from __future__ import annotations

import contextlib
import functools
import os
import secrets
import shutil
import signal
import subprocess
import time

__all__ = [
    "bwrap_path",
    "bwrap_argv",
    "bwrap_problem",
    "Cgroup",
    "cgroup_problem",
    "describe",
    "root_kernel_problem",
]

_CGROUP = "/sys/fs/cgroup"


def bwrap_path() -> str | None:
    return shutil.which("bwrap")


SHM_BYTES = 64 * 2**20  # the sandbox's /dev/shm
TMP_BYTES = 256 * 2**20  # its /tmp: where a probe's child may write files (cwd, caches)


@functools.lru_cache(maxsize=1)
def _bwrap_help() -> str:
    try:
        out = subprocess.run([bwrap_path() or "bwrap", "--help"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return ""
    return out.stdout + out.stderr


def _tmpfs_size() -> bool:
    """Whether this bwrap takes ``--size`` for a tmpfs (bwrap >= 0.7)."""
    return "--size" in _bwrap_help()


def disables_userns() -> bool:
    """Whether this bwrap can forbid user namespaces inside the sandbox (bwrap >= 0.8): a
    kernel could otherwise make one and be root in it (red team 3)."""
    return "--disable-userns" in _bwrap_help()


def _needs_userns() -> bool:
    """As root, bwrap is asked for a user namespace too: the kernel's uid 0 then has no
    capability outside it (and none inside either, after ``--cap-drop ALL``)."""
    return os.geteuid() == 0


def _inside(path: str, parent: str) -> bool:
    return path == parent or path.startswith(parent.rstrip("/") + "/")


def bwrap_argv(
    scratch: str | None, read_roots, hidden, extra_ro=(), uid_inside: int | None = None
) -> list[str]:
    """The ``bwrap`` command line (up to ``--``) for a kernel whose only writable folder is
    ``scratch``; ``hidden`` paths inside a read root are replaced by empty ones."""
    argv = [
        bwrap_path() or "bwrap",
        "--unshare-all",
        "--die-with-parent",
        "--new-session",
        "--cap-drop",
        "ALL",
        "--hostname",
        "kmlteach-grade",
    ]
    if _needs_userns():
        argv += ["--unshare-user", "--uid", str(uid_inside or 65534), "--gid", str(uid_inside or 65534)]
    if disables_userns():  # no namespace of its own below ours (needs one of ours to set it)
        argv += [] if _needs_userns() else ["--unshare-user"]
        argv += ["--disable-userns"]
    # the private /dev, /proc and /tmp first: a read root or the scratch folder below /tmp (a
    # venv or a checkout in /tmp, as in a CI clone) is then bound on top of the empty /tmp
    # sized (bwrap >= 0.7): a tmpfs is memory, and an ordinary user's grader has no cgroup to
    # charge it to (red team 2 filled 2.6 GB of the host's RAM through /dev/shm); the
    # probe's child may write nowhere else (_kernel_lock._confine_writes)
    shm, tmp = (["--size", str(SHM_BYTES)], ["--size", str(TMP_BYTES)]) if _tmpfs_size() else ([], [])
    argv += ["--dev", "/dev", "--perms", "1777", *shm, "--tmpfs", "/dev/shm", "--proc", "/proc"]
    argv += ["--perms", "1777", *tmp, "--tmpfs", "/tmp"]
    roots = sorted(
        {os.path.realpath(r) for r in read_roots if r not in ("/dev", "/proc", "/tmp") and os.path.exists(r)},
        key=len,
    )
    roots = [r for i, r in enumerate(roots) if not any(_inside(r, q) for q in roots[:i])]
    for r in roots:
        argv += ["--ro-bind", r, r]
    for link in ("/bin", "/sbin", "/lib", "/lib64", "/lib32"):  # merged-/usr symlinks
        if os.path.islink(link) and link not in roots:
            argv += ["--symlink", os.readlink(link), link]
    for h in sorted({os.path.realpath(p) for p in hidden}, key=len):
        if any(_inside(h, r) for r in roots) and os.path.exists(h):
            argv += ["--tmpfs", h] if os.path.isdir(h) else ["--ro-bind", "/dev/null", h]
    for p in extra_ro:
        argv += ["--ro-bind", p, p]
    if scratch is not None:
        argv += ["--bind", scratch, scratch, "--chdir", scratch]
    return argv


@functools.lru_cache(maxsize=1)
def bwrap_problem() -> str | None:
    """``None`` when bwrap runs a command in its namespaces here, else why not (one line)."""
    if not bwrap_path():
        return "bwrap not found (install Debian's bubblewrap)"
    import sys

    argv = bwrap_argv(None, ["/usr", "/etc", sys.prefix, sys.base_prefix], []) + [
        "--",
        os.path.abspath(sys.executable),
        "-I",
        "-S",
        "-c",
        "import os; assert os.getpid() == 2",
    ]
    try:
        r = subprocess.run(argv, capture_output=True, timeout=30, cwd="/")
    except (OSError, subprocess.SubprocessError) as exc:
        return f"bwrap does not run ({exc})"
    if r.returncode != 0:
        err = r.stderr.decode("utf-8", "replace").strip().splitlines()
        return f"bwrap does not run here ({err[-1] if err else r.returncode})"
    return None


# ---------------------------------------------------------------- cgroups


def _own_path(controller: str) -> str | None:
    """This process's cgroup path in the v1 hierarchy of ``controller`` ("" for v2)."""
    try:
        with open("/proc/self/cgroup", encoding="utf-8") as fh:
            for line in fh:
                hid, ctrls, path = line.rstrip("\n").split(":", 2)
                if controller in ctrls.split(","):
                    return path
                if controller == "" and hid == "0":
                    return path
    except OSError:
        return None
    return None


def _write(path: str, text: str) -> None:
    with open(path, "w", encoding="ascii") as fh:
        fh.write(text)


def _read(path: str) -> str:
    try:
        with open(path, encoding="ascii", errors="replace") as fh:
            return fh.read()
    except OSError:
        return ""


class Cgroup:
    """One submission's cgroup(s): ``procs`` (files to write the kernel's pid to),
    ``kill()`` its every process, ``events()``, ``remove()``."""

    def __init__(self, version: int, dirs: dict):
        self.version, self.dirs = version, dirs

    @property
    def procs(self) -> list[str]:
        return [os.path.join(d, "cgroup.procs") for d in dict.fromkeys(self.dirs.values())]

    @classmethod
    def create(cls, nproc: int, memory_mb: int) -> Cgroup:
        """Raise ``OSError`` when the grader may not make one here."""
        name = f"kmlteach-grade-{os.getpid()}-{secrets.token_hex(4)}"
        mem = str(memory_mb * 1024 * 1024)
        v1 = {c: _own_path(c) for c in ("pids", "memory")}
        if all(p is not None for p in v1.values()) and os.path.isdir(f"{_CGROUP}/pids"):
            made = {}
            try:
                for c, own in v1.items():
                    d = os.path.join(_CGROUP, c, own.lstrip("/"), name)
                    os.mkdir(d)
                    made[c] = d
                _write(f"{made['pids']}/pids.max", str(nproc))
                _write(f"{made['memory']}/memory.limit_in_bytes", mem)
                with contextlib.suppress(OSError):
                    _write(f"{made['memory']}/memory.memsw.limit_in_bytes", mem)
            except OSError:
                for d in made.values():
                    with contextlib.suppress(OSError):
                        os.rmdir(d)
                raise
            return cls(1, made)
        own = _own_path("")
        base = os.path.join(_CGROUP, (own or "/").lstrip("/"))
        if own is None or not {"pids", "memory"} <= set(_read(f"{base}/cgroup.subtree_control").split()):
            raise OSError("no cgroup v2 with the pids and memory controllers delegated here")
        d = os.path.join(base, name)
        os.mkdir(d)
        try:
            _write(f"{d}/pids.max", str(nproc))
            _write(f"{d}/memory.max", mem)
            with contextlib.suppress(OSError):
                _write(f"{d}/memory.swap.max", "0")
        except OSError:
            os.rmdir(d)
            raise
        return cls(2, {"pids": d, "memory": d})

    def pids(self) -> list[int]:
        out = set()
        for f in self.procs:
            out |= {int(p) for p in _read(f).split() if p.isdigit()}
        return sorted(out)

    def events(self) -> tuple[bool, bool]:
        """(a fork was refused by pids.max, the memory limit was hit)."""
        pe = dict(
            line.split()
            for line in _read(f"{self.dirs['pids']}/pids.events").splitlines()
            if len(line.split()) == 2
        )
        forks = int(pe.get("max", "0") or 0) > 0
        if self.version == 1:
            mem = int(_read(f"{self.dirs['memory']}/memory.failcnt") or 0) > 0
        else:
            me = dict(
                line.split()
                for line in _read(f"{self.dirs['memory']}/memory.events").splitlines()
                if len(line.split()) == 2
            )
            mem = int(me.get("oom_kill", "0") or 0) > 0 or int(me.get("max", "0") or 0) > 0
        return forks, mem

    def kill(self, timeout: float = 10.0) -> None:
        if self.version == 2 and os.path.exists(f"{self.dirs['pids']}/cgroup.kill"):
            with contextlib.suppress(OSError):
                _write(f"{self.dirs['pids']}/cgroup.kill", "1")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            left = self.pids()
            if not left:
                return
            for p in left:
                with contextlib.suppress(OSError):
                    os.kill(p, signal.SIGKILL)
            time.sleep(0.01)

    def remove(self) -> None:
        self.kill()
        for d in dict.fromkeys(self.dirs.values()):
            for _ in range(100):
                try:
                    os.rmdir(d)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.02)


def sweep_stale() -> int:
    """Remove the cgroups of grading runs that died (``kmlteach-grade-<pid>-*`` with
    ``<pid>`` gone), killing what is left in them; how many."""
    import glob

    n = 0
    for c in ("pids", "memory", ""):
        own = _own_path(c)
        if own is None:
            continue
        for d in glob.glob(os.path.join(_CGROUP, c, own.lstrip("/"), "kmlteach-grade-*-*")):
            pid = os.path.basename(d).split("-")[2]
            if pid.isdigit() and not os.path.exists(f"/proc/{pid}"):
                Cgroup(1 if c else 2, {"pids": d, "memory": d}).remove()
                n += 1
    return n


@functools.lru_cache(maxsize=1)
def cgroup_problem() -> str | None:
    """``None`` when the grader can make a cgroup with pids and memory limits here (the
    first call also sweeps away the cgroups of grading runs that died)."""
    with contextlib.suppress(OSError):
        sweep_stale()
    try:
        Cgroup.create(64, 256).remove()
    except OSError as exc:
        return f"cgroup: unavailable ({exc.strerror or exc})"
    return None


def root_kernel_problem(limits, uid_usable: bool) -> str | None:
    """Why a root grader would run kernels with root's capabilities (``None``: it will not)."""
    if os.geteuid() != 0:
        return None
    if limits.bwrap and bwrap_problem() is None:
        return None
    if uid_usable:
        return None
    why = "--no-bwrap was given" if not limits.bwrap else bwrap_problem()
    return (
        "refusing to grade as root: kernels would keep root's capabilities (no unprivileged "
        f"uid can run this Python, and {why}); install bubblewrap, run as an ordinary user, "
        "or pass --unsafe-allow-root-kernels"
    )


def describe(limits, uid_usable: bool, landlock: str) -> str:
    """The isolation line printed at the start of ``grade``."""
    parts = []
    if limits.bwrap and bwrap_problem() is None:
        who = (
            "user namespace"
            if _needs_userns() and not uid_usable
            else "unprivileged uid, user namespace"
            if os.geteuid() == 0
            else "user namespace"
        )
        nested = ", none nested" if disables_userns() else ""
        parts.append(f"bwrap (pid ipc net mount uts namespaces, {who}{nested}, no capabilities)")
    else:
        why = "off" if not limits.bwrap else bwrap_problem()
        uid = (
            "unprivileged uid"
            if os.geteuid() == 0 and uid_usable
            else "ROOT kernels"
            if os.geteuid() == 0
            else "the grader's uid"
        )
        parts.append(f"no namespaces (bwrap: {why}; {uid}, session watcher)")
    parts.append(landlock)
    if limits.cgroup and cgroup_problem() is None:
        parts.append(f"cgroup pids<={limits.nproc} memory<={limits.cgroup_memory_mb} MB")
    else:
        parts.append("cgroup: off" if not limits.cgroup else cgroup_problem())
    parts.append(f"rlimits (address space {limits.memory_mb} MB per process, CPU, file size)")
    return "sandbox: " + ", ".join(parts)
