"""No student process takes over what the proxy serves under the student's own URL.

Installed into the students' environment by ``python -m kmlteach hub-env`` and used twice:

* as a **server extension** (enabled by ``deploy/hub/jupyterhub_config.py``): the
  single-user server makes itself non-dumpable at once (``prctl(PR_SET_DUMPABLE, 0)``),
  so that a process of the same user — the student's own kernel — can neither
  ``ptrace`` it, nor read ``/proc/<server>/mem``, nor open ``/proc/<server>/fd/N``, nor
  copy its listening socket with ``pidfd_getfd`` (all need ptrace access, which a
  non-dumpable process grants only to a holder of ``CAP_SYS_PTRACE``; the sandbox drops
  every capability). Once the server listens it adds a Landlock layer that lets it (and
  whatever it starts later: kernels, nbgitpuller's ``git``) bind no TCP port at all:
  its own port stays open, but a process that killed the server cannot bind it again.
* as the **kernel's launcher** (``python -m kmlteach_hub_guard -f {connection_file}``,
  the hub's kernelspec): the same no-bind layer, which also lets the kernel signal only
  its own processes (it cannot stop or kill its server), before anything a student controls runs
  (IPython's profile, its configuration and start-up files), then ``ipykernel``. A
  kernel needs no TCP port (the hub's kernels talk to their server over Unix sockets);
  ipykernel's pipe for the output of forked subprocesses cannot be bound, so their
  ``print`` is not shown (a subprocess's output through its own pipes is).

Red team H1 (2026-12-06): a kernel copied its own server's listening socket with
``pidfd_getfd``, stopped the server and answered the proxy with its own pages on the
hub's origin, where a classmate's browser gave away her hub token.
"""

from __future__ import annotations

import ctypes
import os
import sys
import warnings

__all__ = ["landlock_abi", "no_bind", "no_dump", "restrict_self"]

_PR_SET_DUMPABLE, _PR_GET_DUMPABLE, _PR_SET_NO_NEW_PRIVS = 4, 3, 38
_SYS_CREATE_RULESET, _SYS_ADD_RULE, _SYS_RESTRICT_SELF = 444, 445, 446  # the same on every architecture
_RULE_NET_PORT = 2
_ACCESS_NET_BIND_TCP = 1
_SCOPE_SIGNAL = 2

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


def landlock_abi() -> int:
    """The kernel's Landlock ABI version (0: none)."""
    return max(0, int(_libc.syscall(_SYS_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(1))))


def no_dump() -> bool:
    """Make this process non-dumpable (whole process, until it executes another program)."""
    _libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
    return _libc.prctl(_PR_GET_DUMPABLE, 0, 0, 0, 0) == 0


def no_bind(scope_signals: bool = False) -> bool:
    """A Landlock layer under which this thread and everything it starts binds no TCP port
    (port 0 included); with ``scope_signals`` (Landlock ABI >= 6) they also signal no
    process started before it (a kernel cannot stop or kill its server). False where the
    kernel has no Landlock network rules (Linux < 6.7)."""
    abi = landlock_abi()
    if abi < 4:
        return False
    scoped = _SCOPE_SIGNAL if scope_signals and abi >= 6 else 0
    # handled_access_fs, handled_access_net, scoped (the last from ABI 6)
    attr = (ctypes.c_uint64 * 3)(0, _ACCESS_NET_BIND_TCP, scoped)
    restrict_self(attr, 24 if abi >= 6 else 16)
    return True


def restrict_self(attr, size: int, port_rules=()) -> None:
    """Landlock: a ruleset of ``attr`` (a ``landlock_ruleset_attr``, ``size`` bytes) with
    ``port_rules`` (``landlock_net_port_attr`` each) on the calling thread and all it
    starts from now (raises OSError). Only system calls: also for a forked child before it
    executes (``deploy/hub/sandbox.py``'s ``PortLock``)."""
    fd = _libc.syscall(_SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), 0)
    if fd < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset")
    try:
        for rule in port_rules:
            if _libc.syscall(_SYS_ADD_RULE, fd, _RULE_NET_PORT, ctypes.byref(rule), 0) != 0:
                raise OSError(ctypes.get_errno(), "landlock_add_rule")
        if _libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
        if _libc.syscall(_SYS_RESTRICT_SELF, fd, 0) != 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self")
    finally:
        os.close(fd)


# ------------------------------------------------------------------ the server extension
def _jupyter_server_extension_points():
    return [{"module": "kmlteach_hub_guard"}]


def _load_jupyter_server_extension(serverapp) -> None:
    log = serverapp.log
    # notebook trust's folder (limits_spawner points NotebookNotary.data_dir into the home,
    # the Jupyter data folder being the environment's, read-only): made as the student
    trust = serverapp.config.get("NotebookNotary", {}).get("data_dir")
    if trust:
        os.makedirs(trust, mode=0o700, exist_ok=True)
    if not no_dump():
        log.error("kmlteach_hub_guard: the server could not make itself non-dumpable")
    from tornado.ioloop import IOLoop

    loop = IOLoop.current()

    def once_listening(tries=[0]):  # noqa: B006  (a counter kept between the calls)
        server = getattr(serverapp, "http_server", None)
        if not getattr(server, "_sockets", None) and tries[0] < 600:
            tries[0] += 1
            loop.call_later(0.05, once_listening)
            return
        done = no_bind()
        log.info("kmlteach_hub_guard: non-dumpable%s", ", binds no further TCP port" if done else "")

    loop.add_callback(once_listening)  # the server binds its port in a callback scheduled before this one


load_jupyter_server_extension = _load_jupyter_server_extension


# ----------------------------------------------------------------------- the kernel's launch
def main() -> None:
    """``python -m kmlteach_hub_guard <ipykernel's arguments>``: no TCP port and no signal
    to the server, then ipykernel."""
    no_bind(scope_signals=True)
    warnings.filterwarnings("ignore", message="Couldn't bind IOPub Pipe")
    import runpy

    sys.argv[0] = "ipykernel_launcher"
    runpy.run_module("ipykernel_launcher", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
