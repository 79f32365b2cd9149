"""``grade --similarity FILE.html``: exercise functions with the same (or nearly the same)
syntax tree, between submissions and against the package's own source. Never changes points.

For each exercise, a submission's *unit* is its exercise function plus the functions of
the same notebook it calls (transitively). Each function is normalised: docstrings,
comments, decorators, type annotations and formatting dropped; its own name, its
parameters and local names renamed by order of first use (``v0``, ``v1``...); the
notebook's helper functions renamed ``h0``, ``h1``...; attribute names, globals (``np``)
and constants kept. The report lists, per exercise: groups of submissions whose units
are identical once normalised; pairs whose node sequences are at least ``NEAR`` alike
(``difflib``); and submissions with a function that is (nearly) one of the library
functions the exercise re-implements or their private helpers (``kmlteach.svm.perceptron``
and ``_perceptron_kernel`` for ``01.perceptron``). A unit that is the released stub (it
only raises ``NotImplementedError``) is left out. Matches are for the instructor to judge:
short exercises have few natural solutions.
"""

from __future__ import annotations

import ast
import difflib
import html
import importlib
import inspect
import textwrap

from .cells import _parse, check_calls, notebook_code_cells
from .plan import chapter_plan
from .submission import InvalidSubmission, read_notebook

__all__ = ["normalise", "units", "similarity_report", "NEAR"]

NEAR = 0.9


class _Renamer(ast.NodeTransformer):
    def __init__(self, helpers: dict[str, str]):
        self.helpers, self.names = helpers, {}

    def _new(self, name: str) -> str:
        if name in self.helpers:
            return self.helpers[name]
        return self.names.setdefault(name, f"v{len(self.names)}")

    def visit_FunctionDef(self, node):
        node.name = self.helpers.get(node.name, "F")
        node.decorator_list, node.returns = [], None
        body = node.body
        if (
            body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            body = body[1:] or [ast.Pass()]
        node.body = body
        self.generic_visit(node)
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_arg(self, node):
        node.arg, node.annotation = self._new(node.arg), None
        return node

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Store) or node.id in self.names or node.id in self.helpers:
            node.id = self._new(node.id)
        return node


def normalise(fn: ast.FunctionDef, helpers: dict[str, str]) -> list[str]:
    """The normalised node sequence of one function (see the module docstring)."""
    import copy

    tree = _Renamer(helpers).visit(copy.deepcopy(fn))
    out = []
    for node in ast.walk(tree):
        label = type(node).__name__
        for field in ("id", "arg", "attr", "name"):
            if isinstance(getattr(node, field, None), str):
                label += ":" + getattr(node, field)
        if isinstance(node, ast.Constant):
            label += ":" + repr(node.value)[:20]
        elif isinstance(node, (ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.AugAssign)):
            ops = getattr(node, "ops", None) or [getattr(node, "op", None)]
            label += ":" + ",".join(type(o).__name__ for o in ops)
        out.append(label)
    return out


def _functions(sources) -> dict[str, ast.FunctionDef]:
    defs = {}
    for src in sources:
        tree = _parse(src)
        for node in tree.body if tree is not None else []:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                defs[node.name] = node
    return defs


def _unit(defs: dict, name: str) -> list[list[str]]:
    """Normalised main function, then its notebook helpers (sorted)."""
    if name not in defs:
        return []
    order, todo = [], [name]
    while todo:
        n = todo.pop(0)
        if n in order:
            continue
        order.append(n)
        todo += [x.id for x in ast.walk(defs[n]) if isinstance(x, ast.Name) and x.id in defs]
    helpers = {n: f"h{k}" for k, n in enumerate(order[1:])}
    helpers[name] = "F"
    seqs = [normalise(defs[n], helpers) for n in order]
    return [seqs[0]] + sorted(seqs[1:])


def _is_stub(seq: list[str]) -> bool:
    return "Name:NotImplementedError" in seq and sum(s.startswith("Return") for s in seq) == 0


def units(data: bytes, chapter: str, book_path=None) -> dict[str, list[list[str]]]:
    """``{exercise id: normalised unit}`` of one notebook (exercises it defines)."""
    try:
        nb = read_notebook(data)
    except InvalidSubmission:
        return {}
    sources = notebook_code_cells(nb)
    names, defs = check_calls(sources), _functions(sources)
    out = {}
    for ex in chapter_plan(chapter, book_path).exercises:
        u = _unit(defs, names.get(ex.id, ex.function))
        if u and not _is_stub(u[0]):
            out[ex.id] = u
    return out


