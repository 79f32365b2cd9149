"""What a grading kernel is started with (kmlteach.course.grade.kernel): its environment,
the folders its sandbox may read or list, the ones it must not see, and a lazy import that
keeps the grader's own start-up cheap."""

from __future__ import annotations

import os
import sys
from pathlib import Path

_PASS_ENV = ("PATH", "LANG", "LC_ALL", "PYTHONPATH", "VIRTUAL_ENV", "CONDA_PREFIX")


def _defer_import(name: str, functions=()) -> bool:
    """Make ``import name`` lazy in this process: a stand-in module that imports the real
    one on first use (an attribute, or one of ``functions`` called); ``False`` when the
    module is already imported or not installed.

    Used for ``rfc3987_syntax``: nbclient imports nbformat, which imports jsonschema, which
    imports it (when installed: JupyterLab's jupyter-events asks for it) for its ``iri``
    format checker (``from rfc3987_syntax import is_valid_syntax``), and that import builds
    38 Lark parsers: 1.4-2 s of CPU in every grading process and Dask worker, for a checker
    that nbformat never uses. Whatever does check an IRI still gets the real answer."""
    import importlib
    import importlib.util
    import types

    if name in sys.modules or importlib.util.find_spec(name) is None:
        return False

    class _Deferred(types.ModuleType):
        def __getattr__(self, attr):
            if attr.startswith("__"):
                raise AttributeError(attr)
            return getattr(real(), attr)

    def real():
        if isinstance(sys.modules.get(name), _Deferred):
            del sys.modules[name]
        return importlib.import_module(name)

    def deferred(fn):
        return lambda *a, **k: getattr(real(), fn)(*a, **k)

    stub = _Deferred(name, f"Stand-in of {name} (kmlteach.course.grade.kernel): imported on first use.")
    for fn in functions:
        setattr(stub, fn, deferred(fn))
    sys.modules[name] = stub
    return True


def kernel_env(scratch: str) -> dict:
    """The kernel's whole environment: a few inherited variables, the rest in ``scratch``."""
    env = {k: os.environ[k] for k in _PASS_ENV if k in os.environ}
    env.setdefault("PATH", os.defpath)
    env.setdefault("LANG", "C.UTF-8")
    j = lambda *p: os.path.join(scratch, *p)
    env.update(
        HOME=scratch,
        TMPDIR=scratch,
        PYTHONHASHSEED="0",
        PYTHONDONTWRITEBYTECODE="1",
        PYTHONNOUSERSITE="1",
        MPLBACKEND="Agg",
        MPLCONFIGDIR=j(".mpl"),
        NUMBA_CACHE_DIR=j(".numba"),
        IPYTHONDIR=j(".ipython"),
        JUPYTER_RUNTIME_DIR=j(".rt"),
        JUPYTER_CONFIG_DIR=j(".jupyter"),
        JUPYTER_DATA_DIR=j(".jdata"),
        OMP_NUM_THREADS="1",
        OPENBLAS_NUM_THREADS="1",
        MKL_NUM_THREADS="1",
        NUMBA_NUM_THREADS="1",
    )
    return env


def _read_roots() -> list[str]:
    """What a kernel may read. Not ``/sys``: its ``fs/cgroup`` (and the counters below it) is
    shared by concurrent kernels, a channel between submissions (red team's finding C);
    glibc, NumPy, OpenBLAS and Numba count CPUs from ``/proc`` and ``sched_getaffinity``
    without it (tests/test_grade_hostile.py reads ``/sys`` from a kernel)."""
    import site
    import sysconfig

    roots = [
        "/usr",
        "/lib",
        "/lib64",
        "/lib32",
        "/bin",
        "/sbin",
        "/etc",
        "/dev",
        "/proc",
        "/opt",
        sys.prefix,
        sys.base_prefix,
        os.path.dirname(os.path.realpath(sys.executable)),
    ]
    roots += [sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")]
    roots += site.getsitepackages()
    import kmlteach

    roots += list(kmlteach.__path__)
    return [r for r in dict.fromkeys(roots) if r and os.path.exists(r)]


def _list_roots() -> list[str]:
    """Folders holding the package (e.g. a source checkout on PYTHONPATH): listing only."""
    import kmlteach

    return [os.path.dirname(os.path.realpath(p)) for p in kmlteach.__path__]


def _protected(extra) -> list[str]:
    """What a kernel may not read below its read roots: the exercises' references, the course
    tools (the grader, the hidden cases) and the kernels compiled ahead of time (each reference
    kernel, callable: red team 7; a grading kernel runs the JIT)."""
    import kmlteach
    from kmlteach._aot import build_files

    pkg = Path(list(kmlteach.__path__)[0])
    return [str(pkg / "exercises"), str(pkg / "course"), *build_files(), *[str(p) for p in extra]]
