"""kmlteach: large-margin and kernel methods, implemented to be read and run.

The algorithms live in ``kmlteach.svm``, ``kmlteach.kernels``, ``kmlteach.multiclass``,
... (see ``book.toml`` for the chapter map). This module never imports Jupyter.
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__", "check_env", "progress", "warmup"]


def progress(chapter: str | None = None, *, reset: bool = False) -> None:
    """Print your progress in the course: per chapter, the exercises passed, the concept
    checks and recap questions right the first time and the predictions right (counts
    only, no answers), and where this copy of the course records them; ``progress("01")``
    prints chapter 01's line; ``progress(reset=True)`` starts afresh (the old record is
    kept, renamed). Never raises."""
    try:
        from .exercises.progress import progress as _progress
    except ImportError:  # a grading kernel, where kmlteach.exercises is not available
        print("progress is not available here")
        return
    _progress(chapter, reset=reset)


# the packages check_env reports that the course runs without (the student edition does
# not install them: comparisons with their results are skipped)
_OPTIONAL = ("scikit-learn", "scipy")


def warmup(verbose: bool = True, jobs: int = 1) -> dict[str, float]:
    """Compile (or load from cache) every Numba kernel, in ``jobs`` processes; returns
    seconds per kernel."""
    from ._jit import warmup as _warmup

    return _warmup(verbose=verbose, jobs=jobs)


def _widget_extension() -> str | None:
    """Path of the JupyterLab widgets extension, or None if it is not installed."""
    try:
        from jupyter_core.paths import jupyter_path
    except ImportError:
        return None
    import os

    for base in jupyter_path("labextensions"):
        cand = os.path.join(base, "@jupyter-widgets", "jupyterlab-manager")
        if os.path.isdir(cand):
            return cand
    return None


def _ahead_of_time(status: str) -> str:
    """What this kernel does about kernels compiled ahead of time, for a student: the
    build is a server's optimisation (hubs and Binder make it), so a missing or stale one
    needs nothing from them and no command is named."""
    from ._jit import _AOT

    if _AOT is not None:
        return f"in use: {status}"
    if status.startswith("compiled ahead of time"):
        return f"built, not in use ({status.split('(', 1)[-1].rstrip(')')}): this kernel uses Numba's cache"
    why = status.split(": run `", 1)[0]
    return f"not in use ({why}): Numba compiles each kernel on first use and caches it; nothing to do"


def check_env(verbose: bool = True) -> dict:
    """Print and return versions, the Numba cache location and widget support."""
    import importlib.metadata as md
    import platform

    from ._aot import status as aot_status
    from ._jit import cache_location

    info: dict = {"python": platform.python_version(), "kmlteach": __version__}
    for pkg in ("numpy", "numba", "matplotlib", "ipywidgets", "jupyterlab", "scikit-learn", "scipy"):
        try:
            info[pkg] = md.version(pkg)
        except md.PackageNotFoundError:
            info[pkg] = None
    info["numba_cache"] = cache_location()
    info["ahead_of_time"] = _ahead_of_time(aot_status())
    ext = _widget_extension()
    info["widgets"] = bool(ext) and info["ipywidgets"] is not None
    info["widget_extension"] = ext
    if verbose:
        for k in (
            "python",
            "kmlteach",
            "numpy",
            "numba",
            "matplotlib",
            "ipywidgets",
            "jupyterlab",
            "scikit-learn",
            "scipy",
        ):
            missing = "not installed" + (
                " (optional: a comparison with it is skipped)" if k in _OPTIONAL else ""
            )
            print(f"{k:<14}{info[k] or missing}")
        print(f"{'numba cache':<14}{info['numba_cache']}")
        print(f"{'ahead of time':<14}{info['ahead_of_time']}")
        print(
            f"{'widgets':<14}"
            + (
                "yes: JupyterLab widget extension found"
                if info["widgets"]
                else "NO: install ipywidgets>=8 (sliders will not render; the static figures still do)"
            )
        )
    return info
