"""Offline reveal.js decks of the chapters (``make slides`` / ``python -m kmlteach slides``).

For each ready chapter of ``book.toml``: read the stored notebook (no execution), apply
:func:`kmlteach.course.slides.apply_slides`, then shape it for a 1280×720 slide:

* a title slide from ``book.toml`` (chapter, title, sources, objectives) replaces the
  notebook's opening cell, which becomes speaker notes;
* solutions are stripped (the exercise slide shows the stub a student gets);
* a concept check's ``ask`` cell becomes a slide with its question and options, no answer;
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
import html
import re
import shutil
import struct
import time
from pathlib import Path

from . import book as _book
from ._publish import rewrite_markdown, split_at_headings, student_binder_url
from ._widget_snapshot import replace_widget_views
from .release import strip_solutions
from .slides import apply_slides, concept_check_cell, is_solution_cell, is_widget_cell, slide_metadata

HERE = Path(__file__).resolve().parent
VENDOR = HERE / "vendor"
TEMPLATES = HERE / "templates"

__all__ = ["deck_notebook", "build_decks", "WIDTH", "HEIGHT", "WIDGET_SCALE"]

WIDTH, HEIGHT = 1280, 720
WIDGET_SCALE = 1.5  # widget figures on slides vs. their reading size (at least)
WIDGET_MAX = 2.0  # ... and at most (the PNG is stored at reading size)
TITLE_PX = 72  # one-line title above a widget figure
SIDE_TITLE = 170  # narrowest title column beside a full-height widget figure
FIGURE_SCALE = 1.5  # other figures: as large as that, when the slide has room
FONT_PX, LINE_PX = 24, 34  # slide text (reading size in JupyterLab: 14 px)
CODE_LINE_PX = 27
BUDGET = HEIGHT - 100  # usable height of one slide (top/bottom padding)
CHARS_PER_LINE = 88
CODE_CHARS_PER_LINE = 100

CSS = f"""
.reveal {{ font-size: {FONT_PX}px; }}
.reveal .slides {{ text-align: left; }}
.reveal .slides section {{ height: {HEIGHT}px; padding: 10px 18px; box-sizing: border-box; }}
.reveal .jp-RenderedHTMLCommon, .reveal .jp-RenderedMarkdown {{ font-size: {FONT_PX}px;
  line-height: {LINE_PX}px; }}
.reveal .jp-RenderedHTMLCommon p {{ margin: 0 0 10px 0; }}
.reveal .jp-RenderedHTMLCommon {{ overflow: visible; }}
.reveal mjx-assistive-mml {{ width: 1px !important; height: 1px !important; overflow: hidden !important; }}
.reveal h1 {{ font-size: 48px; margin: 0 0 16px 0; }}
.reveal h2 {{ font-size: 38px; margin: 0 0 12px 0; }}
.reveal h3 {{ font-size: 30px; margin: 0 0 10px 0; }}
.reveal .jp-InputArea pre, .reveal .jp-OutputArea pre {{ font-size: 19px; line-height: {CODE_LINE_PX}px;
  width: 100%; box-sizing: border-box; margin: 0; box-shadow: none; }}
