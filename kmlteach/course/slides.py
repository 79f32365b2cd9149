"""Lecture mode: slide metadata for the chapter notebooks and offline reveal.js decks.

One notebook is both the reading text and the lecture. :func:`slide_metadata` decides,
from a cell's source and outputs alone, what the cell is in a slideshow:

========================================  ===========================================
cell                                      slide type
========================================  ===========================================
Markdown starting with a ``#``/``##``      ``slide`` (a new section)
Markdown starting with ``###`` or deeper   ``subslide`` (a subsection)
Markdown with a heading further down       ``slide``/``subslide`` as that heading: a
                                          heading never goes to the speaker notes
Markdown starting with a bold lead         ``subslide`` (a widget's or an exercise's
(``**Margin explorer.** …``)              introduction)
a long derivation (≥ 2 display formulas,  ``notes`` (speaker notes; the slide keeps
or a long paragraph dense in maths)       the statement, the notes keep the steps) —
                                          unless it asks a concept check's question
                                          (``**Predict first.**``): never in the notes
a widget cell                             ``subslide`` — its own slide (the cell after
                                          it starts a new one, see :func:`apply_slides`)
an exercise's solution (``### BEGIN       ``skip``
SOLUTION``)
the set-up cell (imports, seed)           ``skip``
code with a figure, or a long cell        ``subslide``
anything else                             ``-`` (continues the current slide)
========================================  ===========================================

Authors can override the rule for one cell with a tag: ``slide-skip``, ``slide-notes``,
``slide-new``, ``slide-sub``, ``slide-fragment`` or ``slide-continue``.

:func:`apply_slides` writes this metadata into an existing notebook (no re-execution)
and adds the RISE settings (``metadata.rise``). :func:`concept_check_cell` gives the
offline decks, in place of a concept check's ``ask("NN.c_name", "?")`` cell, a slide
with the question and its options from the record (never the answer). ``python -m kmlteach slides
--apply`` does it to the stored ``notebooks/*.ipynb``; ``python -m kmlteach slides``
(``make slides``) writes one reveal.js deck per ready chapter with
:mod:`kmlteach.course.deck`.
"""

from __future__ import annotations

import re
from pathlib import Path

from .release import BEGIN

__all__ = [
    "slide_metadata",
    "apply_slides",
    "apply_to_notebooks",
    "is_widget_cell",
    "is_solution_cell",
    "concept_check_id",
    "concept_check_cell",
    "RISE_SETTINGS",
    "SLIDE_TAGS",
]

SLIDE_TAGS = {
    "slide-skip": "skip",
    "slide-notes": "notes",
    "slide-new": "slide",
    "slide-sub": "subslide",
    "slide-fragment": "fragment",
    "slide-continue": "-",
}

# jupyterlab-rise reads metadata.rise; scroll keeps a tall cell readable when presenting live
RISE_SETTINGS = {
    "autolaunch": False,
    "scroll": True,
    "width": 1280,
    "height": 720,
    "transition": "none",
    "theme": "white",
    "start_slideshow_at": "beginning",
}

_HEADING = re.compile(r"^\s*#{1,2}\s")
_SUBHEADING = re.compile(r"^\s*#{3,6}\s")
_ANY_HEADING = re.compile(r"^\s*(#{1,6})\s", re.M)
_BOLD_LEAD = re.compile(r"^\s*\*\*[^*\n]+\*\*")
_DISPLAY_MATH = re.compile(r"\$\$.+?\$\$", re.S)
_INLINE_MATH = re.compile(r"(?<!\$)\$(?!\$)[^$\n]+?\$")
_SETUP_LINE = re.compile(r"^(import |from \S+ import |SEED\s*=|rng\s*=|%|#|$)")
_WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
_PREDICT_FIRST = re.compile(r"\*\*Predict first\b")
_ASK_CONCEPT = re.compile(r"""^\s*ask\(\s*["'](\d\d\.c_\w+)["']\s*,\s*["']\?["']""", re.M)


def _source(cell) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def is_solution_cell(cell) -> bool:
    return cell.get("cell_type") == "code" and BEGIN in _source(cell)


_QUIZ = re.compile(r"\bquiz(_html)?\(\s*[\"']\d\d[\"']")


def is_widget_cell(cell) -> bool:
    """A code cell that displays a live figure widget (by its output, or by the course's
    idiom). The recap quiz's question widget is not one: it is for self-study and is left
    out of the decks."""
    if cell.get("cell_type") != "code" or _QUIZ.search(_source(cell)):
        return False
    for out in cell.get("outputs", []) or []:
        if _WIDGET_VIEW in (out.get("data") or {}):
            return True
    src = _source(cell).lstrip()
    return src.startswith("# NBVAL_IGNORE_OUTPUT") and re.search(r"\bmake_\w+\(", src) is not None


