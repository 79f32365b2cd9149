"""The generic ahead-of-time build of the kernels (``kmlteach._aot``) that the nbval
other-machine pass (root ``conftest.py``) and ``tests/test_aot.py`` use: one per venv, in
``<venv>/aot-other-machine``, rebuilt (in the background, about 37 s of CPU) when the
sources changed. ``.exit`` in that folder holds the build's exit status once it ended.

A build that ended well is also kept in the user's cache (``~/.cache/kmlteach/aot-generic``,
the newest three), so a fresh clone of the same sources (``.ci/run``, a new worktree) takes
it instead of compiling again: the copy is used only if the manifest's own checks pass
(``kmlteach._aot``: the SHA-256 of every source the build read, ``_aot.py`` and ``_jit.py``
among them, the Python and NumPy versions) and it was made by this Numba version, so a
change to any of them builds again. 37 s of CPU is ~6 % of a ``make test`` on 2 cores."""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

__all__ = ["generic_build_dir", "start_generic_build", "wait_for_generic_build", "generic_build"]


def generic_build_dir() -> Path:
    return Path(sys.prefix) / "aot-other-machine"


def cache_dir() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "kmlteach" / "aot-generic"


def _usable(folder: Path) -> bool:
    """The build in ``folder`` passes the manifest's checks here (sources, versions)."""
    env = dict(os.environ, KMLTEACH_AOT_DIR=str(folder))
    env.pop("KMLTEACH_AOT", None)
    check = "from kmlteach._aot import _find; raise SystemExit(_find()[0] is None)"
    return subprocess.run([sys.executable, "-c", check], env=env).returncode == 0


def _numba_of(folder: Path) -> str | None:
    try:
        return json.loads((folder / "kmlteach_aot.json").read_text())["numba"]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _from_cache(folder: Path) -> bool:
    """A cached build of these sources copied into ``folder``, if there is one (Numba's
    version read from its metadata: the session's controller does not import Numba)."""
    from importlib.metadata import version

    numba_version = version("numba")
    root = cache_dir()
    entries = sorted(root.glob("*/kmlteach_aot.json"), key=lambda p: p.stat().st_mtime, reverse=True)
    for manifest in entries:
        entry = manifest.parent
        if _numba_of(entry) != numba_version:
            continue
        for f in folder.glob("kmlteach_aot*"):
            f.unlink()
        for f in entry.iterdir():
            shutil.copy2(f, folder / f.name)
        if _usable(folder):
            os.utime(entry)
            return True
    return False


@functools.cache
def _to_cache(folder: Path) -> None:
    """Keep the build of ``folder`` (the newest three builds are kept); once a process, the
    first time a test waits for the build."""
    import hashlib

    manifest = folder / "kmlteach_aot.json"
    root = cache_dir()
    if not manifest.is_file():
        return
    key = root / hashlib.sha256(manifest.read_bytes()).hexdigest()[:20]
    if key.is_dir():
        return
    try:
        root.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(dir=root, prefix=".new-"))
    except OSError:  # no cache can be written here: nothing kept
        return
    try:
        for f in folder.glob("kmlteach_aot*"):
            shutil.copy2(f, tmp / f.name)
        os.chmod(tmp, 0o755)
        os.replace(tmp, key)
    except OSError:  # another process kept it first
        shutil.rmtree(tmp, ignore_errors=True)
        return
    for old in sorted(root.glob("*/kmlteach_aot.json"), key=lambda p: p.stat().st_mtime)[:-3]:
        shutil.rmtree(old.parent, ignore_errors=True)


def start_generic_build() -> None:
    """Start the build in the background unless the one there, or a cached one, matches
    the sources."""
    folder = generic_build_dir()
    folder.mkdir(exist_ok=True)
    done = folder / ".exit"
    done.unlink(missing_ok=True)
    env = dict(os.environ, KMLTEACH_AOT_DIR=str(folder))
    env.pop("KMLTEACH_AOT", None)
    if _usable(folder) or _from_cache(folder):
        done.write_text("0")
        return
    cmd = f'"{sys.executable}" -m kmlteach warmup --quiet --aot --cpu generic --aot-dir "{folder}"'
    with open(folder / "build.log", "w") as log:
        subprocess.Popen(["sh", "-c", f'{cmd}; echo $? > "{done}"'], env=env, stdout=log, stderr=log)


def wait_for_generic_build(timeout: float = 600.0) -> Path:
    """The build's folder once it ended well (a test fails with its log otherwise)."""
    folder = generic_build_dir()
    done = folder / ".exit"
    deadline = time.monotonic() + timeout
    while not (done.exists() and done.read_text().strip()) and time.monotonic() < deadline:
        time.sleep(0.5)
    status = done.read_text().strip() if done.exists() else "not started or timed out"
    if status != "0":
        log = (folder / "build.log").read_text() if (folder / "build.log").exists() else ""
        pytest.fail(f"the generic ahead-of-time build failed ({status}):\n{log[-3000:]}")
    _to_cache(folder)
    return folder


def generic_build(timeout: float = 600.0) -> Path:
    """The build's folder, starting the build first when the session did not (the nbval
    other-machine pass is off: ``KMLTEACH_NBVAL_MACHINES`` without ``other``)."""
    if "other" not in os.environ.get("KMLTEACH_NBVAL_MACHINES", "native,other"):
        start_generic_build()
    return wait_for_generic_build(timeout)