.reveal .jp-InputPrompt, .reveal .jp-OutputPrompt {{ display: none; }}
.reveal .highlight {{ margin: 0.3em 0; }}
.reveal .jp-RenderedImage img {{ max-width: 100%; height: auto; margin: 0; }}
.reveal .jp-RenderedHTMLCommon a {{ color: #0b5394; }}
.reveal .celltag_kml-widget-side .jp-OutputArea {{ display: flex; flex-direction: row;
  align-items: flex-start; gap: 20px; }}
.reveal .celltag_kml-widget-side .jp-OutputArea-child {{ flex: 0 0 auto; display: block; width: auto; }}
.reveal .celltag_kml-widget-side .jp-OutputArea-output {{ display: block; width: auto; }}
.reveal .slides section:has(.celltag_kml-fullbleed) {{ padding-top: 0; padding-bottom: 0; }}
.reveal .celltag_kml-fullbleed, .reveal .celltag_kml-fullbleed .jp-Cell-outputWrapper,
.reveal .celltag_kml-fullbleed .jp-OutputArea-output {{ padding: 0; margin: 0; }}
.reveal .celltag_kml-fullbleed img {{ display: block; }}
.reveal .kml-widget-title {{ margin: 0 0 8px 0; }}
.reveal .kml-muted {{ color: #555; font-size: 20px; }}
.reveal .kml-snapshot-caption table {{ font-size: 20px; }}
.reveal .jp-InputArea pre, .reveal .jp-OutputArea pre {{ white-space: pre-wrap; overflow-wrap: anywhere; }}
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
        if in_math:  # inside multi-line display mathematics
            in_math = "$$" not in s
            h += 30
            continue
        if s.startswith("$$"):
            in_math = not (s.endswith("$$") and len(s) > 2)
            h += 100
            continue
        if not s:
            h += 10
        elif s.startswith("#"):
            h += 60 * max(1, -(-len(s) // 44))  # headings: capitals at 38–48 px
        else:  # inline mathematics (fractions, sums) makes its lines taller
            h += (LINE_PX + 8 * ("$" in s)) * max(1, -(-len(s) // CHARS_PER_LINE))
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


def _widget_fit(w: float, h: float) -> tuple[float, str]:
    """Scale and layout of a widget figure of reading size ``w``×``h``: title above it, or
    (when that leaves it below 1.5×) title beside it and the figure the slide's full height."""
    top = min(WIDGET_MAX, (WIDTH - 40) / w, (HEIGHT - 20 - TITLE_PX) / h)
    side = min(WIDGET_MAX, (WIDTH - 40 - SIDE_TITLE - 20) / w, HEIGHT / h)
    return (top, "top") if top >= min(WIDGET_SCALE, side) else (side, "side")


def _widget_cells(cell) -> list:
    """A widget snapshot laid out on slides: each figure ≥ 1.5× its reading size.

    The figure keeps the slide to itself under a one-line title (or beside a narrow title
    column, at the slide's full height); a multi-panel figure too wide for that is cut into
    its panels (:mod:`._panels`), one slide each. The caption (settings, readout, Binder
    link) follows on the same slide when there is room, else on the next one.
    """
    import nbformat

    from ._panels import crop_png, decode_png, panel_boxes

    pngs = [o for o in cell["outputs"] if "image/png" in (o.get("data") or {})]
    rest = [o for o in cell["outputs"] if o not in pngs]
    if not pngs:
        return [cell]
    png = pngs[0]
    b64 = png["data"]["image/png"]
    meta = png.get("metadata", {}).get("image/png", {})
    lum = decode_png(b64)
    k = (meta.get("width") or lum.shape[1]) / lum.shape[1]  # reading px per PNG px
    boxes = panel_boxes(lum, lambda b: _widget_fit(k * (b[2] - b[0]), k * (b[3] - b[1]))[0] >= WIDGET_SCALE)
    title = re.sub(r"\s+", " ", png.get("data", {}).get("text/plain", ""))
    name = re.search(r"“(.+?)”", title)
    name = html.escape(name.group(1) if name else "Widget")
    cells = []
    for i, box in enumerate(boxes):
        c = copy.deepcopy(cell)
        if i:
            c["id"] = f"{cell.get('id', 'cell')}-p{i}"[:64]
            c["metadata"]["slideshow"] = {"slide_type": "subslide"}
        part = f" ({i + 1}/{len(boxes)})" if len(boxes) > 1 else ""
        w, h = k * (box[2] - box[0]), k * (box[3] - box[1])
        scale, layout = _widget_fit(w, h)
        piece = copy.deepcopy(png)
        if len(boxes) > 1 or box != (0, 0, lum.shape[1], lum.shape[0]):
            piece["data"]["image/png"] = crop_png(b64, box)
        pm = piece.setdefault("metadata", {}).setdefault("image/png", {})
        pm["natural_width"], pm["width"] = int(round(w)), int(w * scale)
        head = (
            f'<p class="kml-widget-title"><strong>{name}</strong>{part} '
            f'<span class="kml-muted">— widget snapshot</span></p>'
        )
        if layout == "side":
            c["metadata"]["tags"] += ["kml-widget-side", "kml-fullbleed"]
            head = f'<div class="kml-side-title" style="width: {WIDTH - 64 - pm["width"]}px">{head}</div>'
        c["outputs"] = [
            nbformat.from_dict(
                {
                    "output_type": "display_data",
                    "metadata": {},
                    "data": {"text/html": head, "text/plain": name},
                }
            ),
            piece,
        ]
        cells.append(c)
    cap = copy.deepcopy(cell)
    cap["id"] = f"{cell.get('id', 'cell')}-cap"[:64]
    cap["metadata"]["slideshow"] = {"slide_type": "-"}
    cap["metadata"]["tags"] = [t for t in cap["metadata"].get("tags", []) if t != "kml-widget-snapshot"]
    cap["outputs"] = rest
    return cells + [cap]


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
    blocks = []  # (separator before it, text)
    for block in _src(cell).split("\n\n"):  # a tall list is split between its items
        items = (
            re.split(r"\n(?=\s{0,3}(?:\d+\.|[-*+])\s)", block) if _md_height(block) > BUDGET // 3 else [block]
        )
        blocks += [("\n\n" if j == 0 else "\n", item) for j, item in enumerate(items)]
    paras, cur = [], ""
    for sep, block in blocks:
        if cur and _md_height(cur + sep + block) > BUDGET:
            paras.append(cur)
            cur = ""
        cur = cur + sep + block if cur else block
    paras.append(cur)
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
        if (question := concept_check_cell(cell)) is not None:  # the question, never the answer
            cells.append(question)
            continue
        if id(cell) in widget_cells:
            meta.setdefault("transient", {})["remove_source"] = True
            meta.setdefault("tags", []).append("kml-widget-snapshot")
            cells.extend(_widget_cells(cell))
            continue
        elif cell["cell_type"] == "code":
            n_lines = len(_src(cell).splitlines())
            has_fig = any("image/png" in (o.get("data") or {}) for o in cell.get("outputs", []))
            if n_lines > 12 or (has_fig and n_lines > 6):
                meta.setdefault("transient", {})["remove_source"] = True
            rest = _cell_height(
                {**cell, "outputs": [o for o in cell["outputs"] if "image/png" not in (o.get("data") or {})]}
            )
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


def build_decks(
    out_dir: str | Path = "build/slides", chapters=None, book=None, verbose: bool = True
) -> list[Path]:
    """Write ``NN-slug.slides.html`` for every ready chapter (or the ids in ``chapters``)."""
    import nbformat
    from nbconvert import SlidesExporter

    book = book or _book.load()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    _vendor_to(out)
    exporter = SlidesExporter(
        template_name="kml_slides",
        extra_template_basedirs=[str(TEMPLATES)],
        reveal_url_prefix="_vendor/reveal.js",
        reveal_theme="white",
        reveal_transition="none",
        reveal_number="c/t",
        reveal_width=str(WIDTH),
        reveal_height=str(HEIGHT),
    )
    chosen = [c for c in book.chapters if c.ready and (not chapters or c.id in chapters)]
    written = []
    for ch in chosen:
        t0 = time.perf_counter()
        nb = nbformat.read(book.root / ch.notebook, as_version=4)
        deck = deck_notebook(nb, ch, book)
        resources = {
            "kml": {"mathjax_url": "_vendor/mathjax/tex-svg-full.js", "css": CSS},
            "metadata": {"name": deck.metadata["title"]},
        }
        body, _ = exporter.from_notebook_node(deck, resources=resources)
        target = out / f"{Path(ch.notebook).stem}.slides.html"
        target.write_text(body, encoding="utf-8")
        written.append(target)
        if verbose:
            print(f"wrote {target} in {time.perf_counter() - t0:.1f} s")
    return written
