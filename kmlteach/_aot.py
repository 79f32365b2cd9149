"""Kernels compiled ahead of time: a student's kernel without Numba's JIT (issue 26).

Why
---
Numba's just-in-time compiler is most of a student kernel's memory: ``import numba``
and the first call of a cached kernel load LLVM, about 60 MiB private and 40 MiB of
shared-library pages per kernel process. On a hub of 200 students that is the
difference between a chapter's kernel at 230-300 MiB and under 200 MiB. A course does
not need a compiler at run time: its kernels are known and take one set of argument
types each (C-contiguous float64/int64 arrays and scalars, see :func:`kmlteach._jit.jit`).

How
---
``python -m kmlteach warmup --aot`` (Binder's ``postBuild``, hence the hub's image built
from the student edition, and ``make bench`` run it; ``make lab`` keeps the JIT) compiles every registered kernel for the argument types its warm-up uses,
with ``numba.pycc``, into one extension module ``kmlteach_aot`` beside a manifest
(``kmlteach_aot.json``): the exported name and argument types of each kernel, the hashes
of the source files they were compiled from, the CPU flags of the build machine, and the
Python, NumPy and Numba versions. Loops that are ``parallel`` under the JIT run on one
thread here (a hub gives each student one core).

A process with ``KMLTEACH_AOT=1`` in its environment (the hub's and Binder's kernels)
uses the module when the manifest matches this machine and these sources exactly, and
then never imports Numba: :func:`kmlteach._jit.jit` returns an :class:`AotKernel`, which
calls the compiled function when the argument types are exactly the ones compiled
(Numba's own ``typeof``: dtype, dimensions, layout, writability) and otherwise runs the
plain Python function with one warning (never a copy-and-convert: several kernels write
into their arguments). ``KMLTEACH_AOT=strict`` raises instead (the test of every chapter
uses it). Any mismatch of the manifest (edited sources, another CPU, another NumPy) and
the process uses the JIT, as without the variable. ``python -m kmlteach warmup --aot
--status`` says which and why.

Whose build
-----------
Loading the module runs its code in the process, so a build is loaded only from a folder
this process's user (or root, or the package's owner) owns and nobody else may write to,
itself not a symlink,
with its manifest and module file owned and writable the same way (:func:`folder_problem`,
the check :func:`kmlteach._jit._private_temp_dir` applies to its cache folder): on a
shared machine anyone can create ``/tmp/kmlteach-numba-<another user's uid>`` first and
plant a build there (issue 35: a classmate's next kernel loaded it). A build found in a
folder that fails the check is skipped with one warning, and the process goes on to the
next folder, else to the JIT.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import os
import stat
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np

__all__ = ["ENV", "mode", "load", "build", "build_files", "status", "AotKernel"]

ENV = "KMLTEACH_AOT"
MODULE = "kmlteach_aot"
_PACKAGE = Path(__file__).resolve().parent
# library parts whose kernels are compiled (not the course tools, widgets or plots)
_SKIP = ("course", "widgets", "plots", "exercises", "_render", "datasets", "data")


def mode() -> str:
    """``"off"``, ``"on"`` (``KMLTEACH_AOT=1``) or ``"strict"``."""
    value = os.environ.get(ENV, "").strip().lower()
    if value == "strict":
        return "strict"
    return "on" if value in ("1", "on", "yes", "true") else "off"


def _dirs() -> list[Path]:
    """Where the module may be: ``KMLTEACH_AOT_DIR`` alone when it is set, otherwise the
    package's ``__pycache__`` and the per-user temporary folder (for a read-only install)."""
    if os.environ.get("KMLTEACH_AOT_DIR"):
        return [Path(os.environ["KMLTEACH_AOT_DIR"])]
    return [_PACKAGE / "__pycache__", user_dir()]


def user_dir() -> Path:
    """The per-user folder under the system temp dir shared with Numba's fallback cache
    (:func:`kmlteach._jit._private_temp_dir`): ``<tmp>/kmlteach-numba-<uid>``."""
    return Path(tempfile.gettempdir()) / f"kmlteach-numba-{getattr(os, 'getuid', lambda: 'x')()}"


