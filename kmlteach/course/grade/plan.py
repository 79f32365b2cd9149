"""What the grader does for one chapter: exercises, points, cases and expected values.

Built once per chapter and grading run, in the grader's process: the cases (the
visible ones of ``kmlteach.exercises`` and the hidden ones of ``cases/chNN.py``) and
the reference's outputs on them. Only the cases' arguments are ever sent to a kernel.
"""

from __future__ import annotations

import contextlib
import functools
import glob
import importlib
import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..book import load as load_book
from . import cases as hidden
from .cells import check_calls, notebook_code_cells
from .codec import encode
from .inkernel.disarm import guard_target

__all__ = [
    "GradeCase",
    "ExercisePlan",
    "ChapterPlan",
    "chapter_plan",
    "student_plan",
    "book_exercises",
    "reference_files",
]


@dataclass(frozen=True)
class GradeCase:
    visible: bool
    label: str  # visible: its description; hidden: its kind only
    encoded: list  # [args, kwargs] as sent to the kernel
    expected: Any  # the reference's output (never sent anywhere)


@dataclass(frozen=True)
class ExercisePlan:
    id: str
    title: str
    points: float
    partial: bool
    function: str
    cases: tuple[GradeCase, ...]
    hint: str


@dataclass(frozen=True)
class ChapterPlan:
    chapter: str
    exercises: tuple[ExercisePlan, ...]
    guards: dict
    spared: dict = field(default_factory=dict)  # {path: [ids]}: helpers a guard's walk leaves

    @property
    def max_total(self) -> float:
        return float(sum(e.points for e in self.exercises))


def book_exercises(book_path=None) -> dict[str, list[dict]]:
    """``{chapter id: [{"id", "points", "partial"}, ...]}`` from ``book.toml``."""
    b = load_book(book_path)
    return {c.id: [dict(e) for e in c.exercises] for c in b.chapters if c.exercises}


@functools.cache
def _names(book_path, chapter: str) -> dict[str, str]:
    return _instructor_functions(book_path, chapter)


def _instructor_functions(book_path, chapter: str) -> dict[str, str]:
    b = load_book(book_path)
    try:
        nb_path = Path(b.root) / b.chapter(chapter).notebook
        nb = json.loads(nb_path.read_text(encoding="utf-8"))
    except (KeyError, OSError, ValueError):
        return {}
    return check_calls(notebook_code_cells(nb))


@functools.cache
def chapter_plan(chapter: str, book_path: str | None = None) -> ChapterPlan:
    """The plan of a chapter (cached). Raises ``KeyError`` for an unknown chapter."""
    return _plan(chapter, book_path)


def student_plan(chapter: str, book_path: str | None, secret: bytes, submission: str) -> ChapterPlan:
    """The plan of one submission under ``grade --secret``: the chapter's visible cases and
    hidden cases drawn from :func:`.cases.student_seed` (same kinds, the submission's own
    inputs); the expected values are the reference's on them."""
    return _plan(chapter, book_path, lambda ex_id: hidden.student_seed(secret, submission, ex_id))


@functools.cache
def _visible(ex_id: str) -> tuple:
    from kmlteach.exercises import get

    ex = get(ex_id)
    return tuple(
        GradeCase(
            True,
            f"visible case {i}: {c.describe()}",
            encode(c.args, c.kwargs),
            ex.reference(*_copy(c.args), **_copy(c.kwargs)),
        )
        for i, c in enumerate(ex.all_cases(), 1)
    )


def _plan(chapter: str, book_path, seed_of=None) -> ChapterPlan:
    from kmlteach.exercises import get

    entries = book_exercises(book_path).get(chapter)
    if not entries:
        raise KeyError(chapter)
    names = _names(book_path, chapter)
    plans = []
    for entry in entries:
        ex = get(entry["id"])
        if ex is None:
            raise KeyError(entry["id"])
        cases = list(_visible(ex.id))
        for h in hidden.hidden_cases(ex.id, None if seed_of is None else seed_of(ex.id)):
            cases.append(
                GradeCase(
                    False, h.kind, encode(h.args, h.kwargs), ex.reference(*_copy(h.args), **_copy(h.kwargs))
                )
            )
        plans.append(
            ExercisePlan(
                id=ex.id,
                title=ex.title,
                points=float(entry.get("points", 1)),
                partial=bool(entry.get("partial", False)),
                function=names.get(ex.id) or getattr(ex.reference, "__name__", ex.id),
                cases=tuple(cases),
                hint=_first_hint(ex),
            )
        )
    return ChapterPlan(chapter, tuple(plans), hidden.guards(chapter), hidden.spared(chapter))


