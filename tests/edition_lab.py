"""The student edition as a student starts it, for tests/test_journey.py (and the Numba
cache helper tests/test_release_edition.py shares).

:class:`EditionLab` publishes the edition into a temp folder and runs *its own*
``make lab`` there: the edition's Makefile creates ``.venv``, installs the package,
warms the kernels up and starts JupyterLab, printing a line per step and the address to
open. The test reads those lines as a student would, then drives Chromium to the printed
address. Only what a student cannot have is changed, through the Makefile's variables and
the environment: ``LAB_ARGS`` (no browser of its own, a free port, a known token, the
application exposed to the page for programmatic runs), Jupyter/IPython/matplotlib
folders in the temp dir, and the interpreter (``PYTHON``: this one, so that the Numba
cache copied from the instructor's package below matches — a student's first warm-up
compiles every kernel instead, 1-3 minutes).
"""

from __future__ import annotations

import os
import queue
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

from test_browser import LAB_SETTINGS, JupyterLab

ROOT = Path(__file__).resolve().parent.parent

__all__ = ["EditionLab", "numba_cache", "tree_cpu"]


def numba_cache(src_pkg: Path, dst_pkg: Path) -> None:
    """Give the copied package the instructor's Numba cache (same sources, same mtimes), so
    the edition's warm-up loads every kernel instead of compiling it again."""
    for cache in src_pkg.rglob("__pycache__"):
        files = [p for p in cache.iterdir() if p.suffix in (".nbi", ".nbc")]
        target = dst_pkg / cache.relative_to(src_pkg)
        if not files or not target.parent.is_dir():
            continue
        target.mkdir(exist_ok=True)
        for p in files:
            shutil.copy2(p, target / p.name)
    for py in dst_pkg.rglob("*.py"):
        src = src_pkg / py.relative_to(dst_pkg)
        if src.is_file() and src.read_bytes() == py.read_bytes():
            st = src.stat()
            os.utime(py, ns=(st.st_atime_ns, st.st_mtime_ns))


def tree_cpu(root: int, exclude: int | None = None) -> float:
    """CPU seconds of process ``root`` and every process below it (but the tree of
    ``exclude``), alive or already reaped by its parent (their time is in the parent's)."""
    stats = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        stats[int(entry.name)] = (int(fields[1]), sum(map(int, fields[11:15])))  # ppid; u+s+cu+cs
    tree, grew = {root}, True
    while grew:
        more = {pid for pid, (ppid, _) in stats.items() if ppid in tree and pid != exclude} - tree
        tree |= more
        grew = bool(more)
    return sum(stats[pid][1] for pid in tree if pid in stats) / os.sysconf("SC_CLK_TCK")


_STEP = re.compile(r"^\[(\d)/(\d)\] (\S+): (.*)$")
_URL = re.compile(r"(http://127\.0\.0\.1:\d+/\S*)")


class EditionLab(JupyterLab):
    """``make lab`` of a published student edition, read line by line until the server's
    address; ``steps`` holds ``(seconds since start, step number, name, text)`` per step
    line, ``url`` the address JupyterLab printed (with the token it drew: the server
    prints its address only for a token of its own), ``python`` the edition's own
    interpreter."""

    # the student's notebook view: JupyterLab's default windowing ("contentVisibility" in 4.6),
    # not the instructor-lab tests' "none" (every cell laid out); autosave stays off (the
    # walk closes run notebooks without saving them). Both modes cost the walk the same
    # (Chromium's renderer 133 CPU-s over the steps either way, 2026-12-07)
    lab_settings = {k: v for k, v in LAB_SETTINGS.items() if "notebook-extension/tracker" not in k}

    def __init__(self, base: Path, edition: Path):
        super().__init__(base, edition)
        self.steps: list[tuple[float, int, str, str]] = []
        self.printed: list[str] = []
        self.url = ""
        self.python = edition / ".venv" / "bin" / "python"

    def start(self, timeout: float = 900.0) -> None:
        env = self.env()
        home = Path(os.environ.get("HOME", str(Path.home())))
        # the package caches of this machine (the temp HOME has none): nothing else is shared
        env.setdefault("UV_CACHE_DIR", os.environ.get("UV_CACHE_DIR", str(home / ".cache" / "uv")))
        env.setdefault("PIP_CACHE_DIR", os.environ.get("PIP_CACHE_DIR", str(home / ".cache" / "pip")))
        env["PYTHONUNBUFFERED"] = "1"
        env.pop("VIRTUAL_ENV", None)
        env.pop("PYTHONPATH", None)
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # a student's kernels write their bytecode
        for name in [k for k in env if k.startswith("KMLTEACH_")]:
            del env[name]  # a student sets none (the test session turns the results log off)
        lab_args = " ".join(
            [
                "--no-browser",
                "--ip=127.0.0.1",
                f"--port={self.port}",
                "--port-retries=0",
                "--LabApp.expose_app_in_browser=True",
            ]
        )
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(
            ["make", "--no-print-directory", "lab", f"PYTHON={sys.executable}", f"LAB_ARGS={lab_args}"],
            env=env,
            cwd=self.root_dir,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            text=True,
            bufsize=1,
        )
        t0 = time.monotonic()
        # a thread reads make's output line by line (select() on a buffered pipe misses the
        # lines already in the buffer: JupyterLab prints its address as one multi-line record)
        lines: queue.Queue[str] = queue.Queue()
        self._reader = threading.Thread(target=self._read, args=(lines,), daemon=True)
        self._reader.start()
        while not self.url:
            left = timeout - (time.monotonic() - t0)
            try:
                line = lines.get(timeout=max(left, 0.01))
            except queue.Empty:
                raise RuntimeError(
                    f"make lab printed no address within {timeout:.0f} s:\n{self.server_log()}"
                ) from None
            if line is None:
                raise RuntimeError(f"make lab stopped ({self.proc.wait()}):\n{self.server_log()}")
            self.printed.append(line)
            m = _STEP.match(line.strip())
            if m:
                self.steps.append((round(time.monotonic() - t0, 1), int(m.group(1)), m.group(3), m.group(4)))
            m = _URL.search(line)
            if m and "/lab" in m.group(1):
                self.url = m.group(1)  # with the token the server drew, as a student sees it
                self.token = self.url.partition("token=")[2]

    def _read(self, lines: queue.Queue) -> None:
        """Every line of make's output into the log file, and into ``lines`` (None at the end)."""
        for line in self.proc.stdout:
            try:
                self.log.write(line)
                self.log.flush()
            except ValueError:  # closed by stop(): the last lines of a server shutting down
                pass
            lines.put(line.rstrip("\n"))
        lines.put(None)

    def tree_cpu(self) -> float:
        """CPU seconds of make and every process below it (the server, its kernels)."""
        return tree_cpu(self.proc.pid)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            super().stop()  # the server's process group: make, JupyterLab and its kernels
            self._reader.join(timeout=10)
