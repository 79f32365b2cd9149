"""Which code of a submission runs while grading (static analysis, nothing is executed).

A chapter notebook is mostly demos and widgets; grading needs only the exercise
functions and what they use. The rule, applied to the top-level statements of every
code cell (cells that do not parse, and IPython ``%``/``!`` lines, are left out):

1. start from the names passed to ``check("NN.x", name)`` (or, when the student
   removed a call, the function name the instructor notebook uses);
2. keep every top-level statement that binds a needed name (an import, a ``def``, a
   ``class``, an assignment, a ``for``/``with``/``if`` block that assigns it), that
   changes one (``D["k"] = v``, ``obj.attr = v``, ``X += 1``, ``del D[k]``, a method call
   such as ``PARAMS.update(...)``, a loop filling a container), or that reads a needed
   *value* (a name bound otherwise than by ``import`` or ``def``: ``fill(TABLE)`` may
   change ``TABLE``); add every name a kept statement reads (decorators included) to the
   needed names, and the name of a kept ``def``/``class``; keep a statement that passes
   a call a file name (``np.save("t.npy", T)``) a kept one also passes; repeat until
   nothing changes.

``grade --run-all`` runs every cell top to bottom instead (:func:`run_all_code`); both
give the same grade for honest notebooks (``tests/test_grade_selection.py``).

Everything else — ``check(...)`` calls, plots, ``print``, widget builders such as
``make_margin_explorer()``, assignments nobody uses — is skipped, so a submission runs
in seconds and a top-level infinite loop or memory bomb that no exercise depends on is
never executed. Kept statements run in their original order, one kernel request per
original cell.
"""

from __future__ import annotations

import ast
import hashlib
import re
import symtable

__all__ = [
    "notebook_code_cells",
    "check_calls",
    "select_code",
    "run_all_code",
    "imports_package",
    "chapter_of_ids",
    "code_too_large",
    "MAX_CODE_CHARS",
    "MAX_STATEMENTS",
]

_MAGIC = re.compile(r"^\s*[%!]")


def notebook_code_cells(nb: dict) -> list[str]:
    """Sources of the code cells (strings), in order."""
    out = []
    for cell in nb.get("cells", []):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        src = cell.get("source", "")
        if isinstance(src, list):
            src = "".join(s for s in src if isinstance(s, str))
        if isinstance(src, str):
            out.append(src)
    return out


# What the grader analyses of one notebook, in its own process, before any kernel and so
# outside --timeout and --total: the analysis is linear in the code, and these caps bound
# it (about 2 s at most on a loaded 2-core VM; red team G3 held a run for 5 min 19 s
# with a 156 KB notebook when the selection was quadratic). A chapter's notebook has at
# most about 25 000 characters of code in 220 top-level statements.
MAX_CODE_CHARS = 500_000
MAX_STATEMENTS = 10_000


def code_too_large(sources: list[str]) -> str | None:
    """Why the code cells ``sources`` are too large to analyse (one line for the gradebook
    and the feedback), or ``None``: more than :data:`MAX_CODE_CHARS` characters or more than
    :data:`MAX_STATEMENTS` top-level statements. Parses only when the count of lines and
    semicolons (a bound on the statements) is above the cap."""
    chars = sum(len(s) for s in sources)
    if chars > MAX_CODE_CHARS:
        return (
            f"too much code to grade: {chars:,} characters in code cells (at most "
            f"{MAX_CODE_CHARS:,}; a chapter's notebook has about 25,000)"
        )
    if sum(s.count("\n") + s.count(";") + 1 for s in sources) <= MAX_STATEMENTS:
        return None
    count = 0
    for src in sources:
        try:  # one parse where the cell is Python (_parse tries twice)
            tree = ast.parse("\n".join("" if _MAGIC.match(line) else line for line in src.splitlines()))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            tree = _parse(src)
        count += len(tree.body) if tree is not None else 0
    if count > MAX_STATEMENTS:
        return (
            f"too much code to grade: {count:,} top-level statements in code cells (at most "
            f"{MAX_STATEMENTS:,}; a chapter's notebook has about 200)"
        )
    return None


