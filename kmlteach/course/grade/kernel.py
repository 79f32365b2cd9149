"""A fresh, sandboxed Jupyter kernel for one submission, driven with nbclient.

The kernel is started through ``_launcher.py`` (limits, cgroup, dedicated uid, then
bubblewrap's namespaces where it runs, talking over Unix sockets in its scratch folder;
Landlock) in a new session, with a scrubbed environment (no ``KMLTEACH_*`` or other grader
variables: only what Python, NumPy, Numba and matplotlib need, all pointing into the
scratch directory). Cell outputs never reach the grader: its IOPub socket subscribes
only to the kernel's own topics (``kernel.<id>.status``, ``.execute_input``, ``.error``,
...), so ZeroMQ drops the ``stream`` and ``display_data`` messages (prints, figures) in
the kernel (a 50 MB print used to be sent, HMAC-checked and parsed by the grader, then
thrown away), the kernel side writes ``sys.stdout``/``sys.stderr`` to ``/dev/null``, and
what still arrives is discarded. The grader's probe results come back only in the
``execute_reply`` to the grader's own request (``user_expressions``), never from what
cells print.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ._kernel_setup import _defer_import, _list_roots, _protected, _read_roots, kernel_env
from .limits import Limits, become_subreaper, descendants_count, kill_session, kill_uid, reap_orphans
from .sandbox import Cgroup, bwrap_argv, bwrap_problem, cgroup_problem

__all__ = ["SandboxKernel", "KernelDied", "KernelTimeout", "kernel_env"]

LAUNCHER = Path(__file__).with_name("_launcher.py")
# sent to the kernel as one cell: the codec and the reaper, then _setup (which uses both)
KERNEL_SIDE = tuple(Path(__file__).with_name(f"_kernel_{n}.py") for n in ("codec", "reap", "lock", "side"))
# ipykernel publishes its own messages under b"kernel.<id>.<type>" (status, execute_input,
# execute_result, error, shutdown), prints under b"stream.<name>", figures under b"display_data"
_IOPUB_TOPIC = b"kernel."
# a reply (or any message) larger than this is dropped by ZeroMQ while it arrives, before
# the grader holds it in memory; the probe itself caps its JSON at MAX_RESULT_BYTES
MAX_MESSAGE_BYTES = 40 * 1024 * 1024


_defer_import("rfc3987_syntax", ["is_valid_syntax"])
LIVE_KERNELS: set[int] = set()
_PY = os.path.abspath(sys.executable)  # the kernel starts elsewhere (its scratch folder)
STARTUP_TIMEOUT = 60.0


class KernelDied(RuntimeError):
    pass


class KernelTimeout(RuntimeError):
    pass


class SandboxKernel:
    """``async with SandboxKernel(limits, uid, protected=...) as k: await k.run(code)``."""

    def __init__(self, limits: Limits, uid: int | None, protected=(), notebook_bytes: bytes = b"", hidden=()):
        self.limits, self.uid = limits, uid
        self.hidden = [str(p) for p in hidden]  # also invisible inside the namespaces (a secret)
        self.use_bwrap = limits.bwrap and bwrap_problem() is None
        self.cgroup = None
        self.private = tempfile.mkdtemp(prefix="kmlteach-grade-ctl-")
        self.scratch = tempfile.mkdtemp(prefix="kmlteach-grade-run-")
        self.protected = _protected(protected)
        self.notebook_bytes = notebook_bytes
        self.deadline = time.monotonic() + limits.timeout
        self.client = None
        self.sid = None
        self.too_many = False
        become_subreaper()
        self.memory_event = False
        self.nonce = secrets.token_hex(8)

    async def __aenter__(self):
        import nbformat
        from jupyter_client import AsyncKernelManager
        from jupyter_client.kernelspec import KernelSpec
        from nbclient import NotebookClient

        Path(self.scratch, "submission.ipynb").write_bytes(self.notebook_bytes)
        for sub in (".mpl", ".numba", ".ipython", ".rt"):
            os.makedirs(os.path.join(self.scratch, sub), exist_ok=True)
        if self.uid is not None:
            for dirpath, dirnames, filenames in os.walk(self.scratch):
                for n in [dirpath, *(os.path.join(dirpath, f) for f in dirnames + filenames)]:
                    os.chown(n, self.uid, self.uid)
        if self.limits.cgroup and cgroup_problem() is None:
            try:
                self.cgroup = Cgroup.create(self.limits.nproc, self.limits.cgroup_memory_mb)
            except OSError:
                self.cgroup = None
        self.write_roots = [self.scratch] + (["/dev/shm", "/tmp"] if self.use_bwrap else [])
        self.read_roots = _read_roots()
        bwrap = None
        if self.use_bwrap:
            inner = os.path.join(self.scratch, ".launcher.py")
            shutil.copyfile(LAUNCHER, inner)
            os.chmod(inner, 0o444)
            bwrap = bwrap_argv(
                self.scratch,
                self.read_roots,
                self.protected + self.hidden + [self.private],
                uid_inside=self.uid,
            )
        cfg = {
            "bwrap": bwrap,
            "inner_launcher": os.path.join(self.scratch, ".launcher.py"),
            "cgroup_procs": self.cgroup.procs if self.cgroup else [],
            "memory_mb": self.limits.memory_mb,
            "fsize_mb": self.limits.fsize_mb,
            "cpu_seconds": self.limits.cpu_seconds,
            "nproc": self.limits.nproc,
            "uid": self.uid,
            "gid": self.uid,
            "scratch": self.scratch,
            "landlock": self.limits.landlock,
            "read_roots": self.read_roots,
            "protected": self.protected + [self.private],
            # inside the namespaces /dev/shm and /tmp are the sandbox's own tmpfs
            "write_roots": self.write_roots,
            "list_roots": _list_roots(),
        }
        cfg_path = os.path.join(self.private, "sandbox.json")
        Path(cfg_path).write_text(json.dumps(cfg), encoding="utf-8")
        # inside the namespaces the kernel has no network: Unix sockets in its scratch folder
        km = (
            AsyncKernelManager(kernel_name="", transport="ipc", ip=os.path.join(self.scratch, "k"))
            if self.use_bwrap
            else AsyncKernelManager(kernel_name="")
        )
        km._kernel_spec = KernelSpec(
            argv=[
                _PY,
                "-I",
                "-S",
                str(LAUNCHER),
                cfg_path,
                "--",
                _PY,
                "-m",
                "ipykernel_launcher",
                "-f",
                "{connection_file}",
            ],
            display_name="kmlteach grading",
            language="python",
            env={},
        )
        km.connection_file = os.path.join(self.scratch, "connection.json")

        class _Client(NotebookClient):
            def output(self, outs, msg, display_id, cell_index):  # drop every output
                return None

        quiet = logging.getLogger("kmlteach.grade.nbclient")
        quiet.setLevel(logging.CRITICAL)
        quiet.propagate = False
        km.log = quiet
        self.client = _Client(
            nbformat.v4.new_notebook(),
            km=km,
            allow_errors=True,
            log=quiet,
            iopub_timeout=2,
            shutdown_kernel="immediate",
            startup_timeout=60,
            extra_arguments=["--HistoryManager.enabled=False"],
        )
        self._replies = {}
        self.client.on_cell_executed = self._on_executed
        try:
            await asyncio.wait_for(self._start(), timeout=STARTUP_TIMEOUT)
        except BaseException as exc:  # also Ctrl-C (CancelledError): never leave a kernel behind
            await self._cleanup()
            if not isinstance(exc, Exception):
                raise
            raise KernelDied(
                f"the kernel did not start ({type(exc).__name__}; "
                f"memory limit {self.limits.memory_mb} MB too low?)"
            ) from None
        self.deadline = time.monotonic() + self.limits.timeout  # start-up is not the student's time
        self.uexpr = None
        orig = self.client.kc.execute

        def execute(code, **kw):
            if self.uexpr:
                kw["user_expressions"] = self.uexpr
            return orig(code, **kw)

        self.client.kc.execute = execute
        return self

    async def _start(self):
        await self.client.async_start_new_kernel(
            env=kernel_env(self.scratch),
            cwd=self.scratch,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        proc = getattr(self.client.km.provisioner, "process", None)
        if proc is not None:
            self.sid = proc.pid
            LIVE_KERNELS.add(proc.pid)
        import zmq

        # before the client's sockets exist: the limit holds for the connections they make
        km = self.client.km
        make_client = km.client

        def client(**kw):
            kc = make_client(**kw)
            kc.context.setsockopt(zmq.MAXMSGSIZE, MAX_MESSAGE_BYTES)
            return kc

        km.client = client
        await self.client.async_start_new_kernel_client()

        kc = self.client.kc
        sock = kc.iopub_channel.socket  # only status & co.: see the module docstring
        sock.setsockopt(zmq.UNSUBSCRIBE, b"")
        sock.setsockopt(zmq.SUBSCRIBE, _IOPUB_TOPIC)
        for ch in (kc.shell_channel, kc.iopub_channel, kc.stdin_channel, kc.control_channel):
            s = getattr(ch, "socket", None)
            if s is not None:
                s.setsockopt(zmq.MAXMSGSIZE, MAX_MESSAGE_BYTES)

    def seal(self) -> None:
        """Delete the kernel's socket files and connection file (call once connected and the
        preamble has run): ZeroMQ keeps the connections it has, and a probe's child, which
        knows the message key (it is a fork of the kernel), finds nothing to connect to."""
        for name in os.listdir(self.scratch):
            if name == "connection.json" or name.startswith("k-"):
                with contextlib.suppress(OSError):
                    os.unlink(os.path.join(self.scratch, name))

    def _on_executed(self, cell, cell_index, execute_reply):
        self._replies["last"] = execute_reply

    def _remaining(self) -> float:
        return self.deadline - time.monotonic()

    def credit_cells(self, seconds: float) -> None:
        """A probe's child spent ``seconds`` re-running the notebook's cells: not the
        exercise's time, so added to the deadline. Each run is limited to the time limit by
        the probe; the whole submission by ``Limits.submission_seconds`` (the grader)."""
        self.deadline += max(seconds, 0.0)

    async def run(self, code: str, user_expressions: dict | None = None, extra: float = 0.0) -> dict:
        """Execute ``code``; the reply's content. Raises KernelTimeout / KernelDied.
        ``extra``: seconds allowed beyond the deadline (a probe's child re-running the
        notebook's cells, which the caller then adds to the deadline)."""
        import nbformat
        from nbclient.exceptions import CellTimeoutError, DeadKernelError

        left = self._remaining() + extra
        if left <= 0.05:
            raise KernelTimeout()
        self.client.timeout = max(1, int(left + 0.999))
        cell = nbformat.v4.new_code_cell(source=code)
        self.client.nb.cells = [cell]
        self._replies.clear()
        self.uexpr = user_expressions
        watch = asyncio.ensure_future(self._watch()) if self.uid is None or self.cgroup else None
        try:
            await asyncio.wait_for(
                self.client.async_execute_cell(cell, 0, store_history=False), timeout=left + 3
            )
        except (TimeoutError, CellTimeoutError):
            raise KernelTimeout() from None
        except DeadKernelError:  # a thread refused by pids.max can end it: say so (red team 5)
            forks, mem = self.cgroup.events() if self.cgroup is not None else (False, False)
            self.memory_event = self.memory_event or mem
            raise KernelDied(
                f"more than {self.limits.nproc} processes" if forks else "the kernel died"
            ) from None
        finally:
            self.uexpr = None
            if watch is not None:
                watch.cancel()
        if self.cgroup is not None and not self.too_many:  # a fork refused just before the reply
            forks, mem = self.cgroup.events()
            self.memory_event = self.memory_event or mem
            if forks:
                self.too_many = True
                await self._kill_all()
        if self.too_many:
            raise KernelDied(f"more than {self.limits.nproc} processes")
        reply = self._replies.get("last")
        if reply is None:
            raise KernelDied("no reply from the kernel")
        content = reply.get("content", {})
        if content.get("status") == "error" and "MemoryError" in str(content.get("ename", "")):
            self.memory_event = True
        if self._remaining() + extra <= 0:
            raise KernelTimeout()
        return content

    async def _watch(self):
        """A fork refused by the cgroup's pids.max, or (without a cgroup nor a dedicated uid's
        RLIMIT_NPROC) more processes below the kernel than allowed, setsid or not: the
        submission is stopped. A memory limit hit in the cgroup is recorded."""
        while True:
            await asyncio.sleep(0.05)
            if self.cgroup is not None:
                forks, mem = self.cgroup.events()
                self.memory_event = self.memory_event or mem
                too_many = forks
            else:
                too_many = descendants_count(self.sid) > self.limits.nproc
            if too_many:
                self.too_many = True
                await self._kill_all()
                return

    async def _kill_all(self):
        if self.cgroup is not None:
            self.cgroup.kill()
        kill_session(self.sid)

    def sandbox_note(self) -> str:
        try:
            return Path(self.scratch, ".sandbox").read_text(encoding="utf-8", errors="replace")[:200].strip()
        except OSError:
            return "launcher did not report"

    async def _cleanup(self):
        km = self.client.km if self.client is not None else None
        proc = getattr(getattr(km, "provisioner", None), "process", None)
        sid = self.sid or (proc.pid if proc is not None else None)
        if proc is not None and self.use_bwrap:
            try:  # bwrap's own process: its namespace, and all in it, ends with it
                proc.kill()
            except Exception:
                pass
        if self.uid is not None:
            kill_uid(self.uid)
        if self.cgroup is not None:
            self.cgroup.remove()
        kill_session(sid)
        if proc is not None:
            try:
                proc.wait(timeout=2)
            except Exception:
                pass
        LIVE_KERNELS.discard(sid)
        reap_orphans(LIVE_KERNELS)
        shutil.rmtree(self.scratch, ignore_errors=True)
        shutil.rmtree(self.private, ignore_errors=True)

    async def __aexit__(self, *exc):
        try:
            await asyncio.wait_for(self.client._async_cleanup_kernel(), timeout=5)
        except Exception:
            pass
        await self._cleanup()
        return False
