"""Which isolation layers a grading run uses, decided once per process, and the one line
``grade`` prints about them (the banner).

* bubblewrap where it runs (:mod:`.bwrap`); for a root grader without a user namespace
  when a dedicated uid can run the interpreter in the sandbox, so that the kernel is that
  uid on the host, not root;
* a dedicated uid per kernel for a root grader (:mod:`.uids`), with or without bwrap;
* Linux Landlock from the file-access policy (:mod:`.policy`, :mod:`.launcher`) and a
  seccomp filter against new user namespaces and outgoing sockets (``connect``);
* a cgroup per submission where the grader may make one (:mod:`.cgroup`);
* resource limits always (:class:`..limits.Limits`).

A root grader whose kernels would be root on the host without namespaces (no bwrap, no
uid able to run the interpreter) refuses to grade unless told otherwise (:meth:`Isolation.refusal`).
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass

from .bwrap import bwrap_problem, disables_userns
from .cgroup import cgroup_problem
from .launcher import landlock_abi
from .uids import runs_in_sandbox, runs_on_host

__all__ = ["Isolation", "detect"]


@dataclass(frozen=True)
class Isolation:
    """The layers of this process's kernels (see the module docstring)."""

    bwrap: bool  # bubblewrap's namespaces
    userns: bool  # ... with a user namespace (False: a root grader's dedicated uid on the host)
    dedicated_uid: bool  # each kernel runs as a uid of its own
    root_kernels: bool  # the kernel's uid on the host is root (no uid could run the interpreter)
    landlock: int  # Landlock ABI applied (0: off or unavailable)
    cgroup: bool
    why_not_bwrap: str | None = None
    why_not_cgroup: str | None = None
    landlock_off: bool = False

    def refusal(self) -> str | None:
        """Why a root grader refuses to grade (``None``: it will): its kernels would be root on
        the host with no namespace around them."""
        if not self.root_kernels or self.bwrap:
            return None
        return (
            "refusing to grade as root: kernels would keep root's capabilities (no unprivileged "
            f"uid can run this Python, and {self.why_not_bwrap}); install bubblewrap, run as an "
            "ordinary user, or pass --unsafe-allow-root-kernels"
        )

    def banner(self, limits) -> str:
        """The isolation line printed at the start of ``grade``."""
        parts = []
        uid = (
            "a dedicated uid per kernel"
            if self.dedicated_uid
            else "ROOT kernels"
            if self.root_kernels and not self.bwrap
            else "root on the host in a user namespace"
            if self.root_kernels
            else "the grader's uid"
        )
        if self.bwrap:
            ns = "user namespace, " if self.userns else ""
            nested = "none nested" if disables_userns() or not self.userns else "nested allowed"
            parts.append(f"bwrap (pid ipc net mount uts namespaces, {ns}{uid}, {nested}, no capabilities)")
        else:
            parts.append(f"no namespaces (bwrap: {self.why_not_bwrap}; {uid}, session watcher)")
        parts.append(
            "files: allowlist (interpreter, the student edition's libraries, kmlteach without references, scratch)"
        )
        parts.append(
            f"landlock ABI {self.landlock}"
            if self.landlock
            else "landlock: off"
            if self.landlock_off
            else "landlock: unavailable"
        )
        parts.append(
            "seccomp (no user namespaces, connect, io_uring, SysV IPC, mqueues, keyrings, others' rlimits)"
        )
        if self.cgroup:
            parts.append(f"cgroup pids<={limits.nproc} memory<={limits.cgroup_memory_mb} MB")
        else:
            parts.append(self.why_not_cgroup or "cgroup: off")
        parts.append(f"rlimits (address space {limits.memory_mb} MB per process, CPU, file size)")
        return "sandbox: " + ", ".join(parts)


@functools.lru_cache(maxsize=8)
def _detect(bwrap: bool, landlock: bool, cgroup: bool, euid: int) -> Isolation:
    why_bwrap = "off" if not bwrap else bwrap_problem()
    use_bwrap = why_bwrap is None
    root = euid == 0
    if root:
        dedicated = runs_in_sandbox() if use_bwrap else runs_on_host()
    else:
        dedicated = False
    why_cgroup = "cgroup: off" if not cgroup else cgroup_problem()
    return Isolation(
        bwrap=use_bwrap,
        userns=use_bwrap and not dedicated,
        dedicated_uid=dedicated,
        root_kernels=root and not dedicated,
        landlock=landlock_abi() if landlock else 0,
        cgroup=why_cgroup is None,
        why_not_bwrap=why_bwrap,
        why_not_cgroup=why_cgroup,
        landlock_off=not landlock,
    )


def detect(limits) -> Isolation:
    """The layers for ``limits`` in this process (probed once; a few seconds the first time)."""
    return _detect(limits.bwrap, limits.landlock, limits.cgroup, os.geteuid())
