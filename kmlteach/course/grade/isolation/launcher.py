"""Start a grading kernel inside its limits (run as a script: it imports nothing of kmlteach).

``python launcher.py CONFIG.json -- python -c KERNEL_BOOT -f CONNECTION_FILE``

``CONFIG["policy"]`` is the kernel's file-access policy (:mod:`.policy`, as JSON). Applied
in this order, then ``execv`` of the kernel command (so the kernel *is* this process and
inherits everything):

1. the submission's cgroups joined (:mod:`.cgroup`); resource limits (``setrlimit``):
   address space, CPU seconds, file size, open files, no core files and, for a dedicated
   uid, its number of processes and threads (``RLIMIT_NPROC``);
2. a dedicated unprivileged uid/gid when started as root (the connection file is handed
   to it first): it can then neither signal the grader nor read or write what root owns;
3. Linux Landlock (where the kernel supports it): reads only the policy's ``read`` paths
   (around its ``deny`` paths), lists its ``listable`` folders, writes only its ``write``
   folders, no TCP bind but on the kernel's own ports, no TCP connect, no signals to
   processes outside the sandbox (ABI >= 6);
4. a seccomp filter (:data:`KERNEL_SECCOMP`, inherited by every process the kernel starts,
   a probe's child included): no new user namespace (``unshare``/``clone`` with
   ``CLONE_NEWUSER`` refused, ``clone3`` answering ENOSYS so that the C library falls back
   to ``clone``, as Docker's default profile does): a kernel root in a namespace of its own
   is refused a surface it never needs; and **no socket reaching another process**:
   ``connect()`` refused (Unix path, abstract, TCP, any family), ``socket()`` only for Unix,
   IPv4 and IPv6 stream sockets and netlink, no datagram ``socketpair``, no TCP Fast Open.
   Landlock does not cover ``connect()`` to a path socket: without bubblewrap a submission
   reached the grader's user's ssh-agent and D-Bus session bus (red team G1). The kernel's
   ZeroMQ sockets bind (Jupyter's ``ipc`` transport); its debugger's socket, which
   connects to the kernel's own shell socket, stays unconnected (no debugger when grading).
   x32 and 32-bit (``int 0x80``) syscalls are refused.

With bubblewrap (``CONFIG["bwrap"]``, :mod:`.bwrap`), step 1 runs here, then ``bwrap``
starts a copy of this script (``--inner``) in the new namespaces, which applies steps 2
(for a root grader: bwrap kept only ``CAP_SETUID``/``CAP_SETGID`` for it), 3 and 4 and
execs the kernel. The launcher writes one line to ``<scratch>/.sandbox`` saying what it
applied. A probe's child uses :func:`apply_landlock` (without bubblewrap
:func:`apply_scope`) and :func:`apply_seccomp` of this file too, and the kernel's reaper
:func:`stop_and_kill` (``inkernel/lock.py`` receives its text); the grader's sweep of
orphans uses that one too (``isolation/reaping.py``).
"""

import ctypes
import json
import os
import resource
import sys

_FS_EXECUTE, _FS_WRITE_FILE, _FS_READ_FILE, _FS_READ_DIR = 1, 2, 4, 8
_FS_ALL_V1 = (1 << 13) - 1
_FS_REFER, _FS_TRUNCATE, _FS_IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
_NET_BIND_TCP, _NET_CONNECT_TCP = 1, 2
_SCOPE_ABSTRACT_UNIX, _SCOPE_SIGNAL = 1, 2
_SYS_CREATE, _SYS_ADD_RULE, _SYS_RESTRICT = 444, 445, 446
_PR_SET_NO_NEW_PRIVS = 38

