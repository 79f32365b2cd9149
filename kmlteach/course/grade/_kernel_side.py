"""Code the grader runs inside the submission's kernel, and the only code that runs there.

Sent to the kernel as the text of a cell (with :mod:`._kernel_codec`; not imported), it
defines ``_setup(cfg)``, which turns the kernel into a clean *fork server*: the student's
code (``cfg["cells"]``: the selected code, or every cell with ``--run-all``) never runs in
the kernel itself, only in the child process of one probe:

* ``kmlteach.exercises`` becomes a stub (``check`` prints that grading skips it, ``hint``
  and ``solution`` say they are unavailable); ``kmlteach.exercises.*`` (references,
  cases) and ``kmlteach.course.*`` (the grader, its hidden cases) are unimportable;
* the kernel makes itself non-dumpable (no process of the same user, its own children
  included, may ptrace it or read its memory), a child subreaper (after each probe it
  kills every process the child left, orphans included) and imports ``kmlteach`` from
  the installed package before anything else can shadow it;
* every probe forks a child in which the library functions that exercise re-implements
  (``cfg["guards"]``) are neutralised *first*: the function objects themselves get a code
  object that raises ``ReferenceUnavailable`` (recorded: the grader then scores the
  exercise 0), Numba dispatchers lose their compiled code, and modules' names for them
  are bound to stubs. Only then does the child run the student's cells (each in turn,
  an exception ending that cell only, as in a kernel), write one byte to say they are
  done, and call the student's function on the cases. So every copy, thread, cache or
  stack walk the student's code sets up is set up after the neutralisation, in a
  process that ends with the probe; the kernel keeps no switch and nothing of theirs;
* the child gets ``payload["budget"]`` seconds; past it the kernel kills it and says in
  which phase (the cells: the whole submission ran out of time; the cases: this exercise);
* ``probe(payload_json) -> result_json`` serialises only plain values
  (:mod:`._kernel_codec`); what keeps a child out of the kernel: :mod:`._kernel_lock`.

In the child the rest is best effort; the grader compares outside (README, "Grading").
"""


