"""A cgroup per submission, where the grader may create one: at most ``Limits.nproc``
processes (and threads) and ``Limits.cgroup_memory_mb`` of memory for the whole submission
(v2, or v1's ``pids`` and ``memory`` controllers); ``cgroup.procs`` names every process
left to kill (:mod:`.reaping` kills them). Grading runs that died leave theirs behind:
the first :func:`cgroup_problem` of a run sweeps them away.
"""

from __future__ import annotations

import contextlib
import functools
import os
import secrets
import time

from .reaping import kill_listed

__all__ = ["Cgroup", "cgroup_problem", "sweep_stale"]

_CGROUP = "/sys/fs/cgroup"


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
        kill_listed(self.pids, timeout)

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
