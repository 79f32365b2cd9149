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

import fcntl
import functools
import hashlib
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time

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


# A folder holding this many bound entries or more (a virtual environment's site-packages:
# ~210 of its ~440) is bound once, as a "view": a folder beside it of hard links to exactly
# those entries (the same files, inodes and modes). bwrap reads /proc/self/mountinfo again
# for every bind, so 210 binds cost each kernel ~0.12 s of CPU and ~0.12 s of wall time at
# start (2 cores, 2026-12-06), one bind a few milliseconds. What the kernel sees is the same:
# the view holds the allowlisted entries and nothing else.
VIEW_MIN = 16
VIEW_PREFIX = ".kmlteach-kernel-view-"


def _stamp(parent: str, names: tuple) -> str:
    """What a view of ``names`` in ``parent`` is built from: each entry's inode, size and
    modification time (pip and uv replace a distribution's files when they upgrade it: new
    inodes; not the change time, which linking a file changes)."""
    h = hashlib.sha256(parent.encode())
    for name in names:
        st = os.lstat(os.path.join(parent, name))
        h.update(f"\0{name}\0{st.st_ino}\0{st.st_size}\0{st.st_mtime_ns}".encode())
    return h.hexdigest()[:20]


@functools.lru_cache(maxsize=8)
def _deep_stamp(parent: str, names: tuple, top: str) -> str:
    """``top`` (:func:`_stamp`) and every folder's inode, mtime and ctime below the entries: a
    file replaced by rename deep inside a package (a hand-applied patch, an editor saving)
    changes its folder's mtime and ctime (the ctime even where ``tar`` then restores the
    mtime; linking a folder's files into a view changes neither), and a file written in place
    is the same file in the view. Walked once
    per process and state of the top level (~2 300 folders, ~50 ms), not per kernel: a deep
    change made while a grader runs is seen by the next grader (red team of 2026-12-06: a
    view went on serving a replaced ``traitlets/utils/text.py``)."""
    h = hashlib.sha256(top.encode())
    for name in names:
        path = os.path.join(parent, name)
        if os.path.islink(path) or not os.path.isdir(path):
            continue
        for folder, subs, _files in os.walk(path):
            subs.sort()
            st = os.lstat(folder)
            h.update(f"\0{folder}\0{st.st_ino}\0{st.st_mtime_ns}\0{st.st_ctime_ns}".encode())
    return h.hexdigest()[:20]


def _view_stamp(parent: str, names: tuple) -> str:
    """The stamp a view of ``names`` in ``parent`` is found by (:func:`_deep_stamp`)."""
    return _deep_stamp(parent, names, _stamp(parent, names))


def _trusted(path: str) -> bool:
    """A folder of this process's own user that no one else may write, in such a folder."""
    try:
        for p in (path, os.path.dirname(path)):
            st = os.lstat(p)
            if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid() or st.st_mode & 0o022:
                return False
    except OSError:
        return False
    return True


# The views this process uses, each with a shared lock (flock) on its folder, held until the
# process ends: its kernels read their libraries through the view, and a view is removed only
# by a grader that can lock it exclusively, so never while a grader (another one, or one of
# another version of the packages) still uses it. (It used to be "once a day old": a view made
# days before and still in use when the packages were upgraded was emptied under its kernels.)
_HELD: dict[str, int] = {}
_OPEN_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _lock(path: str, how: int, tries: int = 40) -> int | None:
    """``path``'s folder opened and locked with ``how``, trying ``tries`` times 50 ms apart
    (never waiting for good: any user who may open the folder may lock it); None if it
    cannot be, or is no longer the folder at ``path`` (removed, or made again, meanwhile)."""
    try:
        fd = os.open(path, _OPEN_DIR)
    except OSError:
        return None
    for attempt in range(tries):
        try:
            fcntl.flock(fd, how | fcntl.LOCK_NB)
            if os.fstat(fd).st_ino == os.lstat(path).st_ino:
                return fd
            break
        except BlockingIOError:
            if attempt + 1 < tries:
                time.sleep(0.05)
        except OSError:
            break
    os.close(fd)
    return None


def _hold(path: str) -> bool:
    """This process uses the view ``path``: a shared lock on it, kept until the process ends."""
    if path not in _HELD:
        fd = _lock(path, fcntl.LOCK_SH)
        if fd is None:
            return False
        _HELD[path] = fd
    return True


