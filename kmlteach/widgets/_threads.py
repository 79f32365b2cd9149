"""One thread (BLAS and Numba) while a widget recomputes.

A widget's linear algebra is small (a 160 × 160 eigendecomposition): OpenBLAS still
splits it over its threads, and on a busy two-core machine (Binder, a laptop running
the browser) those threads spin-wait for each other, so ``numpy.linalg.eigh`` of that
size took 300 ms of CPU instead of 3 ms. :func:`single_blas_thread` pins BLAS to one
thread for the duration of an update and restores the previous setting: with
``threadpoolctl`` when it is installed (any BLAS), else through the thread setter of the
OpenBLAS that NumPy's wheels bundle; where neither is found it does nothing.
"""

from __future__ import annotations

import contextlib
import ctypes
import glob
import os

__all__ = ["single_blas_thread", "single_thread", "on_main_thread"]

_OPENBLAS: list = []


def _bundled_openblas():
    if not _OPENBLAS:
        lib = None
        try:
            import numpy

            pattern = os.path.join(os.path.dirname(numpy.__file__), os.pardir, "numpy.libs", "*openblas*")
            for path in glob.glob(pattern):
                cand = ctypes.CDLL(path)
                if hasattr(cand, "scipy_openblas_set_num_threads64_"):
                    lib = cand
                    break
        except OSError:  # pragma: no cover - an unloadable library: do nothing
            lib = None
        _OPENBLAS.append(lib)
    return _OPENBLAS[0]


@contextlib.contextmanager
def single_thread():
    """Context manager: BLAS and Numba's parallel loops run on one thread inside the
    block (a widget's Gram matrices are small; waking the thread pool costs more than
    it saves, ten times more on a busy machine)."""
    try:
        import numba
    except ImportError:  # pragma: no cover - the pure-Python fallback has no threads
        numba = None
    before = numba.get_num_threads() if numba is not None else None
    if numba is not None:
        numba.set_num_threads(1)
    try:
        with single_blas_thread():
            yield
    finally:
        if numba is not None:
            numba.set_num_threads(before)


@contextlib.contextmanager
def single_blas_thread():
    """Context manager: BLAS runs on one thread inside the block."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        lib = _bundled_openblas()
        if lib is None:
            yield
            return
        before = lib.scipy_openblas_get_num_threads64_()
        lib.scipy_openblas_set_num_threads64_(1)
        try:
            yield
        finally:
            lib.scipy_openblas_set_num_threads64_(before)
        return
    with threadpool_limits(limits=1, user_api="blas"):
        yield


def on_main_thread(fn) -> bool:
    """Run ``fn`` on the Jupyter kernel's main thread (its event loop): from a worker thread,
    or from a cell to run once the cell has returned. False (nothing scheduled) outside a
    kernel."""
    try:
        from IPython import get_ipython

        loop = getattr(getattr(get_ipython(), "kernel", None), "io_loop", None)
    except ImportError:  # pragma: no cover
        loop = None
    if loop is None:
        return False
    loop.add_callback(fn)
    return True