# seccomp rules: {audit arch: [(syscall number, conditions, errno)]}: refused when every
# condition holds (none: always). A condition is (op, i, mask, value) on the low word of
# argument i: "set" (a bit of mask set), "eq" or "ne" (argument & mask ==, != value).
_X86_64, _AARCH64 = 0xC000003E, 0xC00000B7
_X32, _I386, _ARM = 0x40000000, 0x40000003, 0x40000028  # x86-64's x32 numbers; 32-bit ABIs
_EPERM, _ENOSYS, _CLONE_NEWUSER = 1, 38, 0x10000000
_NEWUSER = (("set", 0, _CLONE_NEWUSER, 0),)
# unshare and clone with CLONE_NEWUSER, clone3 (its flags are in memory a filter cannot read)
_USERNS = {
    _X86_64: [(272, _NEWUSER, _EPERM), (56, _NEWUSER, _EPERM), (435, (), _ENOSYS)],
    _AARCH64: [(97, _NEWUSER, _EPERM), (220, _NEWUSER, _EPERM), (435, (), _ENOSYS)],
}
# No socket of the kernel reaches another process (red team G1: without bubblewrap a
# submission found the TA's ssh-agent and D-Bus sockets in /proc/net/unix and connected;
# Landlock does not cover connect() to a path socket): connect() refused; socket() only for
# Unix, IPv4 and IPv6 *stream* sockets (the binding side: Jupyter's ipc transport) and
# netlink (the C library's getifaddrs, ZeroMQ's), so no datagram socket can send to an
# address; no datagram socketpair (a Unix datagram socket sends to any path given in
# sendmsg's msghdr, which a filter cannot read); no TCP Fast Open (MSG_FASTOPEN: sendto and
# sendmsg connect). What remains: send on a socket the kernel bound and accepted itself.
# Outside netlink, a socket's protocol is the family's default (0) or TCP: MPTCP (262) is not
# TCP to Landlock's port rules and SCTP is in none of them (red team 2, G1c: an MPTCP socket
# connected through io_uring sent every hidden input to a collector).
_AF_UNIX, _AF_INET, _AF_INET6, _AF_NETLINK, _SOCK_STREAM, _MSG_FASTOPEN = 1, 2, 10, 16, 1, 0x20000000
_OTHER_FAMILY = tuple(("ne", 0, 0xFFFFFFFF, f) for f in (_AF_UNIX, _AF_INET, _AF_INET6, _AF_NETLINK))
_NOT_STREAM = (("ne", 0, 0xFFFFFFFF, _AF_NETLINK), ("ne", 1, 0xF, _SOCK_STREAM))
_NOT_TCP = (("ne", 0, 0xFFFFFFFF, _AF_NETLINK), ("ne", 2, 0xFFFFFFFF, 0), ("ne", 2, 0xFFFFFFFF, 6))
_NETWORK = {
    _X86_64: [
        (42, (), _EPERM),
        (41, _OTHER_FAMILY, _EPERM),
        (41, _NOT_STREAM, _EPERM),
        (41, _NOT_TCP, _EPERM),
    ]
    + [(53, (("ne", 1, 0xF, _SOCK_STREAM),), _EPERM)]
    + [(44, (("set", 3, _MSG_FASTOPEN, 0),), _EPERM), (46, (("set", 2, _MSG_FASTOPEN, 0),), _EPERM)]
    + [(307, (("set", 3, _MSG_FASTOPEN, 0),), _EPERM)],
    _AARCH64: [(203, (), _EPERM), (198, _OTHER_FAMILY, _EPERM), (198, _NOT_STREAM, _EPERM)]
    + [(198, _NOT_TCP, _EPERM)]
    + [(199, (("ne", 1, 0xF, _SOCK_STREAM),), _EPERM)]
    + [(206, (("set", 3, _MSG_FASTOPEN, 0),), _EPERM), (211, (("set", 2, _MSG_FASTOPEN, 0),), _EPERM)]
    + [(269, (("set", 3, _MSG_FASTOPEN, 0),), _EPERM)],
}
# io_uring (setup, enter, register), every System V IPC call (shared memory, message
# queues, semaphores), the POSIX message queues (mq_*: without bubblewrap a queue is named
# in the host's IPC namespace, 0666 if its creator says so, and outlives the run) and the
# kernel's keyrings (add_key, request_key, keyctl: a process keeps the session keyring it was
# started in across a change of uid, so a submission read the TA's login keys, cleared them,
# and left the hidden inputs in a key the next submission read; red team 3), in the kernel and so in every probe's child, in every mode. io_uring
# runs connect, socket, send... without their syscalls, which no filter then sees (red team
# 2, G1b: IORING_OP_CONNECT reached the grader's user's ssh-agent); a System V object is
# named by a key in the host's IPC namespace without bubblewrap and outlives the run (G4:
# one submission's hidden inputs read by the next); their memory is in no cgroup for an
# ordinary user's grader (red team 5: 21 GB of segments). The kernel needs neither.
_IPC = {
    _X86_64: [(n, (), _EPERM) for n in (425, 426, 427, 29, 30, 31, 64, 65, 66, 67, 68, 69, 70, 71, 220)]
    + [(n, (), _EPERM) for n in range(240, 246)]  # POSIX message queues: mq_open ... mq_getsetattr
    + [(n, (), _EPERM) for n in (248, 249, 250)],  # add_key, request_key, keyctl
    _AARCH64: [(n, (), _EPERM) for n in (425, 426, 427, *range(186, 198), *range(180, 186), 217, 218, 219)],
}
# No change to another process's limits or scheduling: prlimit64 only on pid 0 (the C
# library's setrlimit and getrlimit pass 0), setpriority and ioprio_set only on the caller
# itself (PRIO_PROCESS / IOPRIO_WHO_PROCESS, 0: PRIO_USER 0 is every process of the user),
# sched_setattr only on pid 0, sched_setscheduler on another thread only to SCHED_OTHER
# (ZeroMQ's threads set their own, by thread id, and abort when refused: no SCHED_IDLE for
# the grader). Without bubblewrap the grader is a process of the kernel's own user: Landlock
# has no hook here (red team 2, G6: RLIMIT_FSIZE 0 on the grader, which died without a
# gradebook). Left in the kernel: sched_setaffinity (refused in a probe's child:
# ``_AFFINITY``) and sched_setparam (SCHED_OTHER has no priority).
_OTHER_PID = (("ne", 0, 0xFFFFFFFF, 0),)
_NOT_OTHER = (("ne", 0, 0xFFFFFFFF, 0), ("ne", 1, 0x3FFFFFFF, 0))  # but SCHED_RESET_ON_FORK
_NOT_SELF = {
    _X86_64: [(302, _OTHER_PID, _EPERM), (314, _OTHER_PID, _EPERM), (144, _NOT_OTHER, _EPERM)]
    + [(141, _OTHER_PID, _EPERM), (141, (("ne", 1, 0xFFFFFFFF, 0),), _EPERM)]
    + [(251, (("ne", 0, 0xFFFFFFFF, 1),), _EPERM), (251, (("ne", 1, 0xFFFFFFFF, 0),), _EPERM)],
    _AARCH64: [(261, _OTHER_PID, _EPERM), (274, _OTHER_PID, _EPERM), (119, _NOT_OTHER, _EPERM)]
    + [(140, _OTHER_PID, _EPERM), (140, (("ne", 1, 0xFFFFFFFF, 0),), _EPERM)]
    + [(30, (("ne", 0, 0xFFFFFFFF, 1),), _EPERM), (30, (("ne", 1, 0xFFFFFFFF, 0),), _EPERM)],
}
# memfd_create, memfd_secret: a probe's child only (memory in no folder; see inkernel/lock.py)
_MEMORY = {
    _X86_64: [(n, (), _EPERM) for n in (319, 447)],
    _AARCH64: [(n, (), _EPERM) for n in (279, 447)],
}
# sched_setaffinity only on pid 0 (the calling thread): a probe's child only, where the
# student's code runs (the kernel's libraries may pin their own threads by thread id).
# Without bubblewrap the grader and every other kernel are processes of the child's own
# user: a child pinned them all to one CPU, where its busy loops starved an honest
# neighbour into a timeout (red team of 2026-12-07: 10/13 instead of 13/13)
_AFFINITY = {
    _X86_64: [(203, _OTHER_PID, _EPERM)],
    _AARCH64: [(122, _OTHER_PID, _EPERM)],
}
# No SIGCONT (18) sent, and no ptrace: a probe's child only. The reapers stop a tree with
# SIGSTOP before they kill it (stop_and_kill); a tree that resumed its own stopped processes
# with SIGCONT, or held them with ptrace, kept forking through the grader's sweep for as long
# as it chose (red team of 2026-12-07, as an ordinary user without bwrap: runs of 400 s,
# honest neighbours timed out). kill, tkill (signal in argument 1), tgkill (2),
# rt_sigqueueinfo (1), rt_tgsigqueueinfo (2), pidfd_send_signal (1); ptrace
# Nor SIGCONT sent by Linux on the child's behalf (a later red team of 2026-12-07: a hopper
# woke itself with POSIX timers and outran the sweep, 8 165 processes of the user): no
# timer_create (its signal is behind a pointer; setitimer and alarm send fixed signals),
# no SIGCONT as the parent-death signal (prctl PR_SET_PDEATHSIG), as the I/O signal
# (fcntl F_SETSIG) or as a child's exit signal (clone's low byte; clone3, whose is behind a
# pointer, already says ENOSYS and the C library falls back to clone)
_SIGCONT = 18
_WOKEN_BY_LINUX = {
    arch: [
        (timer_create, (), _EPERM),
        (prctl, (("eq", 0, 0xFFFFFFFF, 1), ("eq", 1, 0xFFFFFFFF, _SIGCONT)), _EPERM),
        (fcntl, (("eq", 1, 0xFFFFFFFF, 10), ("eq", 2, 0xFFFFFFFF, _SIGCONT)), _EPERM),
        (clone, (("eq", 0, 0xFF, _SIGCONT),), _EPERM),
    ]
    for arch, (timer_create, prctl, fcntl, clone) in (
        (_X86_64, (222, 157, 72, 56)),
        (_AARCH64, (107, 167, 25, 220)),
    )
}
_NO_RESUME = {
    _X86_64: [(n, (("eq", i, 0xFFFFFFFF, _SIGCONT),), _EPERM) for n, i in ((62, 1), (200, 1), (234, 2))]
    + [(n, (("eq", i, 0xFFFFFFFF, _SIGCONT),), _EPERM) for n, i in ((129, 1), (297, 2), (424, 1))]
    + [(101, (), _EPERM)]
    + _WOKEN_BY_LINUX[_X86_64],
    _AARCH64: [(n, (("eq", i, 0xFFFFFFFF, _SIGCONT),), _EPERM) for n, i in ((129, 1), (130, 1), (131, 2))]
    + [(n, (("eq", i, 0xFFFFFFFF, _SIGCONT),), _EPERM) for n, i in ((138, 1), (240, 2), (424, 1))]
    + [(117, (), _EPERM)]
    + _WOKEN_BY_LINUX[_AARCH64],
}
# No change of a file's mode, owner, times or extended attributes: a probe's child only (the
# kernel clears its child's folders with chmod: inkernel/reaping.py). Landlock governs none
# of them, and without bubblewrap the library's files belong to the kernel's own user: red
# team 10 (2026-12-07, night, as an ordinary user) passed data from one submission to the
# next in a library file's extended attribute and times, and a chmod 000 of one of its
# modules would stop the class's grading (not run). chmod, fchmod, fchmodat, fchmodat2;
# chown, fchown, lchown, fchownat; utime, utimes, futimesat, utimensat; setxattr,
# lsetxattr, fsetxattr, removexattr, lremovexattr, fremovexattr, setxattrat, removexattrat.
# shutil.copy (its mode) fails in the child; shutil.copyfile works
_METADATA = {
    _X86_64: [
        (n, (), _EPERM)
        for n in (
            90,
            91,
            268,
            452,
            92,
            93,
            94,
            260,
            132,
            235,
            261,
            280,
            188,
            189,
            190,
            197,
            198,
            199,
            463,
            466,
        )
    ],
    _AARCH64: [(n, (), _EPERM) for n in (52, 53, 452, 54, 55, 88, 5, 6, 7, 14, 15, 16, 463, 466)],
}
# Nor a file's attributes through ioctl, nor a lease, nor a look at or an eviction of the
# page cache of what others read (cachestat, mincore, preadv2/pwritev2 with RWF_NOWAIT,
# fadvise POSIX_FADV_DONTNEED): red team 11 passed a hidden case from one submission to the
# next in a library file's inode generation (without bwrap) and in which pages of a file
# every sandbox reads were cached (every mode, through a read-only bind too). The time a
# read takes, or the faults a touch of a mapped page costs, still tells a page cached from
# one that is not: a channel left open (docs/security.md)
# ioctl by its type byte (bits 8-15 of the command), not command by command: a file
# system's own numbers for the same call got through (red team 12: ext4's SETVERSION,
# 0x40086604, after FS_IOC_SETVERSION was refused; and ext4's extent-status cache, read
# back with 0xC020662A, told which files a writer had read, even under bwrap). 'f' (0x66:
# FS_IOC_*, EXT4_IOC_*, FIEMAP), 'v' (0x76: versions), 'X' (0x58: XFS, FSSETXATTR,
# FIFREEZE), 0x94 (btrfs, FICLONE, FIDEDUPERANGE); a terminal's or a pipe's ('T') work.
# Nor fcntl F_SETLEASE (1024), F_SET_RW_HINT (1036), F_SET_FILE_RW_HINT (1038), nor
# file_getattr and file_setattr (468, 469: Linux 6.17)
_IOCTL_TYPES = (0x66, 0x76, 0x58, 0x94)
_PAGES = {
    arch: [(ioctl, (("eq", 1, 0xFF00, t << 8),), _EPERM) for t in _IOCTL_TYPES]
    + [(fcntl, (("eq", 1, 0xFFFFFFFF, cmd),), _EPERM) for cmd in (1024, 1036, 1038)]
    + [(468, (), _EPERM), (469, (), _EPERM)]
    + [(451, (), _EPERM), (mincore, (), _EPERM)]
    + [(fadvise, (("eq", 3, 0xFFFFFFFF, 4),), _EPERM)]
    + [(n, (("set", 5, 8, 0),), _EPERM) for n in rw2]
    for arch, (ioctl, fcntl, mincore, fadvise, rw2) in (
        (_X86_64, (16, 72, 27, 221, (327, 328))),
        (_AARCH64, (29, 25, 232, 223, (286, 287))),
    )
}
SECCOMP_RULES = {
    "userns": _USERNS,
    "network": _NETWORK,
    "ipc": _IPC,
    "processes": _NOT_SELF,
    "memory": _MEMORY,
    "metadata": _METADATA,
    "pages": _PAGES,
    "child": {
        arch: _MEMORY[arch] + _AFFINITY[arch] + _NO_RESUME[arch] + _METADATA[arch] + _PAGES[arch]
        for arch in _MEMORY
    },
}
KERNEL_SECCOMP = {arch: _USERNS[arch] + _NETWORK[arch] + _IPC[arch] + _NOT_SELF[arch] for arch in _USERNS}
"""The kernel's filter (its probes' children inherit it, and add :func:`child_rules`:
``memory``, no ``sched_setaffinity`` on another process, no SIGCONT sent, by the child or by
Linux on its behalf, no ptrace, no change of a file's mode, owner, times, extended
attributes or flags, no lease, no look at the page cache, and no way back into the kernel's
process group)."""

