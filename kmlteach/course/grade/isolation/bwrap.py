"""bubblewrap (``bwrap``, Debian's ``bubblewrap``): a kernel's namespaces and its file system,
built from the one file-access policy (:mod:`.policy`).

The kernel runs in new PID, IPC, network, mount and UTS namespaces with no capabilities
and ``no_new_privs``. Its root is an empty tmpfs into which exactly the policy's ``read``
paths are bound read-only (symbolic links on their way recreated as links), its ``deny``
paths hidden (an empty folder or ``/dev/null`` over them), a written ``/etc``, a private
``/dev``, ``/proc``, ``/tmp`` and ``/dev/shm`` (sized tmpfs), and its scratch folder, the
one writable host folder, where the Unix sockets it talks to the grader over live
(Jupyter's ``ipc`` transport: its network namespace stays empty). Ending the namespace's
first process ends every process of the submission, however it forked.

Two ways of running it:

* ``userns=False`` (a root grader whose dedicated uid can run the interpreter inside this
  view): no user namespace; bwrap keeps only ``CAP_SETUID``/``CAP_SETGID``, which the
  launcher's second stage uses to become that uid on the host, and loses with it. A user
  namespace made by root maps uid 0 inside, but the process is root on the host and keeps
  owner access to root's files (that is how ``/etc/shadow`` and the hub's cookie secret
  leaked into feedback).
* ``userns=True`` (an ordinary user's grader; a root grader as a last resort): a user
  namespace, the grader's own uid (root: 65534 inside), none nested (``--disable-userns``).

Pattern taken from bubblewrap's own ``demos/bubblewrap-shell.sh`` and Flatpak's use of it
(``--ro-bind`` of the runtime, ``--tmpfs`` over what must not be seen, ``--die-with-parent``).
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys

from .policy import Policy

__all__ = [
    "bwrap_path",
    "bwrap_argv",
    "bwrap_problem",
    "disables_userns",
    "INNER_LAUNCHER",
    "write_etc",
    "SHM_BYTES",
    "TMP_BYTES",
]

SHM_BYTES = 64 * 2**20  # the sandbox's /dev/shm
TMP_BYTES = 256 * 2**20  # its /tmp: where a probe's child may write files (cwd, caches)
_OWN = ("/proc", "/dev", "/tmp")
INNER_LAUNCHER = "/kmlteach-launcher.py"  # where the sandbox sees the launcher's copy  # made by bwrap itself, never bound from the host


def bwrap_path() -> str | None:
    return shutil.which("bwrap")


@functools.lru_cache(maxsize=1)
def _bwrap_help() -> str:
    try:
        out = subprocess.run([bwrap_path() or "bwrap", "--help"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return ""
    return out.stdout + out.stderr


def _tmpfs_size() -> bool:
    """Whether this bwrap takes ``--size`` for a tmpfs (bwrap >= 0.7)."""
    return "--size" in _bwrap_help()


def disables_userns() -> bool:
    """Whether this bwrap can forbid user namespaces inside the sandbox (bwrap >= 0.8): a
    kernel could otherwise make one and be root in it (red team 3)."""
    return "--disable-userns" in _bwrap_help()


def _inside(path: str, parent: str) -> bool:
    return path == parent or path.startswith(parent.rstrip("/") + "/")


def _own(path: str) -> bool:
    """A read path the sandbox makes itself (its ``/proc`` and ``/dev``). A read path under
    ``/tmp`` (a checkout or venv there) is bound into a read-only tmpfs of its own folder
    of the sandbox's ``/tmp`` (:func:`~.policy.tmp_roots`)."""
    return any(_inside(path, p) for p in ("/proc", "/dev"))


def _under(path: str, folders: set) -> bool:
    """Whether ``path`` or a folder above it is one of ``folders`` (a set: a read path's
    ancestors are a handful, the bound paths a few hundred)."""
    while True:
        if path in folders:
            return True
        parent = os.path.dirname(path)
        if parent == path:
            return False
        path = parent


@functools.lru_cache(maxsize=4)
def _mounts(read: tuple) -> tuple[list[str], dict[str, str]]:
    """``(binds, links)``: the real paths to bind (none inside another) and the symbolic
    links on the way to each read path that are not inside a bound folder (worked out once
    per run: a few thousand ``lstat`` calls, the same for every kernel)."""
    binds: list[str] = []
    bound: set = set()
    for b in sorted({os.path.realpath(p) for p in read if os.path.lexists(p) and not _own(p)}, key=len):
        if not _under(b, bound):
            binds.append(b)
            bound.add(b)
    links: dict[str, str] = {}
    for p in read:
        if _own(p) or not os.path.lexists(p):
            continue
        parts, q = os.path.abspath(p).split("/")[1:], ""
        for part in parts:
            q += "/" + part
            if q in bound:
                break
            if os.path.islink(q):
                links[q] = os.readlink(q)
                break
    return binds, links


