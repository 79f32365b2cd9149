"""The grading kernel as a clean *fork server* (runs inside it; see ``__init__``).

:func:`setup` prepares the kernel in named steps and returns the probe: the student's
code (``cfg["cells"]``: the selected code, or every cell with ``--run-all``) never runs in
the kernel itself, only in the child process of one probe:

1. :func:`silence` — the kernel's own output goes to ``/dev/null``;
2. :func:`harden` — non-dumpable (no process of the same user, its own children
   included, may ptrace it or read its memory), a child subreaper (after each probe it
   kills every process the child left, orphans included), ``kmlteach`` imported from the
   installed package before anything else can shadow it;
3. the reaper of what children leave (``reaping.py``), the lockdown of ``sys.path`` and
   of the kernel's message handlers, the child's own rules (``lock.py``);
4. the references out of reach (``disarm.py``).

Every probe (:meth:`ForkServer.probe`) forks a child that closes what it inherited, takes
its own rules, disarms the functions its exercise re-implements, runs the student's
cells (each in turn, an exception ending that cell only, as in a kernel), writes one byte
to say they are done, and calls the student's function on the cases; the kernel kills it
past its budget and says in which phase (the cells: the whole submission ran out of time;
the cases: this exercise). Replies hold plain values only (``codec.py``); the grader
compares outside (docs/grading.md).
"""

import contextlib
import importlib
import json
import os
import select
import sys
import time

from .codec import value_codec
from .disarm import Disarmer, load_references
from .lock import (
    close_inherited,
    confine_writes,
    launcher_names,
    library_cache,
    lockdown,
)
from .reaping import inode_guard, reaper

# taken before any student code runs: a child's cells may rebind builtins and modules
_type, _len, _isinstance, _str = type, len, isinstance, str
_dumps, _loads = json.dumps, json.loads
_perf, _sleep = time.perf_counter, time.sleep
_select, _read, _waitpid, _kill, _setpgid = select.select, os.read, os.waitpid, os.kill, os.setpgid


def silence():
    sys.stdout = sys.stderr = open(os.devnull, "w", encoding="utf-8")


def harden():
    import ctypes

    with contextlib.suppress(Exception):  # nobody of this uid may ptrace or read the kernel
        ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE, 0
    import kmlteach  # noqa: F401  (the installed package, before a child's file could shadow it)

    with contextlib.suppress(Exception):  # orphans of a probe's processes become ours
        ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER


def setup(cfg):
    """Turn this kernel into the fork server; the probe (``probe(payload_json) -> json``)."""
    import numpy as np

    silence()
    codec = value_codec(np)
    harden()
    launcher = launcher_names(cfg)  # Landlock, seccomp, stop_and_kill: isolation/launcher.py
    reap, bury = reaper(launcher)
    reap, too_many_files = inode_guard(reap, cfg)
    lockdown(cfg)
    if cfg.get("preload"):  # the submission imports the package (grader: cells.imports_package)
        if cfg["policy"]["child_write"] and launcher["landlock_abi"]() >= 1:  # a child's file rules
            library_cache()  # before the library's modules: their compiled kernels, cached
        load_references(cfg["guards"])
    confine = confine_writes(cfg, launcher)
    disarmer = Disarmer(cfg["guards"], cfg["blocked_modules"], cfg.get("spared") or {})
    disarmer.install()
    return ForkServer(cfg, codec, disarmer, (reap, bury, too_many_files), confine).probe_function


# a child's exit status when one of its own steps raised (the student's code raising in a
# cell or a case does not end it: that is reported in the reply). The student's code can
# call os._exit with any of them too: a diagnosis to weigh, not a proof
STEPS = {
    3: "its Landlock or seccomp rules were refused",
    11: "closing what it inherited or taking its rules failed",
    12: "disarming the references failed",
    13: "running the cells or writing their end failed",
    14: "building the reply failed",
    15: "writing the reply failed",
}


def ending(status, killed, late):
    """How a probe's child ended, from its wait status, as the grader records it in the
    instructor's state file (never in a student's feedback: on a hidden case it is the
    student's code's choice, a channel). A child that ended by itself before it replied was
    the puzzle of a loaded grading machine (2026-12-07): this names the step or the signal."""
    if killed and os.WIFSIGNALED(status) and os.WTERMSIG(status) == 9:
        why = {True: "late", "files": "too many files"}.get(late, "pipe closed or reply too large")
        return f"stopped by the kernel: {why}"
    if os.WIFSIGNALED(status):
        return f"signal {os.WTERMSIG(status)}"
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else -1
    return f"exit {code}" + (f": {STEPS[code]}" if code in STEPS else "")