def _python_text(src: str) -> str:
    """The cell as Python: lines starting with ``%`` or ``!`` left out; a cell that is still
    not Python (IPython syntax inside a line: ``t = %timeit -o f()``, ``files = !ls``,
    ``np.linalg.norm?``) goes through IPython's own transformer, so the rest of the cell
    (a helper it defines) is kept, as it runs in Jupyter (red team 2's honest styles)."""
    text = "\n".join("" if _MAGIC.match(line) else line for line in src.splitlines())
    try:
        ast.parse(text)
        return text
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        pass
    try:
        from IPython.core.inputtransformer2 import TransformerManager

        return TransformerManager().transform_cell(src)
    except Exception:  # noqa: BLE001 - not IPython either: the cell is dropped, as before
        return text


def _parse(src: str) -> ast.Module | None:
    try:
        return ast.parse(_python_text(src))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


# A cell's analysis (its check() calls, its statements with the names they bind and read)
# by the digest of its text: the submissions of one chapter share most of their cells (all
# but the exercises), so a class of 200 parses and analyses each shared cell once.
_ANALYSED: dict[bytes, tuple] = {}
_ANALYSED_MAX = 4096


def _analyse(src: str) -> tuple:
    """``(calls, statements)`` of one cell: its ``(exercise id, function name)`` pairs in
    order, and ``(bound, used, node, changed, kind, file names, text)`` of each top-level
    statement (both empty when the cell does not parse); ``kind`` is ``"star"`` for a
    statement that may bind names nobody can list (:func:`_writes_namespace`)."""
    key = hashlib.blake2b(src.encode("utf-8", "surrogatepass"), digest_size=20).digest()
    hit = _ANALYSED.get(key)
    if hit is not None:
        return hit
    tree = _parse(src)
    calls, stmts = [], []
    if tree is not None:
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or len(node.args) < 2:
                continue
            f = node.func
            fname = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            a0, a1 = node.args[0], node.args[1]
            if (
                fname == "check"
                and isinstance(a0, ast.Constant)
                and isinstance(a0.value, str)
                and isinstance(a1, ast.Name)
            ):
                calls.append((a0.value, a1.id))
        stmts = [
            (
                frozenset(_bound(st)),
                frozenset(_used(st)),
                st,
                frozenset(_changed(st)),
                "star" if _writes_namespace(st) else _kind(st),
                _files(st),
                ast.unparse(st),
            )
            for st in tree.body
        ]
    if len(_ANALYSED) >= _ANALYSED_MAX:
        _ANALYSED.clear()
    _ANALYSED[key] = out = (tuple(calls), tuple(stmts))
    return out


def check_calls(sources: list[str]) -> dict[str, str]:
    """``{exercise id: function name}`` from the ``check("id", name)`` calls."""
    found: dict[str, str] = {}
    for src in sources:
        for exercise, name in _analyse(src)[0]:
            found.setdefault(exercise, name)
    return found


def chapter_of_ids(ids) -> set[str]:
    """Chapter ids ("01") named by exercise ids ("01.hinge")."""
    return {i.split(".", 1)[0] for i in ids if re.match(r"^\d\d\.", i)}


def _bound(stmt: ast.stmt) -> set[str]:
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name.split(".")[0]) for a in stmt.names if a.name != "*"}
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        # a function that declares `global X` binds X when it is called
        return {stmt.name} | {
            n for node in ast.walk(stmt) if isinstance(node, ast.Global) for n in node.names
        }
    names = set()
    for node in ast.walk(stmt):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Global):
            names.update(node.names)
    return names


def _root(node) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call, ast.Starred)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def _top_nodes(stmt: ast.stmt):
    """The nodes of a statement run at top level (not the bodies of defs, lambdas, classes)."""
    todo = [stmt]
    while todo:
        node = todo.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                todo.append(child)


