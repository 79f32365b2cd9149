"""Code the grader runs inside the submission's kernel, before any student code.

Sent to the kernel as the text of a cell (not imported there), it defines ``_setup(cfg)``:

* ``kmlteach.exercises`` becomes a stub (``check`` prints that grading skips it, ``hint``
  and ``solution`` say they are unavailable); ``kmlteach.exercises.*`` (references,
  cases) and ``kmlteach.course.*`` (the grader, its hidden cases) are unimportable;
* every probe runs in a child process of the kernel (``os.fork``) in which the library
  functions that exercise re-implements (``cfg["guards"]``) are neutralised first: the
  function objects themselves get a code object that raises ``ReferenceUnavailable``
  (recorded: the grader then scores the exercise 0), Numba dispatchers lose their
  compiled code, and modules' names for them are bound to stubs. The kernel keeps no
  switch to turn this off (no wrapper, no state), the child nothing of the originals,
  and what the student's code changes there ends with the child;
* ``sys.stdout``/``sys.stderr`` go to ``/dev/null`` (nobody reads them while grading);
* the probe, ``probe(payload_json) -> result_json``, calls the student's function on
  each case and serialises only plain values (JSON numbers, strings, lists, dicts, NumPy
  arrays of bool/int/float as raw bytes; exact types only, so no subclass or object with
  its own ``__eq__`` crosses).

The rest is best effort: code in the same interpreter can undo it. The grader relies on
computing the expected values and comparing them outside this process, with its own
parser, and on the sandbox keeping the references and hidden cases off disk (README).
"""


