"""The generic ahead-of-time build of the kernels (``kmlteach._aot``) that the nbval
other-machine pass (root ``conftest.py``) and ``tests/test_aot.py`` use: one per venv, in
``<venv>/aot-other-machine``, rebuilt (in the background, about 40 s of CPU) when the
sources changed. ``.exit`` in that folder holds the build's exit status once it ended."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

__all__ = ["generic_build_dir", "start_generic_build", "wait_for_generic_build", "generic_build"]


def generic_build_dir() -> Path:
    return Path(sys.prefix) / "aot-other-machine"


def start_generic_build() -> None:
    """Start the build in the background unless the one there matches the sources."""
    folder = generic_build_dir()
    folder.mkdir(exist_ok=True)
    done = folder / ".exit"
    done.unlink(missing_ok=True)
    env = dict(os.environ, KMLTEACH_AOT_DIR=str(folder))
    env.pop("KMLTEACH_AOT", None)
    check = "from kmlteach._aot import _find; raise SystemExit(_find()[0] is None)"
    if subprocess.run([sys.executable, "-c", check], env=env).returncode == 0:
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
    return folder


def generic_build(timeout: float = 600.0) -> Path:
    """The build's folder, starting the build first when the session did not (the nbval
    other-machine pass is off: ``KMLTEACH_NBVAL_MACHINES`` without ``other``)."""
    if "other" not in os.environ.get("KMLTEACH_NBVAL_MACHINES", "native,other"):
        start_generic_build()
    return wait_for_generic_build(timeout)
