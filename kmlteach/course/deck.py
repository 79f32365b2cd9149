"""Offline reveal.js decks of the chapters (``make slides`` / ``python -m kmlteach slides``).

For each ready chapter of ``book.toml``: read the stored notebook (no execution), apply
:func:`kmlteach.course.slides.apply_slides`, then shape it for a 1280×720 slide:

* a title slide from ``book.toml`` (chapter, title, sources, objectives) replaces the
  notebook's opening cell, which becomes speaker notes;
* solutions are stripped (the exercise slide shows the stub a student gets);
* each widget becomes its static snapshot (caption + figure) on a slide of its own,
  the figure 1.5× its reading size or as large as the slide allows;
* figures are scaled to fit, long code is left to the notebook (the slide shows the
  output), and slides are split where the estimated content is taller than the slide.

The deck is exported with nbconvert's reveal template without any CDN (see
``templates/kml_slides``); reveal.js 4.0.2 and MathJax 3 are copied from
``kmlteach/course/vendor`` next to the decks, so ``build/slides/`` presents offline.
"""

from __future__ import annotations

import base64
import copy
import re
import shutil
import struct
import time
from pathlib import Path

from . import book as _book
from ._publish import rewrite_markdown, split_at_headings, student_binder_url
from ._widget_snapshot import replace_widget_views
from .release import strip_solutions
from .slides import apply_slides, is_solution_cell, is_widget_cell, slide_metadata

HERE = Path(__file__).resolve().parent
VENDOR = HERE / "vendor"
TEMPLATES = HERE / "templates"

__all__ = ["deck_notebook", "build_decks", "WIDTH", "HEIGHT", "WIDGET_SCALE"]

WIDTH, HEIGHT = 1280, 720
WIDGET_SCALE = 1.5          # widget figures on slides vs. their reading size
FIGURE_SCALE = 1.5          # other figures: as large as that, when the slide has room
FONT_PX, LINE_PX = 24, 34   # slide text (reading size in JupyterLab: 14 px)
CODE_LINE_PX = 27
BUDGET = HEIGHT - 100       # usable height of one slide (top/bottom padding)
CHARS_PER_LINE = 88
CODE_CHARS_PER_LINE = 100
SIDE_CAPTION = 360        # width of the caption column beside a widget figure

CSS = f"""
.reveal {{ font-size: {FONT_PX}px; }}
.reveal .slides {{ text-align: left; }}
.reveal .slides section {{ height: {HEIGHT}px; padding: 10px 18px; box-sizing: border-box; }}
.reveal .jp-RenderedHTMLCommon, .reveal .jp-RenderedMarkdown {{ font-size: {FONT_PX}px;
  line-height: {LINE_PX}px; }}
.reveal .jp-RenderedHTMLCommon p {{ margin: 0 0 10px 0; }}
.reveal h1 {{ font-size: 48px; margin: 0 0 16px 0; }}
.reveal h2 {{ font-size: 38px; margin: 0 0 12px 0; }}
.reveal h3 {{ font-size: 30px; margin: 0 0 10px 0; }}
.reveal .jp-InputArea pre, .reveal .jp-OutputArea pre {{ font-size: 19px; line-height: {CODE_LINE_PX}px;
  width: 100%; box-sizing: border-box; margin: 0; box-shadow: none; }}
.reveal .jp-InputPrompt, .reveal .jp-OutputPrompt {{ display: none; }}
.reveal .highlight {{ margin: 0.3em 0; }}
.reveal .jp-InputArea pre, .reveal .jp-OutputArea pre {{ overflow-x: auto; }}
.reveal .jp-RenderedImage img {{ max-width: 100%; height: auto; margin: 0; }}
.reveal .jp-RenderedHTMLCommon a {{ color: #0b5394; }}
.reveal .celltag_kml-widget-side .jp-OutputArea {{ display: flex; flex-direction: row;
  align-items: flex-start; gap: 20px; }}
.reveal .celltag_kml-widget-side .jp-OutputArea-child:first-child {{ flex: 0 0 {SIDE_CAPTION}px; }}
.reveal .celltag_kml-title-slide h1 {{ margin-top: 40px; }}
.reveal .celltag_kml-title-slide .kml-course {{ color: #444; }}
"""


def _png_size(b64: str) -> tuple[int, int]:
    raw = base64.b64decode(b64[:64])
    w, h = struct.unpack(">II", raw[16:24])
    return int(w), int(h)


def _src(cell) -> str:
    s = cell.get("source", "")
    return "".join(s) if isinstance(s, list) else s


