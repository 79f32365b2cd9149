"""Limits of one graded submission, the dedicated uid it runs as, and cleaning up after it.

Memory is limited with ``RLIMIT_AS`` (the *address space* of each process of the
submission, not its resident memory): NumPy + Numba + an IPython kernel reserve about
1.4 GB of address space before doing anything, so the default of 3000 MB leaves an
honest submission ample room while a memory bomb gets ``MemoryError``. CPU time
(``RLIMIT_CPU``), file size (``RLIMIT_FSIZE``) and, when the grader runs as root and
can give each running submission its own uid, the number of processes and threads of
that uid (``RLIMIT_NPROC``) are limited too; see ``_launcher.py``.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

__all__ = ["Limits", "uid_slot", "kill_uid", "kill_session", "descendants_count", "UID_BASE"]

UID_BASE = 1_900_000_000
_SLOTS = 256


@dataclass(frozen=True)
class Limits:
    """Per-submission limits (``timeout`` in wall-clock seconds, sizes in MB)."""

    timeout: float = 60.0
    memory_mb: int = 3000
    fsize_mb: int = 64
    nproc: int = 64
    landlock: bool = True
    bwrap: bool = True  # namespaces through bubblewrap, where it runs
    cgroup: bool = True  # a cgroup per submission, where the grader may create one
    cgroup_memory_mb: int = 2000  # memory of the whole submission (its cgroup)
    total: float | None = None  # wall-clock seconds for the whole submission (None: 5 * timeout)

    def __post_init__(self):
        if not self.timeout > 0:
            raise ValueError(f"timeout must be positive, got {self.timeout!r}")
        if self.total is not None and not self.total > 0:
            raise ValueError(f"total must be positive seconds, got {self.total!r}")
        if not isinstance(self.memory_mb, int) or self.memory_mb < 256:
            raise ValueError(f"memory must be an integer of at least 256 MB, got {self.memory_mb!r}")

    @property
    def submission_seconds(self) -> float:
        """Bound on a submission's running time, every kernel and probe together (kernel
        start-ups excepted). The notebook's code runs again in each probe (two per
        exercise), each run allowed ``timeout`` and credited to the exercises' clock; this
        bound keeps a submission that sleeps in every run from taking (2n + 1) timeouts
        (red team 2: 6.7x the timeout), while an honest 5 s set-up run 12 times fits."""
        return float(self.total) if self.total is not None else 5.0 * self.timeout

    @property
    def cpu_seconds(self) -> int:
        return int(self.timeout) + 10


@contextlib.contextmanager
def uid_slot():
    """A uid no other running grading job uses (``None`` when not root: run as ourselves).

    Slots are claimed with ``flock`` on ``<tmp>/kmlteach-grade-slots/<n>``, so parallel
    jobs, several grading runs and Dask workers on one machine never share a uid.
    """
    if os.geteuid() != 0 or not _uid_usable():
        yield None
        return
    base = os.path.join(tempfile.gettempdir(), "kmlteach-grade-slots")
    os.makedirs(base, mode=0o700, exist_ok=True)
    for n in range(_SLOTS):
        fd = os.open(os.path.join(base, str(n)), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue
        try:
            uid = UID_BASE + n
            kill_uid(uid)  # leftovers of a crashed earlier run
            yield uid
        finally:
            os.close(fd)
        return
    raise RuntimeError("no free grading uid slot")


@functools.lru_cache(maxsize=1)
def _uid_usable() -> bool:
    """Can an unprivileged uid run this Python with NumPy, ipykernel and kmlteach?

    Not when the interpreter lives in a private home directory (``/root/.pyenv``): the
    grader then keeps its own uid and relies on Landlock and the session watcher.
    """
    uid = UID_BASE + _SLOTS
    try:
        r = subprocess.run(
            [sys.executable, "-c", "import numpy, ipykernel, kmlteach"],
            user=uid,
            group=uid,
            extra_groups=[],
            cwd="/",
            capture_output=True,
            timeout=60,
            env={k: v for k, v in os.environ.items() if k in ("PATH", "PYTHONPATH")},
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return r.returncode == 0


def _pids_of_uid(uid: int) -> list[int]:
    pids = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                if os.stat(f"/proc/{name}").st_uid == uid:
                    pids.append(int(name))
            except OSError:
                pass
    return pids


def kill_uid(uid: int, attempts: int = 100) -> None:
    """SIGKILL every process of ``uid`` (a helper drops to it and calls ``kill(-1)``)."""
    for _ in range(attempts):
        if not _pids_of_uid(uid):
            return
        pid = os.fork()
        if pid == 0:  # pragma: no cover - child
            try:
                os.setgroups([])
                os.setgid(uid)
                os.setuid(uid)
                os.kill(-1, signal.SIGKILL)
            finally:
                os._exit(0)
        os.waitpid(pid, 0)
        time.sleep(0.01)


def _session_members(sid: int, alive: bool = False) -> list[int]:
    """Processes of the session ``sid`` (with ``alive``: not the zombies, which are dead
    and wait only to be reaped)."""
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", encoding="ascii", errors="replace") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            if int(fields[3]) == sid and not (alive and fields[0] == "Z"):
                out.append(int(name))
        except (OSError, IndexError, ValueError):
            pass
    return out


def kill_session(sid: int | None, timeout: float = 10.0) -> None:
    """SIGKILL the kernel's session (it is a session leader) and what is left in it, until
    none of it is alive. A killed process lives on until the kernel gets to it, which on a
    loaded machine took longer than the fixed 0.5 s this once allowed (CI saw two
    survivors); the wait is bounded by ``timeout`` seconds instead."""
    if not sid:
        return
    deadline = time.monotonic() + timeout
    while True:
        members = _session_members(sid, alive=True)
        if not members:
            return
        for pid in members:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        if time.monotonic() > deadline:
            break
        time.sleep(0.01)
    with contextlib.suppress(OSError):
        os.killpg(sid, signal.SIGKILL)


def _descendants(pid: int) -> list[int] | None:
    """Every descendant of ``pid``, from the ``/proc/<pid>/task/<tid>/children`` lists
    (``None`` where the kernel does not provide them)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        try:
            tids = os.listdir(f"/proc/{p}/task")
        except OSError:
            continue
        for tid in tids:
            try:
                with open(f"/proc/{p}/task/{tid}/children", "rb") as fh:
                    kids = [int(k) for k in fh.read().split()]
            except FileNotFoundError:
                if p == pid:
                    return None
                continue
            except (OSError, ValueError):
                continue
            out += kids
            todo += kids
    return out


