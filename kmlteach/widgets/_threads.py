"""One thread (BLAS and Numba) while a widget recomputes.

A widget's linear algebra is small (a 160 × 160 eigendecomposition): OpenBLAS still
splits it over its threads, and on a busy two-core machine (Binder, a laptop running
the browser) those threads spin-wait for each other, so ``numpy.linalg.eigh`` of that
size took 300 ms of CPU instead of 3 ms. :func:`single_blas_thread` pins BLAS to one
thread for the duration of an update and restores the previous setting, with
``threadpoolctl`` (a runtime dependency: it finds every BLAS loaded in the process —
NumPy's, SciPy's, conda's MKL or OpenBLAS).
"""

from __future__ import annotations

import contextlib

from kmlteach._linalg import one_blas_thread

__all__ = ["single_blas_thread", "single_thread", "on_main_thread"]


@contextlib.contextmanager
def single_thread():
    """Context manager: BLAS and Numba's parallel loops run on one thread inside the
    block (a widget's Gram matrices are small; waking the thread pool costs more than
    it saves, ten times more on a busy machine)."""
    from kmlteach._jit import numba  # None without Numba or with kernels compiled ahead of time

    before = numba.get_num_threads() if numba is not None else None
    if numba is not None:
        numba.set_num_threads(1)
    try:
        with single_blas_thread():
            yield
    finally:
        if numba is not None:
            numba.set_num_threads(before)


# BLAS on one thread inside a ``with`` block; the BLAS libraries are looked up once
single_blas_thread = one_blas_thread


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
