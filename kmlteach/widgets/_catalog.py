"""Every widget builder of the course in one list, for the tests and the benchmarks.

:func:`builders` yields ``(name, factory)``: ``name`` is ``"<module>.make_<widget>"``
and ``factory`` builds the explorer when called without arguments (each builder's
defaults are its chapter's data; chapter 00's angle demo gets the data notebook 00 gives
it). A builder that only forwards to one defined elsewhere (chapter 09 re-exports two of
``ch09_theory``'s lazily) carries ``kml_forwards_to`` and is listed once, where it is
defined.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Callable, Iterator

__all__ = ["builders", "forwards_to"]


def forwards_to(target: str) -> Callable:
    """Mark a builder that only calls ``target`` (``"module.make_x"``)."""
    def mark(fn):
        fn.kml_forwards_to = target
        return fn
    return mark


def _angle_demo():
    from ..datasets import separable
    from .welcome import make_angle_demo

    X, y = separable(m=30, d=2, margin=0.6, seed=0)   # as in notebook 00
    return make_angle_demo(X * 2.5, y)


def builders() -> Iterator[tuple[str, Callable]]:
    from .. import widgets as pkg

    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda m: m.name):
        if not info.name.startswith("ch"):
            continue
        mod = importlib.import_module(f"{pkg.__name__}.{info.name}")
        for name, fn in inspect.getmembers(mod, inspect.isfunction):
            if (name.startswith("make_") and fn.__module__ == mod.__name__
                    and not hasattr(fn, "kml_forwards_to")):
                yield f"{info.name}.{name}", fn
    yield "welcome.make_angle_demo", _angle_demo
