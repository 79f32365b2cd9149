"""What a grading kernel may read, list and write: the one file-access policy.

Every layer reads this module's :class:`Policy` and nothing else decides a path:
bubblewrap mounts exactly its ``read`` paths, read-only, and its ``write`` folders
(:mod:`.bwrap`); the launcher's Landlock ruleset grants exactly the same paths
(:mod:`.launcher`, from :meth:`Policy.to_json`); a probe's child stacks a ruleset of its
own on the same lists, writing only in ``child_write`` (``inkernel/lock.py``). Changing
what a kernel may read is an edit here and nowhere else.

It is an allowlist (docs/security.md: a read-only view of everything let a kernel
running as root read ``/etc/shadow``, the hub's cookie secret and a second course
checkout under ``/opt``):

* **the interpreter**: the chain of links from the kernel's ``python`` to the binary, the
  virtual environment's ``pyvenv.cfg``, the standard library (not the base
  interpreter's own ``site-packages``), ``libpython`` and the shared libraries beside it
  (a conda environment's);
* **the student's libraries**: in each ``site-packages`` folder on ``sys.path``, the
  files of the distributions the student edition installs (``kmlteach``'s runtime
  requirements and ``ipykernel``'s, with theirs, no extras) but the debugger
  (:data:`NOT_GRADING`), nothing else: SciPy, scikit-learn, hmmlearn and every test or
  instructor tool are not importable, as in the student's own kernel (a one-line
  ``scipy.linalg.expm`` scored full marks where the exercise says "no SciPy");
* **the system's shared libraries** (the dynamic loader's multiarch folders), ``/proc``
  and the harmless devices (``/dev/null``, ``/dev/zero``, ``/dev/full``, ``/dev/random``,
  ``/dev/urandom``);
* **the package without the references**: ``kmlteach/`` minus ``kmlteach/exercises`` (the
  solutions), ``kmlteach/course`` (the grader and its hidden cases) and the kernels
  compiled ahead of time (each reference kernel, callable);
* **a minimal /etc**: ``passwd``, ``group``, ``nsswitch.conf``, ``ld.so.cache``,
  ``localtime``; under bubblewrap ``passwd`` and ``group`` are written for the sandbox
  (root, the kernel's own user, nobody), elsewhere the host's files are granted;
* **the scratch folder**, the one writable place (and ``/dev/null``; under bubblewrap also
  the sandbox's own ``/tmp`` and ``/dev/shm``, sized tmpfs mounts); a probe's child writes
  only in a folder of that ``/tmp`` and in ``/dev/shm`` (``child_write``: no rules of its
  own without bubblewrap, where its writes would reach the host's disk).

``listable`` folders show their names only: each ``site-packages`` folder (Python's
importer lists it before it opens what it found; the names of what is not granted are
visible, their files are not) and, on ``sys.path``, the folder holding the package.
``deny`` removes paths below a read path (the references, the submissions, the gradebook,
the feedback, the ``--secret`` file, the grader's control folder): bubblewrap hides them,
Landlock grants around them. No ``/home``, ``/root``, ``/opt``, ``/srv``, ``/var``, no
``/etc/shadow``, no other checkout: nothing is granted that is not listed above.
"""

from __future__ import annotations

import functools
import importlib.metadata as metadata
import os
import sys
import sysconfig
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Policy", "kernel_policy", "etc_files", "CHILD_WORK", "student_distributions"]

CHILD_WORK = "/tmp/kmlteach-work"  # a probe's child works here (bwrap: the sandbox's own /tmp)
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")
ETC = ("passwd", "group", "nsswitch.conf", "ld.so.cache", "localtime")
KERNEL_DISTRIBUTION = "ipykernel"  # the kernel itself, beside what the package requires
# In the student's environment, not in a grading kernel's: the debugger (ipykernel's
# requirement). A grading kernel is never debugged (its debugger socket stays unconnected);
# without debugpy, ipykernel starts with no debugger, 0.06 s of CPU sooner per kernel (0.24
# -> 0.18 s, 2026-12-06), and pydevd's process-attach and tracing machinery is out of reach
# of the student's code (the hub's student environment has no debugpy either: hub_env.py).
NOT_GRADING = frozenset({"debugpy"})


