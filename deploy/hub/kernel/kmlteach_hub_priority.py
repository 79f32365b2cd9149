"""Interactive before batch: a student's cell runs at idle CPU priority on the hub.

An IPython extension, loaded only by the hub's kernelspec (``jupyterhub_config.py``
writes it with ``--ext=kmlteach_hub_priority``). While a cell executes, the student's
per-user CPU cgroup is marked ``cpu.idle = 1`` (the kernel's SCHED_IDLE for a whole
cgroup, Linux >= 5.15, v1 and v2); when the cell ends it is set back to 0. A widget
update (an ipywidgets ``comm_msg``) runs no cell, so it is handled at normal priority:
the scheduler gives a non-idle task that wakes up the CPU at once over an idle cgroup's
(wake-up preemption) and an idle cgroup weighs 3 against 1024. Other students' "Run
All"s then take the CPU only when nobody is moving a widget.

Why the cgroup and not ``nice``: ``limits_spawner.py`` puts each student's server in its
own CPU cgroup, and nice values only order tasks inside one cgroup (and, in the root
cgroup, inside one autogroup: jupyter_client starts each kernel in its own session). The
spawner hands the user's ``cpu.idle`` file to the user (root writes the rest), so a
kernel may only make its own student's processes yield.

Does nothing where the kernel is not in such a cgroup or may not write ``cpu.idle``
(``make lab``, Binder, a hub without ``limits_spawner``).
"""

from __future__ import annotations

import os
from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup")

__all__ = ["idle_file", "load_ipython_extension", "unload_ipython_extension"]


def idle_file(proc_cgroup: str | None = None, root: Path = CGROUP_ROOT) -> Path | None:
    """The writable ``cpu.idle`` of this process's CPU cgroup (v1 ``cpu`` hierarchy or v2),
    or None when there is none, it is the root cgroup's, or it is not writable."""
    if proc_cgroup is None:
        try:
            proc_cgroup = Path("/proc/self/cgroup").read_text()
        except OSError:
            return None
    for line in proc_cgroup.splitlines():
        _, ctrls, path = line.split(":", 2)
        names = ctrls.split(",")
        if "cpu" in names:
            base = root / "cpu"
        elif names == [""] and (root / "cgroup.controllers").exists():
            base = root
        else:
            continue
        if path.strip("/") == "":
            return None
        f = base / path.lstrip("/") / "cpu.idle"
        return f if f.exists() and os.access(f, os.W_OK) else None
    return None


class _Priority:
    def __init__(self, path: Path):
        self.path = path

    def _set(self, value: str) -> None:
        try:
            fd = os.open(self.path, os.O_WRONLY)
            try:
                os.write(fd, value.encode())
            finally:
                os.close(fd)
        except OSError:
            pass  # the cgroup went away (server stopping): nothing to yield to

    def batch(self, *_args) -> None:
        self._set("1")

    def interactive(self, *_args) -> None:
        self._set("0")


_active: _Priority | None = None


def load_ipython_extension(ipython) -> None:
    global _active
    path = idle_file()
    if path is None or _active is not None:
        return
    _active = _Priority(path)
    ipython.events.register("pre_run_cell", _active.batch)
    ipython.events.register("post_run_cell", _active.interactive)


def unload_ipython_extension(ipython) -> None:
    global _active
    if _active is None:
        return
    ipython.events.unregister("pre_run_cell", _active.batch)
    ipython.events.unregister("post_run_cell", _active.interactive)
    _active.interactive()
    _active = None
