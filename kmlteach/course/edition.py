"""The student edition: ``python -m kmlteach publish-student --out DIR`` and
``python -m kmlteach reveal CHAPTER --edition DIR``.

The instructor repository stays private; the edition is a separate, self-contained
repository a course publishes for its students (``make student-edition``):

* ``notebooks/NN-slug.ipynb`` — the released notebooks (:mod:`.release`: solutions
  stubbed, outputs and metadata dropped), Binder badges pointing at the student repository;
* ``kmlteach/`` — the package as students need it: algorithms, plots, widgets, datasets,
  ``check``/``hint``/``ask``/``quiz``, the course map. Left out: the exercises' code
  (``exercises/chNN.py``: references, case generators, wrong implementations), the
  grader with its hidden cases (``course/grade``), every other instructor tool of
  ``course/`` and the notebook sources. The exercise records are cut mechanically
  (:func:`kmlteach.exercises.record.student_record`: no last hint, no solution) and
  carry each visible case's arguments and expected output as plain data
  (:mod:`kmlteach.exercises.plain`), so ``check`` works offline with no reference;
* ``README.md`` for students with per-chapter Binder and JupyterHub (nbgitpuller) links
  — the hub and the student repository are ``[book] jupyterhub`` and
  ``student_repository`` in ``book.toml``; ``pyproject.toml``, ``setup.py``,
  ``environment.yml``, ``postBuild``, ``Makefile`` (``make lab``), ``book.toml``.

Before anything is reported written, :func:`leaks` searches every file of the edition
for the instructor-only material (:func:`secrets`); one hit and the command fails.
``reveal`` writes one file, ``kmlteach/exercises/records/revealed-chNN.json``, with that
chapter's solution texts and last hints (``solution()`` and ``hint(id, level=n)`` read
it); a later ``publish-student`` into the same folder keeps the revealed chapters.
"""

from __future__ import annotations

import inspect
import json
import re
import shutil
import struct
import textwrap
import urllib.parse
import zipfile
from pathlib import Path

from . import _edition_files as files
from ._release_guard import _trivial
from .book import load as load_book
from .release import ReleaseError, solution_lines, student_notebook

__all__ = ["EditionError", "publish", "reveal", "secrets", "leaks", "MARKER"]

MARKER = ".kmlteach-edition.json"
SHIP_COURSE = ("__init__.py", "book.py", "coursemap.py", "lab_server.py", "edition_cli.py")
DROP = ("grading.py", "notebook_build.py")
MIN_LINE = (
    12  # a solution line shorter than this says nothing about the solution   # aliases of instructor tools
)
COPY = (
    "setup.py",
    "start",
    "jupyter/labconfig",
    "jupyter/server_config",
    "jupyter/rise-shim/dist",
    "notebooks/rise.css",
)


class EditionError(ReleaseError):
    """The edition cannot be written safely (one-line message)."""


def _shipped(rel: Path) -> bool:
    """Whether a file of the instructor package (path relative to ``kmlteach/``) ships."""
    parts = rel.parts
    if "__pycache__" in parts or rel.suffix in (".pyc", ".nbi", ".nbc"):
        return False
    if parts[0] == "course":
        return len(parts) == 2 and parts[1] in SHIP_COURSE
    if parts[0] == "exercises" and (re.fullmatch(r"ch\d\d\.py", parts[-1]) or "records" in parts):
        return False
    return not (len(parts) == 1 and parts[0] in DROP)


def _chapter_records(chapter: str, path: Path) -> dict:
    from kmlteach.exercises import get, record
    from kmlteach.exercises.plain import to_plain

    data = record.load_chapter(path)
    out = []
    for rec in data["exercise"]:
        ex, cut = get(rec["id"]), record.student_record(rec)
        cases = ex.all_cases()
        cut["cases"] = [
            {
                "label": c.label,
                "args": to_plain(tuple(c.args)),
                "kwargs": to_plain(dict(c.kwargs)),
                "expected": to_plain(ex.expected(c)),
            }
            for c in cases
        ]
        for m_out, m in zip(cut["mistakes"], ex.mistakes):
            if m.wrong is not None:
                m_out["outputs"] = [to_plain(ex.prepare(m.wrong(*c.args, **c.kwargs))) for c in cases]
        out.append(cut)
    return {"exercise": out, "question": data["question"]}


def _dump(obj) -> str:
    return json.dumps(obj, indent=1, ensure_ascii=False, sort_keys=True) + "\n"