def concept_check_id(cell) -> str | None:
    """The id of the concept check a code cell asks (``ask("NN.c_name", "?")``), else None."""
    if cell.get("cell_type") != "code":
        return None
    m = _ASK_CONCEPT.search(_source(cell))
    return m.group(1) if m else None


def concept_check_cell(cell):
    """For a concept check's ``ask`` cell: a Markdown cell with its own slide showing the
    question and its options (:func:`kmlteach.exercises.quiz.question_html`: no answer, no
    explanation); for any other cell: None."""
    qid = concept_check_id(cell)
    if qid is None:
        return None
    import nbformat

    from ..exercises.quiz import question_html

    return nbformat.v4.new_markdown_cell(
        question_html(qid),
        id=f"{cell.get('id') or 'ask'}-q"[:64],
        metadata={"slideshow": {"slide_type": "subslide"}},
    )


def _is_derivation(text: str) -> bool:
    if _ANY_HEADING.search(text) or _BOLD_LEAD.match(text):
        return False
    n_display = len(_DISPLAY_MATH.findall(text))
    n_inline = len(_INLINE_MATH.findall(_DISPLAY_MATH.sub("", text)))
    return n_display >= 2 or (len(text) > 900 and n_inline >= 8)


def _has_figure(cell) -> bool:
    return any("image/png" in (o.get("data") or {}) for o in cell.get("outputs", []) or [])


def slide_metadata(cell) -> dict:
    """The ``slideshow`` metadata of one notebook cell (a pure function of the cell).

    Returns a dict such as ``{"slide_type": "subslide"}``; see the module docstring
    for the rules.
    """
    tags = set((cell.get("metadata") or {}).get("tags", []) or [])
    for tag, kind in SLIDE_TAGS.items():
        if tag in tags:
            return {"slide_type": kind}
    text = _source(cell)
    kind = cell.get("cell_type")
    if kind == "markdown":
        if _HEADING.match(text):
            return {"slide_type": "slide"}
        if _SUBHEADING.match(text):
            return {"slide_type": "subslide"}
        inner = [len(m) for m in _ANY_HEADING.findall(text)]
        if inner:  # a heading below a paragraph: better a slide too many than a lost heading
            return {"slide_type": "slide" if min(inner) <= 2 else "subslide"}
        if _BOLD_LEAD.match(text):
            return {"slide_type": "subslide"}
        if _is_derivation(text) and not _PREDICT_FIRST.search(text):
            return {"slide_type": "notes"}
        return {"slide_type": "subslide" if len(text) > 400 else "-"}
    if kind != "code":
        return {"slide_type": "skip"}
    if is_solution_cell(cell):
        return {"slide_type": "skip"}
    if _QUIZ.search(text):  # the recap quiz is for self-study: too long for one slide
        return {"slide_type": "skip"}
    if is_widget_cell(cell):
        return {"slide_type": "subslide"}
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if not lines or all(_SETUP_LINE.match(ln) for ln in lines):
        return {"slide_type": "skip"}
    if _has_figure(cell) or len(lines) > 14:
        return {"slide_type": "subslide"}
    return {"slide_type": "-"}


def apply_slides(nb):
    """Write slide metadata into every cell of ``nb`` (in place, no execution); returns ``nb``.

    Besides :func:`slide_metadata` per cell: the first cell opens the first slide, the
    cell after a widget starts a new subslide (so each widget has a slide of its
    own), so does the cell after a concept check's ``ask`` (the question ends its slide:
    the answer is on the next one), and ``metadata.rise`` holds the settings of the live
    slideshow.
    """
    cells = nb["cells"]
    prev_ends = False  # the previous shown cell ends its slide (a widget, a concept check)
    first = True
    for cell in cells:
        meta = slide_metadata(cell)
        if first and meta["slide_type"] not in ("skip", "notes"):
            meta = {"slide_type": "slide"}
            first = False
        elif prev_ends and meta["slide_type"] in ("-", "fragment"):
            meta = {"slide_type": "subslide"}
        if meta["slide_type"] not in ("skip", "notes"):
            prev_ends = is_widget_cell(cell) or concept_check_id(cell) is not None
        cell.setdefault("metadata", {})["slideshow"] = meta
    nb.setdefault("metadata", {})["rise"] = dict(RISE_SETTINGS)
    return nb


def apply_to_notebooks(paths) -> list[Path]:
    """Apply :func:`apply_slides` to stored notebooks; rewrite only those that change."""
    import nbformat

    changed = []
    for path in map(Path, paths):
        nb = nbformat.read(path, as_version=4)
        before = nbformat.writes(nb)
        apply_slides(nb)
        after = nbformat.writes(nb)
        if after != before:
            path.write_text(after + ("" if after.endswith("\n") else "\n"), encoding="utf-8")
            changed.append(path)
    return changed
