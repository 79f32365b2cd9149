"""Peak memory of a student's kernel per chapter ("Run All" on the released notebook).

Each chapter's student notebook (``python -m kmlteach release``: solutions stubbed) runs
top to bottom in a fresh kernel through nbclient, with scikit-learn, SciPy and hmmlearn
unimportable as in the student's environment (``tests/runtime_env.py``), as "Run All" does (cells that raise —
the stubbed exercises — do not stop the run). A thread polls, every 20 ms, the resident
set (``VmRSS``) of the kernel process and of all its descendants (chapter 05's background
training, Numba's or BLAS's threads are inside the kernel's own RSS) and keeps the peak
of their sum, and the peak of the kernel alone. Target (issue 26): ≤ 200 MiB, children
included. The row's ``ours`` is the peak in MiB, ``reference`` the 200 MiB budget,
``ratio`` budget / peak (≥ 1 is within budget).

The kernel runs in the environment the hub gives it (``deploy/hub/sizing.py``: the
kernels compiled ahead of time, ``KMLTEACH_AOT=1``, one thread per allowed core for Numba
and BLAS, and glibc's fixed mmap threshold: ``sizing.kernel_environment()``), which
``sizing.KERNEL_MIB`` is measured in, or with ``--plain-env`` in this process's (``make
lab``: Numba's JIT). Each row says which kernels ran.

Run alone: ``python benchmarks/bench_memory.py [--plain-env] [01 05 ...]``.
"""

from __future__ import annotations

import os
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

sys.path.insert(0, str(ROOT / "tests"))

from run import row
from runtime_env import blocked_dir, blocked_pythonpath

BUDGET_MIB = 200.0


def _rss_kib(pid: int, field: str = "VmRSS") -> int:
    """``VmRSS`` (resident) or ``RssAnon`` (its private, anonymous part: what is not file
    pages of shared libraries, which the page cache shares among all students' kernels)."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        for c in children.get(p, []):
            out.append(c)
            todo.append(c)
    return out


class _Poller(threading.Thread):
    def __init__(self, pid: int, period: float = 0.02):
        super().__init__(daemon=True)
        self.pid, self.period = pid, period
        self.peak_total = self.peak_kernel = self.peak_anon = 0
        self.stop = threading.Event()

    def run(self):
        while not self.stop.is_set():
            k = _rss_kib(self.pid)
            kids = _descendants(self.pid)
            total = k + sum(_rss_kib(c) for c in kids)
            anon = sum(_rss_kib(p, "RssAnon") for p in [self.pid, *kids])
            self.peak_anon = max(self.peak_anon, anon)
            self.peak_kernel = max(self.peak_kernel, k)
            self.peak_total = max(self.peak_total, total)
            self.stop.wait(self.period)


def hub_env() -> dict[str, str]:
    """The environment variables the hub sets for a student's server and kernels."""
    sys.path.insert(0, str(ROOT / "deploy" / "hub"))
    import sizing

    return sizing.kernel_environment()


def peak_memory(
    nb_path: Path, timeout: int = 600, env: dict | None = None
) -> tuple[float, float, float, float]:
    """(peak MiB with children, peak MiB of the kernel alone, peak private (anonymous) MiB
    with children, seconds) of one Run All; ``env``: variables added to the kernel's
    environment."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(nb_path, as_version=4)
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        allow_errors=True,
        resources={"metadata": {"path": str(nb_path.parent)}},
    )
    t0 = time.perf_counter()
    env = dict(os.environ, **(env or {}), PYTHONPATH=blocked_pythonpath(blocked_dir()))  # as on a hub/Binder
    with client.setup_kernel(env=env):
        pid = client.km.provisioner.process.pid
        poller = _Poller(pid)
        poller.start()
        try:
            for index, cell in enumerate(nb.cells):
                client.execute_cell(cell, index)
            time.sleep(0.3)  # background work started by the last cells
        finally:
            poller.stop.set()
            poller.join()
    return (
        poller.peak_total / 1024,
        poller.peak_kernel / 1024,
        poller.peak_anon / 1024,
        time.perf_counter() - t0,
    )


def _release(out: Path) -> None:
    import subprocess

    subprocess.run(
        [sys.executable, "-m", "kmlteach", "release", "--out", str(out)],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )


def kernels_used(env: dict) -> str:
    """What a kernel started with ``env`` runs: the ahead-of-time build or Numba's JIT."""
    import subprocess

    code = "from kmlteach import _aot; print(_aot.status() if _aot.mode() != 'off' else 'Numba JIT')"
    out = subprocess.run(
        [sys.executable, "-c", code], env=dict(os.environ, **env), capture_output=True, text=True
    )
    return out.stdout.strip() or out.stderr.strip()[-200:]


def run(quick: bool = False, chapters: list[str] | None = None, env: dict | None = None) -> list[dict]:
    """Rows per chapter; ``env`` defaults to the hub's (:func:`hub_env`: kernels compiled
    ahead of time when ``python -m kmlteach warmup --aot`` built them, as ``make bench`` does)."""
    env = hub_env() if env is None else env
    used = kernels_used(env)
    rows = []
    with tempfile.TemporaryDirectory(prefix="kmlteach-mem-") as tmp:
        out = Path(tmp) / "student"
        _release(out)
        nbs = sorted(out.glob("[0-9][0-9]-*.ipynb"))
        if chapters:
            nbs = [p for p in nbs if p.name[:2] in chapters]
        elif quick:
            nbs = [p for p in nbs if p.name[:2] in ("01", "05")]
        for nb in nbs:
            total, kernel, anon, secs = peak_memory(nb, env=env)
            r = row(
                f"peak RSS {nb.stem} (Run All, kernel + children)",
                total,
                BUDGET_MIB,
                "<= 200 MiB",
                None,
                note=f"kernel alone {kernel:.0f} MiB; private (anonymous) {anon:.0f} MiB; run {secs:.0f} s; "
                f"kernels: {used}",
            )
            r["ratio"] = BUDGET_MIB / total if total else float("inf")
            r["met"] = total <= BUDGET_MIB
            r["unit"] = "MiB"
            rows.append(r)
    return rows


if __name__ == "__main__":
    args = sys.argv[1:]
    extra = {} if "--plain-env" in args else hub_env()
    for r_ in run(chapters=[a for a in args if not a.startswith("--")] or None, env=extra):
        print(
            f"{r_['name']:<58s} {r_['ours']:6.0f} MiB  [{r_['target']}] "
            f"{'met' if r_['met'] else 'MISSED'}  {r_['note']}",
            flush=True,
        )