class ForkServer:
    """One kernel's probes: each a child that runs the student's cells and function."""

    def __init__(self, cfg, codec, disarmer, leftovers, confine):
        self.cfg, self.disarmer = cfg, disarmer
        self.enc, self.size, self.dec = codec
        self.reap, self.bury, self.too_many_files = leftovers  # reaping.py
        self.confine = confine
        self.max_bytes = int(cfg.get("max_bytes", 32 * 1024 * 1024))
        self.before, self.errors = {}, []  # modules before a probe; the cells' exceptions
        self.probe_function = self.probe  # one object: the grader checks its id after each probe

    def run_cells(self):
        """In the child, after :meth:`Disarmer.disarm`: the student's cells in the kernel's
        namespace, one after the other; an exception (any) ends its cell only, as in a
        kernel. Calls of disarmed functions made here are not counted: only the function's own are."""
        import ast
        import asyncio
        import linecache

        asyncio.events._set_running_loop(None)  # the kernel's loop is the parent's, not ours
        ns = self.cfg["user_ns"]
        self.errors.clear()
        for i, src in enumerate(self.cfg.get("cells") or ()):
            try:
                name = f"<ipython-input-{i + 1}-{_len(src)}>"  # as IPython's: numba can cache
                linecache.cache[name] = (_len(src), None, src.splitlines(True), name)
                code = compile(src, name, "exec", ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, True)
                if code.co_flags & 0x80:  # CO_COROUTINE: a cell with a top-level await
                    asyncio.new_event_loop().run_until_complete(eval(code, ns))
                else:
                    exec(code, ns)
            except BaseException as exc:
                self.errors.append(_type(exc).__name__)
        self.disarmer.called.clear()

    def run_cases(self, payload):
        """The child's work after the cells: every case, then the reply's JSON text."""
        fn = self.cfg["user_ns"].get(payload["function"])
        if not callable(fn):
            return _dumps({"cases": [], "called": [], "missing": True})
        out = {"cases": [], "called": [], "cell_errors": self.errors[:20]}
        for case in payload["cases"]:
            args, kwargs = self.dec(case[0]), self.dec(case[1])
            t0 = _perf()
            try:
                got = fn(*args, **kwargs)
                if self.size(got) > self.max_bytes:  # never send the grader more than it reads
                    raise OverflowError("the returned value is too large")
                res = {"value": self.enc(got)}
            except BaseException as exc:  # SystemExit, KeyboardInterrupt too: reported, not raised
                try:
                    msg = _str(exc)[:300]
                except BaseException:
                    msg = "?"
                res = {"error": _type(exc).__name__, "message": msg, "memory": _isinstance(exc, MemoryError)}
            res["time"] = _perf() - t0
            if (
                res.get("error") == "OverflowError"
                and res.get("message") == "the returned value is too large"
            ):
                res["error"] = "ResultTooLarge"
            out["cases"].append(res)
            if res.get("error") == "KeyboardInterrupt":
                break
        out["called"] = sorted(self.disarmer.called)
        out["imported"] = [
            n for n in list(sys.modules) if n.split(".")[0] == "kmlteach" and n not in self.before
        ]
        # a probe replaced by the student's code is reported (it could only be in this child)
        out["tampered"] = self.cfg["user_ns"].get(self.cfg.get("probe_name")) is not self.probe_function
        text = _dumps(out)
        if _len(text) > self.max_bytes:
            text = _dumps({"cases": [], "called": out["called"], "too_large": True})
        return text

    def receive(self, fd, pid, cells_budget, budget):
        """``(reply, cells_time, phase, late, how)``. The child first runs the cells, within
        ``cells_budget`` seconds, and writes the byte ``C``; then it has ``budget`` seconds
        for the cases and its reply (an 8-byte length, then the text). ``reply`` is
        ``None`` if it ended without one or ran late (then it is killed); ``phase`` is
        ``"cases"`` once the cells were done, else ``"cells"``. Read until the reply is
        complete or the child is gone: a process it started may hold the pipe open.
        ``how``: how a child without a whole reply ended (:func:`ending`), for the
        instructor's eyes only."""
        max_bytes = self.max_bytes
        buf, need, start, cells_time, late, status, eof = b"", None, _perf(), None, False, None, False
        buried = start
        while need is None or _len(buf) < need:
            now = _perf()
            if now - buried >= 0.05:  # what its processes left ended, every 50 ms (reaping.py)
                self.bury(pid)
                buried = now
            if cells_time is None and buf[:1] == b"C":
                cells_time = now - start
            end = start + (cells_budget if cells_time is None else cells_time + budget)
            if now > end or self.too_many_files():
                late = True if now > end else "files"  # the files: reaping.inode_guard
                break
            if _select([fd], [], [], 0.05)[0]:
                chunk = _read(fd, 1 << 20)
                if not chunk:
                    eof = True
                    break
                buf += chunk
                if need is None and _len(buf) >= 9:
                    need = 9 + int.from_bytes(buf[1:9], "big")
                    if need > max_bytes + 64:
                        break
            elif (gone := _waitpid(pid, os.WNOHANG))[0] == pid:
                pid, status = None, gone[1]
                # what it wrote before it ended (at most a whole reply's bytes, within its
                # time: a process it started may still be writing)
                while (
                    _len(buf) <= max_bytes + 73
                    and _perf() <= end
                    and _select([fd], [], [], 0)[0]
                    and (chunk := _read(fd, 1 << 20))
                ):
                    buf += chunk
                if cells_time is None and buf[:1] == b"C":
                    # the pipe was empty at ``now``: the cells took at least this long (what
                    # is credited to the deadline, never the cases' time on top)
                    cells_time = now - start
                break
        # what was read after the child ended (above) holds its reply's length too: a child
        # that wrote its whole reply and exited between an empty select and the waitpid was
        # counted as ended without one (``exit 0`` on honest code, in 3 of 8 runs of make
        # test on a loaded 2-core machine, 2026-12-07: the hidden cases of an exercise lost)
        if need is None and _len(buf) >= 9:
            need = 9 + int.from_bytes(buf[1:9], "big")
        complete = need is not None and need <= _len(buf) and need <= max_bytes + 64
        # the pipe closed before a whole reply: the child is ending (or closed it itself), and
        # its own status says why. Up to 0.1 s, as long as its budget and the file guard allow
        # (then it is killed like a late one): a child that ended is reaped within ms
        for _ in range(10 if eof and not complete and pid is not None else 0):
            if (gone := _waitpid(pid, os.WNOHANG))[0] == pid:
                pid, status = None, gone[1]
                break
            if _perf() > end or self.too_many_files():
                break
            _sleep(0.01)
        killed = pid is not None
        if killed:
            with contextlib.suppress(OSError):
                _kill(pid, 9)
            status = _waitpid(pid, 0)[1]
        how = "replied" if complete else ending(status, killed, late)
        if cells_time is None and buf[:1] == b"C":
            cells_time = _perf() - start
        phase = "cells" if cells_time is None else "cases"
        if phase == "cells" or not complete:
            return None, cells_time or 0.0, phase, late, how
        return buf[9:need].decode("utf-8"), cells_time, phase, late, how

    def child(self, w, payload):
        """The probe's child: its rules, the references disarmed, the cells, the cases. An
        exception in one of its own steps ends it with that step's status (:data:`STEPS`);
        ``close_inherited`` ends it with 3 where Landlock or seccomp was refused."""
        status = 11
        try:
            # a process group of its own, which the kernel's reaper stops and kills whole (it
            # cannot its own); no process of the child's tree may come back to the kernel's
            # (launcher's child_rules). The kernel sets it too: whichever runs first. As a group
            # leader the child itself cannot setsid (EPERM); what it starts can
            _setpgid(0, 0)
            confine = self.confine
            close_inherited(w, confine and (lambda: confine(payload["exercise"])))  # writes confined
            status = 12
            self.disarmer.disarm(payload["exercise"])
            status = 13
            self.run_cells()
            os.write(w, b"C")
            status = 14
            data = self.run_cases(payload).encode("utf-8")
            status = 15
            data = _len(data).to_bytes(8, "big") + data
            while data:
                data = data[os.write(w, data) :]
            status = 0
        finally:
            os._exit(status)

    def probe(self, payload_json):
        """Fork a child that neutralises the functions this exercise re-implements
        (:meth:`Disarmer.disarm`), then runs the student's cells (:meth:`run_cells`) and calls
        the student's function on the cases: nothing the student's code can reach there,
        closures, threads and the garbage collector included, still holds the originals,
        and nothing it does there outlives the call."""
        payload = _loads(payload_json)
        budget, cells_budget = float(payload["budget"]), float(payload["cells_budget"])
        self.before.clear()
        self.before.update(sys.modules)
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            self.child(w, payload)
        with contextlib.suppress(OSError):  # gone already: nothing to reap in a group of its own
            _setpgid(pid, pid)
        os.close(w)
        try:
            text, cells_time, phase, late, how = self.receive(r, pid, cells_budget, budget)
        finally:
            os.close(r)
            files = self.reap()  # "files": too many, however fast; "stuck": not removable
        late = files if files == "stuck" else late or files  # cells' time: measured by the kernel
        cells = {
            "cells_time": cells_time,
            "phase": phase,
            "late": late,
            "how": how,
        }  # ours, never the child's
        if text is None:
            return _dumps({"cases": [], "called": [], "died": True, **cells})
        try:  # what the child imported, the kernel imports now: the next child starts with it
            reply = _loads(text)
            names = reply.pop("imported", None)
            if _type(reply) is not dict:
                raise TypeError
        except Exception:
            return _dumps({"cases": [], "called": [], "unreadable": True, **cells})
        reply.update(cells)
        for name in names[:300] if _type(names) is list else ():
            # submodules of the installed package only (found on its own __path__)
            if _type(name) is _str and name.startswith("kmlteach.") and name not in sys.modules:
                with contextlib.suppress(BaseException):
                    importlib.import_module(name)
        return _dumps(reply)