# setpgid (x86-64 109, arm64 154): its argument 1 is the group to join
_SETPGID = {_X86_64: 109, _AARCH64: 154}


def child_rules(kernel_group: int) -> dict:
    """The filter of a probe's child: ``SECCOMP_RULES["child"]``, and no process of its tree
    may join ``kernel_group``, the kernel's process group. The child starts a group of its
    own (``inkernel/server.py``), which the kernel's reaper stops and kills whole
    (:func:`stop_and_kill`), where it could stop its own group only process by process. A
    tree that put a process back into the kernel's group, and then let the group lose its
    last member with a parent outside it, had Linux wake that group's stopped processes
    (SIGHUP, SIGCONT: an orphaned process group; red team of 2026-12-07, as an ordinary user
    without bwrap). Any other group stays open to it (``subprocess(start_new_session=True)``,
    a shell's job control)."""
    join = (("eq", 1, 0xFFFFFFFF, int(kernel_group)),)
    return {arch: rules + [(_SETPGID[arch], join, _EPERM)] for arch, rules in SECCOMP_RULES["child"].items()}


# The kernel's command starts with this (``python -c KERNEL_BOOT -f CONNECTION_FILE``): a
# module the policy lists but does not grant (without bwrap the names in site-packages are
# listable, their files are not) is one the student's environment does not have, so its
# import raises ModuleNotFoundError, as there, not PermissionError (``try: import msgpack
# except ImportError`` in jupyter_client ended the kernel). Not a layer: Landlock refuses
# the files whether or not this finder is in place.
KERNEL_BOOT = """\
import runpy, sys
from importlib.machinery import PathFinder

class _Absent:
    @staticmethod
    def find_spec(name, path=None, target=None):
        spec = PathFinder.find_spec(name, path, target)
        if spec is not None and spec.has_location and spec.origin:
            try:
                open(spec.origin, "rb").close()
            except PermissionError:
                raise ModuleNotFoundError(f"No module named {name!r}", name=name) from None
        return spec

sys.meta_path.insert(0, _Absent)
sys.argv[0] = "ipykernel_launcher"
runpy.run_module("ipykernel_launcher", run_name="__main__", alter_sys=True)
"""


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