def _parents(dests, binds) -> list[str]:
    """The folders above ``dests`` that bwrap must make (not inside a bound one), shorter first."""
    bound, out = set(binds), set()
    for d in dests:
        p = os.path.dirname(d)
        while p not in ("/", "", *_OWN) and p not in out and not _under(p, bound):
            out.add(p)
            p = os.path.dirname(p)
    return sorted(out, key=lambda p: (p.count("/"), p))


def write_etc(policy: Policy, folder: str) -> dict[str, str]:
    """Write the policy's ``/etc`` texts into ``folder``; ``{/etc path: host file}`` to bind."""
    os.makedirs(folder, mode=0o755, exist_ok=True)
    out = {}
    for name, (kind, value) in policy.etc.items():
        if kind == "text":
            path = os.path.join(folder, name)
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(value)
            os.chmod(path, 0o644)
            value = path
        out[f"/etc/{name}"] = value
    return out


def bwrap_argv(
    policy: Policy,
    scratch: str | None,
    etc: dict[str, str] | None = None,
    launcher: str | None = None,
    *,
    userns: bool,
    uid_inside=None,
) -> list[str]:
    """The ``bwrap`` command line (up to ``--``) for a kernel under ``policy`` working in
    ``scratch``; ``etc``: from :func:`write_etc`; ``launcher``: a copy of the launcher,
    bound at :data:`INNER_LAUNCHER`; see the module docstring for ``userns``."""
    argv = [bwrap_path() or "bwrap"]
    if userns:
        argv += ["--unshare-all"]
        if os.geteuid() == 0:
            argv += ["--unshare-user", "--uid", str(uid_inside or 65534), "--gid", str(uid_inside or 65534)]
        if disables_userns():  # no namespace of its own below ours (needs one of ours to set it)
            argv += [] if os.geteuid() == 0 else ["--unshare-user"]
            argv += ["--disable-userns"]
        argv += ["--cap-drop", "ALL"]
    else:
        argv += ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try"]
        argv += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    argv += ["--die-with-parent", "--new-session", "--hostname", "kmlteach-grade"]
    # sized (bwrap >= 0.7): a tmpfs is memory, and an ordinary user's grader has no cgroup to
    # charge it to (red team 2 filled 2.6 GB of the host's RAM through /dev/shm); the
    # probe's child may write nowhere else (inkernel/lock.py)
    shm, tmp = (["--size", str(SHM_BYTES)], ["--size", str(TMP_BYTES)]) if _tmpfs_size() else ([], [])
    argv += ["--dev", "/dev", "--perms", "1777", *shm, "--tmpfs", "/dev/shm", "--proc", "/proc"]
    argv += ["--perms", "1777", *tmp, "--tmpfs", "/tmp"]
    binds, links = _mounts(tuple(policy.read))
    roots = policy.read_only_roots
    for top in roots:  # read paths under /tmp: a tmpfs of their own, made read-only below
        argv += ["--perms", "0755", "--tmpfs", top]
    dests = [*binds, *links, *(etc or {}), *([scratch] if scratch else [])]
    for d in _parents(dests, binds):  # made world-searchable (bwrap's own are 0700)
        argv += ["--perms", "0755", "--dir", d]
    for b in binds:  # shorter first: a read path below /tmp lands on the empty /tmp
        argv += ["--ro-bind", b, b]
    for link, target in sorted(links.items()):
        argv += ["--symlink", target, link]
    bound = set(binds)
    for d in sorted({os.path.realpath(p) for p in policy.deny}, key=len):
        if _under(d, bound) and os.path.exists(d):
            argv += ["--tmpfs", d] if os.path.isdir(d) else ["--ro-bind", "/dev/null", d]
    for dest, src in sorted((etc or {}).items()):
        argv += ["--ro-bind", src, dest]
    if launcher is not None:  # the launcher's second stage, from the grader's own folder
        argv += ["--ro-bind", launcher, INNER_LAUNCHER]
    if scratch is not None:  # entered by the launcher's second stage, as the kernel's uid
        argv += ["--bind", scratch, scratch]
    for top in roots:
        argv += ["--remount-ro", top]
    return argv + ["--chdir", "/"]


@functools.lru_cache(maxsize=1)
def bwrap_problem() -> str | None:
    """``None`` when bwrap runs a command in its namespaces here, else why not (one line)."""
    if not bwrap_path():
        return "bwrap not found (install Debian's bubblewrap)"
    from .policy import interpreter, system_libraries

    policy = Policy(read=tuple(interpreter() + system_libraries()), write=())
    argv = bwrap_argv(policy, None, userns=True) + [
        "--",
        os.path.abspath(sys.executable),
        "-I",
        "-S",
        "-c",
        "import os; assert os.getpid() == 2",
    ]
    try:
        r = subprocess.run(argv, capture_output=True, timeout=30, cwd="/")
    except (OSError, subprocess.SubprocessError) as exc:
        return f"bwrap does not run ({exc})"
    if r.returncode != 0:
        err = r.stderr.decode("utf-8", "replace").strip().splitlines()
        return f"bwrap does not run here ({err[-1] if err else r.returncode})"
    return None