def _setup(cfg):
    import base64
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
    called, disarmed, before = set(), [], {}  # in a probe's child: what it called, its exercise
    stubs, keep, stub_ids, homes = {}, {}, set(), {}  # keep: ids stay those of live objects
    _type, _len, _isinstance, _str, _repr = type, len, isinstance, str, repr
    _dumps, _loads, _b64e, _b64d = json.dumps, json.loads, base64.b64encode, base64.b64decode
    _ndarray, _frombuffer, _ascont, _dtype = np.ndarray, np.frombuffer, np.ascontiguousarray, np.dtype
    _perf = time.perf_counter
    _select, _read, _waitpid, _kill = select.select, os.read, os.waitpid, os.kill
    max_bytes = int(cfg.get("max_bytes", 32 * 1024 * 1024))
    scalar_types = {
        *(np.float64, np.float32, np.float16, np.int64, np.int32, np.int16, np.int8, np.bool_),
        *(np.uint64, np.uint32, np.uint16, np.uint8),
    }

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

    _hint, _solution = (
        _say("hints are not shown while grading"),
        _say("solutions are not available while grading"),
    )

    stub = types.ModuleType("kmlteach.exercises", "Grading stub of kmlteach.exercises.")
    stub.check, stub.hint, stub.solution = _check, _hint, _solution
    stub.__all__ = ["check", "hint", "solution"]
    stub.__path__ = []

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
        away afterwards), so that no reference to it, wherever kept, reaches the original:
        a function gets a new code object, a Numba dispatcher loses its compiled code, its
        on-disk cache and the code it would compile again."""
        py = getattr(f, "py_func", None)
        target = py if _isinstance(py, types.FunctionType) else f
        if not _isinstance(target, types.FunctionType):
            return False
        code = stub_code(target, path)
        if code is None:
            return False
        target.__globals__["_kmlteach_reference_unavailable"] = report
        target.__code__ = code
        if target is not f:  # a dispatcher
            from numba.core.caching import NullCache

            f._reset_overloads()
            f._cache = NullCache()
            f.func_code = code
            f._can_compile = False
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
            modname, _, attr = path.rpartition(".")
            try:  # a module not imported yet is disarmed when the child imports it (_Loader)
                seeds.append((path, sys.modules[modname].__dict__.get(attr)))
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

    def enc(x, depth=0):
        t = _type(x)
        if depth > 20:
            raise TypeError("the returned value is nested too deeply")
        if x is None or t is bool or t is int or t is float:
            return x
        if t is str:
            return {"S": x}
        if t in scalar_types:
            return {"s": x.item()}
        if t is list or t is tuple:
            return {"L" if t is list else "T": [enc(v, depth + 1) for v in x]}
        if t is dict:
            return {"D": [[enc(k, depth + 1), enc(v, depth + 1)] for k, v in x.items()]}
        if t is _ndarray:
            if x.dtype.kind not in "biuf" or x.dtype.hasobject:
                raise TypeError(f"arrays of dtype {x.dtype} cannot be graded")
            a = _ascont(x)
            return {"A": [a.dtype.str, [int(n) for n in a.shape], _b64e(a.tobytes()).decode("ascii")]}
        raise TypeError(
            f"a value of type {t.__name__} cannot be graded (return numbers, lists, tuples or NumPy arrays)"
        )

    def size(x, depth=0):
        """An upper bound of the value's JSON size (without building it)."""
        t = _type(x)
        if t is str:
            return 6 * _len(x) + 8
        if t is _ndarray:
            return 2 * x.nbytes + 64
        if t in (list, tuple) and depth < 20:
            return 8 + sum(size(v, depth + 1) for v in x)
        if t is dict and depth < 20:
            return 8 + sum(size(k, depth + 1) + size(v, depth + 1) for k, v in x.items())
        return 32

    def dec(x):
        t = _type(x)
        if t is not dict:
            return x
        ((tag, v),) = x.items()
        if tag == "S":
            return v
        if tag == "L":
            return [dec(e) for e in v]
        if tag == "T":
            return tuple(dec(e) for e in v)
        if tag == "D":
            return {dec(k): dec(e) for k, e in v}
        if tag == "A":
            return _frombuffer(_b64d(v[2]), dtype=_dtype(v[0])).reshape(v[1]).copy()
        if tag == "F":
            ns = {"np": np}
            exec(v[1], ns)
            return ns[v[0]]
        raise ValueError(f"unknown tag {tag}")

    def run_cases(fn, payload):
        """The child's work: every case, then the reply's JSON text."""
        out = {"cases": [], "called": []}
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

    def receive(fd, pid):
        """The child's reply (8-byte length, then the text), or ``None`` if it ended without
        one. Read until the reply is complete or the child is gone: a process the child
        started may hold the pipe open for ever."""
        buf, need = b"", None
        while need is None or _len(buf) < need:
            if _select([fd], [], [], 0.05)[0]:
                chunk = _read(fd, 1 << 20)
                if not chunk:
                    break
                buf += chunk
                if need is None and _len(buf) >= 8:
                    need = 8 + int.from_bytes(buf[:8], "big")
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
        if need is None or _len(buf) < need or need > max_bytes + 64:
            return None
        return buf[8:need].decode("utf-8")

    def probe(payload_json):
        """Call the student's function on the cases in a child process of the kernel, in
        which the functions this exercise re-implements are neutralised (:func:`disarm`):
        nothing the student's code can reach there, closures and the garbage collector
        included, still holds them, and nothing it changes there outlives the call."""
        payload = _loads(payload_json)
        fn = cfg["user_ns"].get(payload["function"])
        if not callable(fn):
            return _dumps({"cases": [], "called": [], "missing": True})
        before.clear()
        before.update(sys.modules)
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            status = 1
            try:
                os.close(r)
                disarm(payload["exercise"])
                data = run_cases(fn, payload).encode("utf-8")
                data = _len(data).to_bytes(8, "big") + data
                while data:
                    data = data[os.write(w, data) :]
                status = 0
            finally:
                os._exit(status)
        os.close(w)
        try:
            text = receive(r, pid)
        finally:
            os.close(r)
        if text is None:
            return _dumps({"cases": [], "called": [], "died": True})
        try:  # what the child imported, the kernel imports now: the next child starts with it
            reply = _loads(text)
            names = reply.pop("imported", None)
        except Exception:
            return text
        for name in names[:300] if _type(names) is list else ():
            if _type(name) is _str and name.split(".")[0] == "kmlteach" and name not in sys.modules:
                with contextlib.suppress(BaseException):
                    importlib.import_module(name)
        return _dumps(reply)

    return probe
