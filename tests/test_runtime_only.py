"""The course runs with the runtime dependencies only (Binder, `make lab`, conda users).

scikit-learn, SciPy and hmmlearn are test oracles, not runtime dependencies: Binder's
environment.yml does not install them. The package must import without them, and every
ready notebook must run without an error in a kernel in which importing them fails (a
``sitecustomize`` on PYTHONPATH blocks them, see ``tests/runtime_env.py``). nbval already
runs every notebook that way (the root ``conftest.py``) — and compares with the stored
outputs — except the ones in ``FULL_ENV_NOTEBOOKS``, whose stored outputs show what one
of those libraries adds: those are executed here once more, blocked.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from runtime_env import FULL_ENV_NOTEBOOKS, MESSAGE, blocked_dir, blocked_pythonpath, nbval_blocked

from kmlteach.course import book

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def blocked_env(tmp_path_factory):
    return blocked_dir(tmp_path_factory.mktemp("runtime_only"))


def test_package_imports_without_optional_dependencies(blocked_env, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", blocked_pythonpath(blocked_env))
    code = (
        "import importlib, kmlteach._jit as j\n"
        "for m in j.ALGORITHM_MODULES + ('kmlteach.datasets', 'kmlteach.exercises', 'kmlteach.course.book'):\n"
        "    if importlib.util.find_spec(m): importlib.import_module(m)\n"
        "print('all modules imported')\n"
        "import sklearn\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert MESSAGE in r.stderr, r.stderr[-2000:]  # the block is active...
    assert "all modules imported" in r.stdout, r.stderr[-2000:]  # ...and only the last line hit it


NOTEBOOKS = [
    c.notebook for c in book.load().chapters if c.ready and Path(c.notebook).stem in FULL_ENV_NOTEBOOKS
]


def test_every_other_notebook_is_validated_blocked_by_nbval():
    """The split is complete: a ready notebook is either here or blocked under nbval."""
    ready = {Path(c.notebook).stem for c in book.load().chapters if c.ready}
    assert FULL_ENV_NOTEBOOKS <= ready, FULL_ENV_NOTEBOOKS - ready
    assert NOTEBOOKS and all(nbval_blocked(ROOT / n) is False for n in NOTEBOOKS)
    assert all(nbval_blocked(ROOT / "notebooks" / f"{s}.ipynb") for s in ready - FULL_ENV_NOTEBOOKS)


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[Path(n).stem for n in NOTEBOOKS])
def test_notebook_runs_without_optional_dependencies(notebook, blocked_env, monkeypatch):
    import nbformat
    from nbclient import NotebookClient

    monkeypatch.setenv("PYTHONPATH", blocked_pythonpath(blocked_env))
    monkeypatch.delenv("MPLBACKEND", raising=False)
    nb = nbformat.read(ROOT / notebook, as_version=4)
    client = NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(ROOT / "notebooks")}}
    )
    client.execute()  # raises CellExecutionError on the first failing cell
    errors = [
        o
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if o.get("output_type") == "error"
    ]
    assert not errors


def _root_conftest():
    import importlib.util

    spec = importlib.util.spec_from_file_location("kml_root_conftest", ROOT / "conftest.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class _Cell:
    """What the hook reads of an nbval cell item: its path, and its notebook's kernel."""

    def __init__(self, path, kernel=None):
        self.path = Path(path)
        self.parent = type("Nb", (), {"kernel": kernel})()


def test_nbval_kernels_start_blocked_and_the_environment_is_restored(monkeypatch):
    hook = _root_conftest().pytest_runtest_setup
    monkeypatch.setenv("PYTHONPATH", "/elsewhere")
    gen = hook(_Cell(ROOT / "notebooks" / "01-svm.ipynb"))
    next(gen)  # the kernel starts here, with this environment
    first, _, rest = os.environ["PYTHONPATH"].partition(os.pathsep)
    assert MESSAGE in (Path(first) / "sitecustomize.py").read_text() and rest == "/elsewhere"
    with pytest.raises(StopIteration):
        gen.send(None)
    assert os.environ["PYTHONPATH"] == "/elsewhere"
    for item in (
        _Cell(ROOT / "notebooks" / "06-ranking.ipynb"),  # full environment
        _Cell(ROOT / "notebooks" / "01-svm.ipynb", kernel=object()),  # kernel running
        _Cell(ROOT / "tests" / "test_jit.py"),
    ):
        gen = hook(item)
        next(gen)
        assert os.environ["PYTHONPATH"] == "/elsewhere"
        with pytest.raises(StopIteration):
            gen.send(None)