@dataclass(frozen=True)
class Policy:
    """One kernel's file access (absolute paths; see the module docstring)."""

    read: tuple[str, ...]  # files and folders: read and execute
    write: tuple[str, ...]  # folders: every access
    deny: tuple[str, ...] = ()  # never readable, even below a read path
    listable: tuple[str, ...] = ()  # folders whose names may be listed (not their files)
    child_write: tuple[str, ...] = ()  # where a probe's child may write (empty: no rules of its own)
    etc: dict = field(default_factory=dict)  # bwrap's /etc: name -> ("text", str) | ("file", host path)

    @functools.cached_property  # the launcher's JSON and bwrap's command line ask for it
    def read_only_roots(self) -> tuple[str, ...]:
        """The folders of the sandbox's own /tmp that hold read paths (a checkout or venv
        under the host's /tmp): in bwrap each is a tmpfs of its own, made read-only once
        the read paths are bound (:func:`tmp_roots`)."""
        return tmp_roots(self.read)

    def to_json(self) -> dict:
        """What the launcher (a script that imports nothing of kmlteach) and the kernel get."""
        return {
            "read": list(self.read),
            "write": list(self.write),
            "deny": list(self.deny),
            "listable": list(self.listable),
            "child_write": list(self.child_write),
            "read_only_roots": list(self.read_only_roots),
        }


def _inside(path: str, parent: str) -> bool:
    return path == parent or path.startswith(parent.rstrip("/") + "/")


def tmp_roots(read) -> tuple[str, ...]:
    """The top folders below ``/tmp`` that hold a read path (``/tmp/ci/.venv/...`` gives
    ``/tmp/ci``): in bubblewrap each is a read-only tmpfs holding the bound read paths, so
    the sandbox's writable ``/tmp`` cannot add a module beside them."""
    tops = set()
    for r in read:
        real = os.path.realpath(r)
        if _inside(real, "/tmp") and real != "/tmp":
            tops.add("/tmp/" + real[len("/tmp/") :].split("/", 1)[0])
    return tuple(sorted(tops))


def _links(path: str) -> list[str]:
    """``path``, every symbolic link it goes through and the file it ends at (absolute)."""
    out, seen = [], set()
    p = os.path.abspath(path)
    while p not in seen:
        seen.add(p)
        out.append(p)
        if not os.path.islink(p):
            break
        p = os.path.normpath(os.path.join(os.path.dirname(p), os.readlink(p)))
    real = os.path.realpath(path)
    return out + ([real] if real not in out else [])


def _stdlib() -> list[str]:
    """The standard library's folders (``os``'s and the extension modules'), the base
    interpreter's even in a virtual environment (whose ``platstdlib`` is its own ``lib``)."""
    dirs = [os.path.dirname(os.__file__), sysconfig.get_config_var("DESTSHARED") or ""]
    return [d for d in dict.fromkeys(os.path.realpath(d) for d in dirs if d) if os.path.isdir(d)]


def _site_dirs() -> list[str]:
    """The ``site-packages`` folders this interpreter imports from."""
    import site

    dirs = [sysconfig.get_paths()[k] for k in ("purelib", "platlib")] + site.getsitepackages()
    return [d for d in dict.fromkeys(os.path.realpath(d) for d in dirs) if os.path.isdir(d)]


def interpreter() -> list[str]:
    """The interpreter: its links, binary, ``pyvenv.cfg``, standard library and ``libpython``."""
    paths = _links(sys.executable)
    cfg = Path(sys.prefix, "pyvenv.cfg")
    if cfg.is_file():
        paths.append(str(cfg))
    paths += _stdlib()
    libdir, lib = sysconfig.get_config_var("LIBDIR"), sysconfig.get_config_var("LDLIBRARY")
    system = {os.path.realpath(d) for d in system_libraries()}
    if libdir and lib and os.path.isdir(libdir) and os.path.realpath(libdir) not in system:
        # a shared build's libpython3.X.so (and .so.1.0); in a conda environment also the
        # shared libraries beside it that its packages link to (OpenBLAS, libstdc++ ...)
        paths += [os.path.join(libdir, n) for n in os.listdir(libdir) if n.startswith(lib) or ".so" in n]
    return [p for p in dict.fromkeys(paths) if os.path.lexists(p)]