class _NetPort(ctypes.Structure):
    _fields_ = [("allowed_access", ctypes.c_uint64), ("port", ctypes.c_uint64)]


def _libc():
    return ctypes.CDLL(None, use_errno=True)


def landlock_abi() -> int:
    """Landlock ABI version of the running kernel (0 when unavailable)."""
    try:
        r = _libc().syscall(_SYS_CREATE, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    except Exception:
        return 0
    return max(int(r), 0)


def _inside(path, parent):
    return path == parent or path.startswith(parent.rstrip("/") + "/")


def read_grants(roots, deny, resolved=False):
    """What to grant read on: every root minus the denied subtrees, as paths (a file, or a
    folder with all beneath it) and ``("dir-only", folder)`` pairs (its names only: a folder
    that holds a denied path). ``resolved``: ``roots`` are real paths that exist, ``deny``
    real paths (the caller resolved them once: a probe's child gets its grants made, see
    ``inkernel/lock.py``)."""
    out = []
    if not resolved:
        deny = [os.path.realpath(p) for p in deny]

    def visit(path):
        if any(_inside(path, p) for p in deny):
            return
        if not any(_inside(p, path) for p in deny) or not os.path.isdir(path):
            out.append(path)
            return
        out.append(("dir-only", path))
        try:
            names = os.listdir(path)
        except OSError:
            return
        for name in names:
            visit(os.path.join(path, name))

    for root in roots:
        if resolved:
            visit(root)
        elif os.path.exists(root):
            visit(os.path.realpath(root))
    return out


def apply_landlock(policy, ports=(), grants=None) -> str:
    """Restrict this process (and what it starts) to ``policy`` (``Policy.to_json()``);
    ``grants``: :func:`read_grants` of its ``read`` and ``deny``, when already made."""
    abi = landlock_abi()
    if abi < 1:
        return "landlock: unavailable"
    libc = _libc()
    fs_all = (
        _FS_ALL_V1
        | (_FS_REFER if abi >= 2 else 0)
        | (_FS_TRUNCATE if abi >= 3 else 0)
        | (_FS_IOCTL_DEV if abi >= 5 else 0)
    )
    file_bits = (
        _FS_EXECUTE
        | _FS_WRITE_FILE
        | _FS_READ_FILE
        | (_FS_TRUNCATE if abi >= 3 else 0)
        | (_FS_IOCTL_DEV if abi >= 5 else 0)
    )
    read_bits = _FS_EXECUTE | _FS_READ_FILE | _FS_READ_DIR
    attr = _RulesetAttr(
        fs_all,
        (_NET_BIND_TCP | _NET_CONNECT_TCP) if abi >= 4 else 0,
        (_SCOPE_ABSTRACT_UNIX | _SCOPE_SIGNAL) if abi >= 6 else 0,
    )
    size = ctypes.sizeof(_RulesetAttr) if abi >= 6 else 16 if abi >= 4 else 8
    fd = libc.syscall(_SYS_CREATE, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))
    if fd < 0:
        return f"landlock: create_ruleset failed ({os.strerror(ctypes.get_errno())})"

    def add_path(path, bits):
        try:
            pfd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        except OSError:
            return
        try:
            if not os.path.isdir(path):
                bits &= file_bits
            rule = _PathBeneath(bits, pfd)
            libc.syscall(_SYS_ADD_RULE, fd, 1, ctypes.byref(rule), 0)
        finally:
            os.close(pfd)

    for item in read_grants(policy["read"], policy["deny"]) if grants is None else grants:
        if isinstance(item, tuple):
            add_path(item[1], _FS_READ_DIR)
        else:
            add_path(item, read_bits)
    for path in policy.get("listable", []):
        add_path(path, _FS_READ_DIR)
    for path in policy["write"]:
        add_path(path, fs_all)
    if abi >= 4:
        for port in ports:
            rule = _NetPort(_NET_BIND_TCP, int(port))
            libc.syscall(_SYS_ADD_RULE, fd, 2, ctypes.byref(rule), 0)
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        return "landlock: no_new_privs failed"
    if libc.syscall(_SYS_RESTRICT, fd, ctypes.c_uint32(0)) != 0:
        return f"landlock: restrict_self failed ({os.strerror(ctypes.get_errno())})"
    os.close(fd)
    return (
        f"landlock: ABI {abi} (files, {'TCP, ' if abi >= 4 else ''}"
        f"{'signals' if abi >= 6 else 'no signal scoping'})"
    )


