"""``grade --similarity FILE.html``: exercise functions with the same (or nearly the same)
syntax tree, between submissions and against the package's own source. Never changes points.

For each exercise, a submission's *unit* is its exercise function plus the functions of
the same notebook it calls (transitively). Each function is normalised:

* **dead code dropped** (a copy padded with it is still a copy): the branch a constant
  test never takes (``if False:``, ``if 0:``, the ``else`` of ``if True:``), a ``while``
  whose test is false, statements after ``return``/``raise``/``break``/``continue`` in
  their block, expression statements that call nothing (docstrings, a bare ``x``),
  ``pass``, and assignments to local names nothing reads (repeated until none is left);
* docstrings, comments, decorators, type annotations and formatting dropped; its own
  name, its parameters and local names renamed by order of first use (``v0``, ``v1``...);
  the notebook's helper functions renamed ``h0``, ``h1``...; attribute names, globals
  (``np``) and constants kept.

The report lists, per exercise: groups of submissions whose units are identical once
normalised; pairs whose units share at least ``NEAR`` of their *fingerprints* (k-grams of
the node sequence, winnowed as MOSS does: Schleimer, Wilkerson and Aiken, SIGMOD 2003;
Dice coefficient of the two multisets); and submissions with a function that is (nearly) one of
the library functions the exercise re-implements or their private helpers
(``kmlteach.svm.perceptron`` and ``_perceptron_kernel`` for ``01.perceptron``). A unit that
is the released stub (it only raises ``NotImplementedError``) is left out. Matches are for
the instructor to judge: short exercises have few natural solutions.

Hostile shapes cost neither the report nor the gradebook (written before it): every tree
walk is iterative (a 270-term expression once ended ``deepcopy`` in ``RecursionError``), a
unit is cut at ``MAX_TOKENS`` nodes, a pair costs one pass over its fingerprints (two
near-identical lists of 12 000 zeros took ``difflib`` 37-56 s, quadratic in repeated nodes), and a notebook that cannot be analysed is listed
as not compared, with the reason.
"""

from __future__ import annotations

import ast
import html
import importlib
import inspect
import textwrap

from .cells import _parse, check_calls, notebook_code_cells
from .plan import chapter_plan
from .submission import InvalidSubmission, read_notebook

__all__ = ["normalise", "prune", "units", "fingerprints", "find_similar", "similarity_report", "NEAR"]

NEAR = 0.7  # share of fingerprints (Dice) from which two units are listed as near (a one-node change
# in a 50-node function shares 0.9; independent solutions of 01.perceptron about 0.2)
K, WINDOW = 5, 4  # k-gram length; winnowing window (a shared run of K + WINDOW - 1 nodes is found)
MAX_TOKENS = 50_000  # nodes of one unit that are compared
_TERMINAL = (ast.Return, ast.Raise, ast.Break, ast.Continue)
_BODIES = ("body", "orelse", "finalbody")
_SKIP = {"decorator_list", "returns", "annotation", "type_comment", "type_params"}


def _constant(test) -> tuple[bool, bool]:
    """``(known, truth)`` of an ``if``/``while`` test that is a constant (or ``not`` one)."""
    negate = False
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, negate = test.operand, not negate
    if isinstance(test, ast.Constant):
        try:
            return True, bool(test.value) != negate
        except Exception:  # noqa: BLE001 - a constant without a truth value: not decided
            return False, False
    return False, False


def _calls(node) -> bool:
    return any(isinstance(n, (ast.Call, ast.Await, ast.Yield, ast.YieldFrom)) for n in ast.walk(node))


def _live(stmts: list) -> list:
    """One block without its dead statements (constant tests decided, unreachable tail,
    statements that do nothing); the branches taken are inlined, iteratively."""
    out, todo = [], list(reversed(stmts))
    while todo:
        st = todo.pop()
        if isinstance(st, (ast.If, ast.While)):
            known, truth = _constant(st.test)
            if known and (isinstance(st, ast.If) or not truth):
                todo += reversed(st.body if truth else st.orelse)  # a false while: its else runs
                continue
        if isinstance(st, ast.Pass) or (isinstance(st, ast.Expr) and not _calls(st.value)):
            continue
        out.append(st)
        if isinstance(st, _TERMINAL):
            break
    return out


