"""Ending a submission's processes, grader-side, all in one place (the kernel's own reaper,
which ends what a probe's child leaves, runs inside the kernel: ``inkernel/reaping.py``).

A kernel's processes are found four ways, each where the others may miss: its cgroup's
``cgroup.procs`` (:func:`kill_listed`), its session (the kernel is a session leader:
:func:`kill_session`), its dedicated uid (:func:`kill_uid`), and, for what escaped the
session (``setsid``) and would be orphaned, this process as their subreaper
(:func:`become_subreaper`, :func:`reap_orphans`). :func:`end_kernel` applies them in order
when a kernel is done (the last, the sweep of orphans, waits while a kernel is being
started: :func:`starting`); :func:`descendants_count` counts its tasks while it runs (where no
cgroup does).
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time

from .launcher import CHILDREN_LISTS, children, reap_trees, stop_and_kill

__all__ = [
    "kill_listed",
    "kill_uid",
    "kill_session",
    "kill_tree",
    "descendants_count",
    "session_size",
    "become_subreaper",
    "reap_orphans",
    "end_kernel",
    "starting",
    "LIVE_KERNELS",
]

LIVE_KERNELS: set[int] = set()  # session ids of this process's running kernels
# Kernels being started: from its launch until it is in LIVE_KERNELS, a kernel's first
# process (bwrap's, or the launcher's without bwrap) is our child with no_new_privs and not
# listed, so reap_orphans would take it for an orphan. With --jobs 2 (asyncio tasks of one
# process), one job's kernel ending while the other's started killed the starting one ("the
# kernel did not start", retried; once in a make test of 2026-12-07, in the new state-file
# diagnostics). While any starts, the sweep of orphans waits for the last start's end (see
# :func:`starting`); the sweep runs under the lock, so no start (another thread's: Dask runs
# graders' loops in threads of one process) begins while it scans.
_START = {"starting": 0, "deferred": False}
_START_LOCK = threading.Lock()


def kill_listed(pids, timeout: float = 10.0) -> None:
    """SIGKILL every process ``pids()`` lists until it lists none (or ``timeout`` seconds)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        left = pids()
        if not left:
            return
        for p in left:
            with contextlib.suppress(OSError):
                os.kill(p, signal.SIGKILL)
        time.sleep(0.01)


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


def kill_tree(proc) -> int:
    """A kernel's first process (``proc``, our child: its ``Popen``) and every process
    below it stopped whole, then killed (:func:`.launcher.stop_and_kill`); how many. Before
    its session: a process that left the session (``setsid``) is still below the kernel, a
    subreaper, while the kernel lives. Red team of 2026-12-07, as an ordinary user without
    bwrap: three exec'd "hoppers" (each forks and exits in a loop, in a session of its own)
    outlived the kill of the kernel's session, came to the grader and left it a zombie a
    hop until the sweep of orphans: 16 750 processes of the user in 4 s. Nothing where
    ``proc`` has been reaped (its pid may be another process's now; what was below it came
    to us, :func:`reap_orphans` ends it)."""
    if proc is None or proc.poll() is not None:
        return 0
    return len(stop_and_kill(lambda: [proc.pid]))


def _descendants(pid: int) -> list[int] | None:
    """Every descendant of ``pid``, from the ``/proc/<pid>/task/<tid>/children`` lists
    (``None`` where the kernel does not provide them)."""
    if not CHILDREN_LISTS:
        return None
    out, todo = [], [pid]
    while todo:
        kids = children(todo.pop())
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


def _orphans(live: set[int]) -> list[int]:
    """Our children with no_new_privs (sandboxed) that are not live kernels, zombies too."""
    out = []
    for pid in children(os.getpid()):
        if pid in live:
            continue
        try:
            with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as fh:
                if any(line.split() == ["NoNewPrivs:", "1"] for line in fh):
                    out.append(pid)
        except OSError:
            continue
    return out


def reap_orphans(live: set[int], timeout: float = 10.0) -> int:
    """Stop, SIGKILL and reap our sandboxed children that are not live kernels, and all
    below them (:func:`.launcher.stop_and_kill`), until none is left (or ``timeout``
    seconds); how many processes.

    Red team of 2026-12-07, as an ordinary user without bwrap, where a probe's child had
    killed its kernel: a "hopper" (a process that forks and lets its parent exit, over and
    over) had moved to a new pid by the time its old one was killed, and outlived the one
    scan this once made; a "ladder" (a chain of processes regrowing below as its top is
    cut) lost one rung a scan and outlived scans repeated for 10 s. Each tree is now stopped
    whole before anything in it is killed. tests/test_grade_reaping.py plays both."""
    return reap_trees(lambda: _orphans(live), timeout)


def end_kernel(proc, sid: int | None, uid: int | None, cgroup, bwrap: bool) -> str:
    """Every process of a kernel that is done killed and reaped: bwrap's own process (its
    namespace, and all in it, ends with it), the kernel's uid, its cgroup (then removed), its
    session (its tree was stopped and killed first, by ``SandboxKernel.__aexit__``:
    :func:`kill_tree`); then whatever this process adopted that is no live kernel (at once,
    or at the end of the kernel starts under way: :func:`starting`).
    Returns a line for the instructor's state file where that sweep ran to its limit with
    orphans left, else ``""``."""
    if proc is not None and bwrap:
        with contextlib.suppress(Exception):
            proc.kill()
    if uid is not None:
        kill_uid(uid)
    if cgroup is not None:
        cgroup.remove()
    kill_session(sid)
    if proc is not None:
        with contextlib.suppress(Exception):
            proc.wait(timeout=2)
    LIVE_KERNELS.discard(sid)
    with _START_LOCK:
        if _START["starting"]:
            _START["deferred"] = True
            return ""
        t = time.monotonic()
        reap_orphans(LIVE_KERNELS)
        left = len(_orphans(LIVE_KERNELS))
    if left:
        what = "a process" if left == 1 else f"{left} processes"
        return f"the sweep of orphans ran {time.monotonic() - t:.1f} s and left {what} alive"
    return ""


@contextlib.contextmanager
def starting():
    """Around a kernel's launch until its process is added to ``LIVE_KERNELS``: meanwhile
    :func:`end_kernel` leaves the sweep of orphans to the end of the last start under way
    (then every kernel that started is listed; one whose start failed is swept, as it
    would have been)."""
    with _START_LOCK:
        _START["starting"] += 1
    try:
        yield
    finally:
        with _START_LOCK:
            _START["starting"] -= 1
            if _START["starting"] == 0 and _START["deferred"]:
                _START["deferred"] = False
                reap_orphans(LIVE_KERNELS)
