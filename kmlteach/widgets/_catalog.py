"""Every widget builder of the course in one list, and the values a control is moved
through, for the tests and the benchmarks.

:func:`builders` yields ``(name, factory)``: ``name`` is the builder's public path below
``kmlteach.widgets`` (``"ch02.make_psd_lab"``; a chapter may be a package of modules) and
``factory`` builds the explorer when called without arguments (each builder's defaults
are its chapter's data; chapter 00's angle demo gets the data notebook 00 gives it). A
builder with a ``predict`` argument is listed twice, the second time as
``"<name>[predict]"`` built with ``predict=True`` (:mod:`kmlteach.widgets._predict`).

:func:`control_values` is the one control-value picker: ``tests/helpers.py`` (the widget
tests), ``tests/test_widgets_blit.py`` (the pixel-identity test) and
``benchmarks/bench_widgets.py`` move controls with it, through the values that
``/work/shared/tools/widget_latency.py`` (the course's latency check, kept outside the
repository) uses by default.
"""

from __future__ import annotations

import functools
import inspect
import pkgutil
from collections.abc import Callable, Iterator

__all__ = ["builders", "control_values"]

FRACTIONS = (0.2, 0.4, 0.6, 0.8)


def control_values(c, fractions=FRACTIONS, n_options: int = 4, back: bool = False) -> list:
    """Values to move a control ``c`` to: up to ``n_options`` other options of a dropdown
    (then its own value again when ``back``), a checkbox both ways, a slider to
    ``fractions`` of its range (of the exponent's range for a log slider; rounded for an
    integer slider; its current value left out). Anything else: no values."""
    if getattr(c, "options", None):
        vals = [o[1] if isinstance(o, tuple) else o for o in c.options]
        return [v for v in vals if v != c.value][:n_options] + ([c.value] if back else [])
    if type(c).__name__ in ("Checkbox", "ToggleButton"):
        return [not c.value, c.value]
    if hasattr(c, "min") and hasattr(c, "max") and isinstance(c.value, (int, float)):
        lo, hi = c.min, c.max
        pts = [lo + f * (hi - lo) for f in fractions]
        if type(c).__name__ == "FloatLogSlider":
            pts = [10**p for p in pts]
        if isinstance(c.value, int) and not isinstance(c.value, bool):
            pts = [int(round(p)) for p in pts]
        return [p for p in pts if p != c.value]
    return []


def _angle_demo(predict: bool = False):
    from ..datasets import separable
    from .welcome import make_angle_demo

    X, y = separable(m=30, d=2, margin=0.6, seed=0)  # as in notebook 00
    return make_angle_demo(X * 2.5, y, predict=predict)


def chapters() -> tuple:
    """The chapters' widget modules, by an import statement (a new chapter is added here;
    :func:`builders` checks that the list names every ``ch*`` module of the package)."""
    from . import ch01, ch02, ch03, ch04, ch05, ch06, ch07, ch08, ch09

    mods = (ch01, ch02, ch03, ch04, ch05, ch06, ch07, ch08, ch09)
    from .. import widgets as pkg

    present = sorted(m.name for m in pkgutil.iter_modules(pkg.__path__) if m.name.startswith("ch"))
    listed = [m.__name__.rsplit(".", 1)[1] for m in mods]
    if present != listed:
        raise RuntimeError(f"widgets._catalog.chapters() lists {listed}, the package has {present}")
    return mods


def builders() -> Iterator[tuple[str, Callable]]:
    for mod in chapters():
        short = mod.__name__.rsplit(".", 1)[1]
        for name, fn in inspect.getmembers(mod, inspect.isfunction):
            home = fn.__module__
            if name.startswith("make_") and (home == mod.__name__ or home.startswith(mod.__name__ + ".")):
                yield f"{short}.{name}", fn
                if "predict" in inspect.signature(fn).parameters:  # its prediction mode too
                    yield f"{short}.{name}[predict]", functools.partial(fn, predict=True)
    yield "welcome.make_angle_demo", _angle_demo
    yield "welcome.make_angle_demo[predict]", functools.partial(_angle_demo, predict=True)