def _blocks(fn):
    """Every node of ``fn`` that owns a statement list (walked iteratively)."""
    return [n for n in ast.walk(fn) if any(isinstance(getattr(n, f, None), list) for f in _BODIES)]


def _dead_store(st, loaded: set) -> bool:
    targets = st.targets if isinstance(st, ast.Assign) else [st.target]
    return all(isinstance(t, ast.Name) and t.id not in loaded for t in targets)


def prune(fn: ast.FunctionDef) -> ast.FunctionDef:
    """``fn`` without its dead code (in place; see the module docstring)."""
    for node in _blocks(fn):
        for f in _BODIES:
            if (
                isinstance(getattr(node, f, None), list)
                and getattr(node, f)
                and isinstance(getattr(node, f)[0], ast.stmt)
            ):
                setattr(node, f, _live(getattr(node, f)))
    for _ in range(8):  # assignments nothing reads, until none is left (a bounded number of rounds)
        loaded = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Store)}
        loaded |= {x for n in ast.walk(fn) if isinstance(n, (ast.Global, ast.Nonlocal)) for x in n.names}
        changed = False
        for node in _blocks(fn):
            for f in _BODIES:
                stmts = getattr(node, f, None)
                if isinstance(stmts, list) and stmts and isinstance(stmts[0], ast.stmt):
                    kept = [
                        s
                        for s in stmts
                        if not (
                            isinstance(s, (ast.Assign, ast.AnnAssign, ast.AugAssign))
                            and _dead_store(s, loaded)
                        )
                    ]
                    if len(kept) != len(stmts):
                        setattr(node, f, kept)
                        changed = True
        if not changed:
            break
    return fn


def normalise(fn: ast.FunctionDef, helpers: dict[str, str]) -> list[str]:
    """The normalised node sequence of one function (pre-order; see the module docstring)."""
    prune(fn)
    names: dict[str, str] = {}

    def new(name: str) -> str:
        if name in helpers:
            return helpers[name]
        return names.setdefault(name, f"v{len(names)}")

    out, todo = [], [fn]
    while todo and len(out) < MAX_TOKENS:
        node = todo.pop()
        label = type(node).__name__
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            label += ":" + helpers.get(node.name, "F")
        elif isinstance(node, ast.arg):
            label += ":" + new(node.arg)
        elif isinstance(node, ast.Name):
            known = isinstance(node.ctx, ast.Store) or node.id in names or node.id in helpers
            label += ":" + (new(node.id) if known else node.id)
        elif isinstance(node, ast.Attribute):
            label += ":" + node.attr
        elif isinstance(node, ast.Constant):
            label += ":" + repr(node.value)[:20]
        elif isinstance(node, (ast.alias, ast.keyword)) and isinstance(
            getattr(node, "arg", getattr(node, "name", None)), str
        ):
            label += ":" + (node.arg if isinstance(node, ast.keyword) else node.name)
        elif isinstance(node, (ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.AugAssign)):
            ops = getattr(node, "ops", None) or [getattr(node, "op", None)]
            label += ":" + ",".join(type(o).__name__ for o in ops)
        out.append(label)
        children = []
        for field, value in ast.iter_fields(node):
            if field in _SKIP or field in ("op", "ops", "ctx"):
                continue
            if isinstance(value, ast.AST):
                children.append(value)
            elif isinstance(value, list):
                children += [v for v in value if isinstance(v, ast.AST)]
        todo += reversed(children)
    return out


def fingerprints(seq: list[str], ids: dict[str, int]) -> dict[int, int]:
    """The winnowed fingerprints of a node sequence, with how often each was picked (a
    list of 12 000 zeros is 12 000 picks of a few values, not a few values); ``ids``: label
    -> number, shared by one run. Each window of ``WINDOW`` k-gram hashes picks its rightmost
    smallest, recorded once per position (Schleimer, Wilkerson and Aiken, 2003)."""
    nums = [ids.setdefault(s, len(ids)) for s in seq]
    if len(nums) < K:
        return {hash(tuple(nums)): 1} if nums else {}
    grams = [hash(tuple(nums[i : i + K])) for i in range(len(nums) - K + 1)]
    picked: dict[int, int] = {}
    last = -1
    for i in range(max(1, len(grams) - WINDOW + 1)):
        window = grams[i : i + WINDOW]
        low = min(window)
        j = i + len(window) - 1 - window[::-1].index(low)
        if j != last:
            picked[low] = picked.get(low, 0) + 1
            last = j
    return picked


