"""Start a grading kernel inside its limits (run as a script: it imports nothing of kmlteach).

``python _launcher.py CONFIG.json -- python -m ipykernel_launcher -f CONNECTION_FILE``

Applied in this order, then ``execv`` of the kernel command (so the kernel *is* this
process and inherits everything):

1. resource limits (``setrlimit``): address space (``RLIMIT_AS``), CPU seconds, file
   size, open files, no core files and, when a dedicated uid is used, the number of
   processes and threads of that uid (``RLIMIT_NPROC``);
2. when started as root: the connection file and scratch directory are handed to a
   dedicated unprivileged uid/gid and the process drops to it (it can then neither
   signal the grader nor write any file the grader owns);
3. Linux Landlock (when the kernel supports it): writes only below the scratch
   directory, reads only below the system and Python directories and the importable
   part of ``kmlteach`` (not ``kmlteach/exercises`` nor ``kmlteach/course``, where the
   references and hidden cases live), TCP bind only on the kernel's own ports, no TCP
   connect, and no signals to processes outside the sandbox.

With bubblewrap (``cfg["bwrap"]``, see :mod:`.sandbox`), steps 1-2 run here (and the
launcher first moves itself into the submission's cgroups), then ``bwrap`` starts a copy
of this script (``--inner``) in the new namespaces, which applies step 3 and execs the
kernel. The launcher writes one line to ``<scratch>/.sandbox`` saying what it applied.
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


def _read_grants(roots, protected):
    """(path, is_dir) pairs to grant read on: every root minus the protected subtrees."""
    out = []

    def visit(path):
        if any(_inside(path, p) for p in protected):
            return
        if not any(_inside(p, path) for p in protected) or not os.path.isdir(path):
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
        if os.path.exists(root):
            visit(os.path.realpath(root))
    return out


def apply_landlock(cfg) -> str:
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

    for item in _read_grants(cfg["read_roots"], [os.path.realpath(p) for p in cfg["protected"]]):
        if isinstance(item, tuple):
            add_path(item[1], _FS_READ_DIR)
        else:
            add_path(item, read_bits)
    for path in cfg.get("list_roots", []):
        add_path(path, _FS_READ_DIR)
    for path in cfg["write_roots"]:
        add_path(path, fs_all)
    add_path("/dev/null", _FS_READ_FILE | _FS_WRITE_FILE)
    if abi >= 4:
        for port in cfg.get("ports", []):
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


def drop_privileges(cfg, connection_file) -> str:
    uid, gid = cfg.get("uid"), cfg.get("gid")
    if uid is None or os.geteuid() != 0:
        return "uid: unchanged"
    os.chown(connection_file, uid, gid)
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


def _finish(cfg, notes, cmd) -> None:
    try:
        with open(os.path.join(cfg["scratch"], ".sandbox"), "w", encoding="utf-8") as fh:
            fh.write("; ".join(notes) + "\n")
    except OSError:
        pass
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.execv(cmd[0], cmd)


def main(argv) -> None:
    if argv[0] == "--inner":  # second stage, inside bubblewrap's namespaces
        cfg, sep, cmd = json.loads(argv[1]), argv[2], argv[3:]
        assert sep == "--" and cmd
        notes = cfg["notes"] + [apply_landlock(cfg) if cfg.get("landlock", True) else "landlock: off"]
        _finish(cfg, notes, cmd)
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
    notes = [_join_cgroups(cfg), drop_privileges(cfg, conn)]
    apply_limits(cfg)
    if cfg.get("bwrap"):
        inner = {
            k: cfg[k]
            for k in ("scratch", "landlock", "read_roots", "protected", "write_roots", "list_roots", "ports")
        }
        inner["notes"] = notes + ["bwrap"]
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
    notes.append(apply_landlock(cfg) if cfg.get("landlock", True) else "landlock: off")
    _finish(cfg, notes, cmd)


if __name__ == "__main__":
    main(sys.argv[1:])
