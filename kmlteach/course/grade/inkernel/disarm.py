"""The references out of the student's reach (runs inside the kernel; see ``__init__``).

* ``kmlteach.exercises`` becomes a stub (``check`` prints that grading skips it, ``hint``
  and ``solution`` say they are unavailable); ``kmlteach.exercises.*`` (references, cases)
  and ``kmlteach.course.*`` (the grader, its hidden cases) are unimportable
  (:meth:`Disarmer.install`; their files are outside the file-access policy anyway);
* in a probe's child, *before* the student's cells run, the library functions the graded
  exercise re-implements (``cfg["guards"]``, from ``grade/cases/chNN.py``'s ``GUARDS``) are
  neutralised (:meth:`Disarmer.disarm`): the function objects themselves get a code object
  that raises ``ReferenceUnavailable`` (recorded: the grader then scores the exercise 0),
  Numba dispatchers lose their compiled code, and modules' names for them are bound to
  stubs; a module (re)loaded later in the child is disarmed as it loads. So every copy,
  thread, cache or stack walk the student's code sets up is set up after the
  neutralisation, in a process that ends with the probe.
"""

import importlib
import importlib.abc
import importlib.machinery
import sys
import types

_isinstance = isinstance


class ReferenceUnavailable(RuntimeError):
    """The library function this exercise re-implements is not available while grading."""


def guard_target(path, module):
    """The function a guard names: ``package.module.function`` or, for a method of a
    class, ``package.module.Class.method`` (``module(name)`` gives the module object)."""
    head, _, attr = path.rpartition(".")
    try:
        owner = module(head)
    except (KeyError, ImportError):
        modname, _, cls = head.rpartition(".")
        owner = module(modname).__dict__[cls]
    return owner.__dict__.get(attr)


def load_references(guards):
    """The modules that define the functions of ``guards``, imported in the kernel: a probe's
    child may not read their files (``grade/plan.py``'s ``reference_files``), so a
    submission that imports the package finds them loaded, and its child disarms the
    functions (:meth:`Disarmer.disarm`)."""
    import contextlib

    for path in guards or {}:
        if path.startswith(("kmlteach.widgets.", "kmlteach.plots.")):
            # a widget's or a figure's module is never preloaded: no exercise's code needs
            # one (a widget's own kernel scores answered 02.gram, a figure's discount line
            # 06.ndcg: red teams 2 and 6 of 2026-12-07), and it would load matplotlib (and
            # ipywidgets) into the kernel (0.6 s); its file is refused to the child all the
            # same, so the child cannot import it either
            continue
        with contextlib.suppress(Exception):
            guard_target(path, importlib.import_module)


def exercises_stub():
    """The module that stands for ``kmlteach.exercises`` while grading."""

    def check(exercise_id=None, fn=None, *args, **kwargs):
        print(f"(grading: check({exercise_id!r}) is skipped; the grader runs its own cases)")
        return None

    def say(text):
        def said(exercise_id=None, *args, **kwargs):
            print(text)
            return text

        return said

    stub = types.ModuleType("kmlteach.exercises", "Grading stub of kmlteach.exercises.")
    stub.check = check
    stub.hint = say("hints are not shown while grading")
    stub.solution = say("solutions are not available while grading")
    stub.__all__, stub.__path__ = ["check", "hint", "solution"], []
    return stub


