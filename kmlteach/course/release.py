"""Release: write the student version of the chapter notebooks.

``python -m kmlteach release [CHAPTER ...] --out DIR`` (``make student``; ``make lab``
and Binder's ``postBuild`` run it into ``student/``). Instructor notebooks carry each
exercise's solution between two marker lines, each alone on its line of a code cell::

    def hinge(margins):
        ### BEGIN SOLUTION
        return np.maximum(0.0, 1.0 - margins)
        ### END SOLUTION

A released notebook is rebuilt from scratch rather than copied, so nothing of the
instructor's file comes along unless it is listed here:

* cells keep only their type and source; a line that is only an nbval marker comment
  (``# NBVAL_IGNORE_OUTPUT``, ...) is dropped; every solution block (markers included)
  becomes one line, indented like the ``BEGIN`` marker, that raises
  ``NotImplementedError`` (``check`` reports "not implemented yet" for it, so the
  notebook runs top to bottom);
* outputs, execution counts, attachments, cell metadata (nbgrader's included) and
  cell ids are not copied; ids are regenerated as ``cell-000``, ``cell-001``, ...;
* the notebook metadata is exactly ``kernelspec`` (our fixed Python 3 spec),
  ``language_info = {"name": "python"}`` and ``kmlteach = {"chapter": "NN",
  "format": FORMAT}`` — no saved widget state (``metadata.widgets``), no jupytext or
  nbgrader metadata, nothing else the instructor's file holds;
* the Binder link of the chapter is pointed at ``student/NN-slug.ipynb``.

The release *refuses* (:class:`ReleaseError`, a one-line message naming the notebook
and the cell) what it cannot strip with certainty: a solution or hidden-test marker in
a Markdown or raw cell, a marker that is not exactly ``### BEGIN SOLUTION`` /
``### END SOLUTION`` alone on its line (``###BEGIN``, ``## BEGIN``, lower case, a
marker after code, trailing text), a marker inside a string, unbalanced or nested
markers, a stub that would not parse, Markdown attachments (images cannot be checked
for solutions; link an image file instead) and any line of a solution that appears
again elsewhere in the released notebook. Hidden cases never live in notebooks (they
are kept with the grader), so nbgrader's ``### BEGIN HIDDEN TESTS`` is refused too.
Nothing is written unless every requested notebook passes.

The output folder may not be the source folder, a folder inside it or a folder that
contains it. Existing files in it are overwritten only if they are the untouched output
of an earlier release (their hashes are recorded in ``.kmlteach-release.json``); a
notebook the student has edited is kept unless ``force=True`` (``--force``).
"""

from __future__ import annotations

import ast
import hashlib
import io
import json
import os
import re
import tokenize
import unicodedata
from pathlib import Path

from ._release_guard import BEGIN, END, ReleaseError, _assert_no_solution_line, _text, solution_lines
from .whitelist import rise_meta as _rise_meta
from .whitelist import slide_meta as _slide_meta

STUB = 'raise NotImplementedError("Your turn: replace this line with your solution.")'
FORMAT = 1
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
MANIFEST = ".kmlteach-release.json"

# Anything that looks like a solution or hidden-test marker (any case, any spacing or
# punctuation in between, no space at all); checked on NFKC-normalised text.
_SUSPECT = re.compile(r"\b(begin|end)[\W_]*(solution|hidden[\W_]*tests?)\b", re.IGNORECASE)
_FLAGS = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT  # notebooks may await at top level
_CHAPTER = re.compile(r"^\d{2}$")
_CHECK_CALL = re.compile(r"""check\(\s*["'](\d{2})\.""")

__all__ = [
    "ReleaseError",
    "strip_solutions",
    "student_notebook",
    "release",
    "write_student_version",
    "solution_lines",
    "BEGIN",
    "END",
    "STUB",
    "FORMAT",
]


def _suspect(line: str) -> bool:
    return bool(_SUSPECT.search(unicodedata.normalize("NFKC", line)))


