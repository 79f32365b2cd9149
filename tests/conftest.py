"""Test-session hygiene shared by all tests (keep this file small).

nbval starts the notebook kernels with this process's environment, so normalise
what would make a fresh run differ from the stored outputs:

* ``MPLBACKEND`` (e.g. ``Agg`` exported by a CI image) overrides the kernel's inline
  backend and silently drops every figure output;
* ``PYTHONHASHSEED`` is fixed as in ``python -m kmlteach execute``, which produced the
  stored outputs.

In-process tests draw with matplotlib's non-interactive Agg backend.
"""

import os

os.environ.pop("MPLBACKEND", None)
os.environ.setdefault("PYTHONHASHSEED", "0")

import matplotlib  # noqa: E402

matplotlib.use("Agg")

# Hypothesis: no per-example deadline (a first call may compile a Numba kernel, and CI
# shares 2 cores), and derandomized examples in CI so that a submission's result does
# not depend on the draw. Locally the default random exploration keeps finding new cases.
from hypothesis import settings  # noqa: E402

settings.register_profile("kmlteach", deadline=None)
settings.register_profile("ci", deadline=None, derandomize=True, print_blob=True)
settings.load_profile("ci" if os.environ.get("CI") else "kmlteach")