def _setup(cfg):
    import contextlib
    import importlib
    import importlib.abc
    import importlib.machinery
    import json
    import os
    import select
    import sys
    import time
    import types

    import numpy as np

    sys.stdout = sys.stderr = open(os.devnull, "w", encoding="utf-8")
    blocked = tuple(cfg["blocked_modules"])
    guards = {path: set(ids) for path, ids in cfg["guards"].items()}
    called, disarmed, before, errors = set(), [], {}, []  # in a probe's child: what it called, ...
    stubs, keep, stub_ids, homes = {}, {}, set(), {}  # keep: ids stay those of live objects
    _type, _len, _isinstance, _str, _repr = type, len, isinstance, str, repr
    _dumps, _loads = json.dumps, json.loads
    _perf = time.perf_counter
    _select, _read, _waitpid, _kill = select.select, os.read, os.waitpid, os.kill
    max_bytes = int(cfg.get("max_bytes", 32 * 1024 * 1024))
    enc, size, dec = _codec(np)  # noqa: F821  (defined by _kernel_codec.py, sent before this)
    import ctypes

    with contextlib.suppress(Exception):  # nobody of this uid may ptrace or read the kernel
        ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE, 0
    import kmlteach  # noqa: F401  (the installed package, before a child's file could shadow it)

    with contextlib.suppress(Exception):  # orphans of a probe's processes become ours
        ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    reap, too_many_files = _inode_guard(_reaper(), cfg)  # noqa: F821  (_kernel_reap.py, _kernel_lock.py)
    _lockdown(cfg)  # noqa: F821  (_kernel_lock.py: sys.path, message handlers; next line too)
    close_inherited, confine = _close_inherited, _confine_writes(cfg)  # noqa: F821

    class ReferenceUnavailable(RuntimeError):
        """The library function this exercise re-implements is not available while grading."""

    def _check(exercise_id=None, fn=None, *args, **kwargs):
        print(f"(grading: check({exercise_id!r}) is skipped; the grader runs its own cases)")
        return None

    def _say(text):
        def say(exercise_id=None, *args, **kwargs):
            print(text)
            return text

        return say

    _hint = _say("hints are not shown while grading")
    _solution = _say("solutions are not available while grading")

    stub = types.ModuleType("kmlteach.exercises", "Grading stub of kmlteach.exercises.")
    stub.check, stub.hint, stub.solution = _check, _hint, _solution
    stub.__all__, stub.__path__ = ["check", "hint", "solution"], []

    def is_blocked(name):
        return any(name == b or name.startswith(b + ".") for b in blocked)

    for name in list(sys.modules):
        if is_blocked(name):
            del sys.modules[name]
    sys.modules["kmlteach.exercises"] = stub
    if "kmlteach" in sys.modules:
        sys.modules["kmlteach"].exercises = stub

    def report(path):
        """What a disarmed reference does when called: recorded, then refused."""
        called.add(path)
        raise ReferenceUnavailable(
            f"{path} is the function this exercise re-implements; it is not available "
            f"while exercise {disarmed[0]} is graded"
        )

    def stub_code(fn, path):
        """A code object that calls ``report(path)``, with ``fn``'s free variables (a code
        object replaces a function's only with as many)."""
        free = fn.__code__.co_freevars
        ns, cells = {}, "".join(f"{v}, " for v in free)
        exec(
            f"def _outer():\n    {' = '.join([*free, 'None'])}\n    def _disarmed(*args, **kwargs):\n"
            f"        ({cells})\n        return _kmlteach_reference_unavailable({path!r})\n"
            "    return _disarmed\n",
            ns,
        )
        code = ns["_outer"]().__code__
        return code if code.co_freevars == free else None

    def neutralise(path, f):
        """Make the object ``f`` itself unusable in this process (the probe's own child, thrown
        away afterwards), so that no reference to it, wherever kept, reaches the original: a
        function gets a new code object, a Numba dispatcher loses its compiled code, its on-disk
        cache, the code it would compile again and every attribute that held the original code
        (``func_code``, and ``__code__``, which red team 6 read through ``gc``: 3/3)."""
        py = getattr(f, "py_func", None)
        target = py if _isinstance(py, types.FunctionType) else f
        if not _isinstance(target, types.FunctionType):
            return False
        code, original = stub_code(target, path), target.__code__
        if code is None:
            return False
        target.__globals__["_kmlteach_reference_unavailable"] = report
        target.__code__ = code
        if target is not f:  # a dispatcher
            from numba.core.caching import NullCache

            f._reset_overloads()
            f._cache, f._can_compile = NullCache(), False
            for key in [k for k, v in vars(f).items() if v is original]:
                setattr(f, key, code)
        return True

    def helpers(fn, seen):
        """Module-level functions (and Numba dispatchers) of ``fn``'s module that ``fn``
        reaches through its globals: a guarded function's private kernel is guarded too."""
        mod = sys.modules.get(getattr(fn, "__module__", None) or "")
        code = getattr(getattr(fn, "py_func", fn), "__code__", None)
        if mod is None or code is None:
            return
        todo = [code]
        while todo:
            c = todo.pop()
            todo += [k for k in c.co_consts if _isinstance(k, types.CodeType)]
            for name in c.co_names:
                val = mod.__dict__.get(name)
                if val is None or id(val) in seen or not callable(val) or _isinstance(val, type):
                    continue
                inner = getattr(val, "py_func", val)
                if getattr(inner, "__module__", None) != mod.__name__:
                    continue
                seen.add(id(val))
                yield f"{mod.__name__}.{name}", val
                if inner is val:  # a Python helper: what it calls too (not a jitted one's callees)
                    yield from helpers(val, seen)

    def disarm(exercise, module=None):
        """In the probe's child only: every function that ``exercise`` re-implements (and
        its module's helpers it reaches) neutralised, and every ``kmlteach`` module's name
        for it bound to a stub that records the call. Nothing of the original is kept.
        ``module``: one (re)loaded inside the child: its new copies are neutralised too."""
        disarmed[:] = [exercise]
        seeds = []
        for path in [p for p, ids in guards.items() if exercise in ids]:
            try:  # a module not imported yet is disarmed when the child imports it (_Loader)
                seeds.append((path, _guard_target(path, sys.modules.__getitem__)))  # noqa: F821  (_kernel_lock.py)
            except Exception:
                continue
        for path, (modname, attr) in list(homes.items()):
            if module is not None and module.__name__ == modname:
                seeds.append((path, module.__dict__.get(attr)))
        new = False
        for path, fn in seeds:
            if fn is None or id(fn) in stub_ids:
                continue
            for p, f in [(path, fn), *helpers(fn, {id(fn)})]:
                if id(f) not in stubs and neutralise(p, f):
                    stub = (lambda q: lambda *a, **k: report(q))(p)
                    stubs[id(f)], keep[id(f)], new = stub, f, True
                    stub_ids.add(id(stub))
                    if p == path:
                        homes.setdefault(path, (getattr(f, "__module__", ""), getattr(f, "__name__", "")))
        mods = sys.modules.items() if new or module is None else [(module.__name__, module)]
        for name, mod in list(mods):
            if name.split(".")[0] == "kmlteach" and mod is not None:
                d = getattr(mod, "__dict__", {})
                for key, val in list(d.items()):
                    if id(val) in stubs:
                        d[key] = stubs[id(val)]

    class _Loader(importlib.abc.Loader):
        def __init__(self, inner):
            self.inner = inner

        def create_module(self, spec):
            return self.inner.create_module(spec)

        def exec_module(self, module):
            self.inner.exec_module(module)
            if disarmed:  # a module (re)loaded inside a probe's child: disarmed again
                disarm(disarmed[0], module)

        def __getattr__(self, name):
            return getattr(self.inner, name)

    class _StubLoader(importlib.abc.Loader):
        def create_module(self, spec):
            return stub

        def exec_module(self, module):
            pass

    class _Finder(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name == "kmlteach.exercises":
                return importlib.machinery.ModuleSpec(name, _StubLoader(), is_package=True)
            if is_blocked(name):
                raise ImportError(f"{name} is not available while grading")
            if name.split(".")[0] != "kmlteach":
                return None
            for finder in sys.meta_path:
                if finder is self or not hasattr(finder, "find_spec"):
                    continue
                spec = finder.find_spec(name, path, target)
                if spec is not None:
                    if spec.loader is not None:
                        spec.loader = _Loader(spec.loader)
                    return spec
            return None

    sys.meta_path.insert(0, _Finder())

    def run_cells():
        """In the child, after :func:`disarm`: the student's cells in the kernel's namespace,
        one after the other; an exception (any) ends its cell only, as in a kernel. Calls
        of disarmed functions made here are not counted: only the function's own are."""
        import ast
        import asyncio
        import linecache

        asyncio.events._set_running_loop(None)  # the kernel's loop is the parent's, not ours
        ns = cfg["user_ns"]
        errors.clear()
        for i, src in enumerate(cfg.get("cells") or ()):
            try:
                name = f"<ipython-input-{i + 1}-{_len(src)}>"  # as IPython's: numba can cache
                linecache.cache[name] = (_len(src), None, src.splitlines(True), name)
                code = compile(src, name, "exec", ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, True)
                if code.co_flags & 0x80:  # CO_COROUTINE: a cell with a top-level await
                    asyncio.new_event_loop().run_until_complete(eval(code, ns))
                else:
                    exec(code, ns)
            except BaseException as exc:
                errors.append(_type(exc).__name__)
        called.clear()

    def run_cases(payload):
        """The child's work after the cells: every case, then the reply's JSON text."""
        fn = cfg["user_ns"].get(payload["function"])
        if not callable(fn):
            return _dumps({"cases": [], "called": [], "missing": True})
        out = {"cases": [], "called": [], "cell_errors": errors[:20]}
        for case in payload["cases"]:
            args, kwargs = dec(case[0]), dec(case[1])
            t0 = _perf()
            try:
                got = fn(*args, **kwargs)
                if size(got) > max_bytes:  # never send the grader more than it reads
                    raise OverflowError("the returned value is too large")
                res = {"value": enc(got)}
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
        out["called"] = sorted(called)
        out["imported"] = [n for n in list(sys.modules) if n.split(".")[0] == "kmlteach" and n not in before]
        # a probe replaced by the student's code is reported (it could only be in this child)
        out["tampered"] = cfg["user_ns"].get(cfg.get("probe_name")) is not probe
        text = _dumps(out)
        if _len(text) > max_bytes:
            text = _dumps({"cases": [], "called": out["called"], "too_large": True})
        return text

    def receive(fd, pid, cells_budget, budget):
        """``(reply, cells_time, phase, late)``. The child first runs the cells, within
        ``cells_budget`` seconds, and writes the byte ``C``; then it has ``budget`` seconds
        for the cases and its reply (an 8-byte length, then the text). ``reply`` is
        ``None`` if it ended without one or ran late (then it is killed); ``phase`` is
        ``"cases"`` once the cells were done, else ``"cells"``. Read until the reply is
        complete or the child is gone: a process it started may hold the pipe open."""
        buf, need, start, cells_time, late = b"", None, _perf(), None, False
        while need is None or _len(buf) < need:
            now = _perf()
            if cells_time is None and buf[:1] == b"C":
                cells_time = now - start
            end = start + (cells_budget if cells_time is None else cells_time + budget)
            if now > end or too_many_files():
                late = True if now > end else "files"  # the files: _inode_guard
                break
            if _select([fd], [], [], 0.05)[0]:
                chunk = _read(fd, 1 << 20)
                if not chunk:
                    break
                buf += chunk
                if need is None and _len(buf) >= 9:
                    need = 9 + int.from_bytes(buf[1:9], "big")
                    if need > max_bytes + 64:
                        break
            elif _waitpid(pid, os.WNOHANG)[0] == pid:
                pid = None
                while _select([fd], [], [], 0)[0] and (chunk := _read(fd, 1 << 20)):
                    buf += chunk
                break
        if pid is not None:
            with contextlib.suppress(OSError):
                _kill(pid, 9)
            _waitpid(pid, 0)
        if cells_time is None and buf[:1] == b"C":
            cells_time = _perf() - start
        phase = "cells" if cells_time is None else "cases"
        if phase == "cells" or need is None or _len(buf) < need or need > max_bytes + 64:
            return None, cells_time or 0.0, phase, late
        return buf[9:need].decode("utf-8"), cells_time, phase, late

    def probe(payload_json):
        """Fork a child that neutralises the functions this exercise re-implements
        (:func:`disarm`), then runs the student's cells (:func:`run_cells`) and calls the
        student's function on the cases: nothing the student's code can reach there,
        closures, threads and the garbage collector included, still holds the
        originals, and nothing it does there outlives the call."""
        payload = _loads(payload_json)
        budget, cells_budget = float(payload["budget"]), float(payload["cells_budget"])
        before.clear()
        before.update(sys.modules)
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            status = 1
            try:
                close_inherited(w, confine and (lambda: confine(payload["exercise"])))  # writes confined
                disarm(payload["exercise"])
                run_cells()
                os.write(w, b"C")
                data = run_cases(payload).encode("utf-8")
                data = _len(data).to_bytes(8, "big") + data
                while data:
                    data = data[os.write(w, data) :]
                status = 0
            finally:
                os._exit(status)
        os.close(w)
        try:
            text, cells_time, phase, late = receive(r, pid, cells_budget, budget)
        finally:
            os.close(r)
            files = reap()  # "files": too many, however fast; "stuck": not removable (_inode_guard)
        late = files if files == "stuck" else late or files  # cells' time: measured by the kernel
        cells = {"cells_time": cells_time, "phase": phase, "late": late}
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

    return probe
