"""A grading kernel's environment variables: a few inherited (the interpreter's paths and
the locale), everything else pointing into its scratch folder. No ``KMLTEACH_*`` nor any
other variable of the grader's reaches a kernel."""

from __future__ import annotations

import os

__all__ = ["kernel_env"]

_PASS_ENV = ("PATH", "LANG", "LC_ALL", "PYTHONPATH", "VIRTUAL_ENV", "CONDA_PREFIX")


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