def system_libraries() -> list[str]:
    """The dynamic loader and the shared libraries of the system (its multiarch folders)."""
    arch = sysconfig.get_config_var("MULTIARCH") or ""
    dirs = [f"/lib/{arch}", f"/usr/lib/{arch}"] if arch else []
    dirs += ["/lib64", "/usr/lib64", "/lib32", "/usr/lib32"]
    out = []
    for d in dirs:
        if os.path.isdir(d):
            out += _links(d)
    return list(dict.fromkeys(out))


def _requirements(name: str) -> list[str]:
    """The runtime requirements (no extras) of an installed distribution; for ``kmlteach``
    run from a source checkout, those of its ``pyproject.toml``."""
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        reqs = metadata.requires(name) or []
    except metadata.PackageNotFoundError:
        reqs = []
        if name == "kmlteach":
            import tomllib

            import kmlteach

            pyproject = Path(list(kmlteach.__path__)[0]).parent / "pyproject.toml"
            try:
                reqs = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["dependencies"]
            except (OSError, KeyError, ValueError):
                reqs = ["numpy", "numba", "matplotlib", "ipywidgets"]
    out = []
    for text in reqs:
        try:
            req = Requirement(text)
        except InvalidRequirement:
            continue
        if req.marker is None or req.marker.evaluate({"extra": ""}):
            out.append(req.name)
    return out


@functools.lru_cache(maxsize=1)
def student_distributions() -> frozenset[str]:
    """Canonical names of the distributions of the student's environment: ``kmlteach``,
    ``ipykernel`` and everything they require at run time, recursively (no extras)."""
    from packaging.utils import canonicalize_name

    seen, todo = set(), ["kmlteach", KERNEL_DISTRIBUTION]
    while todo:
        name = canonicalize_name(todo.pop())
        if name not in seen:
            seen.add(name)
            todo += _requirements(name)
    return frozenset(seen)


@functools.lru_cache(maxsize=1)
def libraries() -> tuple[str, ...]:
    """The entries of each ``site-packages`` folder that belong to the student's
    distributions but :data:`NOT_GRADING`. An entry shared with another distribution (a
    namespace folder, the top-level ``__pycache__``) is granted one level deeper, down to
    single files."""
    from packaging.utils import canonicalize_name

    allowed = student_distributions() - NOT_GRADING
    grants = []
    for site_dir in _site_dirs():
        owners: dict[tuple, set] = {}
        files: dict[str, list[tuple]] = {}
        for dist in metadata.distributions(path=[site_dir]):
            name = canonicalize_name(dist.metadata["Name"] or "")
            for f in dist.files or ():
                parts = f.parts
                if not parts or parts[0] == ".." or os.path.isabs(str(f)):
                    continue
                files.setdefault(name, []).append(parts)
                owners.setdefault(parts[:1], set()).add(name)
        mixed = {k for k, v in owners.items() if not v <= allowed}
        deep: dict[tuple, set] = {}
        if mixed:  # owners of the deeper levels, only below the shared entries
            for name, paths in files.items():
                for parts in paths:
                    if parts[:1] in mixed:
                        for k in range(2, len(parts) + 1):
                            deep.setdefault(parts[:k], set()).add(name)
        for name in sorted(allowed & set(files)):
            for parts in files[name]:
                k = 1
                while k < len(parts) and not (owners if k == 1 else deep).get(parts[:k], {name}) <= allowed:
                    k += 1
                grants.append(os.path.join(site_dir, *parts[:k]))
    return tuple(p for p in dict.fromkeys(grants) if os.path.lexists(p))


def _base_site_dirs() -> list[str]:
    """``site-packages``/``dist-packages`` folders inside the standard library's folders that
    this interpreter does not import from (the base interpreter's, the system's)."""
    mine = set(_site_dirs())
    out = []
    for lib in _stdlib():
        for name in ("site-packages", "dist-packages"):
            p = os.path.realpath(os.path.join(lib, name))
            if os.path.isdir(p) and p not in mine:
                out.append(p)
    return out