def _changed(stmt: ast.stmt) -> set[str]:
    """Names whose value a statement may change without rebinding them: the roots of
    subscript/attribute targets and of method calls (``D[k] = v``, ``o.a += 1``,
    ``del D[k]``, ``P.update(...)``)."""
    out = set()
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return out
    for node in _top_nodes(stmt):
        targets = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        elif isinstance(node, ast.Delete):
            targets = node.targets
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            targets = [node.target]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            targets = [node.func.value]
        for t in targets:
            if isinstance(node, ast.Call):  # the receiver of a method call
                r = _root(t)
                if r:
                    out.add(r)
                continue
            for sub in ast.walk(t):
                if isinstance(sub, (ast.Attribute, ast.Subscript)):
                    r = _root(sub)
                    if r:
                        out.add(r)
    return out


def _kind(stmt: ast.stmt) -> str:
    if isinstance(stmt, ast.ImportFrom) and any(a.name == "*" for a in stmt.names):
        return "star"  # binds names nobody can list: always kept
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return "import"
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return "def"
    if isinstance(stmt, ast.ClassDef):
        return "class"  # a value too: setattr(Cfg, ...) changes it
    return "code"


def _used(stmt: ast.stmt) -> set[str]:
    """Global names a statement reads (a function's own locals and parameters excluded)."""
    try:
        table = symtable.symtable(ast.unparse(stmt), "<cell>", "exec")
    except (SyntaxError, ValueError, RecursionError):
        return {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name)}
    names: set[str] = set()
    todo = [table]
    while todo:
        t = todo.pop()
        for sym in t.get_symbols():
            if sym.is_referenced() and (t.get_type() == "module" or sym.is_global()):
                names.add(sym.get_name())
        todo.extend(t.get_children())
    return names


_DYNAMIC = {"globals", "vars", "locals", "exec"}


def _writes_namespace(st) -> bool:
    """A top-level statement that may bind names the analysis cannot see: ``globals()[...]
    = v``, ``vars()[...] = v``, ``exec("def ...")``, ``setattr(sys.modules[__name__], ...)``
    (outside function and class bodies); kept like a star import."""
    if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return False
    for node in ast.walk(st):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id in _DYNAMIC:
                return True
            if node.func.id == "setattr" and node.args:
                names = {n.id for n in ast.walk(node.args[0]) if isinstance(n, ast.Name)}
                if names & {"sys", "__name__"}:
                    return True
    return False


_FILE_NAME = re.compile(r"^(?!\d+\.)[\w./~-]*\.[A-Za-z0-9]{1,5}$")


def _files(st: ast.stmt) -> frozenset[str]:
    """File names a statement passes to a call (``np.save('t.npy', T)``, ``open('o.txt')``,
    in a function's body too): a statement that writes a file the kept code reads is kept
    with it, as ``--run-all`` would run it (red team 3: a bare ``np.save`` was dropped)."""
    out = set()
    for node in ast.walk(st):
        if isinstance(node, ast.Call):
            for a in [*node.args, *(k.value for k in node.keywords)]:
                if isinstance(a, ast.Constant) and isinstance(a.value, str) and _FILE_NAME.match(a.value):
                    out.add(a.value)
    return frozenset(out)


