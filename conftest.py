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

In-process tests draw with matplotlib's non-interactive Agg backend.
"""

import atexit
import os
import shutil
import sys
from pathlib import Path

os.environ.pop("MPLBACKEND", None)
os.environ.setdefault("PYTHONHASHSEED", "0")

import matplotlib  # noqa: E402  (after the MPLBACKEND clean-up above, which it reads on import)
import pytest  # noqa: E402  (imports matplotlib through its plugins)

matplotlib.use("Agg")

sys.path.insert(0, str(Path(__file__).resolve().parent / "tests"))
from runtime_env import blocked_dir, blocked_pythonpath, nbval_blocked  # noqa: E402  (tests/ just put on sys.path)

_BLOCK_DIR: list = []


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item):
    starts_kernel = nbval_blocked(item.path) and getattr(item.parent, "kernel", None) is None
    if not starts_kernel:
        yield
        return
    if not _BLOCK_DIR:
        _BLOCK_DIR.append(blocked_dir())
        atexit.register(shutil.rmtree, _BLOCK_DIR[0], True)
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = blocked_pythonpath(_BLOCK_DIR[0])
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = old
