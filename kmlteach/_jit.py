"""The one Numba preset of the course, and the warm-up registry.

Every jitted kernel in ``kmlteach`` is decorated with :func:`jit`::

    from kmlteach._jit import jit

    @jit(warmup=lambda: (np.zeros((2, 2)), np.ones(2)))
    def _my_kernel(X, y):
        ...

Why one preset
--------------
* ``cache=True`` so that a student pays the compile time once per machine, not once
  per kernel restart (``python -m kmlteach warmup`` fills the cache; Binder runs it
  in ``postBuild``).
* No ``fastmath``: it changed sums in the 11th digit, and our oracle tests compare to
  1e-10.
* ``parallel=True`` only where the loop is order-free (Gram matrices), and only when
  asked for with ``jit(parallel=True)``.
* ``nogil=True`` only when asked for: a kernel that Python threads call on disjoint
  tiles of one array (the Gaussian Gram matrix hands each tile to NumPy's ``exp``).

Safe caching
------------
``numba.njit(cache=True)`` raises ``RuntimeError: cannot cache function ...: no
locator available`` at *decoration* time when neither the package's ``__pycache__``
nor a per-user cache directory is writable (a read-only site-packages with an
unwritable HOME, as on some JupyterHubs). :func:`jit` catches that, points Numba at a
private per-user directory under the system temp dir and tries again; if even that
fails it compiles without a cache. Importing the package therefore never fails
because of caching. Where Numba cannot be imported at all (Pyodide / JupyterLite),
:func:`jit` returns the plain Python function: the course still runs, only slower.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable

from . import _aot

# KMLTEACH_AOT=1 and a matching build: kernels compiled ahead of time, Numba never imported
_AOT = _aot.load()
_BUILDING_AOT = os.environ.get(_aot.ENV) == "build"  # serial loops: pycc has no thread pool
if _AOT is not None:
    numba = None
    prange = range
else:
    try:  # pragma: no cover - exercised only where numba is missing
        import numba
        from numba import prange  # noqa: F401  (re-exported for kernels)
    except ImportError:  # pragma: no cover
        numba = None
        prange = range

__all__ = [
    "jit",
    "prange",
    "num_threads",
    "thread_map",
    "vector_bytes",
    "warmup",
    "registered",
    "cache_location",
    "HAVE_NUMBA",
]

HAVE_NUMBA = numba is not None

# name -> (dispatcher, warm-up argument factory or None)
_REGISTRY: dict[str, tuple[Callable, Callable | None]] = {}
_FALLBACK_DIR: str | None = None
_CACHE_DISABLED = False


def _private_temp_dir() -> str:
    """A per-user cache directory under the system temp dir.

    ``<tmp>/kmlteach-numba-<uid>`` is reused by later processes (so a kernel restart
    does not recompile, and no new directory is left behind per process) when it is a
    real directory owned by this user and writable by nobody else; otherwise a fresh
    ``mkdtemp`` directory is used. Raises ``OSError`` if nothing can be created.
    """
    getuid = getattr(os, "getuid", None)
    if getuid is not None:
        uid = getuid()
        path = str(_aot.user_dir())
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:
            pass
        # the check _aot applies before loading a build from a folder (with root as an owner)
        if _aot.folder_problem(path, (uid,)) is None and os.access(path, os.W_OK | os.X_OK):
            return path
    return tempfile.mkdtemp(prefix="kmlteach-numba-")


def _use_temp_cache_dir() -> str:
    """Point Numba's cache at a private temporary directory (chosen once per process)."""
    global _FALLBACK_DIR
    if _FALLBACK_DIR is None:
        _FALLBACK_DIR = _private_temp_dir()
        os.environ["NUMBA_CACHE_DIR"] = _FALLBACK_DIR
        numba.config.CACHE_DIR = _FALLBACK_DIR
    return _FALLBACK_DIR


def _compile(fn: Callable, parallel: bool, nogil: bool = False) -> Callable:
    global _CACHE_DISABLED
    if not _CACHE_DISABLED:
        for attempt in range(2):
            try:
                return numba.njit(cache=True, parallel=parallel, nogil=nogil, fastmath=False)(fn)
            except RuntimeError as exc:  # "cannot cache function ...: no locator available"
                if "cache" not in str(exc).lower():
                    raise
                if attempt == 0:
                    try:
                        _use_temp_cache_dir()
                        continue
                    except OSError:
                        pass
                _CACHE_DISABLED = True
                break
    return numba.njit(cache=False, parallel=parallel, nogil=nogil, fastmath=False)(fn)


