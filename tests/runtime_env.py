"""The student's environment in a test: scikit-learn, SciPy and hmmlearn unimportable.

They are test oracles, not runtime dependencies (``make lab`` and Binder install the
runtime dependencies only). :func:`blocked_dir` writes a ``sitecustomize`` that makes
importing them fail; a process started with that directory first on ``PYTHONPATH`` runs
as a student's kernel does. Used by the root ``conftest.py`` (nbval's kernels) and
``tests/test_runtime_only.py``.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

BLOCKED = ("sklearn", "scipy", "hmmlearn")

# Notebooks whose stored outputs show something only an oracle library gives (06: SciPy's
# LP solver on the Birkhoff polytope, UML Lemma 17.4). nbval runs them with everything
# installed; tests/test_runtime_only.py runs them blocked. Every other notebook runs
# blocked under nbval, so its stored outputs are shown to be what a student gets.
FULL_ENV_NOTEBOOKS = {"06-ranking"}
MESSAGE = "blocked: runtime-only test"

SITECUSTOMIZE = f'''
import sys

class _BlockOptional:
    """Make the test-only oracles unimportable, as on Binder."""
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {BLOCKED!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}} ({MESSAGE})")
        return None

sys.meta_path.insert(0, _BlockOptional())
'''


def blocked_dir(where: str | Path | None = None) -> Path:
    """A directory holding the blocking ``sitecustomize.py`` (a new temporary one if
    ``where`` is None)."""
    d = Path(where) if where is not None else Path(tempfile.mkdtemp(prefix="kml-runtime-only-"))
    d.mkdir(parents=True, exist_ok=True)
    (d / "sitecustomize.py").write_text(SITECUSTOMIZE)
    return d


def blocked_pythonpath(d: Path) -> str:
    """``PYTHONPATH`` with the blocking directory first (existing entries kept after it)."""
    rest = os.environ.get("PYTHONPATH")
    return str(d) + (os.pathsep + rest if rest else "")


def nbval_blocked(path: str | Path) -> bool:
    """Whether nbval runs the notebook at ``path`` in the student's (blocked) environment."""
    p = Path(path)
    return p.suffix == ".ipynb" and p.parent.name == "notebooks" and p.stem not in FULL_ENV_NOTEBOOKS
