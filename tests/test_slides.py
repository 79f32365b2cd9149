"""Lecture mode: slide metadata of the notebooks and the offline reveal.js decks.

The browser test opens every chapter's deck in Debian's Chromium at 1280×720, steps
through every slide and checks: no JavaScript error, no failed request (nothing comes
from the network), no slide whose content overflows the 1280×720 slide, no element whose
content is clipped or hidden behind a scroll bar, every widget figure shown at ≥ 1.5×
its reading size; and (no browser) every widget figure, or panel of it, is short enough
(≤ 480 px at reading size) to be shown at 1.5× on a 720-px slide.
Screenshots of chapter 01's slides go to ``tests/_artifacts/slides-01/`` (git-ignored).
"""

from __future__ import annotations

import copy
import html
import json
import os
import re
import shutil
import tempfile
from pathlib import Path

import nbformat
import numpy as np
import pytest

from kmlteach.course import book as _book
from kmlteach.course._panels import crop_png, decode_png, panel_boxes
from kmlteach.course.deck import HEIGHT, WIDGET_SCALE, WIDTH, _png_size, build_decks, deck_notebook
from kmlteach.course.slides import (
    RISE_SETTINGS,
    apply_slides,
    concept_check_cell,
    concept_check_id,
    is_widget_cell,
    slide_metadata,
)

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = ROOT / "tests" / "_artifacts" / "slides-01"
B = _book.load()
READY = [c for c in B.chapters if c.ready]


def md(text, **meta):
    return nbformat.v4.new_markdown_cell(text, metadata=meta)


def code(text, outputs=(), **meta):
    c = nbformat.v4.new_code_cell(text, metadata=meta)
    c.outputs = [nbformat.from_dict(o) for o in outputs]
    return c


WIDGET_OUT = {
    "output_type": "execute_result",
    "execution_count": 1,
    "metadata": {},
    "data": {"application/vnd.jupyter.widget-view+json": {"model_id": "abc"}, "text/plain": "Explorer()"},
}
PNG_OUT = {
    "output_type": "display_data",
    "metadata": {},
    "data": {"image/png": "iVBORw0KGgo=", "text/plain": "<Figure>"},
}


def kind(cell):
    return slide_metadata(cell)["slide_type"]


def test_slide_metadata_rules():
    assert kind(md("## 2 · Hard-SVM\n\ntext")) == "slide"
    assert kind(md("# 01 · Title")) == "slide"
    assert kind(md("**Margin explorer.** Pick a point and move it.")) == "subslide"
    assert kind(md("A short remark.")) == "-"
    derivation = "Unrolling gives\n\n$$a = b$$\n\nand then\n\n$$c = d$$\n\nso the claim holds."
    assert kind(md(derivation)) == "notes"
    sol = "def f(x):\n    ### BEGIN SOLUTION\n    return x\n    ### END SOLUTION\n\ncheck('01.f', f)"
    assert kind(code(sol)) == "skip"
    assert (
        kind(code("# NBVAL_IGNORE_OUTPUT\nfrom kmlteach.widgets.ch01 import make_x\n\nmake_x()"))
        == "subslide"
    )
    assert kind(code("x = 1", outputs=[WIDGET_OUT])) == "subslide"
    assert kind(code("import numpy as np\n\nSEED = 0\nrng = np.random.default_rng(SEED)")) == "skip"
    assert kind(code("fig, ax = plt.subplots()\nplt.show()", outputs=[PNG_OUT])) == "subslide"
    assert kind(code("print(1)")) == "-"
    # headings are never speaker notes, wherever they stand in the cell
    assert kind(md("### 3.4 A subsection\n\n" + derivation)) == "subslide"
    assert kind(md("A closing remark.\n\n## 5 · Next section\n\n" + derivation)) == "slide"
    assert kind(md("A closing remark.\n\n#### Aside\n\n" + derivation)) == "subslide"
    # a concept check's question is never hidden in the notes, however much maths precedes it
    assert kind(md(derivation + "\n\n**Predict first.** Which one? (a) this; (b) that.")) != "notes"
    # an author's tag wins
    assert kind(md("## Heading", tags=["slide-notes"])) == "notes"
    assert kind(code("print(1)", tags=["slide-skip"])) == "skip"


