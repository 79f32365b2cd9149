"""A fresh, sandboxed Jupyter kernel for one submission, driven with nbclient.

The kernel is started through ``isolation/launcher.py`` (limits, cgroup, dedicated uid,
then bubblewrap's namespaces where it runs, talking over Unix sockets in its scratch
folder; Landlock and seccomp), with the file-access policy of ``isolation/policy.py`` and
the environment of ``isolation/environment.py``, in a new session. Cell outputs never
reach the grader: its IOPub socket subscribes only to the kernel's own topics
(``kernel.<id>.status``, ``.execute_input``, ``.error``, ...), so ZeroMQ drops the
``stream`` and ``display_data`` messages (prints, figures) in the kernel (a 50 MB print
used to be sent, HMAC-checked and parsed by the grader, then thrown away), the kernel side
writes ``sys.stdout``/``sys.stderr`` to ``/dev/null``, and what still arrives is
discarded. The grader's probe results come back only in the ``execute_reply`` to the
grader's own request (``user_expressions``), never from what cells print.
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

from .isolation import reaping
from .isolation.bwrap import INNER_LAUNCHER, bwrap_argv, write_etc
from .isolation.cgroup import Cgroup
from .isolation.environment import kernel_env
from .isolation.launcher import KERNEL_BOOT
from .isolation.mode import detect
from .isolation.policy import kernel_policy
from .limits import Limits

__all__ = ["SandboxKernel", "KernelDied", "KernelTimeout", "LAUNCHER"]

LAUNCHER = Path(__file__).with_name("isolation") / "launcher.py"
# ipykernel publishes its own messages under b"kernel.<id>.<type>" (status, execute_input,
# execute_result, error, shutdown), prints under b"stream.<name>", figures under b"display_data"
_IOPUB_TOPIC = b"kernel."
# a reply (or any message) larger than this is dropped by ZeroMQ while it arrives, before
# the grader holds it in memory; the probe itself caps its JSON at MAX_RESULT_BYTES
MAX_MESSAGE_BYTES = 40 * 1024 * 1024


_PY = os.path.abspath(sys.executable)  # the kernel starts elsewhere (its scratch folder)
STARTUP_TIMEOUT = 60.0


class KernelDied(RuntimeError):
    pass


class KernelTimeout(RuntimeError):
    pass


class SandboxKernel:
    """``async with SandboxKernel(limits, uid, deny=...) as k: await k.run(code)``.

    ``uid``: the kernel's dedicated uid (a root grader's, from ``isolation.uids.uid_slot``)
    or ``None``; ``deny``: the grader's paths the kernel must not read even where the policy
    would let it (submissions, gradebook, feedback, the secret)."""

    def __init__(self, limits: Limits, uid: int | None, deny=(), notebook_bytes: bytes = b""):
        self.limits, self.uid = limits, uid
        self.isolation = detect(limits)
        self.use_bwrap = self.isolation.bwrap
        # a root grader's uid is taken inside bwrap's namespaces (no user namespace there)
        self.setuid_inside = self.use_bwrap and uid is not None and os.geteuid() == 0
        self.cgroup = None
        self.private = tempfile.mkdtemp(prefix="kmlteach-grade-ctl-")
        self.scratch = tempfile.mkdtemp(prefix="kmlteach-grade-run-")
        self.deny = [str(p) for p in deny]
        self.notebook_bytes = notebook_bytes
        self.deadline = time.monotonic() + limits.timeout
        self.client = None
        self.sid = None
        self.end_note = ""  # what ending it left behind, for the instructor (reaping.end_kernel)
        self.too_many = False
        reaping.become_subreaper()
        self.memory_event = False
        self.nonce = secrets.token_hex(8)

    def _policy(self):
        """The kernel's file access (isolation/policy.py) and, with bwrap, its command line."""
        inside = self.uid if self.setuid_inside else 65534 if os.geteuid() == 0 else os.getuid()
        self.policy = kernel_policy(
            self.scratch, bwrap=self.use_bwrap, deny=[*self.deny, self.private], uid=inside, gid=inside
        )
        if not self.use_bwrap:
            return None
        inner = os.path.join(self.private, "launcher.py")  # the grader's folder: root may read it
        shutil.copyfile(LAUNCHER, inner)
        os.chmod(inner, 0o444)
        etc = write_etc(self.policy, os.path.join(self.private, "etc"))
        return bwrap_argv(
            self.policy, self.scratch, etc, inner, userns=not self.setuid_inside, uid_inside=self.uid
        )

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
        if self.isolation.cgroup:
            try:
                self.cgroup = Cgroup.create(self.limits.nproc, self.limits.cgroup_memory_mb)
            except OSError:
                self.cgroup = None
        bwrap = self._policy()
        self.write_roots = list(self.policy.write)
        cfg = {
            "bwrap": bwrap,
            "inner_launcher": INNER_LAUNCHER,
            "cgroup_procs": self.cgroup.procs if self.cgroup else [],
            "memory_mb": self.limits.memory_mb,
            "fsize_mb": self.limits.fsize_mb,
            "cpu_seconds": self.limits.cpu_seconds,
            "nproc": self.limits.nproc,
            "uid": self.uid,
            "gid": self.uid,
            "setuid_inside": self.setuid_inside,
            "scratch": self.scratch,
            "landlock": self.limits.landlock,
            "policy": self.policy.to_json(),
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
                "-c",
                KERNEL_BOOT,
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
        with reaping.starting():  # until it is listed, no other job's end takes it for an orphan
            await self.client.async_start_new_kernel(
                env=kernel_env(self.scratch),
                cwd=self.scratch,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            proc = getattr(self.client.km.provisioner, "process", None)
            if proc is not None:
                self.sid = proc.pid
                reaping.LIVE_KERNELS.add(proc.pid)
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
            raise KernelDied(  # or killed by _watch, where no cgroup counts
                f"more than {self.limits.nproc} processes" if forks or self.too_many else "the kernel died"
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
                too_many = reaping.descendants_count(self.sid) > self.limits.nproc
            if too_many:
                self.too_many = True
                await self._kill_all()
                return

    def _process(self):
        """The kernel's first process (bwrap's, or the kernel's own), a ``Popen``, or None."""
        km = self.client.km if self.client is not None else None
        return getattr(getattr(km, "provisioner", None), "process", None)

    async def _kill_all(self):
        if self.cgroup is not None:
            self.cgroup.kill()
        reaping.kill_tree(self._process())
        reaping.kill_session(self.sid)

    def sandbox_note(self) -> str:
        try:
            return Path(self.scratch, ".sandbox").read_text(encoding="utf-8", errors="replace")[:200].strip()
        except OSError:
            return "launcher did not report"

    async def _cleanup(self):
        proc = self._process()
        sid = self.sid or (proc.pid if proc is not None else None)
        self.end_note = reaping.end_kernel(proc, sid, self.uid, self.cgroup, self.use_bwrap)
        shutil.rmtree(self.scratch, ignore_errors=True)
        shutil.rmtree(self.private, ignore_errors=True)

    async def __aexit__(self, *exc):
        # the whole tree stopped and killed while the kernel, its subreaper, still holds it:
        # jupyter_client's kill of the kernel's process group alone left a hopper that the
        # kernel's own reaper had stopped in an orphaned process group, which Linux woke again
        # (SIGCONT; red team of 2026-12-07, as an ordinary user without bwrap)
        reaping.kill_tree(self._process())
        try:
            await asyncio.wait_for(self.client._async_cleanup_kernel(), timeout=5)
        except Exception:
            pass
        await self._cleanup()
        return False
