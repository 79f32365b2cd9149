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

__all__ = [
    "confine",
    "filter_program",
    "install_filter",
    "landlock_abi",
    "no_bind",
    "no_dump",
    "restrict_self",
]

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


# ---------------------------------------------------------------------------- seccomp
# A seccomp filter (classic BPF over struct seccomp_data: nr at 0, arch at 4, args from 16,
# the low half of each first on these little-endian machines) refusing what Landlock does
# not cover:
# * socket(..., IPPROTO_MPTCP): Landlock's TCP port rules check sk_is_tcp(), which an MPTCP
#   socket is not (Linux 6.18): a kernel bound and held 2 000 of the servers' ports in
#   0.1 s (red team H12). EPROTONOSUPPORT: programs that try MPTCP fall back to TCP.
# * io_uring_setup/enter/register: io_uring makes sockets (IORING_OP_SOCKET) and connects
#   without passing through the socket() check above. ENOSYS: callers fall back to the
#   ordinary system calls.
# * prlimit64 on another process (pid != 0): a kernel set its own server's RLIMIT_NOFILE
#   to 3 (same uid: no ptrace check) and its accept loop wrote 84 MiB of tracebacks into
#   the hub's log in 10 s (red team H14). glibc's setrlimit/getrlimit call prlimit64 with
#   pid 0, so a process still sets its own limits; prlimit(getpid(), ...) is refused too.
# * add_key, request_key, keyctl: a process keeps the session keyring it was started in, so
#   students started from one (the hub under systemd or a pam_keyinit login) shared its keys
#   and could read or clear the hub's own (red team 3, H15). EPERM.
# Each architecture's numbers: (AUDIT_ARCH, socket, prlimit64, io_uring_setup, x32 bit,
# add_key; request_key and keyctl follow it).
_ARCHS = {
    "x86_64": (0xC000003E, 41, 302, 425, 0x40000000, 248),
    "aarch64": (0xC00000B7, 198, 261, 425, 0, 217),
}
_IPPROTO_MPTCP = 262
_EPERM, _ENOSYS, _EPROTONOSUPPORT = 1, 38, 93
_RET_ALLOW, _RET_ERRNO = 0x7FFF0000, 0x00050000
_LD_W_ABS, _JEQ_K, _JGE_K, _RET_K = 0x20, 0x15, 0x35, 0x06
_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 22, 2


class _Filter(ctypes.Structure):
    _fields_ = [
        ("code", ctypes.c_uint16),
        ("jt", ctypes.c_uint8),
        ("jf", ctypes.c_uint8),
        ("k", ctypes.c_uint32),
    ]


class _Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_uint16), ("filter", ctypes.POINTER(_Filter))]


def filter_program(machine: str | None = None):
    """The filter above for ``machine`` (default: this one's, ``os.uname().machine``) as a
    ``sock_fprog`` ready for :func:`install_filter`; None on an architecture without its
    numbers here. A system call of another architecture (x86_64's 32-bit ABIs, whose
    ``socketcall`` hides its arguments) gets ENOSYS."""
    numbers = _ARCHS.get(machine or os.uname().machine)
    if numbers is None:
        return None
    arch, sock, prlimit, uring, x32, keys = numbers

    def ret(errno=None):
        return (_RET_K, 0, 0, _RET_ALLOW if errno is None else _RET_ERRNO | errno)

    code = [(_LD_W_ABS, 0, 0, 4), (_JEQ_K, 1, 0, arch), ret(_ENOSYS), (_LD_W_ABS, 0, 0, 0)]
    if x32:
        code += [(_JGE_K, 0, 1, x32), ret(_ENOSYS)]
    code += [(_JGE_K, 0, 2, keys), (_JGE_K, 1, 0, keys + 3), ret(_EPERM)]  # the keyrings
    code += [
        (_JEQ_K, 5, 0, sock),
        (_JEQ_K, 8, 0, prlimit),
        (_JGE_K, 0, 2, uring),
        (_JGE_K, 1, 0, uring + 3),
        ret(_ENOSYS),  # io_uring_setup, _enter, _register
        ret(),
        (_LD_W_ABS, 0, 0, 16 + 2 * 8),  # socket: the protocol
        (_JEQ_K, 0, 1, _IPPROTO_MPTCP),
        ret(_EPROTONOSUPPORT),
        ret(),
        (_LD_W_ABS, 0, 0, 16),  # prlimit64: the pid
        (_JEQ_K, 1, 0, 0),
        ret(_EPERM),
        ret(),
    ]
    filters = (_Filter * len(code))(*(_Filter(*c) for c in code))
    prog = _Program(len(code), filters)
    prog._keep = filters  # the array lives as long as the program
    return prog


def install_filter(prog) -> None:
    """Put ``prog`` (:func:`filter_program`) on the calling thread and all it starts from
    now (raises OSError). Only system calls: also for a forked child before it executes."""
    if _libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
    if _libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP)")


def confine() -> bool:
    """The seccomp filter above on this thread and everything it starts (False: no
    filter for this architecture)."""
    prog = filter_program()
    if prog is None:
        return False
    install_filter(prog)
    return True


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
    """``python -m kmlteach_hub_guard <ipykernel's arguments>``: no TCP port, no signal to
    the server, no MPTCP socket, no io_uring and no limits of another process
    (:func:`confine`), then ipykernel."""
    confine()
    no_bind(scope_signals=True)
    warnings.filterwarnings("ignore", message="Couldn't bind IOPub Pipe")
    import runpy

    sys.argv[0] = "ipykernel_launcher"
    runpy.run_module("ipykernel_launcher", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