def _owners() -> tuple[int, ...] | None:
    """The uids whose folders this process may load code from: its own, root's, and the
    owner of this installed package (whoever can write the package runs code here anyway:
    in a bubblewrap sandbox, where root is not mapped, a root-owned installation shows as
    the overflow uid). None where the system has no uids (then nothing is checked)."""
    getuid = getattr(os, "getuid", None)
    if getuid is None:
        return None
    return tuple(sorted({getuid(), 0, os.stat(_PACKAGE).st_uid}))


def folder_problem(path: str | os.PathLike, owners: tuple[int, ...] | None = None) -> str | None:
    """Why ``path`` cannot be trusted to hold code this process runs, or None.

    Trusted: a real folder (not a symlink) owned by one of ``owners`` (default: this
    process's user, root and the package's owner: :func:`_owners`) that nobody else may
    write to. A missing folder raises
    ``OSError``. Shared with :func:`kmlteach._jit._private_temp_dir` (owners: the user)."""
    owners = _owners() if owners is None else owners
    if owners is None:
        return None
    st = os.lstat(path)
    if not stat.S_ISDIR(st.st_mode):
        return "is not a folder (a symlink or a file)"
    if st.st_uid not in owners:
        return f"is owned by uid {st.st_uid}, not by this user, root or the package's owner"
    if st.st_mode & 0o022:
        return f"is writable by others (mode {oct(st.st_mode & 0o777)})"
    return None


def _file_problem(path: Path, owners: tuple[int, ...] | None) -> str | None:
    if owners is None:
        return None
    st = os.lstat(path)
    if not stat.S_ISREG(st.st_mode):
        return f"{path.name} is not a regular file"
    if st.st_uid not in owners or st.st_mode & 0o022:
        return f"{path.name} is owned by uid {st.st_uid} with mode {oct(st.st_mode & 0o777)}"
    return None


def _cpu_flags() -> list[str]:
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("flags"):
                    return sorted(set(line.split(":", 1)[1].split()))
    except OSError:
        pass
    return []


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _versions() -> dict:
    return {"python": sys.implementation.cache_tag, "numpy": np.__version__}


def _problem(manifest: dict) -> str | None:
    """Why this manifest cannot be used here, or None."""
    if manifest.get("versions") != _versions():
        return f"built for {manifest.get('versions')}, this is {_versions()}"
    missing = sorted(set(manifest.get("cpu_flags", [])) - set(_cpu_flags()))
    if missing:
        return f"built for a CPU with {', '.join(missing[:4])}, which this one lacks"
    for rel, digest in manifest.get("sources", {}).items():
        path = _PACKAGE / rel
        if not path.is_file() or _sha(path) != digest:
            return f"{rel} changed since the build: run `python -m kmlteach warmup --aot`"
    return None


def _distrust(folder: Path, owners: tuple[int, ...] | None) -> tuple[str | None, dict | None]:
    """``(why the build in folder may not be loaded, None)`` or ``(None, its manifest)``;
    nothing of a folder that fails the owner check is read."""
    problem = folder_problem(folder, owners)
    if problem:
        return f"the folder {problem}", None
    path = folder / f"{MODULE}.json"
    problem = _file_problem(path, owners)
    if problem:
        return problem, None
    manifest = json.loads(path.read_text())
    name = manifest["file"]
    if not isinstance(name, str) or Path(name).name != name:
        return f"its manifest names a module outside the folder ({name!r})", None
    return _file_problem(folder / name, owners), manifest


def _find() -> tuple[Path | None, dict | None, str]:
    reason = "not built: run `python -m kmlteach warmup --aot`"
    owners = _owners()
    for folder in _dirs():
        if not os.path.lexists(folder / f"{MODULE}.json"):
            continue
        try:
            distrust, manifest = _distrust(folder, owners)
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if distrust:
            reason = f"ignored the build in {folder}: {distrust}"
            _untrusted.append(reason)
            continue
        problem = _problem(manifest)
        if problem is None:
            return folder, manifest, f"compiled ahead of time ({folder})"
        reason = problem
    return None, None, reason


_TABLE: dict | None = None
_untrusted: list[str] = []  # builds skipped for their owner or mode (warned about once by load)