def _check_out(out: Path, root: Path) -> None:
    o, r = out.resolve(), root.resolve()
    if o == r or r in o.parents or o in r.parents:
        raise EditionError(
            f"refusing to write into {str(out)!r}: the edition is a repository of "
            "its own, outside the instructor's"
        )
    if o.exists() and not o.is_dir():
        raise EditionError(f"output {str(out)!r} exists and is not a folder")
    if o.is_dir() and any(p.name != ".git" for p in o.iterdir()) and not (o / MARKER).is_file():
        raise EditionError(f"refusing to write into {str(out)!r}: not empty and not an edition")


def publish(out, *, book=None, report=print) -> list[Path]:
    """Write the student edition into ``out`` (kept: its ``.git``); returns the files written."""
    book = book or load_book()
    root, out = Path(book.root), Path(out)
    _check_out(out, root)
    if not book.student_repository:
        raise EditionError("book.toml: [book] student_repository is not set")
    revealed = []
    if (out / MARKER).is_file():
        revealed = json.loads((out / MARKER).read_text(encoding="utf-8")).get("revealed", [])
        for p in out.iterdir():
            if p.name != ".git":
                shutil.rmtree(p) if p.is_dir() and not p.is_symlink() else p.unlink()
    out.mkdir(parents=True, exist_ok=True)
    pkg = root / "kmlteach"
    for src in sorted(pkg.rglob("*")):
        if src.is_file() and _shipped(src.relative_to(pkg)):
            target = out / "kmlteach" / src.relative_to(pkg)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, target)
    from kmlteach.exercises import record

    records = out / "kmlteach" / "exercises" / "records"
    records.mkdir(parents=True, exist_ok=True)
    for chapter, path in record.chapter_files(record.RECORDS).items():
        (records / f"ch{chapter}.json").write_text(_dump(_chapter_records(chapter, path)), "utf-8")
    ready = [c for c in book.chapters if c.ready]
    (out / "notebooks").mkdir(exist_ok=True)
    for c in ready:
        name = Path(c.notebook).name
        nb = json.loads((root / c.notebook).read_text(encoding="utf-8"))
        binder = (book.binder_url(c.notebook), book.binder_url(f"notebooks/{name}", book.student_repository))
        student = student_notebook(nb, c.id, name=str(root / c.notebook), binder=binder)
        (out / "notebooks" / name).write_text(_dump(student), encoding="utf-8")
    for rel in COPY:
        src = root / rel
        if src.is_dir():
            shutil.copytree(src, out / rel, dirs_exist_ok=True)
        elif src.is_file():
            (out / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, out / rel)
    text = {
        "README.md": files.readme(book, ready),
        "Makefile": files.makefile(),
        "postBuild": files.post_build(),
        ".gitignore": files.GITIGNORE,
        "pyproject.toml": files.pyproject((root / "pyproject.toml").read_text(encoding="utf-8")),
        "book.toml": files.book_toml(
            (root / "book.toml").read_text(encoding="utf-8"), book.student_repository
        ),
        "environment.yml": files.environment_yml((root / "environment.yml").read_text(encoding="utf-8")),
    }
    for name, body in text.items():
        (out / name).write_text(body, encoding="utf-8")
    (out / "postBuild").chmod(0o755)
    _ship_linked_docs(root, out)
    (out / MARKER).write_text(_dump({"format": 1, "revealed": []}), encoding="utf-8")
    for chapter in revealed:
        reveal(chapter, out, book=book)
    found = leaks(out, secrets(book, exclude=revealed))
    if found:
        raise EditionError(
            f"{len(found)} piece(s) of the answer key in the edition, first: {found[0][0]} in {found[0][1]}"
        )
    written = sorted(p for p in out.rglob("*") if p.is_file() and ".git" not in p.parts)
    for key, value, why in files.placeholders(book):
        report(_placeholder_warning(out, key, value, why))
    report(f"wrote the student edition ({len(ready)} notebooks, {len(written)} files) to {out}")
    return written


def _linking_files(out: Path) -> list[Path]:
    """The edition's files whose links a student follows: its README and notebooks."""
    return [out / "README.md", *sorted((out / "notebooks").glob("*.ipynb"))]


def _markdown(path: Path) -> str:
    if path.suffix != ".ipynb":
        return path.read_text(encoding="utf-8")
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")