def _library(chapter: str, book_path=None) -> dict[str, list[tuple[str, list[str]]]]:
    """``{exercise id: [(library path, normalised function)]}``: the guarded functions and
    the helpers of their module they reach."""
    out: dict[str, list] = {}
    for path, ids in chapter_plan(chapter, book_path).guards.items():
        modname, _, attr = path.rpartition(".")
        try:
            fn = getattr(importlib.import_module(modname), attr)
        except (ImportError, AttributeError):
            continue
        mod = importlib.import_module(fn.__module__)
        found, todo = {}, [(f"{fn.__module__}.{attr}", fn)]
        while todo:
            p, f = todo.pop()
            f = getattr(f, "py_func", f)
            if p in found or not inspect.isfunction(f):
                continue
            try:
                tree = ast.parse(textwrap.dedent(inspect.getsource(f))).body[0]
            except (OSError, TypeError, SyntaxError, IndexError):
                continue
            found[p] = normalise(tree, {})
            todo += [
                (f"{mod.__name__}.{n}", mod.__dict__[n])
                for n in f.__code__.co_names
                if n in mod.__dict__
                and callable(mod.__dict__[n])
                and getattr(getattr(mod.__dict__[n], "py_func", mod.__dict__[n]), "__module__", "")
                == mod.__name__
            ]
        for i in ids:
            out.setdefault(i, []).extend(found.items())
    return out


def _ratio(a: list[str], b: list[str]) -> float:
    if not a or not b or min(len(a), len(b)) < NEAR * max(len(a), len(b)):
        return 0.0
    m = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return m.ratio() if m.real_quick_ratio() >= NEAR and m.quick_ratio() >= NEAR else 0.0


def find_similar(sources: dict[str, bytes], chapters: dict[str, str], book_path=None) -> list[dict]:
    """Findings: ``{"exercise", "kind" ("identical"|"near"|"library"), "members", "score"}``."""
    findings = []
    by_chapter: dict[str, dict[str, dict]] = {}
    for sub_id, data in sources.items():
        ch = chapters.get(sub_id)
        if ch:
            by_chapter.setdefault(ch, {})[sub_id] = units(data, ch, book_path)
    for ch, subs in sorted(by_chapter.items()):
        lib = _library(ch, book_path)
        for ex in chapter_plan(ch, book_path).exercises:
            have = {s: u[ex.id] for s, u in subs.items() if ex.id in u}
            groups: dict[str, list[str]] = {}
            for s, u in have.items():
                groups.setdefault(repr(u), []).append(s)
            reps = []
            for members in groups.values():
                if len(members) > 1:
                    findings.append(
                        {"exercise": ex.id, "kind": "identical", "members": sorted(members), "score": 1.0}
                    )
                reps.append((members[0], members, sum(have[members[0]], [])))
            for i in range(len(reps)):
                for j in range(i + 1, len(reps)):
                    r = _ratio(reps[i][2], reps[j][2])
                    if r >= NEAR:
                        findings.append(
                            {
                                "exercise": ex.id,
                                "kind": "near",
                                "score": round(r, 3),
                                "members": sorted(reps[i][1] + reps[j][1]),
                            }
                        )
            for s, u in have.items():
                for path, seq in lib.get(ex.id, []):
                    best = max(_ratio(f, seq) if f != seq else 1.0 for f in u)
                    if best >= NEAR:
                        findings.append(
                            {
                                "exercise": ex.id,
                                "kind": "library",
                                "score": round(best, 3),
                                "members": [s, path],
                            }
                        )
    return findings


def similarity_report(sources: dict[str, bytes], results: dict, book_path=None) -> str:
    """The HTML report (``results``: submission id -> SubmissionResult, for the chapter)."""
    chapters = {k: r.chapter for k, r in results.items() if r.status != "invalid" and r.chapter}
    found = find_similar(sources, chapters, book_path)
    rows = "\n".join(
        f"<tr><td>{html.escape(f['exercise'])}</td><td>{f['kind']}</td><td>{f['score']:.3f}</td>"
        f"<td>{'<br>'.join(html.escape(m) for m in f['members'])}</td></tr>"
        for f in found
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>Similar '
        "exercise functions</title></head><body>\n<h1>Similar exercise functions</h1>\n"
        f"<p>{len(chapters)} submissions compared. Identical: the same syntax tree once names, "
        f"comments, docstrings and formatting are dropped; near: at least {NEAR:.0%} alike; "
        "library: a function (nearly) identical to the package function the exercise "
        "re-implements or its helpers. Points are not changed; judge each case.</p>\n"
        '<table border="1"><tr><th>exercise</th><th>kind</th><th>score</th><th>submissions</th></tr>\n'
        f"{rows}\n</table>\n</body></html>\n"
    )
