"""Test-session hygiene for everything pytest runs here: tests/ and, with nbval, notebooks/.

nbval starts the notebook kernels with this process's environment, so normalise
what would make a fresh run differ from the stored outputs:

* ``MPLBACKEND`` (e.g. ``Agg`` exported by a CI image) overrides the kernel's inline
  backend and silently drops every figure output;
* ``PYTHONHASHSEED`` is fixed as in ``python -m kmlteach execute``, which produced the
  stored outputs;
* a student's kernel has the runtime dependencies only (``make lab``, Binder): nbval
  starts each notebook's kernel with scikit-learn, SciPy and hmmlearn blocked
  (``tests/runtime_env.py``), except the notebooks whose stored outputs need one of them
  (``FULL_ENV_NOTEBOOKS``, executed blocked by ``tests/test_runtime_only.py``). The kernel
  inherits ``os.environ`` when the first cell of its notebook is set up; ``PYTHONPATH``
  is restored right after.

Every notebook is collected twice: as itself (``notebooks/01-svm.ipynb``) and as
``notebooks/01-svm.ipynb[other-machine]``, whose kernel runs the way another machine
would (:data:`OTHER_MACHINE`): the kernels compiled by Numba for a generic x86-64 CPU,
ahead of time (``kmlteach._aot``, as a hub's or Binder's kernel runs them; parallel loops
on one thread; ``KMLTEACH_AOT=strict``, so a kernel called with argument types it was not
compiled for fails the cell), NumPy and OpenBLAS one SIMD level lower, one BLAS thread.
Both must reproduce the stored outputs, so a notebook that prints a digit depending on
summation order, SIMD width or thread count fails here and not on a student's machine
(CONTRIBUTING, "Notebooks"); the second pass also runs every chapter the way a hub does.
The generic build (about 40 s of CPU) starts in the background when the session starts
(:func:`pytest_sessionstart`, ``tests/aot_build.py``) and is kept per venv while the sources are unchanged.
``KMLTEACH_NBVAL_MACHINES=native`` (or ``other``) runs one of the two only.

In-process tests draw with matplotlib's non-interactive Agg backend.
"""

import atexit
import os
import shutil
import sys
from pathlib import Path

os.environ.pop("MPLBACKEND", None)
os.environ.setdefault("PYTHONHASHSEED", "0")
# no results log (kmlteach.exercises.progress): tests and nbval's kernels write nothing into
# the user's home, and a chapter's progress line prints the same text as in the build
os.environ["KMLTEACH_RESULTS"] = ""

import matplotlib  # noqa: E402  (after the MPLBACKEND clean-up above, which it reads on import)
import pytest  # noqa: E402  (imports matplotlib through its plugins)

matplotlib.use("Agg")

sys.path.insert(0, str(Path(__file__).resolve().parent / "tests"))
from aot_build import start_generic_build, wait_for_generic_build  # noqa: E402  (tests/ just put on sys.path)
from runtime_env import blocked_dir, blocked_pythonpath, nbval_blocked  # noqa: E402  (tests/ just put on sys.path)

_BLOCK_DIR: list = []

OTHER = "[other-machine]"
_AVX512 = "X86_V4 AVX512F AVX512CD AVX512_SKX AVX512_CLX AVX512_CNL AVX512_ICL AVX512_SPR"
_AVX2 = "X86_V3 AVX2 FMA3"


def _other_machine() -> dict:
    """The environment of an other-machine kernel (besides the ahead-of-time build of
    :func:`pytest_runtest_setup`): NumPy and OpenBLAS one SIMD level below this CPU's widest (AVX-512 → AVX2, AVX2 → SSE; names this NumPy or
    CPU does not know are ignored), one thread for OpenBLAS/OpenMP/MKL and Numba."""
    import platform

    env = {
        "NUMBA_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }
    if platform.machine().lower() in ("x86_64", "amd64"):
        try:
            flags = Path("/proc/cpuinfo").read_text().split()
        except OSError:
            flags = []
        if "avx512f" in flags:
            env["NPY_DISABLE_CPU_FEATURES"] = _AVX512
            env["OPENBLAS_CORETYPE"] = "Haswell"
        elif "avx2" in flags:
            env["NPY_DISABLE_CPU_FEATURES"] = f"{_AVX2} {_AVX512}"
            env["OPENBLAS_CORETYPE"] = "Nehalem"
    return env


OTHER_MACHINE = _other_machine()
_MACHINES = set(os.environ.get("KMLTEACH_NBVAL_MACHINES", "native,other").split(","))


def pytest_sessionstart(session):
    """The generic ahead-of-time build starts in the background (controller only)."""
    config = session.config
    if not hasattr(config, "workerinput") and "other" in _MACHINES and getattr(config.option, "nbval", False):
        start_generic_build()


def pytest_collect_file(file_path, parent):
    """The second, other-machine collection of each chapter notebook (nbval collects
    the first one itself)."""
    opt = parent.config.option
    if not (
        getattr(opt, "nbval", False) and file_path.suffix == ".ipynb" and file_path.parent.name == "notebooks"
    ):
        return None
    from nbval.plugin import IPyNbFile

    nodeid = file_path.relative_to(parent.config.rootpath).as_posix() + OTHER
    return IPyNbFile.from_parent(parent, path=file_path, nodeid=nodeid)


def pytest_collection_modifyitems(config, items):
    if _MACHINES >= {"native", "other"}:
        return
    keep = "other" in _MACHINES
    items[:] = [
        it
        for it in items
        if not it.nodeid.partition("::")[0].endswith(".ipynb")
        and not it.nodeid.partition("::")[0].endswith(OTHER)
        or it.nodeid.partition("::")[0].endswith(OTHER) == keep
    ]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item):
    starts_kernel = item.path.suffix == ".ipynb" and getattr(item.parent, "kernel", None) is None
    if not starts_kernel:
        yield
        return
    env = {}
    if nbval_blocked(item.path):
        if not _BLOCK_DIR:
            _BLOCK_DIR.append(blocked_dir())
            atexit.register(shutil.rmtree, _BLOCK_DIR[0], True)
        env["PYTHONPATH"] = blocked_pythonpath(_BLOCK_DIR[0])
    if getattr(item.parent, "nodeid", "").endswith(OTHER):
        env.update(OTHER_MACHINE, KMLTEACH_AOT="strict", KMLTEACH_AOT_DIR=str(wait_for_generic_build()))
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    """An xdist worker ends here, once its results are with the controller: ``atexit``'s
    handlers run (the folders above are removed), then the process exits without the
    interpreter's own teardown. That teardown (pytest's five ``gc.collect`` passes for
    unraisable exceptions, then the modules and the heap of a worker that drove Chromium,
    JupyterLab and the graders) kept the controller waiting ~10 s after the last test of a
    full ``make test`` (2026-12-06: the last worker's unconfigure at 543.8 s, the
    controller's at 554.2 s). The worker's report, ``workerfinished``, is written and
    flushed in ``pytest_sessionfinish`` (execnet writes synchronously), and the controller
    takes a worker's end after it as normal. ``KMLTEACH_WORKER_TEARDOWN=1`` keeps it."""
    if not hasattr(config, "workerinput") or os.environ.get("KMLTEACH_WORKER_TEARDOWN"):
        return
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001 - a closed capture stream: nothing left to flush
            pass
    atexit._run_exitfuncs()
    os._exit(0)