def test_a_concept_check_cell_becomes_its_question_slide():
    from kmlteach.exercises.quiz import questions

    q = next(q for q in questions("01", kind="concept") if q.id == "01.c_support")
    cell = concept_check_cell(code('ask("01.c_support", "?")  # your letter'))
    assert cell.cell_type == "markdown" and cell.metadata["slideshow"]["slide_type"] == "subslide"
    assert "\n\n" not in cell.source  # one HTML block: Markdown leaves it alone
    assert html.escape(q.prompt) in cell.source
    assert all(f"<li>{html.escape(c)}</li>" in cell.source for c in q.choices)
    assert "list-style-type: lower-alpha" in cell.source  # lettered like ask()'s answers, whatever the CSS
    assert html.escape(q.explanation) not in cell.source and "Right." not in cell.source
    assert concept_check_cell(code('ask("01.c_support", "b")')) is None  # an answer, not the question
    assert concept_check_cell(code("print(1)")) is None
    assert concept_check_cell(md('ask("01.c_support", "?")')) is None


def test_apply_slides_gives_every_widget_its_own_slide():
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        md("# Title"),
        md("**Explorer.** Move it."),
        code("# NBVAL_IGNORE_OUTPUT\nmake_a()", outputs=[WIDGET_OUT]),
        code("print(2)"),
        md("short"),
    ]
    before = [(c.cell_type, c.source, c.get("outputs")) for c in nb.cells]
    apply_slides(nb)
    kinds = [c.metadata["slideshow"]["slide_type"] for c in nb.cells]
    assert kinds == ["slide", "subslide", "subslide", "subslide", "-"]
    assert nb.metadata["rise"] == RISE_SETTINGS
    assert [(c.cell_type, c.source, c.get("outputs")) for c in nb.cells] == before


def test_stored_notebooks_carry_the_slide_metadata():
    """`python -m kmlteach slides --apply` was run: the metadata equals apply_slides()."""
    for c in READY:
        stored = nbformat.read(ROOT / c.notebook, as_version=4)
        expected = apply_slides(copy.deepcopy(stored))
        got = [cell.metadata.get("slideshow") for cell in stored.cells]
        want = [cell.metadata["slideshow"] for cell in expected.cells]
        assert got == want, f"{c.notebook}: run `python -m kmlteach slides --apply`"
        assert stored.metadata.get("rise") == RISE_SETTINGS
        # a widget's prediction-mode cell is for self-study and tagged slide-skip
        widgets = [
            i
            for i, cell in enumerate(stored.cells)
            if is_widget_cell(cell) and "slide-skip" not in cell.metadata.get("tags", [])
        ]
        assert widgets, f"{c.notebook} has no widget"
        for i in widgets:
            assert got[i]["slide_type"] in ("slide", "subslide")
            nxt = next((g for g in got[i + 1 :] if g["slide_type"] not in ("skip", "notes")), None)
            assert nxt is None or nxt["slide_type"] in ("slide", "subslide"), (
                f"{c.notebook}: widget {i} shares its slide"
            )
        solutions = [g for cell, g in zip(stored.cells, got) if "### BEGIN SOLUTION" in cell.source]
        assert all(g["slide_type"] == "skip" for g in solutions)


def test_deck_notebook_title_slide_no_solutions_and_snapshots():
    ch = B.chapter("01")
    nb = nbformat.read(ROOT / ch.notebook, as_version=4)
    deck = deck_notebook(nb, ch, B)
    first = deck.cells[0]
    assert first.metadata["slideshow"]["slide_type"] == "slide"
    assert ch.title in first.source and all(o in first.source for o in ch.objectives)
    text = json.dumps(deck, ensure_ascii=False)
    assert "BEGIN SOLUTION" not in text and "application/vnd.jupyter.widget" not in text
    shown = [c for c in nb.cells if is_widget_cell(c) and "slide-skip" not in c.metadata.get("tags", [])]
    assert text.count("</strong> — static snapshot of an interactive widget") == len(shown)
    assert any(c.metadata["slideshow"]["slide_type"] == "notes" for c in deck.cells)


@pytest.fixture(scope="module")
def decks():
    tmp = Path(tempfile.mkdtemp(prefix="kml-slides-"))
    try:
        yield tmp, build_decks(tmp, book=B, verbose=False)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def test_one_offline_deck_per_ready_chapter(decks):
    out, written = decks
    assert [p.name for p in written] == [f"{Path(c.notebook).stem}.slides.html" for c in READY]
    for p in written:
        text = p.read_text(encoding="utf-8")
        srcs = re.findall(r'<(?:script|img)[^>]+src="([^"]+)"', text)
        assert not [s for s in srcs if re.match(r"(https?:)?//", s)], f"{p.name} loads from the network"
        for s in srcs:
            if not s.startswith("data:"):
                assert (out / s).exists(), f"{p.name}: {s} missing"
        assert '<aside class="notes">' in text, f"{p.name} has no speaker notes"
        assert "BEGIN SOLUTION" not in text
    assert (out / "_vendor" / "reveal.js" / "plugin" / "notes" / "notes.js").exists()