def dice(a: dict, b: dict) -> float:
    """Shared share of two fingerprint multisets, 2|A ∩ B| / (|A| + |B|)."""
    na, nb = sum(a.values()), sum(b.values())
    if not na or not nb or 2 * min(na, nb) < NEAR * (na + nb):
        return 0.0
    small, large = (a, b) if len(a) <= len(b) else (b, a)
    return 2 * sum(min(n, large.get(h, 0)) for h, n in small.items()) / (na + nb)


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
        todo += [x.id for x in ast.walk(prune(defs[n])) if isinstance(x, ast.Name) and x.id in defs]
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


def _pairs(exercise: str, have: dict, ids: dict) -> list[dict]:
    """Identical groups and near pairs among the units of one exercise."""
    findings, groups = [], {}
    for s, u in have.items():
        groups.setdefault(repr(u), []).append(s)
    reps = []
    for members in groups.values():
        if len(members) > 1:
            findings.append(
                {"exercise": exercise, "kind": "identical", "members": sorted(members), "score": 1.0}
            )
        reps.append((members, fingerprints(sum(have[members[0]], []), ids)))
    for i in range(len(reps)):
        for j in range(i + 1, len(reps)):
            r = dice(reps[i][1], reps[j][1])
            if r >= NEAR:
                members = sorted(reps[i][0] + reps[j][0])
                findings.append(
                    {"exercise": exercise, "kind": "near", "score": round(r, 3), "members": members}
                )
    return findings


def find_similar(
    sources: dict[str, bytes], chapters: dict[str, str], book_path=None, skipped: dict | None = None
) -> list[dict]:
    """Findings: ``{"exercise", "kind" ("identical"|"near"|"library"), "members", "score"}``;
    ``skipped`` (if given) gets ``{submission id: why it was not compared}``."""
    findings, ids = [], {}
    by_chapter: dict[str, dict[str, dict]] = {}
    for sub_id, data in sources.items():
        ch = chapters.get(sub_id)
        if not ch:
            continue
        try:
            by_chapter.setdefault(ch, {})[sub_id] = units(data, ch, book_path)
        except (Exception, RecursionError, MemoryError) as exc:  # noqa: BLE001 - one notebook never costs the report
            if skipped is not None:
                skipped[sub_id] = type(exc).__name__
    for ch, subs in sorted(by_chapter.items()):
        lib = _library(ch, book_path)
        for ex in chapter_plan(ch, book_path).exercises:
            have = {s: u[ex.id] for s, u in subs.items() if ex.id in u}
            findings += _pairs(ex.id, have, ids)
            refs = [(p, seq, fingerprints(seq, ids)) for p, seq in lib.get(ex.id, [])]
            for s, u in have.items():
                prints = [(f, fingerprints(f, ids)) for f in u]
                for path, seq, fp in refs:
                    best = max(1.0 if f == seq else dice(ff, fp) for f, ff in prints)
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
    skipped: dict[str, str] = {}
    found = find_similar(sources, chapters, book_path, skipped)
    rows = "\n".join(
        f"<tr><td>{html.escape(f['exercise'])}</td><td>{f['kind']}</td><td>{f['score']:.3f}</td>"
        f"<td>{'<br>'.join(html.escape(m) for m in f['members'])}</td></tr>"
        for f in found
    )
    missed = "".join(f"<li>{html.escape(s)}: {html.escape(why)}</li>" for s, why in sorted(skipped.items()))
    missed = (
        f"<p>Not compared (the notebook could not be analysed):</p>\n<ul>{missed}</ul>\n" if missed else ""
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>Similar '
        "exercise functions</title></head><body>\n<h1>Similar exercise functions</h1>\n"
        f"<p>{len(chapters) - len(skipped)} submissions compared. Identical: the same syntax "
        "tree once names, comments, docstrings, formatting and dead code are dropped; near: at "
        f"least {NEAR:.0%} of their fingerprints (winnowed k-grams of the tree) shared; "
        "library: a function (nearly) identical to the package function the exercise "
        "re-implements or its helpers. Points are not changed; judge each case.</p>\n"
        f"{missed}"
        '<table border="1"><tr><th>exercise</th><th>kind</th><th>score</th><th>submissions</th></tr>\n'
        f"{rows}\n</table>\n</body></html>\n"
    )