class Disarmer:
    """What a probe's child may not call (``guards``: ``{library path: [exercise ids]}``),
    what it called anyway (``called``), and the import hooks that keep it so."""

    def __init__(self, guards, blocked, spared=None):
        self.guards = {path: set(ids) for path, ids in guards.items()}
        self.spared = {path: set(ids) for path, ids in (spared or {}).items()}  # the walk leaves them
        self.blocked = tuple(blocked)
        self.called, self.disarmed = set(), []  # in a probe's child: what it called, the exercise
        self.stubs, self.keep, self.stub_ids, self.homes = {}, {}, set(), {}  # keep: ids stay live
        self.stub = exercises_stub()

    def is_blocked(self, name):
        return any(name == b or name.startswith(b + ".") for b in self.blocked)

    def install(self):
        """The stub in place of ``kmlteach.exercises``, the blocked modules unloaded, and the
        finder that refuses them and disarms what a probe's child imports."""
        for name in list(sys.modules):
            if self.is_blocked(name):
                del sys.modules[name]
        sys.modules["kmlteach.exercises"] = self.stub
        if "kmlteach" in sys.modules:
            sys.modules["kmlteach"].exercises = self.stub
        sys.meta_path.insert(0, _Finder(self))

    def report(self, path):
        """What a disarmed reference does when called: recorded, then refused."""
        self.called.add(path)
        raise ReferenceUnavailable(
            f"{path} computes this exercise's answer, or part of it; it is not available "
            f"while exercise {self.disarmed[0]} is graded"
        )

    @staticmethod
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

    def neutralise(self, path, f):
        """Make the object ``f`` itself unusable in this process (the probe's own child, thrown
        away afterwards), so that no reference to it, wherever kept, reaches the original: a
        function gets a new code object, a Numba dispatcher loses its compiled code, its on-disk
        cache, the code it would compile again and every attribute that held the original code
        (``func_code``, and ``__code__``, which red team 6 read through ``gc``: 3/3)."""
        py = getattr(f, "py_func", None)
        target = py if _isinstance(py, types.FunctionType) else f
        if not _isinstance(target, types.FunctionType):
            return False
        code, original = self.stub_code(target, path), target.__code__
        if code is None:
            return False
        target.__globals__["_kmlteach_reference_unavailable"] = self.report
        target.__code__ = code
        if target is not f:  # a dispatcher
            from numba.core.caching import NullCache

            f._reset_overloads()
            f._cache, f._can_compile = NullCache(), False
            for key in [k for k, v in vars(f).items() if v is original]:
                setattr(f, key, code)
        return True

    def helpers(self, fn, seen):
        """Module-level functions (and Numba dispatchers) of ``fn``'s module that ``fn``
        reaches through its globals, and what those reach: a guarded function's private
        kernel is guarded too, and the kernel's own callees (red team of 2026-12-06: 01.hinge
        scored 2/2 through ``online.losses._loss_and_derivative``, which the guarded
        ``norma_loss`` reaches only through the jitted ``_loss_kernel``). Spared functions
        (``seen`` holds their ids from the start, :meth:`spare_ids`) are neither yielded
        nor entered."""
        mod = sys.modules.get(getattr(fn, "__module__", None) or "")
        code = getattr(getattr(fn, "py_func", fn), "__code__", None)
        if mod is None or code is None:
            return
        # a method's class: the sibling methods it calls through ``self`` are its helpers too
        # (red team 6 of 2026-12-07: a hand-built tree's ``apply``, which the guarded
        # ``DecisionTree.predict`` calls, scored 08.stump_error 2/2)
        owner, _, _ = (getattr(fn, "__qualname__", "") or "").rpartition(".")
        cls = mod.__dict__.get(owner) if owner and "<" not in owner else None
        cls = cls if _isinstance(cls, type) else None
        todo = [code]
        while todo:
            c = todo.pop()
            todo += [k for k in c.co_consts if _isinstance(k, types.CodeType)]
            for name in c.co_names:
                method = cls.__dict__.get(name) if cls is not None else None
                if _isinstance(method, types.FunctionType) and id(method) not in seen:
                    seen.add(id(method))
                    yield f"{mod.__name__}.{owner}.{name}", method
                    yield from self.helpers(method, seen)
                val = mod.__dict__.get(name)  # a module function of the same name too
                if val is None or id(val) in seen or not callable(val) or _isinstance(val, type):
                    continue
                inner = getattr(val, "py_func", val)
                if getattr(inner, "__module__", None) != mod.__name__:
                    continue
                seen.add(id(val))
                yield f"{mod.__name__}.{name}", val
                yield from self.helpers(val, seen)

    def spare_ids(self, exercise):
        """The ids of the loaded functions (and their Numba dispatchers' Python functions)
        that the walk through ``exercise``'s guards leaves working (``cases.SHARED``, the
        exercise's ``!path`` entries); resolved at each walk, so a module loaded again inside
        the child has its new copies spared too."""
        out = set()
        for path, ids in self.spared.items():
            if exercise not in ids:
                continue
            try:
                f = guard_target(path, sys.modules.__getitem__)
            except Exception:
                continue
            if f is not None:
                out |= {id(f), id(getattr(f, "py_func", f))}
        return out

    def targets(self, exercise, module=None):
        """``(guard path, path, function)`` of everything :meth:`disarm` neutralises for
        ``exercise``: each guarded function, then its module's helpers it reaches
        (:meth:`helpers`), the spared ones left out. ``module``: one (re)loaded inside the
        child, whose new copies of guarded functions are targets too. Neutralises nothing:
        the grader asks it too, for the Numba cache files a child may not read
        (``grade/plan.py``'s ``reference_files``)."""
        spare = self.spare_ids(exercise)
        seeds = []
        for path in [p for p, ids in self.guards.items() if exercise in ids]:
            try:  # a module not imported yet is disarmed when the child imports it (_Loader)
                seeds.append((path, guard_target(path, sys.modules.__getitem__)))
            except Exception:
                continue
        for path, (modname, attr) in list(self.homes.items()):
            if module is not None and module.__name__ == modname:
                seeds.append((path, module.__dict__.get(attr)))
        for path, fn in seeds:
            if fn is None or id(fn) in self.stub_ids:
                continue
            for p, f in [(path, fn), *self.helpers(fn, {id(fn), *spare})]:
                yield path, p, f

    def disarm(self, exercise, module=None):
        """In the probe's child only: every function that ``exercise`` re-implements (and
        its module's helpers it reaches) neutralised, and every ``kmlteach`` module's name
        for it bound to a stub that records the call. Nothing of the original is kept.
        ``module``: one (re)loaded inside the child: its new copies are neutralised too."""
        self.disarmed[:] = [exercise]
        new = False
        for path, p, f in self.targets(exercise, module):
            if id(f) not in self.stubs and self.neutralise(p, f):
                stub = (lambda q: lambda *a, **k: self.report(q))(p)
                self.stubs[id(f)], self.keep[id(f)], new = stub, f, True
                self.stub_ids.add(id(stub))
                if p == path:
                    home = (getattr(f, "__module__", ""), getattr(f, "__name__", ""))
                    self.homes.setdefault(path, home)
        mods = sys.modules.items() if new or module is None else [(module.__name__, module)]
        for name, mod in list(mods):
            if name.split(".")[0] == "kmlteach" and mod is not None:
                d = getattr(mod, "__dict__", {})
                for key, val in list(d.items()):
                    if id(val) in self.stubs:
                        d[key] = self.stubs[id(val)]


