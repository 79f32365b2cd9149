"""Limits of one graded submission: time, memory, processes, and which isolation layers to use.

Memory is limited with ``RLIMIT_AS`` (the *address space* of each process of the
submission, not its resident memory): NumPy + Numba + an IPython kernel reserve about
1.4 GB of address space before doing anything, so the default of 3000 MB leaves an
honest submission ample room while a memory bomb gets ``MemoryError``. CPU time
(``RLIMIT_CPU``), file size (``RLIMIT_FSIZE``), the number of processes and threads of a
dedicated uid (``RLIMIT_NPROC``) and, in a cgroup, of the whole submission are limited too.
How they are applied: ``isolation/launcher.py``, ``isolation/cgroup.py``.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Limits"]


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
