"""Code the grader runs inside the submission's kernel, before any student code.

This file is sent to the kernel as the text of a cell (it is not imported there). It
defines one function, ``_setup(cfg)``, which

* replaces ``kmlteach.exercises`` by a stub whose ``check`` only prints that grading
  does not use it (``hint`` works, ``solution`` says it is unavailable) and makes
  ``kmlteach.exercises.*`` (the registry, references, cases), ``kmlteach.course.*``
  (the grader and its hidden cases) and their old aliases unimportable;
* wraps the library functions that an exercise re-implements (``cfg["guards"]``) so
  that, while that exercise is graded, calling them raises ``ReferenceUnavailable`` and
  is recorded (the grader then scores the exercise 0);
* sends ``print`` and other writes to ``sys.stdout``/``sys.stderr`` to ``/dev/null``
  (nobody reads them while grading; a 50 MB print then costs the kernel nothing either);
* returns the probe: ``probe(payload_json) -> result_json`` calls the student's
  function on each case and serialises only plain values (JSON numbers, strings,
  lists, dicts, and NumPy arrays of bool/int/float as raw bytes; exact types only, so
  subclasses and objects with their own ``__eq__`` cannot cross).

All of this is best effort: code in the same interpreter can undo any of it. What
the grader relies on is that it computes the expected values and compares them
outside this process, with its own parser, and that Landlock keeps the references and
hidden cases out of reach on disk (README, "Grading").
"""


def _setup(cfg):
    import base64
    import importlib.abc
    import importlib.machinery
    import json
    import os
    import sys
    import time
    import types

    import numpy as np

    sys.stdout = sys.stderr = open(os.devnull, "w", encoding="utf-8")
    blocked = tuple(cfg["blocked_modules"])
    guards = {path: set(ids) for path, ids in cfg["guards"].items()}
    state = {"active": None, "called": set()}
    originals = {}  # id(original function) -> guard
    _type, _len, _isinstance, _str, _repr = type, len, isinstance, str, repr
    _dumps, _loads, _b64e, _b64d = json.dumps, json.loads, base64.b64encode, base64.b64decode
    _ndarray, _frombuffer, _ascont, _dtype = np.ndarray, np.frombuffer, np.ascontiguousarray, np.dtype
    _perf = time.perf_counter
    max_bytes = int(cfg.get("max_bytes", 32 * 1024 * 1024))
    scalar_types = {
        np.float64,
        np.float32,
        np.float16,
        np.int64,
        np.int32,
        np.int16,
        np.int8,
        np.uint64,
        np.uint32,
        np.uint16,
        np.uint8,
        np.bool_,
    }

    class ReferenceUnavailable(RuntimeError):
        """The library function this exercise re-implements is not available while grading."""

    def _check(exercise_id=None, fn=None, *args, **kwargs):
        print(f"(grading: check({exercise_id!r}) is skipped; the grader runs its own cases)")
        return None

    def _hint(exercise_id=None, *args, **kwargs):
        text = "hints are not shown while grading"
        print(text)
        return text

    def _solution(exercise_id=None, *args, **kwargs):
        text = "solutions are not available while grading"
        print(text)
        return text

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

    def make_guard(path, fn):
        ids = guards[path]

        def guard(*args, **kwargs):
            if state["active"] in ids:
                state["called"].add(path)
                raise ReferenceUnavailable(
                    f"{path} is the function this exercise re-implements; it is not available "
                    f"while exercise {state['active']} is graded"
                )
            return fn(*args, **kwargs)

        guard.__name__ = getattr(fn, "__name__", "guard")
        guard.__doc__ = getattr(fn, "__doc__", None)
        return guard

    def helpers(fn, seen):
        """Module-level functions (and Numba dispatchers) of ``fn``'s module that ``fn``
        reaches through its globals: a guarded function's private kernel is guarded too."""
        mod = sys.modules.get(getattr(fn, "__module__", None) or "")
        code = getattr(fn, "__code__", None)
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

    def install_guards():
        mods = [m for n, m in list(sys.modules.items()) if n.split(".")[0] == "kmlteach" and m]
        for path in list(guards):
            modname, _, attr = path.rpartition(".")
            mod = sys.modules.get(modname)
            if mod is None:
                continue
            try:
                fn = mod.__dict__.get(attr) or getattr(mod, attr)
            except Exception:
                continue
            if getattr(fn, "_kmlteach_guard", False):
                fn = next((o for o, g in originals.values() if g is fn), fn)
            found = [(path, fn)] + list(helpers(fn, {id(fn)}))
            for p, f in found:
                guards.setdefault(p, set()).update(guards[path])
                if id(f) not in originals and not getattr(f, "_kmlteach_guard", False):
                    g = make_guard(p, f)
                    g._kmlteach_guard = True
                    originals[id(f)] = (f, g)
        for mod in mods:
            d = getattr(mod, "__dict__", {})
            for key, val in list(d.items()):
                hit = originals.get(id(val))
                if hit is not None and hit[0] is val:
                    d[key] = hit[1]

    class _Loader(importlib.abc.Loader):
        def __init__(self, inner):
            self.inner = inner

        def create_module(self, spec):
            return self.inner.create_module(spec)

        def exec_module(self, module):
            self.inner.exec_module(module)
            install_guards()

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
    install_guards()

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

    def probe(payload_json):
        payload = _loads(payload_json)
        ns = cfg["user_ns"]
        fn = ns.get(payload["function"])
        out = {"cases": [], "called": []}
        if not callable(fn):
            out["missing"] = True
            return _dumps(out)
        state["called"] = set()
        for case in payload["cases"]:
            args, kwargs = dec(case[0]), dec(case[1])
            t0 = _perf()
            state["active"] = payload["exercise"]
            try:
                got = fn(*args, **kwargs)
                state["active"] = None
                if size(got) > max_bytes:  # never send the grader more than it reads
                    raise OverflowError("the returned value is too large")
                res = {"value": enc(got)}
            except BaseException as exc:  # SystemExit, KeyboardInterrupt too: reported, not raised
                state["active"] = None
                try:
                    msg = _str(exc)[:300]
                except BaseException:
                    msg = "?"
                res = {"error": _type(exc).__name__, "message": msg, "memory": _isinstance(exc, MemoryError)}
            finally:
                state["active"] = None
            res["time"] = _perf() - t0
            if (
                res.get("error") == "OverflowError"
                and res.get("message") == "the returned value is too large"
            ):
                res["error"] = "ResultTooLarge"
            out["cases"].append(res)
            if res.get("error") == "KeyboardInterrupt":
                break
        out["called"] = sorted(state["called"])
        text = _dumps(out)
        return (
            text
            if _len(text) <= max_bytes
            else _dumps({"cases": [], "called": out["called"], "too_large": True})
        )

    return probe
