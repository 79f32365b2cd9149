"""The course runs with the runtime dependencies only (Binder, `make lab`, conda users).

scikit-learn, SciPy and hmmlearn are test oracles, not runtime dependencies: Binder's
environment.yml does not install them. Each ready notebook is executed in a kernel in
which importing them fails (a ``sitecustomize`` on PYTHONPATH blocks them), and must
run without an error. The package itself must import without them too.
"""

import subprocess
import sys
from pathlib import Path

import pytest

from kmlteach import book

ROOT = Path(__file__).resolve().parent.parent
BLOCKED = ("sklearn", "scipy", "hmmlearn")
SITECUSTOMIZE = f'''
import sys

class _BlockOptional:
    """Make the test-only oracles unimportable, as on Binder."""
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {BLOCKED!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}} (blocked: runtime-only test)")
        return None

sys.meta_path.insert(0, _BlockOptional())
'''


@pytest.fixture(scope="module")
def blocked_env(tmp_path_factory):
    d = tmp_path_factory.mktemp("runtime_only")
    (d / "sitecustomize.py").write_text(SITECUSTOMIZE)
    return d


def test_package_imports_without_optional_dependencies(blocked_env, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(blocked_env))
    code = ("import importlib, kmlteach._jit as j\n"
            "for m in j.ALGORITHM_MODULES + ('kmlteach.datasets', 'kmlteach.exercises', 'kmlteach.book'):\n"
            "    if importlib.util.find_spec(m): importlib.import_module(m)\n"
            "print('all modules imported')\n"
            "import sklearn\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert "blocked: runtime-only test" in r.stderr, r.stderr[-2000:]   # the block is active...
    assert "all modules imported" in r.stdout, r.stderr[-2000:]         # ...and only the last line hit it


NOTEBOOKS = [c.notebook for c in book.load().chapters if c.ready]


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[Path(n).stem for n in NOTEBOOKS])
def test_notebook_runs_without_optional_dependencies(notebook, blocked_env, monkeypatch):
    import nbformat
    from nbclient import NotebookClient

    monkeypatch.setenv("PYTHONPATH", str(blocked_env))
    monkeypatch.delenv("MPLBACKEND", raising=False)
    nb = nbformat.read(ROOT / notebook, as_version=4)
    client = NotebookClient(nb, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(ROOT / "notebooks")}})
    client.execute()  # raises CellExecutionError on the first failing cell
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert not errors