def _remove_unused(home: str, keep: str) -> None:
    """Remove the views in ``home`` (and unfinished ones) that no grader uses: those it can
    lock exclusively at once."""
    for name in os.listdir(home):
        path = os.path.join(home, name)
        if not name.startswith(VIEW_PREFIX) or path == keep or path in _HELD:
            continue
        fd = _lock(path, fcntl.LOCK_EX, tries=1)
        if fd is not None:
            shutil.rmtree(path, ignore_errors=True)
            os.close(fd)


def _make_view(parent: str, names: tuple, final: str) -> None:
    """Write the view of ``names`` at ``final`` (hard links, in a folder held from the start:
    never "unused" while it is filled), or nothing where it cannot be made."""
    try:
        tmp = tempfile.mkdtemp(prefix=VIEW_PREFIX + "new-", dir=os.path.dirname(final))
    except OSError:
        return
    fd = _lock(tmp, fcntl.LOCK_SH)
    try:
        if fd is None:
            raise OSError
        os.chmod(tmp, 0o755)
        for name in names:
            src, dst = os.path.join(parent, name), os.path.join(tmp, name)
            if os.path.isdir(src):
                shutil.copytree(src, dst, symlinks=True, copy_function=os.link)
            else:
                os.link(src, dst)
        os.rename(tmp, final)
        _HELD[final], fd = fd, None
    except OSError:  # shutil.Error is one: another file system, a file we may not link...
        shutil.rmtree(tmp, ignore_errors=True)  # (a grader beside this one may have made it)
        if fd is not None:
            os.close(fd)


@functools.lru_cache(maxsize=8)
def _view(parent: str, names: tuple, stamp: str) -> str | None:
    """The view of ``names`` (entries of ``parent``, none a symbolic link) beside
    ``parent``: made once (hard links: the same file system, files this user may link),
    then found again by its stamp, and held (:func:`_hold`) while this process lives; None
    where it cannot be made, trusted or held (then each entry is bound on its own, as before).
    The views no grader holds are removed then."""
    home = os.path.dirname(parent)
    final = os.path.join(home, VIEW_PREFIX + stamp)
    if not os.path.lexists(final):
        _make_view(parent, names, final)
    if not (_trusted(final) and _hold(final)):  # (_trusted: a folder, not a link to one)
        return None
    _remove_unused(home, final)
    return final


def _views(binds: list[str], links: dict) -> dict[str, str]:
    """``{folder: its view}`` for each ``site-packages`` folder of this process's virtual
    environment holding ``VIEW_MIN`` bound entries or more (and no symbolic link the sandbox
    must make inside it): the view is written beside it, in the environment, never in a
    system folder."""
    if sys.prefix == sys.base_prefix:
        return {}
    venv = os.path.realpath(sys.prefix)
    entries: dict[str, list[str]] = {}
    for b in binds:
        entries.setdefault(os.path.dirname(b), []).append(os.path.basename(b))
    out = {}
    for parent, names in entries.items():
        if len(names) < VIEW_MIN or os.path.basename(parent) != "site-packages" or not _inside(parent, venv):
            continue
        if any(_inside(lk, parent) for lk in links) or not os.path.isdir(parent):
            continue
        if any(os.path.islink(os.path.join(parent, n)) for n in names):
            continue
        names_t = tuple(sorted(names))
        try:
            view = _view(parent, names_t, _view_stamp(parent, names_t))
        except OSError:  # (an entry gone while stamped)
            continue
        if view is not None:
            out[parent] = view
    return out


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
    bound at :data:`INNER_LAUNCHER`; see the module docstring for ``userns``. A folder of
    many allowlisted entries is bound once, from its view (:data:`VIEW_MIN`)."""
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
    views = _views(binds, links)
    # (source, destination): a folder with a view is bound once, from the view
    mounts = [(b, b) for b in binds if os.path.dirname(b) not in views]
    mounts = sorted([*mounts, *((v, p) for p, v in views.items())], key=lambda m: len(m[1]))
    roots = policy.read_only_roots
    for top in roots:  # read paths under /tmp: a tmpfs of their own, made read-only below
        argv += ["--perms", "0755", "--tmpfs", top]
    dests = [*(d for _, d in mounts), *links, *(etc or {}), *([scratch] if scratch else [])]
    for d in _parents(dests, [d for _, d in mounts]):  # made world-searchable (bwrap's own are 0700)
        argv += ["--perms", "0755", "--dir", d]
    for src, dest in mounts:  # shorter first: a read path below /tmp lands on the empty /tmp
        argv += ["--ro-bind", src, dest]
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