def _masked(source: str) -> str:
    """The cell with IPython magics and shell escapes blanked (same line numbers)."""
    lines = source.splitlines(keepends=True)
    out = []
    for line in lines:
        s = line.lstrip()
        out.append(
            "\n" if s.startswith(("%", "!")) or s.rstrip().endswith("?") and not s.startswith("#") else line
        )
    return "".join(out)


def _comment_lines(source: str) -> set[int]:
    """1-based numbers of the lines that consist of a comment only (per Python's tokenizer)."""
    lines = source.splitlines()
    found = set()
    for tok in tokenize.generate_tokens(io.StringIO(_masked(source)).readline):
        if tok.type == tokenize.COMMENT and not lines[tok.start[0] - 1][: tok.start[1]].strip():
            found.add(tok.start[0])
    return found


def strip_solutions(source: str, where: str = "cell") -> str:
    """Replace every BEGIN/END SOLUTION block of a code cell's source by an indented stub.

    Raises :class:`ReleaseError` (a ``ValueError``), with ``where`` in the message, for
    malformed, unbalanced or nested markers, markers inside a string, and stubs that
    would not parse.
    """
    lines = source.splitlines(keepends=True)
    markers = []
    for n, line in enumerate(lines, 1):
        s = line.strip()
        if s in (BEGIN, END):
            markers.append(n)
        elif _suspect(line):
            if "hidden" in unicodedata.normalize("NFKC", line).lower():
                raise ReleaseError(
                    f"{where}, line {n}: hidden tests do not belong in a notebook "
                    "(hidden cases live with the grader)"
                )
            raise ReleaseError(
                f"{where}, line {n}: malformed marker {s[:60]!r} (write {BEGIN!r} / {END!r} alone on a line)"
            )
    if not markers:
        return source
    if source.lstrip().startswith("%%"):
        raise ReleaseError(f"{where}: solution markers in a cell magic (not Python) cell")
    try:
        comments = _comment_lines(source)
    except (tokenize.TokenError, SyntaxError) as exc:
        raise ReleaseError(
            f"{where}: not valid Python, so its solution markers cannot be checked ({type(exc).__name__})"
        ) from None
    out: list[str] = []
    inside = False
    for n, line in enumerate(lines, 1):
        s = line.strip()
        if n in markers:
            if n not in comments:
                raise ReleaseError(f"{where}, line {n}: solution marker inside a string")
            if s == BEGIN:
                if inside:
                    raise ReleaseError(f"{where}, line {n}: nested {BEGIN!r}")
                inside = True
                indent = re.match(r"[ \t]*", line).group(0)
                out.append(f"{indent}{STUB}\n")
            else:
                if not inside:
                    raise ReleaseError(f"{where}, line {n}: {END!r} without a matching BEGIN")
                inside = False
        elif not inside:
            out.append(line)
    if inside:
        raise ReleaseError(f"{where}: {BEGIN!r} without a matching END")
    text = "".join(out)
    text = text[:-1] if text.endswith("\n") and not source.endswith("\n") else text
    try:
        compile(_masked(source), "<cell>", "exec", _FLAGS, dont_inherit=True)
    except SyntaxError:
        return text  # the instructor's cell does not parse either: nothing to compare
    try:
        compile(_masked(text), "<cell>", "exec", _FLAGS, dont_inherit=True)
    except SyntaxError:
        raise ReleaseError(
            f"{where}: the stubbed cell would not parse (is a marker inside a bracket or an expression?)"
        ) from None
    return text


_NBVAL_MARKER = re.compile(r"[ \t]*#[ \t]*NBVAL_[A-Z_]+[ \t]*(?:\r?\n|$)")


def strip_nbval_markers(source: str) -> str:
    """``source`` without the lines that are only an nbval marker comment (``# NBVAL_IGNORE_OUTPUT``
    and the like): they tell the repository's nbval run how to compare outputs, and mean
    nothing to a student, whose copy has no outputs to compare."""
    text = "".join(line for line in source.splitlines(keepends=True) if not _NBVAL_MARKER.fullmatch(line))
    return text[:-1] if text.endswith("\n") and not source.endswith("\n") else text