def apply_scope() -> str:
    """A Landlock domain of this process's own that restricts only signals and abstract Unix
    sockets (ABI >= 6): this process and what it starts may then signal, or connect to,
    only processes of this domain or of domains nested in it. A probe's child without
    bubblewrap stacks it on the domain it shares with its kernel (it has no folder of its
    own to confine writes to, ``inkernel/lock.py``): before, the child could kill its kernel,
    whose reaper then never ran, and leave a process that hops from pid to pid (red team of
    2026-12-07). ``"landlock: scoped"``, ``"landlock: no signal scoping"`` (ABI < 6: nothing
    to apply) or the reason it was refused."""
    abi = landlock_abi()
    if abi < 6:
        return "landlock: no signal scoping"
    libc = _libc()
    attr = _RulesetAttr(0, 0, _SCOPE_ABSTRACT_UNIX | _SCOPE_SIGNAL)
    fd = libc.syscall(
        _SYS_CREATE, ctypes.byref(attr), ctypes.c_size_t(ctypes.sizeof(attr)), ctypes.c_uint32(0)
    )
    if fd < 0:
        return f"landlock: create_ruleset failed ({os.strerror(ctypes.get_errno())})"
    try:
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            return "landlock: no_new_privs failed"
        if libc.syscall(_SYS_RESTRICT, fd, ctypes.c_uint32(0)) != 0:
            return f"landlock: restrict_self failed ({os.strerror(ctypes.get_errno())})"
    finally:
        os.close(fd)
    return "landlock: scoped"