def _ship_linked_docs(root: Path, out: Path) -> None:
    """Copy the pages of ``docs/`` that the README or a notebook links to (the glossary),
    then check that every relative link of those files resolves inside the edition."""
    docs = (root / "docs").resolve()
    for path in _linking_files(out):
        for link in files.local_links(_markdown(path)):
            target = (path.parent / link).resolve()
            if not target.is_relative_to(out.resolve()):
                continue
            rel = target.relative_to(out.resolve())
            src = (root / rel).resolve()
            if src.parent == docs and src.suffix == ".md" and src.is_file():
                (out / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(src, out / rel)
    for path in _linking_files(out):
        for link in files.local_links(_markdown(path)):
            target = (path.parent / link).resolve()
            if not target.is_relative_to(out.resolve()) or not target.exists():
                raise EditionError(f"{path.relative_to(out)} links to {link}, which is not in the edition")


def _placeholder_warning(out: Path, key: str, value: str, why: str) -> str:
    """One line: a placeholder of ``book.toml`` and the edition's files that link to it."""
    needle = value.rstrip("/")
    needles = {needle, urllib.parse.quote(needle, safe=""), needle.split("://", 1)[-1].split("/", 1)[-1]}
    hits = [p.name for p in _linking_files(out) if any(n in p.read_text(encoding="utf-8") for n in needles)]
    notebooks = sum(h.endswith(".ipynb") for h in hits)
    where = " and ".join(
        x
        for x in ("README.md" if "README.md" in hits else "", f"{notebooks} notebooks" if notebooks else "")
        if x
    )
    fix = {
        "jupyterhub": "your course's JupyterHub",
        "student_repository": "the repository you push this edition to",
    }
    return (
        f"warning: book.toml [book] {key} is a placeholder, {value} ({why}): the links in "
        f"{where or 'no file'} lead there; set it to {fix[key]}"
    )


def reveal(chapter: str, edition, *, book=None) -> Path:
    """Add the solution texts and last hints of ``chapter`` to ``edition``; nothing else."""
    from kmlteach.exercises import record

    book = book or load_book()
    edition = Path(edition)
    marker = edition / MARKER
    if not marker.is_file():
        raise EditionError(f"{str(edition)!r} is not a student edition (no {MARKER})")
    path = record.chapter_files(record.RECORDS).get(str(chapter))
    exercises = record.load_chapter(path)["exercise"] if path else []
    if not exercises:
        raise EditionError(f"chapter {chapter!r} has no exercises to reveal")
    texts = record.solution_texts(str(chapter), book.root / "notebooks" / "src")
    out = {r["id"]: {"solution": texts[r["id"]], "hint_last": r["hint_last"]} for r in exercises}
    target = edition / "kmlteach" / "exercises" / "records" / f"revealed-ch{chapter}.json"
    target.write_text(_dump(out), encoding="utf-8")
    meta = json.loads(marker.read_text(encoding="utf-8"))
    meta["revealed"] = sorted(set(meta.get("revealed", [])) | {str(chapter)})
    marker.write_text(_dump(meta), encoding="utf-8")
    return target


# --- the answer key, and where it would show up ------------------------------------------


def _body(fn) -> str:
    """A function's body without its docstring, one stripped line per line."""
    lines = textwrap.dedent(inspect.getsource(fn)).splitlines()
    text = "\n".join(ln.strip() for ln in lines[1:] if ln.strip())
    doc = inspect.getdoc(fn)
    if doc:
        text = re.sub(r'^[rRuU]?("""|\'\'\').*?\1\n?', "", text, count=1, flags=re.S)
    return text


def _floats(value) -> list[float]:
    """Every floating-point value in ``value`` (a hidden argument, or plain edition data:
    nested lists, tuples, dicts and arrays)."""
    import numpy as np

    if isinstance(value, dict):
        return [f for k, v in value.items() for f in _floats(k) + _floats(v)]
    if isinstance(value, (list, tuple)):
        return [f for v in value for f in _floats(v)]
    if isinstance(value, (float, np.floating)):
        return [float(value)] if np.isfinite(value) else []
    if isinstance(value, np.ndarray) and np.issubdtype(value.dtype, np.floating):
        return [float(v) for v in value.ravel() if np.isfinite(v)]
    return []


def _public_values(book) -> set[str]:
    """The values (``repr``) of the edition's public data: every float of the visible
    cases, their expected outputs and the mistakes' outputs that the edition's records
    ship, and every number of the shipped data files (``kmlteach/data``). A hidden value
    equal to one of them gives nothing away."""
    from kmlteach.exercises import record

    out = set()
    for chapter, path in record.chapter_files(record.RECORDS).items():
        text = _dump(_chapter_records(chapter, path))
        out |= {repr(f) for f in _floats(json.loads(text))}
    for p in sorted((Path(book.root) / "kmlteach" / "data").rglob("*")):
        if p.is_file() and _shipped(p.relative_to(Path(book.root) / "kmlteach")):
            out |= {repr(float(t)) for t in _FLOAT.findall(p.read_text(encoding="utf-8", errors="replace"))}
    return out


def secrets(book=None, exclude=()) -> list[tuple[str, str]]:
    """``(what, text)`` for every piece of the answer key: each line of every solution
    block, each reference function's body, each value of every hidden case's arguments
    that the edition's public data does not hold too (:func:`_public_values`; as text and
    as 8-byte doubles), each last hint — of every chapter not in ``exclude``
    (already revealed; a text a revealed chapter shows is no secret of another one).

    Two kinds of solution lines are not secrets: lines shorter than :data:`MIN_LINE`
    characters or without a letter or digit (``return v``, ``m = len(y)``, ``else:``),
    and lines that the shipped library itself contains anywhere in a line (``while
    True:``, the perceptron's ``updated = True``): the edition ships the algorithms that
    the exercises re-implement (the grader blocks calling them), so their code is public
    by design."""
    found = _answer_key(book or load_book())
    chapter = {what: what.split(" of ")[1][:2] for what, _ in found}
    shown = "\n".join(secret for what, secret in found if chapter[what] in exclude)
    return [
        (what, secret)
        for what, secret in found
        if chapter[what] not in exclude and not (exclude and secret in shown)
    ]


def _answer_key(book) -> list[tuple[str, str]]:
    from kmlteach.course.grade.cases import hidden_cases
    from kmlteach.exercises import registry

    public = _library_text(Path(book.root) / "kmlteach")
    values = _public_values(book)
    found: list[tuple[str, str]] = []
    for c in book.chapters:
        if c.ready:
            nb = json.loads((Path(book.root) / c.notebook).read_text(encoding="utf-8"))
            found += [
                (f"solution line of {c.id}", s)
                for s in solution_lines(nb)
                if not _trivial(s) and len(s) >= MIN_LINE and s not in public
            ]
    for ex_id, ex in registry().items():
        found.append((f"reference of {ex_id}", _body(ex.reference)))
        found.append((f"last hint of {ex_id}", ex.hints[-1]))
        for h in hidden_cases(ex_id):
            seq = [repr(x) for x in _floats([h.args, h.kwargs])]
            secret = [x for x in seq if x not in values]
            if len(seq) > 1 and any(len(x) < DRAWN for x in secret):
                found.append((f"hidden case of {ex_id}", " ".join(seq)))
            found += [(f"hidden case of {ex_id}", x) for x in secret if len(x) >= DRAWN]
    return found


def _library_text(pkg: Path) -> str:
    """The text of the package's shipped algorithm, plot, widget and data modules."""
    parts = []
    for p in sorted(pkg.rglob("*.py")):
        rel = p.relative_to(pkg)
        if _shipped(rel) and rel.parts[0] not in ("exercises", "course"):
            parts.append(p.read_text(encoding="utf-8"))
    return "\n".join(parts)


def _normal(text: str) -> str:
    return "\n".join(ln.strip() for ln in text.splitlines())


def _blobs(folder: Path):
    """``(where, bytes)`` of every file below ``folder`` and every member of a wheel/zip."""
    for p in sorted(folder.rglob("*")):
        if p.is_file() and ".git" not in p.relative_to(folder).parts:
            data = p.read_bytes()
            yield str(p.relative_to(folder)), data
            if p.suffix in (".whl", ".zip"):
                with zipfile.ZipFile(p) as z:
                    for n in z.namelist():
                        yield f"{p.relative_to(folder)}!{n}", z.read(n)


_FLOAT = re.compile(r"-?\d+(?:\.\d+(?:e[-+]?\d+)?|e[-+]?\d+)")  # repr of a finite float
DRAWN = 14  # a repr this long is a random draw: found alone it gives its case away


def leaks(folder, found_secrets) -> list[tuple[str, str]]:
    """``(what, where)`` for every secret found in a file of ``folder`` (or a member of a
    wheel in it): a text secret in the file's text with every line stripped; a hidden value
    as a number token of the text, or as an 8-byte double (either byte order) anywhere in
    its bytes (a ``.pyc`` holds its constants so)."""
    texts = [(what, _normal(secret)) for what, secret in found_secrets if not what.startswith("hidden")]
    numbers: dict[str, str] = {}
    doubles: dict[bytes, str] = {}
    runs = [
        (what, f" {secret} ") for what, secret in found_secrets if what.startswith("hidden") and " " in secret
    ]
    for what, secret in found_secrets:
        if what.startswith("hidden") and " " not in secret:
            numbers[secret] = what
            for order in "<>":
                doubles[struct.pack(order + "d", float(secret))] = what
    hits = []
    for where, data in _blobs(Path(folder)):
        text = _normal(data.decode("utf-8", "replace"))
        hits += [(what, where) for what, secret in texts if secret in text]
        tokens = _FLOAT.findall(text)
        hits += [(numbers[t], where) for t in set(tokens) & numbers.keys()]
        stream = f" {' '.join(tokens)} "
        hits += [(what, where) for what, run in runs if run in stream]
        view = memoryview(data)
        windows = {bytes(view[i : i + 8]) for i in range(max(len(data) - 7, 0))}
        hits += [(doubles[d], where) for d in windows & doubles.keys()]
    return sorted(set(hits))