def _chapter_of(nb: dict, chapter: str | None, name: str) -> str:
    if chapter is None:
        meta = nb.get("metadata", {}).get("kmlteach") if isinstance(nb.get("metadata"), dict) else None
        chapter = meta.get("chapter") if isinstance(meta, dict) else None
    if chapter is None:
        ids = {
            m
            for c in nb.get("cells", [])
            if isinstance(c, dict) and c.get("cell_type") == "code"
            for m in _CHECK_CALL.findall(_text(c.get("source", "")))
        }
        chapter = ids.pop() if len(ids) == 1 else None
    if chapter is None and re.match(r"\d{2}-", Path(name).name):
        chapter = Path(name).name[:2]
    if not isinstance(chapter, str) or not _CHAPTER.match(chapter):
        raise ReleaseError(f"{name}: cannot tell its chapter (expected metadata.kmlteach.chapter like '01')")
    return chapter


def student_notebook(
    nb: dict, chapter: str | None = None, *, name: str = "notebook", binder: tuple[str, str] | None = None
) -> dict:
    """The student version of an instructor notebook (nbformat 4 dict); ``nb`` is not modified.

    ``binder`` = (instructor URL, student URL) rewrites the chapter's Binder link.
    Raises :class:`ReleaseError` naming ``name`` and the cell for what cannot be released.
    """
    if not isinstance(nb, dict) or nb.get("nbformat") != 4 or not isinstance(nb.get("cells"), list):
        raise ReleaseError(f"{name}: not an nbformat 4 notebook")
    chapter = _chapter_of(nb, chapter, name)
    cells = []
    for i, cell in enumerate(nb["cells"]):
        kind = cell.get("cell_type") if isinstance(cell, dict) else None
        where = f"{name}, cell {i} ({kind})"
        if kind not in ("code", "markdown", "raw"):
            raise ReleaseError(f"{name}, cell {i}: unknown cell type {kind!r}")
        text = _text(cell.get("source", ""))
        if kind != "code":
            for n, line in enumerate(text.splitlines(), 1):
                if _suspect(line):
                    raise ReleaseError(
                        f"{where}, line {n}: solution/hidden-test marker outside a "
                        "code cell (only code cells can hold solutions)"
                    )
            if cell.get("attachments"):
                raise ReleaseError(
                    f"{where}: attachments are not released (they cannot be checked "
                    "for solutions); link an image file instead"
                )
            if binder:
                text = text.replace(binder[0], binder[1])
        else:
            text = strip_nbval_markers(strip_solutions(text, where))
        new = {"cell_type": kind, "id": f"cell-{i:03d}", "metadata": _slide_meta(cell), "source": text}
        if kind == "code":
            new.update(execution_count=None, outputs=[])
        cells.append(new)
    out = {
        "cells": cells,
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {
            "kernelspec": dict(KERNELSPEC),
            "language_info": {"name": "python"},
            "kmlteach": {"chapter": chapter, "format": FORMAT},
        },
    }
    rise = _rise_meta(nb.get("metadata", {}))
    if rise:
        out["metadata"]["rise"] = rise
    _assert_no_solution_line(nb, out, name)
    return out


# --- writing -----------------------------------------------------------------------------


def _check_folders(src: Path, out: Path) -> tuple[Path, Path]:
    if not src.exists():
        raise ReleaseError(f"source folder {str(src)!r} does not exist")
    if not src.is_dir():
        raise ReleaseError(f"source {str(src)!r} is not a folder")
    s, o = src.resolve(), out.resolve()
    if o == s:
        raise ReleaseError(f"refusing to write into the source folder {str(src)!r}")
    if o in s.parents:
        raise ReleaseError(f"refusing to write into {str(out)!r}: it contains the source folder")
    if s in o.parents:
        raise ReleaseError(f"refusing to write into {str(out)!r}: it is inside the source folder")
    if o.exists() and not o.is_dir():
        raise ReleaseError(f"output {str(out)!r} exists and is not a folder")
    return s, o