# -- ending process trees: the kernel's reaper (after each probe) and the grader's sweep of
# orphans (after each kernel) both use these (inkernel/reaping.py, isolation/reaping.py)


# Linux keeps a list of each task's children where built with CONFIG_PROC_CHILDREN
CHILDREN_LISTS = os.path.exists(f"/proc/self/task/{os.getpid()}/children")


def children(pid: int) -> list:
    """``pid``'s children, zombies included, from each of its threads' ``children`` list
    (a child belongs to the thread that forked it); where Linux keeps no such lists
    (:data:`CHILDREN_LISTS`), from every ``/proc/<n>/stat`` whose parent is ``pid``."""
    if not CHILDREN_LISTS:
        return [n for n in _all_pids() if _stat(n)[1:2] == [str(pid).encode()]]
    out = []
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/children", "rb") as fh:
                out += [int(k) for k in fh.read().split()]
        except (OSError, ValueError):
            continue
    return out


def _all_pids() -> list:
    return [int(n) for n in os.listdir("/proc") if n.isdigit()]


def _stat(pid: int) -> list:
    """``[state, ppid, pgrp]`` of ``pid`` as bytes (``[]`` once it is gone)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            st = fh.read()
    except OSError:
        return []
    return st[st.rfind(b")") + 2 :].split()[:3]


def _both_ends(kids: list) -> list:
    """A list of children, newest and oldest first by turns: a hopper's running process is its
    parent's newest child, a probe's child (a process group of its own) the kernel's oldest,
    and the zombies the hoppers left lie between them. Newest first alone, a grader's walk
    reached the probe's child only after thousands of zombies, stopped at its time limit
    without it, and the child started hoppers for 4 s more (19 083 processes, 2026-12-07)."""
    out = []
    i, j = 0, len(kids) - 1
    while i <= j:
        out.append(kids[j])
        if i < j:
            out.append(kids[i])
        i, j = i + 1, j - 1
    return out


def stop_and_kill(roots, seconds: float = 2.0) -> list:
    """Every process below and including ``roots()`` (a function listing the trees' tops,
    asked again at each walk: a process that exits hands its children to the subreaper)
    stopped with SIGSTOP, walk after walk, until a walk finds no process it has not stopped
    and every one of them stopped, or ``seconds`` pass; then each killed with SIGKILL. A
    stopped process cannot fork, so neither a process that forks and exits over and over
    (a "hopper") nor a chain that regrows below as its top is cut (a "ladder": red team of
    2026-12-07, as an ordinary user without bwrap) gets past it, where killing the
    children of the reaper one generation at a time removed one rung a scan. Returns the
    processes, each after its parent: the order in which to reap them (a child is handed to
    the subreaper only once its parent is gone); killed in the reverse order."""
    import signal
    import time

    order, listed, groups = [], set(), set()
    dead = ([], [b"Z"], [b"X"])  # gone, zombie, dead: nothing to stop, no children
    # process groups are stopped and killed whole too, all but the caller's own (the kernel's
    # reaper's group, which no process of a probe's child joins: child_rules): a signal to a
    # group reaches a process that forks meanwhile and its child (Linux restarts a fork that
    # such a signal races), where one to a hopper's pid came after it had hopped, walk after
    # walk, on a loaded machine (the grader's test under make test: 17 036 processes of
    # three hoppers). A group's members share its session, which holds only the trees'
    # processes (a process can join a group of its own session only). A group found running
    # again (Linux resumes an orphaned group's stopped processes) is stopped whole again
    own = os.getpgrp()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        # breadth first, parents before their children; each list from both ends (_both_ends):
        # a hopper's running process is its parent's newest child, the hundreds before it
        # zombies (red team of 2026-12-07: three exec'd hoppers below a stopped kernel, 3 756
        # zombies)
        walked, signalled = list(roots())[::-1], False
        for pid in walked:
            st = _stat(pid)
            state, new = st[:1], pid not in listed
            if new:
                listed.add(pid)
                order.append(pid)
            # stopped, traced, or (signalled already) in uninterruptible sleep: a vfork parent
            # waits there as long as its child, stopped in turn, neither execs nor exits, and
            # takes the pending SIGSTOP before any code of its own (each such parent held the
            # walk to its limit: red team of 2026-12-07)
            running = state not in ([b"T"], [b"t"], [b"D"], *dead)
            group = int(st[2]) if len(st) > 2 else 0
            # a zombie's group too (a member until it is reaped): a hopper's running process
            # had hopped on by the time the walk read it, walk after walk, while its zombies lay
            # in plain sight (make test of 2026-12-07, evening: 8 721 processes of the hoppers)
            if group > 1 and group != own and (group not in groups or (running and not new)):
                groups.add(group)
                try:
                    os.killpg(group, signal.SIGSTOP)
                except OSError:
                    pass
            if state in dead:
                continue
            if new or running:
                # new, or running again: SIGCONT from Linux itself (a process group left
                # orphaned with a stopped member) or another process (red team of 2026-12-07:
                # a tree that sent SIGCONT to its own processes outlived the sweep; a probe's
                # child may not send it, SECCOMP_RULES["child"])
                try:
                    os.kill(pid, signal.SIGSTOP)
                except OSError:
                    pass
                signalled = True
            walked += _both_ends(children(pid))  # after the stop: a stopped process adds none
            if time.monotonic() > deadline:
                break
        if not signalled:  # nothing new, nothing running: the trees are still
            break
    for group in groups:
        try:
            os.killpg(group, signal.SIGKILL)
        except OSError:
            pass
    # children first: a parent that dies before its stopped children leaves their process
    # group orphaned, and Linux wakes it (SIGHUP, SIGCONT) before their SIGKILL (red team of
    # 2026-12-07: a hopper ignoring SIGHUP ran on)
    for pid in reversed(order):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    return order


def reap_trees(roots, seconds: float) -> int:
    """:func:`stop_and_kill` round after round, each round's processes reaped parents first (a
    child is ours to reap once its parent is gone), until a round finds none or ``seconds``
    pass; how many. Both reapers: the kernel's after each probe (``inkernel/reaping.py``),
    the grader's sweep of orphans (``reaping.reap_orphans``)."""
    import time

    n, deadline = 0, time.monotonic() + seconds
    while time.monotonic() < deadline:
        ended = stop_and_kill(roots)
        if not ended:
            break
        for pid in ended:
            try:
                os.waitpid(pid, 0)
            except OSError:
                pass
        n += len(ended)
    return n