def _first_hint(ex) -> str:
    """The first hint level (the later ones come close to the solution), and where the
    others are."""
    levels = ex.hints
    more = (
        f' (more: `hint("{ex.id}", level=2)` in the notebook, as its checks say)' if len(levels) > 1 else ""
    )
    return levels[0] + more


def _copy(v):
    import copy

    return copy.deepcopy(v)


def reference_files(guards, spared=None) -> dict[str, list[str]]:
    """``{exercise: files}``: what a probe's child grading that exercise may not read, on top
    of the policy: the source and bytecode of the modules that define the library functions
    it re-implements (``guards``: ``{library path: [exercise ids]}``, from
    ``grade/cases/chNN.py``'s ``GUARDS``; ``spared``: the helpers their walk leaves, from
    ``cases.spared``), and every Numba cache file of the package but those of the compiled
    kernels that neither are one of those functions nor call one, in any module
    (:func:`_kept_kernels`). Red team 4:
    with the modules readable, a child loaded a copy of a reference again from its file
    (``spec_from_file_location`` on ``svm/margins.py``, or ``subprocess.run([sys.executable,
    ...])``) and scored 3.4 points with nothing implemented. The cache files of the other
    kernels of those modules stay readable: the child loads them from the warm-up's cache
    (``inkernel/lock.py``'s ``library_cache``). Found here, in the grader, which has the
    modules imported for the expected values; the kernel imports them only for a submission
    whose code imports the package (``inkernel/server.py``), and its children are denied
    the files either way (``inkernel/lock.py``). Their denial is the one rule of a child's
    file access that is not in ``isolation/policy.py``, as it depends on the exercise.
    Made at each kernel's start (a few milliseconds), so a cache file Numba wrote since is
    on the list."""
    files: dict[str, set] = {}
    for path, ids in (guards or {}).items():
        modname = path.rpartition(".")[0]
        with contextlib.suppress(Exception):
            obj = guard_target(path, importlib.import_module)
            home = sys.modules.get(getattr(getattr(obj, "py_func", obj), "__module__", modname))
            modname = modname if modname in sys.modules else home.__name__  # Class.method
            for name in {modname, getattr(home, "__name__", modname)}:
                f = getattr(sys.modules.get(name), "__file__", None)
                if f and not f.endswith("__init__.py"):
                    stem = os.path.splitext(os.path.basename(f))[0]
                    # the source, its bytecode and Numba's cache files of its functions
                    cached = os.path.join(os.path.dirname(f), "__pycache__", glob.escape(stem) + ".*")
                    for ex in ids:
                        files.setdefault(ex, set()).add(os.path.realpath(f))
                        files[ex].update(os.path.realpath(p) for p in glob.glob(cached))
    # every Numba cache file of the package but those of the kernels the child keeps (an
    # allowlist: a file left by a kernel since removed or renamed, or an older data file of a
    # kept one, names no current kernel; red team 11 scored 02.gram with nu_smo's removed
    # _ensure_row, which called kernel_value, left by an older warm-up)
    frozen = [tuple(sorted((k, tuple(v)) for k, v in (d or {}).items())) for d in (guards, spared)]
    caches = _package_caches()
    for ex, kept in _kept_kernels(*frozen).items():
        allowed = {p for k in kept for p in _kept_cache_files(*_cache_base(k))}
        files[ex] = (files.get(ex, set()) | caches) - allowed
    return {ex: sorted(fs) for ex, fs in files.items()}


def _package_caches() -> set[str]:
    """Every Numba cache file (``.nbi``, ``.nbc``) in the ``__pycache__`` folders of the
    package (real paths)."""
    import kmlteach

    out = set()
    for root in kmlteach.__path__:
        for folder, _, names in os.walk(root):
            if os.path.basename(folder) == "__pycache__":
                out.update(
                    os.path.realpath(os.path.join(folder, n)) for n in names if n.endswith((".nbi", ".nbc"))
                )
    return out


def _kept_cache_files(folder: str, name: str) -> list[str]:
    """The index ``folder/name.nbi`` of a kernel and the data files it names now (not an
    older version's left beside them), real paths; none where the index cannot be read."""
    index = os.path.join(folder, name + ".nbi")
    try:
        return _index_files(os.path.realpath(index), os.stat(index).st_mtime_ns)
    except OSError:
        return []


