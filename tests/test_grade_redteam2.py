"""Red team 2's grader findings G1b, G1c, G4 and G6, in every mode (bubblewrap or not,
root or an ordinary user): a probe's child got no seccomp filter of its own where the kernel
ran without bubblewrap, so io_uring, System V IPC and ``memfd_create`` stayed available, and
the kernel's filter let it create MPTCP sockets and ``prlimit()`` another process.

* G1b: io_uring's ``IORING_OP_CONNECT`` connected to the grader's user's ssh-agent-like Unix
  socket (seccomp refused ``connect(2)`` only): its secret reached the feedback;
* G1c: ``socket(AF_INET, SOCK_STREAM, IPPROTO_MPTCP)`` is not TCP to Landlock, and io_uring
  connected it: every hidden input went to a collector;
* G4: two submissions shared a System V segment: the hidden inputs of one reached the other's
  feedback, and the segment outlived the run;
* G6: the child ``prlimit()``-ed the grader (RLIMIT_FSIZE 0): no gradebook.

The kernel's filter (``isolation/launcher.py``, inherited by every probe's child) now refuses
io_uring, System V IPC, sockets of any protocol but the family's default or TCP, and
``prlimit64``/``setpriority``/``ioprio_set``/``sched_setattr`` (and a scheduling policy but
SCHED_OTHER) aimed at another process; a child
adds ``memfd_create`` and ``memfd_secret``, with or without its own Landlock layer. Run as
root (bubblewrap, a dedicated uid, root kernels with Landlock alone); run by an ordinary user,
the same file grades with that user's own uid under Landlock alone, or under bubblewrap.
"""

from __future__ import annotations

import os

import pytest
from grade_submissions import dump, load, with_cell, with_function
from test_grade_allowlist import (
    _UID_OK,
    LANDLOCK,
    SIGNATURES,
    _signature,
    agent,
    grade_in_mode,
    under_kernel_filter,
)

from kmlteach.course.grade.isolation.bwrap import bwrap_problem

# each returns "DENIED <errno>" or what the attack got
ATTACKS = """
def _kml_uring_connect(path):
    import ctypes, mmap, socket, struct
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    p = ctypes.create_string_buffer(120)
    fd = libc.syscall(425, 4, p)  # io_uring_setup
    if fd < 0:
        return "DENIED %d" % ctypes.get_errno()
    v = struct.unpack_from("=6I", p.raw, 0)
    sq = struct.unpack_from("=8IQ", p.raw, 40)
    cq = struct.unpack_from("=8IQ", p.raw, 80)
    size = max(sq[6] + v[0] * 4, cq[5] + v[1] * 16)
    ring = mmap.mmap(fd, size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE, offset=0)
    sqes = mmap.mmap(fd, v[0] * 64, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE, offset=0x10000000)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    raw = path.encode()
    addr = ctypes.create_string_buffer(struct.pack("=H", 1) + raw + b"\\0", 110)
    sqes[0:64] = struct.pack("=BBHiQQIIQHHiQQ", 16, 0, 0, s.fileno(), 3 + len(raw),
                             ctypes.addressof(addr), 0, 0, 42, 0, 0, 0, 0, 0)  # IORING_OP_CONNECT
    mask = struct.unpack_from("=I", ring, sq[2])[0]
    tail = struct.unpack_from("=I", ring, sq[1])[0]
    struct.pack_into("=I", ring, sq[6] + (tail & mask) * 4, 0)
    struct.pack_into("=I", ring, sq[1], tail + 1)
    n = libc.syscall(426, fd, 1, 1, 1, None, 0)  # io_uring_enter
    if n < 0:
        return "DENIED %d" % ctypes.get_errno()
    head = struct.unpack_from("=I", ring, cq[0])[0]
    cmask = struct.unpack_from("=I", ring, cq[2])[0]
    res = struct.unpack_from("=Qi", ring, cq[5] + (head & cmask) * 16)[1]
    if res != 0:
        return "REFUSED %d" % -res
    s.settimeout(2)
    return "GOT " + s.recv(100).decode("latin-1")

def _kml_errno(f):
    try:
        f()
        return "ALLOWED"
    except OSError as exc:
        return "DENIED %d" % exc.errno

def _kml_mptcp():
    import socket
    return _kml_errno(lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM, 262).close())

def _kml_sysv():
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    shm = libc.shmget(0, 4096, 0o1600)  # IPC_PRIVATE, IPC_CREAT | 0600
    if shm >= 0:
        libc.shmctl(shm, 0, None)  # IPC_RMID
        return "ALLOWED shmget"
    first = ctypes.get_errno()
    for name, args in (("msgget", (0, 0o1600)), ("semget", (0, 1, 0o1600))):
        if getattr(libc, name)(*args) >= 0:
            return "ALLOWED " + name
    return "DENIED %d" % first

def _kml_memfd():
    import os
    return _kml_errno(lambda: os.close(os.memfd_create("kml")))

def _kml_prlimit(pid):
    import resource
    def both():
        resource.prlimit(pid, resource.RLIMIT_CORE, resource.prlimit(pid, resource.RLIMIT_CORE))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # its own limits: still fine
    return _kml_errno(both)
"""