def _select(src: Path, chapters, book) -> list[tuple[Path, str | None, tuple | None]]:
    """(instructor notebook, chapter id or None, binder rewrite) for each requested notebook."""
    by_file = {Path(c.notebook).name: c for c in book.chapters} if book else {}
    if chapters:
        picked = []
        known = {c.id: c for c in book.chapters} if book else {}
        for cid in chapters:
            c = known.get(cid) or next((c for c in known.values() if Path(c.notebook).stem == cid), None)
            if c is None:
                raise ReleaseError(f"unknown chapter {cid!r} (known: {', '.join(known) or 'none'})")
            if not c.ready:
                raise ReleaseError(f"chapter {c.id} is planned, not ready: nothing to release")
            path = src / Path(c.notebook).name
            if not path.is_file():
                raise ReleaseError(f"chapter {c.id}: {path} does not exist")
            picked.append(path)
    else:
        picked = sorted(src.glob("*.ipynb"))
        if not picked:
            raise ReleaseError(f"no notebooks in {str(src)!r}")
    result = []
    for path in picked:
        c = by_file.get(path.name)
        binder = None
        if c is not None and book.repository:
            binder = (book.binder_url(c.notebook), book.binder_url(f"student/{path.name}"))
        result.append((path, c.id if c else None, binder))
    return result


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def release(
    chapters=None, out="student", src=None, *, force: bool = False, book=None, report=print
) -> list[Path]:
    """Write the student version of ``chapters`` (ids like ``"01"``; default: every notebook
    of ``src``) from ``src`` (default ``notebooks/``) into ``out``; returns the written paths.

    All notebooks are checked before anything is written. Raises :class:`ReleaseError`.
    """
    from .book import ROOT, load

    if book is None:
        try:
            book = load()
        except (OSError, ValueError):
            book = None
    src = Path(src) if src is not None else ROOT / "notebooks"
    _, out_abs = _check_folders(src, Path(out))
    rendered = []
    for path, chapter, binder in _select(src, chapters, book):
        try:
            nb = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ReleaseError(f"{path}: cannot read it as a notebook ({type(exc).__name__})") from None
        student = student_notebook(nb, chapter, name=str(path), binder=binder)
        data = (json.dumps(student, indent=1, ensure_ascii=False, sort_keys=True) + "\n").encode()
        rendered.append((path.name, data))
    try:
        out_abs.mkdir(parents=True, exist_ok=True)
        manifest_path = out_abs / MANIFEST
        try:
            manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
            assert isinstance(manifest, dict)
        except (OSError, ValueError, AssertionError):
            manifest = {}
        written = []
        for fname, data in rendered:
            target = out_abs / fname
            if target.exists():
                old = target.read_bytes()
                if BEGIN.encode() in old:
                    raise ReleaseError(
                        f"refusing to overwrite {target}: it holds solutions (an instructor notebook?)"
                    )
                if old != data and manifest.get(fname) != _sha(old) and not force:
                    report(
                        f"kept {target}: it differs from the last release (your work?); "
                        "move it away or use --force to replace it"
                    )
                    continue
            tmp = target.with_name(f".{fname}.tmp{os.getpid()}")
            tmp.write_bytes(data)
            os.replace(tmp, target)
            manifest[fname] = _sha(data)
            written.append(target)
        tmp = manifest_path.with_name(f"{MANIFEST}.tmp{os.getpid()}")
        tmp.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        os.replace(tmp, manifest_path)
        css = src / "rise.css"  # the live slideshow's styles (widgets at 1.5x)
        if css.is_file() and written:
            (out_abs / "rise.css").write_bytes(css.read_bytes())
    except OSError as exc:
        raise ReleaseError(f"cannot write to {str(out)!r}: {exc.strerror or exc}") from None
    return written


def write_student_version(src_dir, out_dir) -> list[Path]:
    """Every notebook of ``src_dir`` released into ``out_dir`` (``python -m kmlteach student``)."""
    return release(None, out_dir, src_dir, report=lambda msg: None)
