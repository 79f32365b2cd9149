"""What the journey test types into the notebooks, taken from the exercise registry: a
catalogued mistake's wrong implementation as source a student could have written, the
solution, and the replies to each question (tests/test_journey.py)."""

from __future__ import annotations

import ast
import functools
import inspect
import re
import textwrap
import types
from dataclasses import dataclass

import numpy as np

from kmlteach.exercises import Mistake, get, questions
from kmlteach.exercises.quiz import LETTERS, Question

__all__ = ["Attempt", "attempt", "replace_stub", "wrong_reply", "right_reply", "reply_source"]

_CHAPTER_MODULE = re.compile(r"^kmlteach\.exercises\.ch\d\d$")
_SHIPPED = re.compile(r"^kmlteach\.(?!exercises|course)")


def _names(code: types.CodeType) -> set[str]:
    out = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            out |= _names(const)
    return out


def _literal(value) -> str | None:
    """Source for a constant of a chapter module, or None."""
    if isinstance(value, (bool, int, float, str, type(None))):
        return repr(value)
    if isinstance(value, tuple) and all(_literal(v) is not None for v in value):
        return repr(value)
    if isinstance(value, np.ndarray):
        return f"np.array({value.tolist()!r}, dtype=np.{value.dtype.name})"
    return None


def _bundle(fn, lines: list[str], imports: dict[str, str], done: set[int]) -> str:
    """Append to ``lines`` the source defining ``fn`` (a function of a chapter module, or a
    ``functools.partial`` of one) and everything of its module it reads, depth first;
    returns the expression naming it."""
    if isinstance(fn, functools.partial):
        inner = _bundle(fn.func, lines, imports, done)
        given = [(None, a) for a in fn.args] + list(fn.keywords.items())
        if any(_literal(v) is None for _, v in given):
            raise ValueError(f"cannot write the arguments of {fn!r} as source")
        args = [_literal(v) if k is None else f"{k}={_literal(v)}" for k, v in given]
        name = f"_partial_{len(done)}"
        done.add(id(fn))
        lines.append(f"{name} = functools.partial({inner}, {', '.join(args)})")
        imports["functools"] = "import functools"
        return name
    if id(fn) in done:
        return fn.__name__
    done.add(id(fn))
    for n in sorted(_names(fn.__code__)):
        if n not in fn.__globals__:
            continue
        v = fn.__globals__[n]
        if isinstance(v, types.ModuleType):
            imports[n] = f"import {v.__name__} as {n}" if v.__name__ != n else f"import {n}"
        elif isinstance(v, (types.FunctionType, functools.partial)) and _CHAPTER_MODULE.match(
            getattr(v, "__module__", "") or getattr(getattr(v, "func", None), "__module__", "")
        ):
            given = _bundle(v, lines, imports, done)
            if given != n:
                lines.append(f"{n} = {given}")
        elif callable(v) and _SHIPPED.match(getattr(v, "__module__", "") or ""):
            imports[n] = f"from {v.__module__} import {v.__name__} as {n}"
        elif _literal(v) is not None:
            lines.append(f"{n} = {_literal(v)}")
        elif n in vars(__builtins__ if isinstance(__builtins__, dict) else __builtins__.__dict__):
            continue
        else:
            raise ValueError(f"{fn.__qualname__} reads {n} = {type(v).__name__}: cannot write it as source")
    lines.append(textwrap.dedent(inspect.getsource(fn)).rstrip())
    return fn.__name__


def wrong_source(wrong, name: str) -> str:
    """Python source binding ``name`` to a function that behaves as ``wrong`` (a catalogued
    mistake's implementation), defined inside a factory so that its helpers (the reference
    among them, sometimes under the exercise's own name) cannot clash with the notebook's."""
    lines: list[str] = []
    imports: dict[str, str] = {}
    entry = _bundle(wrong, lines, imports, set())
    body = "\n".join([*sorted(set(imports.values())), "", *lines, "", f"return {entry}"])
    return f"def _as_written():\n{textwrap.indent(body, '    ')}\n\n\n{name} = _as_written()\n"


@dataclass(frozen=True)
class Attempt:
    """An exercise as the journey writes it: the catalogued mistake it submits first (and
    the line ``check`` must print for it), then the solution."""

    id: str
    mistake: Mistake
    wrong: str  # source of the wrong function under the exercise's name
    right: str  # the solution text (the instructor notebook's solution block)
    hints: tuple[str, ...]  # every level, the withheld last one included

    @property
    def line(self) -> str:
        return " ".join(self.mistake.line().split())


def attempt(ex_id: str, name: str, solution: str) -> Attempt:
    """The first catalogued mistake of ``ex_id`` that has a wrong implementation, written as
    source for the notebook function ``name``."""
    ex = get(ex_id)
    m = next((m for m in ex.mistakes if m.wrong is not None), None)
    if m is None:
        raise AssertionError(f"{ex_id}: no catalogued mistake has a wrong implementation to submit")
    return Attempt(ex_id, m, wrong_source(m.wrong, name), solution, ex.hints)


def replace_stub(cell: str, name: str, source: str) -> str:
    """The exercise cell with the stub ``def name(...): raise NotImplementedError`` replaced
    by ``source`` (everything else of the cell — imports, the ``check`` call — kept)."""
    lines = cell.splitlines(keepends=True)
    for node in ast.parse(cell).body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            start = node.lineno - 1 - len(node.decorator_list)
            return "".join(lines[:start]) + source.rstrip() + "\n" + "".join(lines[node.end_lineno :])
    raise AssertionError(f"no def {name}(...) in the exercise cell:\n{cell}")


def concept_questions(chapter: str) -> dict[str, Question]:
    return {q.id: q for q in questions(chapter)}


def wrong_reply(q: Question):
    """A reply that is wrong: the first wrong option, or a number far from the answer."""
    if q.numeric:
        a = float(q.answer)
        return a + max(1.0, abs(a)) + 10 * q.tol * max(1.0, abs(a))
    return next(LETTERS[i] for i in range(len(q.choices)) if i not in q.answers())


def right_reply(q: Question):
    return float(q.answer) if q.numeric else LETTERS[q.answers()[0]]


def reply_source(reply) -> str:
    return repr(reply)