def select_code(sources: list[str], functions) -> list[str]:
    """The code to run: for each original cell, its kept statements (empty cells dropped)."""
    stmts = []  # (cell index, stmt, bound, used, changed, kind)
    file_args, texts = [], []
    for ci, src in enumerate(sources):
        for bound, used, st, changed, kind, files, text in _analyse(src)[1]:
            stmts.append((ci, st, bound, used, changed, kind))
            file_args.append(files)
            texts.append(text)
    not_values = set(functions)  # modules and functions: reading them changes nothing
    values, modules = set(), set()
    for _, _, bound, _, _, kind in stmts:
        (not_values if kind in ("def", "import") else values).update(bound)
        if kind == "import":
            modules.update(bound)
    not_values -= values
    modules -= values
    # calling a function that declares `global X` changes X
    writes = {}
    for _, st, bound, _, _, kind in stmts:
        if kind == "def":
            g = bound - {st.name}
            if g:
                writes[st.name] = g
    if writes:
        stmts = [
            (ci, st, bound, used, changed | set().union(*(writes.get(n, set()) for n in used)), kind)
            for ci, st, bound, used, changed, kind in stmts
        ]
    # The closure of the rule above, by a worklist in time linear in the size of the
    # statements: each statement is indexed under the names and file names that would make
    # it kept; a name (or file name) becomes needed once, and then keeps every statement
    # indexed under it. The kept set is the fixed point the rule defines, whatever the order
    # (red team G3: one pass per kept statement took 62 s on a 4000-statement chain).
    by_name: dict[str, list[int]] = {}
    by_file: dict[str, list[int]] = {}
    keep = [False] * len(stmts)
    todo: list[int] = []
    for k, (_, _, bound, used, changed, kind) in enumerate(stmts):
        if kind == "star":
            keep[k] = True
            todo.append(k)
            continue
        for name in bound | (changed - modules) | ((used & values) - not_values):
            by_name.setdefault(name, []).append(k)
        for f in file_args[k]:
            by_file.setdefault(f, []).append(k)
    needed: set[str] = set()
    files: set[str] = set()
    names = list(functions)
    while names or todo:
        while names:
            name = names.pop()
            if name in needed:
                continue
            needed.add(name)
            for k in by_name.pop(name, ()):
                if not keep[k]:
                    keep[k] = True
                    todo.append(k)
        if todo:
            k = todo.pop()
            _, _, bound, used, changed, kind = stmts[k]
            names.extend(used | changed | (bound if kind in ("def", "class") else set()))
            for f in file_args[k] - files:
                files.add(f)
                for j in by_file.pop(f, ()):
                    if not keep[j]:
                        keep[j] = True
                        todo.append(j)
    # a cell's `from __future__ import ...` changes how its kept statements compile
    # (annotations left unevaluated): kept with them (red team 4)
    kept_cells = {ci for k, (ci, *_rest) in enumerate(stmts) if keep[k]}
    for k, (ci, st, *_rest) in enumerate(stmts):
        if ci in kept_cells and isinstance(st, ast.ImportFrom) and st.module == "__future__":
            keep[k] = True
    cells: dict[int, list[str]] = {}
    for k, (ci, *_rest) in enumerate(stmts):
        if keep[k]:
            cells.setdefault(ci, []).append(texts[k])
    return ["\n".join(cells[ci]) for ci in sorted(cells)]


def run_all_code(sources: list[str]) -> list[str]:
    """Every code cell, in order (``grade --run-all``), IPython ``%``/``!`` lines left out
    as in the selection."""
    out = []
    for src in sources:
        text = _python_text(src)
        if text.strip():
            out.append(text)
    return out


def _library_name(name: str) -> bool:
    return name == "kmlteach" or (name.startswith("kmlteach.") and name.split(".")[1] != "exercises")


def imports_package(code: list[str]) -> bool:
    """Whether ``code`` (what a probe's child runs) may import ``kmlteach`` beyond
    ``kmlteach.exercises`` (the grading stub): an import of it, the name ``kmlteach`` used
    otherwise than by that import, or a string that names it (``importlib``). Then the
    kernel imports the modules of the references before any child runs, as a child may
    not read their files (``inkernel/server.py``); otherwise it leaves them, and Numba with
    them, out (0.2 s of CPU a kernel). A cell that does not parse counts as one that does."""
    for src in code:
        tree = _parse(src)
        if tree is None:
            return True
        for node in ast.walk(tree):
            if isinstance(node, ast.Import) and any(_library_name(a.name) for a in node.names):
                return True
            if isinstance(node, ast.ImportFrom) and not node.level and _library_name(node.module or ""):
                return True
            if isinstance(node, ast.Name) and node.id == "kmlteach":
                return True
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and "kmlteach" in node.value:
                return True
    return False