def _code_height(text: str) -> int:
    """Height of preformatted text; lines longer than the slide wrap."""
    return CODE_LINE_PX * sum(max(1, -(-len(ln) // CODE_CHARS_PER_LINE)) for ln in text.splitlines()) + 16


def _md_height(text: str) -> int:
    h = 0
    in_math = False
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("$$") or in_math:
            if s.startswith("$$"):
                in_math = not (s.endswith("$$") and len(s) > 2) and not in_math
            h += 22 if in_math else 60
            continue
        if not s:
            h += 10
        elif s.startswith("#"):
            h += 60
        else:
            h += LINE_PX * max(1, -(-len(s) // CHARS_PER_LINE))
    return h + 10


def _out_height(out, width_cap: int) -> int:
    data = out.get("data") or {}
    if out.get("output_type") == "stream":
        return _code_height(_src({"source": out.get("text", "")}))
    if "image/png" in data:
        w = (out.get("metadata", {}).get("image/png", {}) or {}).get("width")
        nw, nh = _png_size(data["image/png"])
        w = w or min(nw, width_cap)
        return int(nh * w / nw) + 10
    if "text/html" in data:
        text = re.sub(r"<(p|br|tr|div)[ >/]", "\n<", _src({"source": data["text/html"]}))
        return _md_height(re.sub(r"<[^>]+>", "", text))
    if "text/plain" in data:
        return _code_height(_src({"source": data["text/plain"]}))
    return 40


def _cell_height(cell) -> int:
    if cell["metadata"].get("slideshow", {}).get("slide_type") in ("skip", "notes"):
        return 0
    if cell["cell_type"] == "markdown":
        return _md_height(_src(cell))
    h = 0
    if not cell["metadata"].get("transient", {}).get("remove_source"):
        h += _code_height(_src(cell)) + 6
    return h + sum(_out_height(o, WIDTH - 60) for o in cell.get("outputs", []))


def _fit_images(cell, scale: float, room_h: int, room_w: int = WIDTH - 40) -> None:
    """Give every PNG of ``cell`` a display width: ``scale`` × natural, within the room left."""
    for out in cell.get("outputs", []):
        data = out.get("data") or {}
        if "image/png" not in data:
            continue
        meta = out.setdefault("metadata", {}).setdefault("image/png", {})
        natural = int(meta.get("natural_width") or meta.get("width") or _png_size(data["image/png"])[0])
        nw, nh = _png_size(data["image/png"])
        fit = min(room_w, max(room_h, 120) * nw / nh)
        meta["natural_width"] = natural
        meta["width"] = int(min(natural * scale, fit))


def _place_widget(cell) -> None:
    """Lay a widget snapshot out on its slide: figure beside the caption when it is not too wide."""
    pngs = [o for o in cell["outputs"] if "image/png" in (o.get("data") or {})]
    if not pngs:
        return
    nw, nh = _png_size(pngs[0]["data"]["image/png"])
    if nw / nh < 2.1:     # beside the caption unless very wide (then the caption goes below)
        cell["metadata"]["tags"].append("kml-widget-side")
        _fit_images(cell, WIDGET_SCALE, HEIGHT - 60, WIDTH - 40 - SIDE_CAPTION - 20)
    else:
        caption = sum(_out_height(o, WIDTH) for o in cell["outputs"] if o not in pngs)
        _fit_images(cell, WIDGET_SCALE, BUDGET - caption)


def _title_cell(book, chapter):
    import nbformat

    lines = [f"# {chapter.id} · {chapter.title}", "", f"*{book.title}*", ""]
    if chapter.sources:
        lines += [f"Sources: {', '.join(chapter.sources)}", ""]
    if chapter.objectives:
        lines += ["**Objectives**", ""] + [f"{i}. {o}" for i, o in enumerate(chapter.objectives, 1)]
    cell = nbformat.v4.new_markdown_cell("\n".join(lines))
    cell.metadata["slideshow"] = {"slide_type": "slide"}
    cell.metadata["tags"] = ["kml-title-slide"]
    return cell


def _split_markdown(cell) -> list:
    """Split a Markdown cell that is taller than a slide at paragraph boundaries."""
    paras, cur = [], []
    for block in _src(cell).split("\n\n"):
        if cur and _md_height("\n\n".join(cur + [block])) > BUDGET:
            paras.append("\n\n".join(cur))
            cur = []
        cur.append(block)
    paras.append("\n\n".join(cur))
    out = []
    for i, text in enumerate(paras):
        c = copy.deepcopy(cell)
        c["source"] = text
        if i:
            c["id"] = f"{cell.get('id', 'cell')}-{i}"[:64]
            c["metadata"]["slideshow"] = {"slide_type": "subslide"}
        out.append(c)
    return out


def deck_notebook(nb, chapter, book=None):
    """A copy of chapter notebook ``nb`` shaped for the offline deck (see module docstring)."""
    book = book or _book.load()
    nb = copy.deepcopy(nb)
    apply_slides(nb)
    widget_cells = {id(c) for c in nb["cells"] if is_widget_cell(c)}
    replace_widget_views(nb, student_binder_url(book, chapter))
    expanded = []
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "markdown":
            expanded.append(cell)
            continue
        cell["source"] = rewrite_markdown(_src(cell), book, chapter, lambda stem: f"{stem}.slides.html")
        for k, part in enumerate(split_at_headings(cell["source"]) if i else [cell["source"]]):
            c = copy.deepcopy(cell)
            c["source"] = part
            if k:
                c["id"] = f"{cell.get('id', 'cell')}-h{k}"[:64]
                c["metadata"]["slideshow"] = slide_metadata(c)
            expanded.append(c)
    cells = []
    for i, cell in enumerate(expanded):
        meta = cell["metadata"]
        kind = meta["slideshow"]["slide_type"]
        if i == 0:
            meta["slideshow"] = {"slide_type": "notes"}
        if is_solution_cell(cell):
            cell["source"] = strip_solutions(_src(cell))
            cell["outputs"], cell["execution_count"] = [], None
            meta["slideshow"] = {"slide_type": "-"}
        elif kind == "skip":
            continue
        if id(cell) in widget_cells:
            meta.setdefault("transient", {})["remove_source"] = True
            meta.setdefault("tags", []).append("kml-widget-snapshot")
            _place_widget(cell)
        elif cell["cell_type"] == "code":
            n_lines = len(_src(cell).splitlines())
            has_fig = any("image/png" in (o.get("data") or {}) for o in cell.get("outputs", []))
            if n_lines > 12 or (has_fig and n_lines > 6):
                meta.setdefault("transient", {})["remove_source"] = True
            rest = _cell_height({**cell, "outputs": [o for o in cell["outputs"]
                                                     if "image/png" not in (o.get("data") or {})]})
            _fit_images(cell, FIGURE_SCALE, BUDGET - rest)
        if cell["cell_type"] == "markdown" and _cell_height(cell) > BUDGET:
            cells.extend(_split_markdown(cell))
        else:
            cells.append(cell)
    cells.insert(0, _title_cell(book, chapter))
    # start a new subslide where the estimated height of the current one would overflow
    used = 0
    for cell in cells:
        kind = cell["metadata"]["slideshow"]["slide_type"]
        h = _cell_height(cell)
        if kind in ("slide", "subslide"):
            used = h
        elif h and used + h > BUDGET:
            cell["metadata"]["slideshow"] = {"slide_type": "subslide"}
            used = h
        else:
            used += h
    nb["cells"] = cells
    nb["metadata"]["title"] = f"{chapter.id} · {chapter.title}"
    return nb


def _vendor_to(out: Path) -> Path:
    target = out / "_vendor"
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(VENDOR, target, ignore=shutil.ignore_patterns("README.md"))
    return target


def build_decks(out_dir: str | Path = "build/slides", chapters=None, book=None,
                verbose: bool = True) -> list[Path]:
    """Write ``NN-slug.slides.html`` for every ready chapter (or the ids in ``chapters``)."""
    import nbformat
    from nbconvert import SlidesExporter

    book = book or _book.load()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    _vendor_to(out)
    exporter = SlidesExporter(template_name="kml_slides", extra_template_basedirs=[str(TEMPLATES)],
                              reveal_url_prefix="_vendor/reveal.js", reveal_theme="white",
                              reveal_transition="none", reveal_number="c/t",
                              reveal_width=str(WIDTH), reveal_height=str(HEIGHT))
    chosen = [c for c in book.chapters if c.ready and (not chapters or c.id in chapters)]
    written = []
    for ch in chosen:
        t0 = time.perf_counter()
        nb = nbformat.read(book.root / ch.notebook, as_version=4)
        deck = deck_notebook(nb, ch, book)
        resources = {"kml": {"mathjax_url": "_vendor/mathjax/tex-svg-full.js", "css": CSS},
                     "metadata": {"name": deck.metadata["title"]}}
        body, _ = exporter.from_notebook_node(deck, resources=resources)
        target = out / f"{Path(ch.notebook).stem}.slides.html"
        target.write_text(body, encoding="utf-8")
        written.append(target)
        if verbose:
            print(f"wrote {target} in {time.perf_counter() - t0:.1f} s")
    return written