def _attacker(calls: list[str]) -> bytes:
    """A chapter 01 notebook whose k-th exercise raises what ``calls[k]`` evaluated to."""
    nb = with_cell(load(), ATTACKS)
    for (ex, name, _), call in zip(SIGNATURES, calls, strict=False):
        src = f"def {name}({_signature(name)}):\n    raise ValueError({call})"
        nb = with_function(nb, ex, src, name=name)
    return dump(nb)


def _modes():
    skip_bwrap = pytest.mark.skipif(bwrap_problem() is not None, reason=f"{bwrap_problem()}")
    return [
        pytest.param("bwrap", id="bwrap", marks=skip_bwrap),
        pytest.param(
            "uid",
            id="root-uid-landlock",
            marks=[
                LANDLOCK,
                pytest.mark.skipif(
                    not _UID_OK, reason="as root, where an unprivileged uid can run this interpreter"
                ),
            ],
        ),
        # as root: root kernels with --unsafe-allow-root-kernels; as a user: the user's own uid
        pytest.param("landlock", id="landlock-only", marks=LANDLOCK),
    ]


@pytest.mark.parametrize("name", _modes())
def test_a_probe_s_child_has_no_io_uring_mptcp_sysv_memfd_or_prlimit(tmp_path, monkeypatch, name):
    """The grader's user listens on a Unix socket that answers a secret (G1b's ssh-agent);
    a submission tries io_uring's connect on it, an MPTCP socket (G1c), a System V segment
    (G4), a memfd and prlimit() on the grader's process (G6). Each is refused with EPERM;
    no secret in the feedback; the grader's limits are untouched and it writes its gradebook."""
    import resource

    agent_path = str(tmp_path / "agent.sock")
    server, secret, seen = agent(agent_path)
    subs = tmp_path / "subs"
    subs.mkdir()
    calls = [
        f"_kml_uring_connect({agent_path!r})",
        "_kml_mptcp()",
        "_kml_sysv()",
        "_kml_memfd()",
        f"_kml_prlimit({os.getpid()})",
    ]
    (subs / "attacker.ipynb").write_bytes(_attacker(calls))
    out = tmp_path / "out"
    core = resource.getrlimit(resource.RLIMIT_CORE)
    grade_in_mode(name, subs, out, 60, monkeypatch, server)
    assert resource.getrlimit(resource.RLIMIT_CORE) == core
    fb = (out / "fb" / "attacker.md").read_text(encoding="utf-8")
    assert seen == [] and secret not in fb and "GOT " not in fb, (seen, fb)
    assert "ALLOWED" not in fb and "REFUSED" not in fb, fb
    sections = fb.split("\n## ")[1 : 1 + len(calls)]
    assert len(sections) == len(calls), fb
    for call, section in zip(calls, sections, strict=True):
        assert "DENIED 1" in section, (name, call, section)  # EPERM: the filter, not a missing feature
    assert (out / "gb.csv").read_text(encoding="utf-8").count("attacker") == 1