class _Loader(importlib.abc.Loader):
    """A ``kmlteach`` module's own loader, then the disarming of what it defines."""

    def __init__(self, inner, disarmer):
        self.inner, self.disarmer = inner, disarmer

    def create_module(self, spec):
        return self.inner.create_module(spec)

    def exec_module(self, module):
        self.inner.exec_module(module)
        if self.disarmer.disarmed:  # a module (re)loaded inside a probe's child: disarmed again
            self.disarmer.disarm(self.disarmer.disarmed[0], module)

    def __getattr__(self, name):
        return getattr(self.inner, name)


class _StubLoader(importlib.abc.Loader):
    def __init__(self, stub):
        self.stub = stub

    def create_module(self, spec):
        return self.stub

    def exec_module(self, module):
        pass


class _Finder(importlib.abc.MetaPathFinder):
    def __init__(self, disarmer):
        self.disarmer = disarmer

    def find_spec(self, name, path=None, target=None):
        if name == "kmlteach.exercises":
            return importlib.machinery.ModuleSpec(name, _StubLoader(self.disarmer.stub), is_package=True)
        if self.disarmer.is_blocked(name):
            raise ImportError(f"{name} is not available while grading")
        if name.split(".")[0] != "kmlteach":
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                if spec.loader is not None:
                    spec.loader = _Loader(spec.loader, self.disarmer)
                return spec
        return None