def _seccomp_row(nr, conditions, errno) -> list:
    """BPF for one rule. It loads the syscall number first, so a rule whose conditions fail
    jumps to the next one (several rules for one syscall)."""
    ld, jeq, jset, ret, and_ = 0x20, 0x15, 0x45, 0x06, 0x54  # LD|W|ABS, JEQ|K, JSET|K, RET, ALU|AND|K
    tests = []  # each ends in a jump whose "false" (jf) or "true" (jt) branch leaves the rule
    for op, i, mask, value in conditions:
        load = (ld, 0, 0, 16 + 8 * i)  # seccomp_data.args[i], little-endian: its low word
        if op == "set":
            tests.append([load, (jset, "stay", "leave", mask)])
        else:
            test = (jeq, "stay", "leave", value) if op == "eq" else (jeq, "leave", "stay", value)
            tests.append([load] + ([] if mask == 0xFFFFFFFF else [(and_, 0, 0, mask)]) + [test])
    body = [(ld, 0, 0, 0), (jeq, "stay", "leave", nr)] + [row for t in tests for row in t]
    body.append((ret, 0, 0, 0x00050000 | errno))  # SECCOMP_RET_ERRNO
    out = []
    for k, (code, jt, jf, imm) in enumerate(body):
        to_end = len(body) - k - 1  # "leave": past the refusal, to the next rule
        out.append((code, to_end if jt == "leave" else 0, to_end if jf == "leave" else 0, imm))
    return out


def apply_seccomp(rules) -> bool:
    """Install a seccomp filter refusing ``rules`` (a value of :data:`SECCOMP_RULES`, or
    :data:`KERNEL_SECCOMP`). On x86-64 every x32 syscall and every 32-bit one (``int 0x80``)
    is refused with ENOSYS, on arm64 every 32-bit one: their numbers are other syscalls, which
    the rules would miss. Needs ``no_new_privs`` (Landlock set it) or ``CAP_SYS_ADMIN``;
    ``False`` where the kernel refused the filter."""
    ld, jeq, jge, ret = 0x20, 0x15, 0x35, 0x06  # BPF_LD|W|ABS, JMP|JEQ|K, JMP|JGE|K, RET
    allow = 0x7FFF0000  # SECCOMP_RET_ALLOW; SECCOMP_RET_ERRNO is 0x00050000 | errno
    nosys = (ret, 0, 0, 0x00050000 | _ENOSYS)
    prog = [(ld, 0, 0, 4)]  # the architecture
    compat = {_X86_64: [_I386], _AARCH64: [_ARM]}
    for arch in rules:
        for other in compat.get(arch, []):
            prog += [(jeq, 0, 1, other), nosys]
    for arch, table in rules.items():
        body = []
        if arch == _X86_64:
            body += [(ld, 0, 0, 0), (jge, 0, 1, _X32), nosys]
        for nr, conditions, errno in table:
            body += _seccomp_row(nr, conditions, errno)
        body += [(ret, 0, 0, allow)]
        assert len(body) < 256, "a BPF jump is one byte"
        prog += [(ld, 0, 0, 4), (jeq, 0, len(body), arch)] + body  # another architecture: skip
    prog += [(ret, 0, 0, allow)]

    class Filter(ctypes.Structure):
        _fields_ = [
            ("code", ctypes.c_ushort),
            ("jt", ctypes.c_ubyte),
            ("jf", ctypes.c_ubyte),
            ("k", ctypes.c_uint),
        ]

    class Prog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(Filter))]

    table = (Filter * len(prog))(*[Filter(*row) for row in prog])
    fprog = Prog(len(prog), table)
    return _libc().prctl(22, 2, ctypes.byref(fprog), 0, 0) == 0  # PR_SET_SECCOMP, FILTER