@functools.lru_cache(maxsize=1024)
def _index_files(index: str, mtime_ns: int) -> list[str]:
    """Numba's index format (``numba.core.caching.IndexDataCacheFile``): a pickled version,
    then the pickled ``(source stamp, {key: data file name})``. The files of the package's
    own ``__pycache__``, which the grader imports its code from anyway."""
    import pickle

    try:
        with open(index, "rb") as fh:
            pickle.load(fh)
            _, overloads = pickle.loads(fh.read())
        names = [n for n in overloads.values() if isinstance(n, str) and os.path.basename(n) == n]
    except Exception:
        return []
    folder = os.path.dirname(index)
    return [index, *(os.path.realpath(os.path.join(folder, n)) for n in names)]


@functools.lru_cache(maxsize=1)
def _kernel_calls() -> tuple[dict, dict]:
    """``(kernels, calls)``: every compiled kernel of the library (``{id: dispatcher}``, each
    algorithm module imported) and the kernels each calls (``{id: {ids}}``), through its
    globals, the attributes of modules it names, its closure and its defaults. Numba links
    a callee's machine code into its caller's, and a cached caller never types the callee
    again: red team of 2026-12-07 (night) scored 02.gram through ``online.norma``, whose
    ``_norma_kernel``, loaded from the cache, held the disarmed ``kernel_value``."""
    import types

    from ..._jit import _REGISTRY, import_algorithm_modules

    import_algorithm_modules()

    def kernel(v):
        try:
            return getattr(v, "py_func", None) is not None and getattr(v, "_cache", None) is not None
        except Exception:
            return False

    kernels = {id(v): v for v, _ in _REGISTRY.values() if kernel(v)}
    for name, mod in list(sys.modules.items()):
        if name.split(".")[0] == "kmlteach" and mod is not None:
            kernels.update((id(v), v) for v in list(vars(mod).values()) if kernel(v))
    calls = {}
    for i, k in kernels.items():
        fn, out = k.py_func, set()
        todo, names = [fn.__code__], set()
        while todo:
            c = todo.pop()
            todo += [x for x in c.co_consts if isinstance(x, types.CodeType)]
            names.update(c.co_names)
        found = [fn.__globals__.get(n) for n in names]
        for cell in fn.__closure__ or ():
            with contextlib.suppress(ValueError):  # an empty cell
                found.append(cell.cell_contents)
        found += list(fn.__defaults__ or ())
        seen = set()
        while found:
            v = found.pop()
            if id(v) in seen:
                continue
            seen.add(id(v))
            if id(v) in kernels:
                out.add(id(v))
            elif isinstance(v, types.ModuleType):  # ``evaluation.kernel_value``, ``a.b.f``
                found += [getattr(v, n, None) for n in names]
        calls[i] = out - {i}
    return kernels, calls


@functools.lru_cache(maxsize=32)
def _kept_kernels(guards: tuple, spared: tuple) -> dict[str, list]:
    """``{exercise: kernels}``: the library's compiled kernels whose cache a child grading
    that exercise may read: all but each function its disarming neutralises
    (``Disarmer.targets``) and every kernel that calls one, however deep.
    ``guards``, ``spared``: as :func:`reference_files` has them, as sorted tuples of pairs
    (once per chapter and grading run: ~50 ms)."""
    from .inkernel.disarm import Disarmer

    if not guards:
        return {}
    kernels, calls = _kernel_calls()
    disarmer = Disarmer(dict(guards), (), dict(spared))
    out = {}
    for ex in sorted({e for _, ids in guards for e in ids}):
        bad = {id(f) for _, _, f in disarmer.targets(ex)} & set(kernels)
        grew = True
        while grew:  # the callers of a tainted kernel, until none is added
            more = {i for i, c in calls.items() if i not in bad and c & bad}
            bad |= more
            grew = bool(more)
        out[ex] = [k for i, k in kernels.items() if i not in bad]
    return out


def _cache_base(kernel) -> tuple[str, str]:
    """``(folder, name)`` of ``kernel``'s Numba cache files in its module's ``__pycache__``
    (the warm-up's): ``folder/name.nbi``, ``folder/name.1.nbc``... The name is Numba's own;
    the folder is the module's, wherever the grader's own Numba caches
    (``NUMBA_CACHE_DIR``)."""
    source = os.path.realpath(kernel.py_func.__code__.co_filename)
    return os.path.join(os.path.dirname(source), "__pycache__"), kernel._cache._impl.filename_base
