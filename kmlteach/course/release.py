"""Student versions of the notebooks (the batch grader comes in a later chapter).

Instructor notebooks carry each exercise's solution between two marker lines::

    def hinge(margins):
        ### BEGIN SOLUTION
        return np.maximum(0.0, 1.0 - margins)
        ### END SOLUTION

The student version replaces everything between the markers (inclusive) by one
line, indented like the ``BEGIN`` marker, that raises ``NotImplementedError``, and
clears every output. ``kmlteach.exercises.check`` reports "not implemented yet" for
such a stub instead of failing, so the student notebook runs top to bottom.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

BEGIN = "### BEGIN SOLUTION"
END = "### END SOLUTION"
STUB = 'raise NotImplementedError("Your turn: replace this line with your solution.")'

__all__ = ["strip_solutions", "student_notebook", "write_student_version", "BEGIN", "END", "STUB"]


def strip_solutions(source: str) -> str:
    """Replace every BEGIN/END SOLUTION block in ``source`` by an indented stub."""
    out: list[str] = []
    inside = False
    for line in source.splitlines(keepends=True):
        stripped = line.strip()
        if stripped.startswith(BEGIN):
            if inside:
                raise ValueError("nested '### BEGIN SOLUTION' markers")
            inside = True
            indent = re.match(r"\s*", line).group(0)
            out.append(f"{indent}{STUB}\n")
            continue
        if stripped.startswith(END):
            if not inside:
                raise ValueError("'### END SOLUTION' without a matching BEGIN")
            inside = False
            continue
        if not inside:
            out.append(line)
    if inside:
        raise ValueError("'### BEGIN SOLUTION' without a matching END")
    text = "".join(out)
    return text[:-1] if text.endswith("\n") and not source.endswith("\n") else text


def student_notebook(nb: dict) -> dict:
    """A copy of a notebook (nbformat 4 JSON dict) with solutions stubbed and outputs cleared."""
    nb = json.loads(json.dumps(nb))
    for cell in nb.get("cells", []):
        src = cell.get("source", "")
        text = "".join(src) if isinstance(src, list) else src
        if cell.get("cell_type") == "code":
            text = strip_solutions(text)
            cell["outputs"] = []
            cell["execution_count"] = None
        cell["source"] = text
    return nb


def write_student_version(src_dir: str | Path, out_dir: str | Path) -> list[Path]:
    """Write the student version of every ``*.ipynb`` in ``src_dir`` to ``out_dir``."""
    src_dir, out_dir = Path(src_dir), Path(out_dir)
    if not src_dir.is_dir():
        raise ValueError(f"src_dir {str(src_dir)!r} is not a directory")
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for path in sorted(src_dir.glob("*.ipynb")):
        nb = json.loads(path.read_text(encoding="utf-8"))
        target = out_dir / path.name
        target.write_text(json.dumps(student_notebook(nb), indent=1, ensure_ascii=False) + "\n",
                          encoding="utf-8")
        written.append(target)
    return written