def apply_limits(cfg) -> None:
    mb = 1024 * 1024
    lim = [
        (resource.RLIMIT_AS, cfg["memory_mb"] * mb),
        (resource.RLIMIT_CORE, 0),
        (resource.RLIMIT_FSIZE, cfg["fsize_mb"] * mb),
        (resource.RLIMIT_NOFILE, 512),
    ]
    if cfg.get("cpu_seconds"):
        lim.append((resource.RLIMIT_CPU, int(cfg["cpu_seconds"])))
    if cfg.get("uid") is not None and cfg.get("nproc"):
        lim.append((resource.RLIMIT_NPROC, int(cfg["nproc"])))
    for which, value in lim:
        resource.setrlimit(which, (value, value))


def drop_privileges(cfg) -> str:
    uid, gid = cfg.get("uid"), cfg.get("gid")
    if uid is None or os.geteuid() != 0:
        return "uid: unchanged"
    os.setgroups([])
    os.setgid(gid)
    os.setuid(uid)
    return f"uid: {uid}"


def _join_cgroups(cfg) -> str:
    procs = cfg.get("cgroup_procs") or []
    for f in procs:
        with open(f, "w", encoding="ascii") as fh:
            fh.write(str(os.getpid()))
    return "cgroup: joined" if procs else "cgroup: none"


def _confine_and_exec(cfg, notes, cmd) -> None:
    """Steps 3 and 4, the ``.sandbox`` line, then the kernel."""
    if cfg.get("landlock", True):
        notes.append(apply_landlock(cfg["policy"], cfg.get("ports", ())))
    else:
        notes.append("landlock: off")
        _libc().prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    notes.append(
        "seccomp: no user namespaces, no connect, no io_uring, no System V IPC, no keyrings"
        if apply_seccomp(KERNEL_SECCOMP)
        else "seccomp: refused"
    )
    try:
        with open(os.path.join(cfg["scratch"], ".sandbox"), "w", encoding="utf-8") as fh:
            fh.write("; ".join(notes) + "\n")
    except OSError:
        pass
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.umask(0o077)
    os.execv(cmd[0], cmd)


def main(argv) -> None:
    if argv[0] == "--inner":  # second stage, inside bubblewrap's namespaces
        cfg, sep, cmd = json.loads(argv[1]), argv[2], argv[3:]
        assert sep == "--" and cmd
        notes = cfg["notes"] + (["bwrap", drop_privileges(cfg)] if cfg.get("setuid_inside") else ["bwrap"])
        os.chdir(cfg["scratch"])  # as the kernel's uid: the folder is its own (0700)
        _confine_and_exec(cfg, notes, cmd)
    cfg_path, sep, cmd = argv[0], argv[1], argv[2:]
    assert sep == "--" and cmd
    with open(cfg_path, encoding="utf-8") as fh:
        cfg = json.load(fh)
    conn = cmd[cmd.index("-f") + 1]
    with open(conn, encoding="utf-8") as fh:
        info = json.load(fh)
    cfg["ports"] = [info[k] for k in ("shell_port", "iopub_port", "stdin_port", "control_port", "hb_port")]
    os.chdir(cfg["scratch"])
    if os.getpid() != os.getsid(0):
        try:
            os.setsid()
        except OSError:
            pass
    notes = [_join_cgroups(cfg)]
    if cfg.get("uid") is not None and os.geteuid() == 0:  # the kernel's uid reads its connection
        os.chown(conn, cfg["uid"], cfg["gid"])
    if not cfg.get("setuid_inside"):
        notes.append(drop_privileges(cfg))
    apply_limits(cfg)
    if cfg.get("bwrap"):
        keys = ("scratch", "landlock", "policy", "ports", "uid", "gid", "setuid_inside")
        inner = {k: cfg.get(k) for k in keys}
        inner["notes"] = notes
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        # ipykernel exits when its parent pid is not JPY_PARENT_PID any more; inside the PID
        # namespace its parent is bwrap's init (pid 1); --die-with-parent does that job
        env = {k: v for k, v in os.environ.items() if k != "JPY_PARENT_PID"}
        os.execve(
            cfg["bwrap"][0],
            cfg["bwrap"]
            + ["--", sys.executable, "-I", "-S", cfg["inner_launcher"], "--inner", json.dumps(inner), "--"]
            + cmd,
            env,
        )
    _confine_and_exec(cfg, notes, cmd)


if __name__ == "__main__":
    main(sys.argv[1:])