def descendants_count(pid: int | None) -> int:
    """Number of tasks (processes and threads) below ``pid`` (the kernel's first
    process), however they forked: a ``setsid`` child stays below it (inside bubblewrap below the namespace's
    first process; otherwise orphans come back to this process, the subreaper, and are
    killed when the kernel is cleaned up, see :func:`reap_orphans`)."""
    if not pid:
        return 0
    kin = _descendants(pid)
    if kin is None:
        return len(_session_members(pid))
    # tasks, not processes, as a cgroup's pids.max counts them: threads too (red team 4 ran
    # 5000 threads as an ordinary user, whose grader has no cgroup)
    n = 0
    for p in kin:
        try:
            n += len(os.listdir(f"/proc/{p}/task"))
        except OSError:
            continue
    return n


def _sid_of(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
            return int(fh.read().rsplit(")", 1)[1].split()[3])
    except (OSError, IndexError, ValueError):
        return None


def session_size(sid: int | None) -> int:
    """Number of processes in the session ``sid`` (the kernel's).

    Polled every 50 ms while a cell runs, so it reads only this process's descendants
    when it can: the kernel is our child, and we are the subreaper of whatever it forks,
    so every member of its session is one. Reading every ``/proc/<pid>/stat`` of the
    machine took 5-10 ms a scan on a machine with 100 processes, a core's tenth per job.
    """
    if not sid:
        return 0
    kin = _descendants(os.getpid()) if _SUBREAPER else None
    if kin is None:
        return len(_session_members(sid))
    return sum(_sid_of(p) == sid for p in kin)


_PR_SET_CHILD_SUBREAPER = 36
_SUBREAPER: list = []  # non-empty once this process adopts its orphaned descendants


def become_subreaper() -> bool:
    """Make this process adopt orphaned descendants (a submission's escaped daemons)."""
    import ctypes

    try:
        ok = ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False
    if ok and not _SUBREAPER:
        _SUBREAPER.append(True)
    return ok


def reap_orphans(live: set[int]) -> int:
    """SIGKILL and reap our sandboxed children that are not live kernels; how many."""
    me, n = os.getpid(), 0
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) in live:
            continue
        try:
            with open(f"/proc/{name}/status", encoding="ascii", errors="replace") as fh:
                st = dict(line.split(":", 1) for line in fh if ":" in line)
        except OSError:
            continue
        if int(st.get("PPid", "0").strip() or 0) == me and st.get("NoNewPrivs", "").strip() == "1":
            with contextlib.suppress(OSError):
                os.kill(int(name), signal.SIGKILL)
            with contextlib.suppress(OSError):
                os.waitpid(int(name), 0)
            n += 1
    return n