def test_no_heading_is_only_in_speaker_notes(decks):
    """Every Markdown heading of a chapter is on a slide of its deck, none inside
    `<aside class="notes">` (a section title hidden in the notes leaves the audience
    without the section)."""
    out, written = decks
    heading = re.compile(r"<h([1-6])[^>]*>(.*?)</h\1>", re.S)
    for c, p in zip(READY, written):
        text = p.read_text(encoding="utf-8")
        notes = "".join(re.findall(r'<aside class="notes">(.*?)</aside>', text, re.S))
        shown = re.sub(r"<[^>]+>", "", re.sub(r'<aside class="notes">.*?</aside>', "", text, flags=re.S))
        in_notes = [re.sub(r"<[^>]+>", "", h[1]).strip(" ¶\n") for h in heading.findall(notes)]
        # the notebook's title cell becomes the deck's title slide (book.toml's title)
        hidden = [
            h for h in in_notes if h not in shown and not (h.startswith(f"{c.id} · ") and c.title in shown)
        ]
        assert not hidden, f"{p.name}: headings only in the speaker notes: {hidden}"
        nb = nbformat.read(ROOT / c.notebook, as_version=4)
        md_headings = [
            ln
            for cell in nb.cells
            if cell.cell_type == "markdown"
            for ln in cell.source.splitlines()
            if re.match(r"\s*#{1,6}\s", ln)
        ]
        assert len(heading.findall(text)) >= len(md_headings), f"{p.name}: a heading was dropped"


def test_every_concept_check_is_on_a_slide_without_its_answer(decks):
    """Each concept check a chapter asks (``ask("NN.c_name", "?")``) is on a slide of its deck,
    outside the speaker notes: the question and every option; nowhere its explanation or
    the feedback on a wrong option."""
    from kmlteach.exercises.quiz import questions

    _out, written = decks
    n_checked = 0
    for c, p in zip(READY, written):
        text = html.unescape(p.read_text(encoding="utf-8"))  # compare with the records' plain text
        shown = re.sub(r'<aside class="notes">.*?</aside>', "", text, flags=re.S)
        nb = nbformat.read(ROOT / c.notebook, as_version=4)
        asked = [q for q in map(concept_check_id, nb.cells) if q]
        by_id = {q.id: q for q in questions(c.id)}
        for qid in asked:
            q = by_id[qid]
            assert f"[{qid}]" in shown and q.prompt in shown, f"{p.name}: {qid} has no slide"
            for choice in q.choices:
                assert f"<li>{choice}</li>" in shown, f"{p.name}: {qid} lacks option {choice!r}"
            assert q.explanation not in text, f"{p.name}: {qid}'s explanation is in the deck"
            wrong = [f for i, f in enumerate(q.feedback) if i not in q.answers()]
            assert not [f for f in wrong if f in text], f"{p.name}: {qid}'s feedback is in the deck"
            n_checked += 1
    assert n_checked >= 27  # three concept checks in each of chapters 01-09


MEASURE = """() => {
  const s = Reveal.getCurrentSlide(), r = s.getBoundingClientRect(), sc = Reveal.getScale();
  let bottom = 0, right = 0; const clipped = [];
  for (const el of s.querySelectorAll('*')) {
    if (el.closest('aside.notes') || el.closest('mjx-container')) continue;
    const q = el.getBoundingClientRect();
    if (q.width === 0 && q.height === 0) continue;
    if (!(el.closest('pre') && el.tagName !== 'PRE')) {
      bottom = Math.max(bottom, (q.bottom - r.top) / sc); right = Math.max(right, (q.right - r.left) / sc);
    }
    // any element whose content is cut off or hidden behind a scroll bar (a projector cannot scroll)
    const cs = getComputedStyle(el);
    if ((el.scrollWidth > el.clientWidth + 1 && cs.overflowX !== 'visible') ||
        (el.scrollHeight > el.clientHeight + 1 && cs.overflowY !== 'visible'))
      clipped.push(`${el.tagName}.${el.className}: ${el.scrollWidth}×${el.scrollHeight} in ${el.clientWidth}×${el.clientHeight}`
                   + ` (${el.textContent.trim().slice(0, 30)})`);
  }
  const imgs = [...s.querySelectorAll('img[data-natural-width]')].map(i => ({
    natural: +i.dataset.naturalWidth, shown: i.getBoundingClientRect().width / sc,
    natural_height: +i.dataset.naturalWidth * i.naturalHeight / i.naturalWidth,
    height: i.getBoundingClientRect().height / sc, snapshot: !!i.closest('.celltag_kml-widget-snapshot')}));
  return {idx: Reveal.getIndices(), bottom, right, imgs, clipped, text: s.innerText.slice(0, 40)};
}"""