def load() -> dict | None:
    """``{"module": extension module, "manifest": dict}`` when this process should use
    kernels compiled ahead of time (``KMLTEACH_AOT`` set and a matching build found),
    else None (``strict``: raises ``RuntimeError`` instead). Loaded once per process."""
    global _TABLE
    if _TABLE is not None or mode() == "off":
        return _TABLE
    _untrusted.clear()
    folder, manifest, reason = _find()
    if _untrusted:
        warnings.warn(
            f"kmlteach: {_untrusted[0]} (a build runs as code in this process: only one in a folder "
            "of this user, root or the package's owner that nobody else can write is loaded)",
            RuntimeWarning,
            stacklevel=2,
        )
    if folder is None:
        if mode() == "strict":
            raise RuntimeError(f"{ENV}=strict: no ahead-of-time build to use: {reason}")
        return None
    so = folder / manifest["file"]
    loader = importlib.machinery.ExtensionFileLoader(MODULE, str(so))
    spec = importlib.util.spec_from_file_location(MODULE, so, loader=loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    _TABLE = {"module": module, "manifest": manifest}
    return _TABLE


def build_files() -> list[str]:
    """Every ahead-of-time build on this machine that a process could read: where :func:`load`
    looks (``KMLTEACH_AOT_DIR``, the package's ``__pycache__``, the per-user temporary folder)
    and the folders of this environment's prefix (the test suite's generic build). The grader
    denies them to its kernels, which run the JIT: the module holds every compiled reference
    kernel, callable by its manifest's names (red team 7: 3/3 with nothing implemented)."""
    folders = {*_dirs(), _PACKAGE / "__pycache__", *Path(sys.prefix).glob("*/")}
    return sorted(str(p.resolve()) for d in folders for p in Path(d).glob(f"{MODULE}*") if p.is_file())


def status() -> str:
    """One line: what a process with ``KMLTEACH_AOT=1`` would use, and why."""
    return _find()[2]


# ------------------------------------------------------------------------- argument types
def _typekey(value) -> tuple | None:
    """The argument's type as Numba's ``typeof`` would name it (the parts kernels use)."""
    if isinstance(value, np.ndarray):
        flags = value.flags
        layout = "C" if flags.c_contiguous else "F" if flags.f_contiguous else "A"
        return ("array", value.dtype.str, value.ndim, layout, bool(flags.writeable), bool(flags.aligned))
    if isinstance(value, (bool, np.bool_)):
        return ("bool",)
    if isinstance(value, int):
        return ("int64",) if -(2**63) <= value < 2**63 else None
    if isinstance(value, float):
        return ("float64",)
    if isinstance(value, np.generic):
        return (value.dtype.name,)
    return None


def _numba_key(t) -> tuple | None:
    """The same key for a Numba type (build time)."""
    from numba.core import types

    if isinstance(t, types.Array):
        dtype = np.dtype(str(t.dtype)).str
        return ("array", dtype, t.ndim, t.layout, bool(t.mutable), bool(t.aligned))
    if isinstance(t, types.Boolean):
        return ("bool",)
    if isinstance(t, (types.Integer, types.Float)):
        return (str(t),)
    return None


_FLOAT = ("float64",)
_INTS = ("int64", "int32", "int16", "int8", "uint32", "uint16", "uint8")


class AotKernel:
    """A kernel compiled ahead of time: calls the compiled function for exactly the argument
    types it was compiled for, otherwise the plain Python function (see the module doc)."""

    def __init__(self, name: str, py_func, table: dict):
        self.py_func = py_func
        self.__name__ = py_func.__name__
        self.__qualname__ = py_func.__qualname__
        self.__module__ = py_func.__module__
        self.__doc__ = py_func.__doc__
        self.__wrapped__ = py_func
        self._name = name
        self._compiled = {}
        for export, keys in table["manifest"]["kernels"].get(name, []):
            self._compiled[tuple(tuple(k) if k else None for k in keys)] = getattr(table["module"], export)
        self._warned = False

    @property
    def signatures(self) -> list[tuple]:
        return list(self._compiled)

    def __call__(self, *args):
        keys = tuple(_typekey(a) for a in args)
        fn = self._compiled.get(keys)
        if fn is None:  # an integer scalar where the kernel takes a float: convert it, as Numba would
            for want, compiled in self._compiled.items():
                if len(want) == len(keys) and all(
                    k == w or (w == _FLOAT and k is not None and k[0] in _INTS) for k, w in zip(keys, want)
                ):
                    fn, args = compiled, tuple(float(a) if k != w else a for a, k, w in zip(args, keys, want))
                    break
        if fn is not None:
            return fn(*args)
        kinds = ", ".join(str(_typekey(a)) for a in args)
        if mode() == "strict":
            raise TypeError(f"{self._name} was not compiled ahead of time for ({kinds})")
        if not self._warned:
            self._warned = True
            warnings.warn(
                f"kmlteach: {self._name} has no compiled version for ({kinds}); it runs as "
                f"plain Python (slow). Unset {ENV} to compile it with Numba.",
                RuntimeWarning,
                stacklevel=2,
            )
        return self.py_func(*args)


# ---------------------------------------------------------------------------------- build
_BUILD_SCRIPT = (
    "import sys\nfrom kmlteach import _jit\nfrom kmlteach._aot import _build_here\n"
    "_build_here(_jit, sys.argv[1], sys.argv[2])\n"
)


def build(folder: str | os.PathLike | None = None, cpu: str = "host", verbose: bool = True) -> Path:
    """Compile every registered kernel ahead of time into ``folder`` (default: the first
    writable of the package's ``__pycache__`` and the per-user temporary folder); returns
    the manifest's path. Runs in a fresh process with ``KMLTEACH_AOT=build``, where :func:`kmlteach._jit.jit`
    makes serial, uncached dispatchers for ``numba.pycc`` to compile. ``cpu="host"`` compiles for this
    CPU (its flags are recorded and checked at load); ``"generic"`` for any x86-64."""
    import subprocess

    if cpu not in ("host", "generic"):
        raise ValueError(f"cpu must be 'host' or 'generic', got {cpu!r}")
    candidates = [Path(folder)] if folder is not None else _dirs()
    for target in candidates:
        try:
            target.mkdir(mode=0o700, parents=True, exist_ok=True)
            if folder is None and folder_problem(target):  # e.g. another user's /tmp/kmlteach-numba-<uid>
                continue
            probe = target / f".{MODULE}-probe-{os.getpid()}"
            probe.write_text("")
            probe.unlink()
            break
        except OSError:
            continue
    else:
        raise OSError(f"no writable folder for {MODULE} among {candidates}")
    env = dict(os.environ, **{ENV: "build"})
    subprocess.run([sys.executable, "-c", _BUILD_SCRIPT, str(target), cpu], env=env, check=True)
    if verbose:
        print(f"kernels compiled ahead of time: {target / MODULE}.json")
    return target / f"{MODULE}.json"


def _build_here(_jit, folder: str, cpu: str) -> None:
    """The build, in the process :func:`build` starts; ``_jit`` is :mod:`kmlteach._jit`
    (passed in: it imports this module)."""
    import numba
    from numba.pycc import CC

    _jit.import_algorithm_modules()
    # the sources' hashes now, as imported: hashed after the ~40 s compile, a file edited
    # meanwhile would be recorded as compiled when it was not (a kernel missing from a
    # manifest that still matched)
    files = sorted(
        {
            Path(m.__file__).resolve().relative_to(_PACKAGE).as_posix()
            for n, m in list(sys.modules.items())
            if n.startswith("kmlteach.") and getattr(m, "__file__", None) and n.split(".")[1] not in _SKIP
        }
        | {"_jit.py", "_aot.py"}
    )
    sources = {rel: _sha(_PACKAGE / rel) for rel in files}
    cc = CC(MODULE)
    cc.output_dir = folder
    cc.target_cpu = "host" if cpu == "host" else ""
    kernels: dict[str, list] = {}
    for name, (fn, example) in sorted(_jit.registered().items()):
        if example is None:
            continue
        types = tuple(numba.typeof(a) for a in example())
        export = f"k{len(kernels)}_{fn.py_func.__name__}"
        cc.export(export, types)(fn.py_func)  # the return type is inferred
        kernels[name] = [[export, [_numba_key(t) for t in types]]]
    so_name = cc.output_file
    cc.compile()
    manifest = {
        "file": so_name,
        "cpu": cpu,
        "cpu_flags": _cpu_flags() if cpu == "host" else [],
        "vector_bytes": _jit.vector_bytes() if cpu == "host" else 16,
        "numba": numba.__version__,
        "versions": _versions(),
        "sources": sources,
        "kernels": kernels,
    }
    tmp = Path(folder) / f".{MODULE}.json.{os.getpid()}"
    tmp.write_text(json.dumps(manifest, indent=1, sort_keys=True))
    os.replace(tmp, Path(folder) / f"{MODULE}.json")
