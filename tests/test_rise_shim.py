"""The prebuilt RISE shim (jupyter/rise-shim/): built from its sources, installed, found.

The shim is a JupyterLab federated extension that provides a stand-in for
``@jupyterlab/console`` to jupyterlab-rise's slideshow app, so that ipywidgets' widget
manager loads there (jupyterlab-contrib/rise#119; see jupyter/rise-shim/README.md). These
checks need no browser: ``tests/test_browser_slides.py`` checks the live slideshow itself.

* ``dist/`` was rebuilt after the last change to the shim's sources (a hash recorded at
  build time), and names a container entry that exists;
* the container registers ``@jupyterlab/console`` as a singleton at version 0.0.0 (below
  every real JupyterLab, so JupyterLab's own module always wins) under the extension's
  name, and bundles no Lumino (the token must be the host's);
* ``pip install -e .`` put it where JupyterLab and the RISE server extension look, and
  jupyterlab_server lists it with its container (the setuptools editable-install
  work-around in setup.py).
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHIM = ROOT / "jupyter" / "rise-shim"
DIST = SHIM / "dist"
NAME = "kmlteach-rise-shim"


def _dist_package() -> dict:
    return json.loads((DIST / "package.json").read_text())


def _source_sha256(files: list[str]) -> str:
    """The hash webpack.config.js records: each file as ``name \\0 bytes \\0``, in order."""
    h = hashlib.sha256()
    for f in files:
        h.update(f.encode() + b"\0")
        h.update((SHIM / f).read_bytes())
        h.update(b"\0")
    return h.hexdigest()


def test_dist_was_rebuilt_after_the_last_source_change():
    pkg = _dist_package()
    sources = pkg["kmlteach"]["sources"]
    assert {"package.json", "webpack.config.js", "src/console.js"} <= set(sources)
    assert pkg["kmlteach"]["sourceSha256"] == _source_sha256(sources), (
        "jupyter/rise-shim/dist is older than its sources: run `make rise-shim` and commit dist/"
    )
    src = json.loads((SHIM / "package.json").read_text())
    assert (pkg["name"], pkg["version"]) == (src["name"], src["version"]) == (NAME, src["version"])


def test_the_container_provides_the_console_stand_in_and_nothing_else():
    load = _dist_package()["jupyterlab"]["_build"]["load"]
    entry = DIST / load
    assert entry.is_file(), f"dist/package.json names {load}, which is not in dist/"
    assert "extension" not in _dist_package()["jupyterlab"]["_build"], "the shim activates no plugin"
    js = entry.read_text()
    assert f'["{NAME}"]' in js and "_JUPYTERLAB" in js, "the container is not published as _JUPYTERLAB[name]"
    provided = re.findall(r'\("(@[\w-]+/[\w-]+)","([\d.]+)"\)', js)
    assert provided == [("@jupyterlab/console", "0.0.0")], provided
    # Lumino is consumed from the host as a singleton, never bundled
    chunks = "".join(p.read_text() for p in (DIST / "static").glob("*.js"))
    assert '"@lumino/coreutils"' in chunks
    assert "class Token" not in chunks and "_tokenStructuralPropertyT" not in chunks


def test_pyproject_installs_dist_as_a_labextension():
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["data-files"]
    target = f"share/jupyter/labextensions/{NAME}"
    assert data[target] == ["jupyter/rise-shim/dist/package.json"]
    assert data[f"{target}/static"] == ["jupyter/rise-shim/dist/static/*.js"]


def test_setup_py_restores_data_files_in_editable_installs():
    # setuptools' editable_wheel asks for Distribution.has_data(), which does not exist
    from setuptools.dist import Distribution

    had = hasattr(Distribution, "has_data")
    try:
        source = (ROOT / "setup.py").read_text()
        exec(compile(source.replace("setup()", ""), "setup.py", "exec"), {"__name__": "setup_check"})
        assert Distribution.has_data is Distribution.has_data_files or had
    finally:
        if not had and hasattr(Distribution, "has_data"):
            del Distribution.has_data


def test_the_environment_has_the_shim_where_jupyterlab_looks():
    from jupyter_core.paths import jupyter_path
    from jupyterlab_server.config import get_federated_extensions

    installed = Path(sys.prefix) / "share" / "jupyter" / "labextensions" / NAME
    assert (installed / "package.json").is_file(), (
        f"{installed} is missing: reinstall the course (`pip install -e .`, or `make lab`)"
    )
    assert json.loads((installed / "package.json").read_text()) == _dist_package(), (
        "the installed shim differs from jupyter/rise-shim/dist: reinstall (`pip install -e .`)"
    )
    found = get_federated_extensions(jupyter_path("labextensions"))
    assert NAME in found, "jupyterlab_server does not list the shim"
    load = found[NAME]["jupyterlab"]["_build"]["load"]
    assert (Path(found[NAME]["ext_path"]) / load).is_file()