# the next slide (down in a vertical stack, else right); false at the end of the deck.
# Reveal changes slides synchronously and MEASURE's getBoundingClientRect forces the
# layout, so a deck can be walked in one page.evaluate (the same measurements as one
# round trip per slide with a pause, checked on every deck; ~30 ms a slide less)
NEXT = "() => { const r = Reveal.availableRoutes(); if (!(r.down || r.right)) return false; Reveal.next(); return true; }"
WALK = f"() => {{ const measure = {MEASURE}, next = {NEXT}, out = [measure()]; while (next()) out.push(measure()); return out; }}"


def widget_figure_ok(im) -> bool:
    """≥ 1.5× the reading size, or (only when 1.5× is taller than the slide) the full slide height."""
    if im["shown"] >= WIDGET_SCALE * im["natural"] - 1:
        return True
    return WIDGET_SCALE * im["natural_height"] > HEIGHT and im["height"] >= HEIGHT - 2


@pytest.mark.browser
@pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is absent (apt-get install chromium)")
def test_decks_in_chromium_every_slide_fits_1280x720(decks):
    """Every slide of every deck: no JS error, no request, nothing past the slide, nothing
    clipped, widget figures ≥ 1.5× their reading size. Screenshots of chapter 01's deck."""
    from playwright.sync_api import sync_playwright

    out, written = decks
    if ARTIFACTS.exists():
        shutil.rmtree(ARTIFACTS)
    ARTIFACTS.mkdir(parents=True)
    errors, over, small, clipped, counts = [], [], [], [], {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("requestfailed", lambda r: errors.append(f"request failed: {r.url}"))
        # presenting offline: the network is blocked, and any attempt to reach it is an error
        page.route(
            re.compile(r"^(https?|wss?)://"),
            lambda route: (errors.append(f"network request: {route.request.url}"), route.abort()),
        )
        for deck in written:
            page.goto(deck.as_uri())
            page.wait_for_function("window.Reveal && Reveal.isReady()")
            page.wait_for_function("window.MathJax && MathJax.startup && MathJax.startup.promise")
            page.evaluate("MathJax.startup.promise")
            n_total = page.evaluate("Reveal.getTotalSlides()")
            if deck.name.startswith("01-"):  # screenshots: one slide per round trip
                infos = []
                while True:
                    infos.append(page.evaluate(MEASURE))
                    page.screenshot(path=str(ARTIFACTS / f"slide-{len(infos):02d}.png"))
                    if not page.evaluate(NEXT):
                        break
            else:  # the whole deck in one call
                infos = page.evaluate(WALK)
            for k, info in enumerate(infos):
                where = f"{deck.name[:2]} slide {k + 1} {info['idx']} ({info['text']!r})"
                if info["bottom"] > HEIGHT + 1 or info["right"] > WIDTH + 1:
                    over.append(f"{where}: content {info['right']:.0f}×{info['bottom']:.0f}")
                clipped += [f"{where}: {c}" for c in info["clipped"]]
                for im in info["imgs"]:
                    if im["snapshot"] and not widget_figure_ok(im):
                        small.append(
                            f"{where}: widget figure {im['shown']:.0f}px wide, reading size {im['natural']}px"
                        )
            k = len(infos)
            counts[deck.name] = (k, n_total)
        browser.close()
    assert all(k == n for k, n in counts.values()), f"did not step through every slide: {counts}"
    assert not errors, errors[:5]
    assert not over, "slides overflow 1280×720:\n" + "\n".join(over)
    assert not clipped, "clipped or scrolling elements:\n" + "\n".join(clipped)
    assert not small, "widget figures below 1.5× their reading size:\n" + "\n".join(small)


def _widget_pngs():
    """(chapter, title, PNG, reading width) of every widget snapshot in the stored notebooks."""
    from kmlteach.course._widget_snapshot import snapshot, widget_model_ids

    for c in READY:
        nb = nbformat.read(ROOT / c.notebook, as_version=4)
        for cell in nb.cells:
            for mid in widget_model_ids(cell) if is_widget_cell(cell) else ():
                s = snapshot(nb, mid)
                if s.png_base64:
                    yield c.id, s.title, s.png_base64, s.width_px


def test_deck_widget_figures_are_1_5x_their_reading_size():
    """No browser: in every deck, every widget figure (or panel of it) is given ≥ 1.5× its
    reading width, and the layout keeps it inside the slide."""
    for c in READY:
        deck = deck_notebook(nbformat.read(ROOT / c.notebook, as_version=4), c, B)
        for cell in deck.cells:
            if "kml-widget-snapshot" not in cell.metadata.get("tags", []):
                continue
            for o in cell.outputs:
                meta = o.get("metadata", {}).get("image/png")
                if not meta:
                    continue
                w, nat = meta["width"], meta["natural_width"]
                pw, ph = _png_size(o["data"]["image/png"])
                h, nat_h = w * ph / pw, nat * ph / pw
                assert w <= WIDTH - 40 and h <= HEIGHT, f"{c.id}: figure {w}×{h:.0f} larger than the slide"
                assert w >= WIDGET_SCALE * nat - 1 or (WIDGET_SCALE * nat_h > HEIGHT and h >= HEIGHT - 2), (
                    f"{c.id} {cell.id}: widget figure {w}px for reading width {nat}px"
                )


def test_every_widget_panel_can_be_shown_at_1_5x():
    too_tall = []
    for ch, title, b64, width in _widget_pngs():
        lum = decode_png(b64)
        k = (width or lum.shape[1]) / lum.shape[1]
        fits = lambda b, k=k: (
            WIDGET_SCALE * k * (b[3] - b[1]) <= HEIGHT and WIDGET_SCALE * k * (b[2] - b[0]) <= WIDTH - 40
        )
        too_tall += [
            f"{ch} {title}: {k * (b[3] - b[1]):.0f}px" for b in panel_boxes(lum, fits) if not fits(b)
        ]
    assert not too_tall, "\n".join(too_tall)


def _png(panels, size=(600, 200)):
    """A synthetic figure: black-framed panels (x0, x1) on white, a line of text across the top."""
    import base64
    import io

    from PIL import Image, ImageDraw

    img = Image.new("RGB", size, "white")
    d = ImageDraw.Draw(img)
    for x0, x1 in panels:
        d.rectangle([x0, 30, x1, size[1] - 30], outline="black", width=2)
        d.line([x0 + 5, 150, x1 - 5, 60], fill="#0072b2", width=3)
    d.text((size[0] // 3, 5), "a suptitle crossing the gutter", fill="black")
    buf = io.BytesIO()
    img.save(buf, "PNG")
    return base64.b64encode(buf.getvalue()).decode()


def test_panels_cut_between_framed_axes_only_when_needed():
    b64 = _png([(40, 280), (340, 580)])
    lum = decode_png(b64)
    assert len(panel_boxes(lum, lambda b: True)) == 1  # fits: kept whole
    boxes = panel_boxes(lum, lambda b: b[2] - b[0] <= 300)
    assert len(boxes) == 2
    (a0, _, a1, _), (b0, _, b1, _) = boxes
    assert a0 <= 40 and 280 < a1 <= b0 < 340 and b1 >= 580  # cut in the gutter
    crop = decode_png(crop_png(b64, boxes[1]))
    assert crop.shape == (boxes[1][3] - boxes[1][1], b1 - b0)
    # one framed axes is never cut through, even when it does not fit
    single = decode_png(_png([(40, 580)]))
    assert len(panel_boxes(single, lambda b: b[2] - b[0] <= 300)) == 1
    with pytest.raises(ValueError, match="fits"):
        panel_boxes(lum, None)
    with pytest.raises(ValueError, match="lum"):
        panel_boxes(np.zeros((0, 3)), lambda b: True)
    with pytest.raises(ValueError, match="box"):
        crop_png(b64, (10, 10, 5, 20))
    with pytest.raises(ValueError, match="b64"):
        decode_png("")


def test_a_figure_of_many_small_axes_is_not_shredded_into_letters():
    """A figure drawn as a row of small axes (the Viterbi trace's letters) has no panel to
    cut out: it stays whole rather than becoming a slide per letter."""
    b64 = _png([(20 + 70 * i, 80 + 70 * i) for i in range(12)], size=(880, 200))
    lum = decode_png(b64)
    boxes = panel_boxes(lum, lambda b: b[2] - b[0] <= 100)
    assert len(boxes) == 1 and boxes[0][2] - boxes[0][0] > 800