def jit(
    fn: Callable | None = None, *, parallel: bool = False, nogil: bool = False, warmup: Callable | None = None
):
    """Compile ``fn`` with the course preset (njit, cache=True, no fastmath).

    Parameters
    ----------
    fn : callable
        The kernel. It must take only NumPy arrays (C-contiguous float64/int64) and
        scalars.
    parallel : bool, default=False
        Use Numba's ``parallel=True`` (only for order-free loops such as Gram matrices).
    nogil : bool, default=False
        Release the GIL while the kernel runs, so that Python threads can run it on
        disjoint parts of an array at once (see :func:`num_threads`).
    warmup : callable, optional
        Zero-argument function returning a tuple of small example arguments; used by
        :func:`warmup` to compile the kernel ahead of time. Kernels without one are
        listed by ``python -m kmlteach warmup`` as "no example arguments".

    Usable bare (``@jit``) or with options (``@jit(parallel=True, warmup=...)``).
    """

    def decorate(f: Callable) -> Callable:
        name = f"{f.__module__}.{f.__qualname__}"
        if _AOT is not None:
            compiled = _aot.AotKernel(name, f, _AOT)
        elif numba is None:  # pragma: no cover
            compiled = f
        elif _BUILDING_AOT:  # numba.pycc compiles py_func; no cache (the flags differ)
            compiled = numba.njit(cache=False, nogil=nogil)(f)
        else:
            compiled = _compile(f, parallel, nogil)
        _REGISTRY[name] = (compiled, warmup)
        return compiled

    if fn is not None:
        return decorate(fn)
    return decorate


def num_threads() -> int:
    """Threads a kernel may use: Numba's thread count (``NUMBA_NUM_THREADS``, at most the
    CPUs this process may run on), 1 without Numba."""
    if numba is None:  # pragma: no cover
        return 1
    return max(1, int(numba.config.NUMBA_NUM_THREADS))  # (reading it starts no thread pool)


_POOL = None


def thread_map(fn: Callable, items) -> list:
    """``[fn(x) for x in items]`` on :func:`num_threads` threads (one shared pool, made on
    first use), in order. For kernels compiled with ``nogil=True`` on independent pieces
    of work, so the result does not depend on the number of threads."""
    global _POOL
    items = list(items)
    if num_threads() == 1 or len(items) < 2:
        return [fn(x) for x in items]
    if _POOL is None:
        from concurrent.futures import ThreadPoolExecutor

        _POOL = ThreadPoolExecutor(max_workers=num_threads(), thread_name_prefix="kmlteach")
    return list(_POOL.map(fn, items))


_VECTOR_BYTES: int | None = None


def vector_bytes() -> int:
    """Width of the SIMD registers Numba compiles for, in bytes: 64 (AVX-512), 32 (AVX2)
    or 16 (anything else, or no Numba). Follows ``NUMBA_CPU_FEATURES`` when it is set
    (as Numba does), otherwise the host CPU."""
    global _VECTOR_BYTES
    if _VECTOR_BYTES is None:
        _VECTOR_BYTES = _AOT["manifest"]["vector_bytes"] if _AOT is not None else 16
        if numba is not None:
            feats = numba.config.CPU_FEATURES
            if feats is None:
                import llvmlite.binding as ll

                feats = ll.get_host_cpu_features().flatten()
            on = set(feats.split(","))
            _VECTOR_BYTES = 64 if "+avx512f" in on else 32 if "+avx2" in on else 16
    return _VECTOR_BYTES


def registered() -> dict[str, tuple[Callable, Callable | None]]:
    """The registry of jitted kernels (import the algorithm modules first)."""
    return dict(_REGISTRY)


