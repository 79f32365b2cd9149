"""The grading kernel's start-up cell, built in one place (grader-side).

The cell rebuilds the :mod:`..inkernel` modules from their text as a private package,
calls ``server.setup`` with the grader's configuration and the notebook's namespace,
stores the probe it returns under the kernel's random name and leaves nothing else behind
in that namespace or in ``sys.modules``. It runs in a namespace of its own, not the
notebook's: the modules find builtins (``sum``, ``any``, ``sorted``...) through their own
globals, where a student's ``sum = 0`` or ``from numpy import *`` broke the codec (red team 4).
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["startup_code", "MODULES"]

MODULES = ("codec", "reaping", "disarm", "lock", "server")  # each after what it imports
_PACKAGE = "_kmlteach_inkernel"

_LOADER = """\
def _kmlteach_startup(sources, cfg):
    import sys, types
    pkg = types.ModuleType({package!r})
    pkg.__path__ = []
    sys.modules[pkg.__name__] = pkg
    try:
        for name, text in sources:
            mod = types.ModuleType(pkg.__name__ + "." + name)
            mod.__package__ = pkg.__name__
            sys.modules[mod.__name__] = mod
            exec(compile(text, "<kmlteach grading: " + name + ">", "exec"), mod.__dict__)
            setattr(pkg, name, mod)
        return pkg.server.setup(cfg)
    finally:
        for name in [n for n in sys.modules if n == pkg.__name__ or n.startswith(pkg.__name__ + ".")]:
            del sys.modules[name]
"""


def startup_code(cfg: dict, probe_name: str) -> str:
    """The cell's text: ``probe_name`` is bound to the probe in the notebook's namespace
    (``cfg`` gets that namespace as ``user_ns``)."""
    here = Path(__file__).parent
    sources = [(name, (here / f"{name}.py").read_text(encoding="utf-8")) for name in MODULES]
    loader = _LOADER.format(package=_PACKAGE)
    return (
        "_kmlteach_ns = {'__name__': 'kmlteach_grade_kernel', '__builtins__': __builtins__}\n"
        f"exec(compile({loader!r}, '<kmlteach grading>', 'exec'), _kmlteach_ns)\n"
        f"{probe_name} = _kmlteach_ns['_kmlteach_startup']({sources!r}, "
        f"{{**{cfg!r}, 'user_ns': get_ipython().user_ns}})\n"
        "del _kmlteach_ns\n"
    )