def test_the_kernel_s_filter_refuses_io_uring_sysv_mptcp_and_other_processes_limits():
    """The launcher's kernel filter in a fresh process: io_uring, System V IPC, POSIX
    message queues, keyrings, MPTCP and
    SCTP sockets, prlimit/setpriority/ioprio_set and SCHED_IDLE on another process fail
    with EPERM; the same calls on the process itself, TCP and Unix sockets, getrlimit and
    setrlimit, os.nice and a forked child's own limits still work. The child's filter adds
    memfd_create, sched_setaffinity on another process (on itself it still works), SIGCONT
    and ptrace, and SIGCONT sent by Linux on its behalf: a POSIX timer, the parent-death
    signal, the I/O signal, a child's exit signal (a later red team of 2026-12-07: a hopper
    woke itself with timers); threads still start; no file's mode, owner, times or extended
    attributes change (red team 10: data passed between submissions in a library file's
    xattr and times, as an ordinary user), its contents still do. Its tree may not join the kernel's
    process group (``child_rules``: the group an orphaned-group wake reached, the last red
    team of 2026-12-07), any other group yes."""
    body = """
def sys_(*a):
    return 0 if libc.syscall(*a) >= 0 else ctypes.get_errno()
def ipc(get, remove):  # nothing left on the host where the call works
    libc.shmat.restype = ctypes.c_long
    i = get()
    if i == -1:
        return ctypes.get_errno()
    remove(i)
    return 0
buf = ctypes.create_string_buffer(120)
out = [
    sys_(425, 4, buf),  # io_uring_setup
    sys_(426, 0, 1, 1, 1, None, 0),  # io_uring_enter
    ipc(lambda: libc.shmget(0, 4096, 0o1600), lambda i: libc.shmctl(i, 0, None)),  # IPC_RMID
    ipc(lambda: libc.shmat(0, None, 0), lambda i: libc.shmdt(ctypes.c_void_p(i))),
    ipc(lambda: libc.msgget(0, 0o1600), lambda i: libc.msgctl(i, 0, None)),
    ipc(lambda: libc.semget(0, 1, 0o1600), lambda i: libc.semctl(i, 0, 0)),
    ipc(lambda: libc.syscall(240, b"/kml-rt2-mq", os.O_CREAT | os.O_RDWR, 0o600, None),  # mq_open
        lambda fd: (os.close(fd), libc.syscall(241, b"/kml-rt2-mq"))),  # mq_unlink
    sys_(250, 0, -3, 0),  # keyctl(KEY_GET_KEYRING_ID, the session keyring): red team 3's K1-K3
    errno(lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM, 262)),  # MPTCP
    errno(lambda: socket.socket(socket.AF_INET6, socket.SOCK_STREAM, 262)),
    errno(lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM, 132)),  # SCTP
    errno(lambda: resource.prlimit(parent, resource.RLIMIT_CORE)),
    errno(lambda: os.setpriority(os.PRIO_PROCESS, parent, os.getpriority(os.PRIO_PROCESS, parent))),
    errno(lambda: os.setpriority(os.PRIO_PGRP, 0x7FFFFFF0, 0)),  # PRIO_USER 0: all of this user's
    errno(lambda: os.sched_setscheduler(parent, os.SCHED_IDLE, os.sched_param(0))),
    sys_(251, 1, parent, libc.syscall(252, 1, parent)),  # ioprio_set(WHO_PROCESS, parent, its own)
    errno(lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM, 6).close()),
    errno(lambda: socket.socket(socket.AF_INET6).close()),
    errno(lambda: socket.socket(socket.AF_UNIX).close()),
    errno(lambda: resource.setrlimit(resource.RLIMIT_CORE, resource.getrlimit(resource.RLIMIT_CORE))),
    errno(lambda: resource.prlimit(0, resource.RLIMIT_NOFILE)),
    errno(lambda: os.setpriority(os.PRIO_PROCESS, 0, os.getpriority(os.PRIO_PROCESS, 0))),
    errno(lambda: os.sched_setscheduler(parent, os.SCHED_OTHER, os.sched_param(0))),  # ZeroMQ's
    errno(lambda: os.close(os.memfd_create("k"))),
]
pid = os.fork()
if pid == 0:
    launcher.apply_seccomp(launcher.SECCOMP_RULES["child"])
    cpus = os.sched_getaffinity(0)
    os._exit(
        errno(lambda: os.memfd_create("k"))
        + 2 * errno(lambda: os.sched_setaffinity(parent, cpus))  # the kernel (red team 2026-12-07)
        + 4 * errno(lambda: os.sched_setaffinity(0, cpus))  # itself: still allowed
        + 8 * errno(lambda: os.kill(os.getpid(), 18))  # SIGCONT: a stopped tree stays stopped
        + 16 * (0 if libc.syscall(101, 0, 0, 0, 0) >= 0 else ctypes.get_errno())  # PTRACE_TRACEME
        + 100 * errno(lambda: resource.setrlimit(resource.RLIMIT_CORE, (0, 0)))
    )
out.append(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
pid = os.fork()
if pid == 0:  # SIGCONT sent by Linux on the child's behalf: refused; the rest still works
    import struct, threading
    launcher.apply_seccomp(launcher.SECCOMP_RULES["child"])
    sigevent = ctypes.create_string_buffer(struct.pack("qii", 0, 18, 0), 64)  # SIGEV_SIGNAL, SIGCONT
    timer = ctypes.c_int(0)
    r, w = os.pipe()
    def clone_cont():  # a child whose exit sends SIGCONT to this process
        got = libc.syscall(56, 18, 0, 0, 0, 0)
        if got == 0:
            os._exit(0)
        return 0 if got > 0 else ctypes.get_errno()
    t = threading.Thread(target=lambda: None)  # pthread_create: clone3 says ENOSYS, clone works
    os._exit(
        sys_(222, 1, ctypes.byref(sigevent), ctypes.byref(timer))  # timer_create
        + 2 * sys_(157, 1, 18, 0, 0, 0)  # prctl(PR_SET_PDEATHSIG, SIGCONT)
        + 4 * sys_(72, r, 10, 18)  # fcntl(F_SETSIG, SIGCONT)
        + 8 * clone_cont()
        + 16 * sys_(157, 1, 9, 0, 0, 0)  # PR_SET_PDEATHSIG, SIGKILL: allowed
        + 32 * sys_(72, r, 10, 0)  # F_SETSIG back to SIGIO: allowed
        + 64 * errno(lambda: (t.start(), t.join()))
    )
out.append(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
pid = os.fork()
if pid == 0:  # no file's mode, owner, times or extended attributes changed; its contents may be
    import shutil, tempfile
    launcher.apply_seccomp(launcher.SECCOMP_RULES["child"])
    d = tempfile.mkdtemp()
    f = os.path.join(d, "f")
    with open(f, "w") as fh:
        fh.write("x")
    fd = os.open(f, os.O_RDONLY)
    os._exit(
        errno(lambda: os.chmod(f, 0))
        + errno(lambda: os.chmod(fd, 0)) + sys_(90, f.encode(), 0)  # fchmod, chmod
        + errno(lambda: os.utime(f, (0, 0))) + sys_(132, f.encode(), None)  # utime
        + errno(lambda: os.setxattr(f, "user.k", b"1")) + errno(lambda: os.removexattr(f, "user.k"))
        + errno(lambda: os.chown(f, os.getuid(), os.getgid()))
        + 16 * errno(lambda: shutil.copyfile(f, f + "2"))  # contents: still written
        + 32 * errno(lambda: os.rename(f + "2", f + "3"))
        + 64 * (os.stat(f).st_mode & 0o777 == 0)
    )
out.append(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
pid = os.fork()
if pid == 0:  # no file flags, lease or page-cache probe (red team 11); plain preadv2 works
    import fcntl, tempfile
    launcher.apply_seccomp(launcher.SECCOMP_RULES["child"])
    fd, f = tempfile.mkstemp()
    os.write(fd, b"x" * 8192)
    flags = ctypes.c_long(0)
    page = ctypes.c_ubyte(0)
    mm = ctypes.c_void_p(libc.mmap(None, 4096, 1, 1, fd, 0))
    os._exit(
        sys_(16, fd, 0x40086602, ctypes.byref(flags))  # FS_IOC_SETFLAGS
        + errno(lambda: fcntl.fcntl(fd, 1024, fcntl.F_RDLCK))  # F_SETLEASE
        + sys_(451, fd, None, None, 0)  # cachestat
        + sys_(27, mm, 4096, ctypes.byref(page))  # mincore
        + errno(lambda: os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED))
        + errno(lambda: os.preadv(fd, [bytearray(8)], 0, os.RWF_NOWAIT))
        + sys_(16, fd, 0x40086604, ctypes.byref(flags))  # EXT4_IOC_SETVERSION (red team 12)
        + sys_(16, fd, 0xC020662A, ctypes.byref(flags))  # EXT4_IOC_GET_ES_CACHE
        + sys_(72, fd, 1036, ctypes.byref(flags))  # F_SET_RW_HINT
        + sys_(469, -100, f.encode(), None, 0, 0)  # file_setattr
        + 16 * errno(lambda: os.preadv(fd, [bytearray(8)], 0))
        + 32 * errno(lambda: os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_WILLNEED))
        + 64 * bool(sys_(16, os.pipe()[0], 0x541B, ctypes.byref(flags)))  # FIONREAD: works
    )
out.append(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
kernel = os.getpgrp()
pid = os.fork()
if pid == 0:  # a group of its own, as a probe's child; never the kernel's again, any other yes
    import subprocess
    os.setpgid(0, 0)
    launcher.apply_seccomp(launcher.child_rules(kernel))
    def joined(group):
        got = os.fork()
        if got == 0:
            os._exit(errno(lambda: os.setpgid(0, group)))
        return os.waitstatus_to_exitcode(os.waitpid(got, 0)[1])
    session = subprocess.run([sys.executable, "-c", "import os; print(os.getsid(0) == os.getpid())"],
                             start_new_session=True, capture_output=True, text=True).stdout.strip()
    os._exit(
        errno(lambda: os.setpgid(0, kernel))  # itself, back to the kernel's: refused
        + 2 * joined(kernel)  # its child: refused
        + 4 * joined(0)  # a group of the grandchild's own: allowed
        + 8 * joined(os.getpid())  # the child's group: allowed
        + 16 * (os.getpgrp() == kernel)
        + 32 * (session != "True")  # subprocess(start_new_session=True) works
    )
out.append(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
print(out)
"""
    res = under_kernel_filter("parent = os.getppid()", body)
    assert res.returncode == 0, res.stderr
    expected = [1] * 16 + [0] * 8 + [27, 15, 8, 10, 3]  # 8, 10: EPERM (1) for each call refused
    assert res.stdout.split() == str(expected).split(), res.stdout