def package() -> tuple[list[str], list[str], list[str]]:
    """``(read, deny, listable)`` of the ``kmlteach`` package: the package folder; its
    references (``exercises``, the solutions; ``course``, the grader and its hidden
    cases; the kernels compiled ahead of time); the folders holding it, for listing
    only, where they are on ``sys.path`` (a source checkout on ``PYTHONPATH``)."""
    import kmlteach
    from kmlteach._aot import build_files

    dirs = [os.path.realpath(p) for p in kmlteach.__path__]
    deny = [os.path.join(d, sub) for d in dirs for sub in ("exercises", "course")] + list(build_files())
    on_path = {os.path.realpath(p) for p in sys.path if p}
    listable = [os.path.dirname(d) for d in dirs if os.path.dirname(d) in on_path]
    return dirs, deny, listable


def _etc_host() -> list[str]:
    """The host's files of the minimal ``/etc`` (Landlock without bubblewrap grants them)."""
    out = []
    for name in ETC:
        p = os.path.join("/etc", name)
        if os.path.lexists(p):
            out += _links(p)
    return out


def etc_files(uid: int, gid: int, home: str) -> dict:
    """The sandbox's ``/etc`` under bubblewrap: ``{name: ("text", text) | ("file", path)}``
    (``uid``/``gid``: the kernel's ids as seen inside the sandbox)."""
    users = [(0, 0, "root", "/root"), (uid, gid, "grading", home), (65534, 65534, "nobody", "/nonexistent")]
    seen, passwd, group = set(), [], []
    for u, g, name, h in users:
        if u not in seen:
            seen.add(u)
            passwd.append(f"{name}:x:{u}:{g}:{name}:{h}:/usr/sbin/nologin\n")
            group.append(f"{'nogroup' if g == 65534 else name}:x:{g}:\n")
    out = {
        "passwd": ("text", "".join(passwd)),
        "group": ("text", "".join(group)),
        "nsswitch.conf": ("text", "passwd: files\ngroup: files\nshadow: files\nhosts: files\n"),
    }
    for name in ("ld.so.cache", "localtime"):
        p = os.path.realpath(os.path.join("/etc", name))
        if os.path.isfile(p):
            out[name] = ("file", p)
    return out


def kernel_policy(
    scratch: str, *, bwrap: bool, deny=(), uid: int | None = None, gid: int | None = None
) -> Policy:
    """The policy of one kernel: ``scratch`` is its working folder; ``bwrap`` whether it runs
    in bubblewrap's namespaces (then its own ``/tmp`` and ``/dev/shm`` are writable and its
    ``/etc`` is written for it: ``uid``/``gid`` as seen inside); ``deny``: the grader's
    folders and files (submissions, gradebook, feedback, the secret, its control folder)."""
    pkg_read, pkg_deny, listable = package()
    read = interpreter() + list(libraries()) + system_libraries() + pkg_read + list(DEVICES) + ["/proc"]
    if not bwrap:
        read += _etc_host()
    # a folder of the grader's that holds a read path (a gradebook written in the checkout's
    # root) is refused by the allowlist already: refusing it would refuse the read path too
    theirs = [os.path.realpath(str(p)) for p in deny]
    reals = {os.path.realpath(r) for r in read}
    theirs = [d for d in theirs if not any(_inside(r, d) and r != d for r in reals)]
    refused = pkg_deny + _base_site_dirs() + theirs
    write = [scratch, "/dev/null"] + (["/tmp", "/dev/shm"] if bwrap else [])
    return Policy(
        read=tuple(dict.fromkeys(read)),
        write=tuple(write),
        deny=tuple(dict.fromkeys(refused)),
        listable=tuple(dict.fromkeys(_site_dirs() + listable)),
        child_write=(CHILD_WORK, "/dev/shm", "/dev/null") if bwrap else (),
        etc=etc_files(
            uid if uid is not None else os.getuid(), gid if gid is not None else os.getgid(), scratch
        )
        if bwrap
        else {},
    )