ALGORITHM_MODULES = (
    "kmlteach.losses",
    "kmlteach.svm",
    "kmlteach.kernels",
    "kmlteach.structured_kernels",
    "kmlteach.kernel_methods",
    "kmlteach.multiclass",
    "kmlteach.structured",
    "kmlteach.ranking",
    "kmlteach.metrics",
    "kmlteach.ensembles",
    "kmlteach.online",
    "kmlteach.theory",
)


def import_algorithm_modules() -> list[str]:
    """Import every algorithm module that exists, so that its kernels register."""
    import importlib
    import importlib.util

    loaded = []
    for name in ALGORITHM_MODULES:
        if importlib.util.find_spec(name) is not None:
            importlib.import_module(name)
            loaded.append(name)
    return loaded


def warmup(verbose: bool = True, jobs: int = 1) -> dict[str, float]:
    """Compile every registered kernel on its example arguments.

    Returns a dict ``{kernel name: seconds}``; with ``verbose`` prints one line per
    kernel. With a warm cache each line takes milliseconds. ``jobs > 1`` compiles in that
    many processes at once (kernels grouped by module, so a kernel and the helpers it
    calls compile in the same process): on a cold cache the compile time is CPU-bound and
    shrinks with the number of cores (57 s → 44 s on 2 cores in CI with static shards; the
    processes now take modules from one queue, heaviest first); Numba writes each cache
    file atomically, so a helper compiled by two processes is harmless.
    """
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"jobs must be a positive integer (number of processes), got {jobs!r}")
    if jobs > 1 and not _all_cached():
        from ._warmup_pool import warmup_parallel

        import_algorithm_modules()
        queue = module_groups([n for n, (_, ex) in _REGISTRY.items() if ex is not None])
        return warmup_parallel(queue, jobs, verbose, cache_location())
    return _warm(None, verbose)


def _all_cached() -> bool:
    """True when every registered kernel has a cache index that matches its source file
    (so a warm-up only loads, and extra processes would cost more than they save). Reads
    Numba's private cache objects; on any surprise it answers False."""
    try:
        import_algorithm_modules()
        return all(
            bool(fn._cache._cache_file._load_index())
            for fn, example in _REGISTRY.values()
            if example is not None
        )
    except Exception:  # noqa: BLE001 - a different Numba version: just compile in parallel
        return False


def _warm(names: set[str] | None, verbose: bool) -> dict[str, float]:
    import_algorithm_modules()
    times: dict[str, float] = {}
    for name, (fn, example) in sorted(_REGISTRY.items()):
        if names is not None and name not in names:
            continue
        if example is None:
            if verbose:
                print(f"  {name:<60s}   (no example arguments)")
            continue
        t0 = time.perf_counter()
        fn(*example())
        times[name] = time.perf_counter() - t0
        if verbose:
            print(f"  {name:<60s} {times[name]:7.2f} s", flush=True)
    if verbose and names is None:
        print(f"{len(times)} kernels ready in {sum(times.values()):.1f} s (cache: {cache_location()})")
    return times


def module_groups(names: list[str], weight: Callable[[str], float] | None = None) -> list[list[str]]:
    """Kernel names grouped by module (a kernel and the helpers beside it compile in one
    process), heaviest group first; ``weight(name)`` estimates a kernel's compile time
    (default: the length of its source, which is what Numba's compile time follows)."""
    weight = weight or _source_lines
    by_module: dict[str, list[str]] = {}
    for name in sorted(names):
        by_module.setdefault(name.rsplit(".", 1)[0], []).append(name)
    return sorted(by_module.values(), key=lambda g: (-sum(map(weight, g)), g))


def _source_lines(name: str) -> float:
    import inspect

    fn = _REGISTRY[name][0]
    try:
        return float(len(inspect.getsourcelines(getattr(fn, "py_func", fn))[0]))
    except (OSError, TypeError):
        return 1.0


def cache_location() -> str:
    """Where compiled kernels are cached (or why they are not)."""
    if _AOT is not None:
        return _aot.status()
    if numba is None:
        return "numba not installed: kernels run as plain Python"
    if _CACHE_DISABLED:
        return "disabled (no writable location)"
    if numba.config.CACHE_DIR:
        return str(numba.config.CACHE_DIR)
    return (
        os.path.join(os.path.dirname(os.path.abspath(__file__)), "__pycache__")
        + " (or the per-user Numba cache if that is read-only)"
    )
