"""Lecture mode: slide metadata of the notebooks and the offline reveal.js decks.

The browser test opens chapter 01's deck in Debian's Chromium at 1280×720, steps
through every slide and checks: no JavaScript error, no failed request (nothing comes
from the network), no slide whose content overflows the 1280×720 slide, every widget
snapshot shown at ≥ 1.5× its reading size or filling the slide. Screenshots of every
slide go to ``tests/_artifacts/slides-01/`` (git-ignored).
"""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import tempfile
from pathlib import Path

import nbformat
import pytest

from kmlteach.course import book as _book
from kmlteach.course.deck import HEIGHT, WIDGET_SCALE, WIDTH, build_decks, deck_notebook
from kmlteach.course.slides import RISE_SETTINGS, apply_slides, is_widget_cell, slide_metadata

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


WIDGET_OUT = {"output_type": "execute_result", "execution_count": 1, "metadata": {},
              "data": {"application/vnd.jupyter.widget-view+json": {"model_id": "abc"}, "text/plain": "Explorer()"}}
PNG_OUT = {"output_type": "display_data", "metadata": {}, "data": {"image/png": "iVBORw0KGgo=", "text/plain": "<Figure>"}}


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
    assert kind(code("# NBVAL_IGNORE_OUTPUT\nfrom kmlteach.widgets.ch01 import make_x\n\nmake_x()")) == "subslide"
    assert kind(code("x = 1", outputs=[WIDGET_OUT])) == "subslide"
    assert kind(code("import numpy as np\n\nSEED = 0\nrng = np.random.default_rng(SEED)")) == "skip"
    assert kind(code("fig, ax = plt.subplots()\nplt.show()", outputs=[PNG_OUT])) == "subslide"
    assert kind(code("print(1)")) == "-"
    # an author's tag wins
    assert kind(md("## Heading", tags=["slide-notes"])) == "notes"
    assert kind(code("print(1)", tags=["slide-skip"])) == "skip"


def test_apply_slides_gives_every_widget_its_own_slide():
    nb = nbformat.v4.new_notebook()
    nb.cells = [md("# Title"), md("**Explorer.** Move it."),
                code("# NBVAL_IGNORE_OUTPUT\nmake_a()", outputs=[WIDGET_OUT]),
                code("print(2)"), md("short")]
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
        widgets = [i for i, cell in enumerate(stored.cells) if is_widget_cell(cell)]
        assert widgets, f"{c.notebook} has no widget"
        for i in widgets:
            assert got[i]["slide_type"] in ("slide", "subslide")
            nxt = next((g for g in got[i + 1:] if g["slide_type"] not in ("skip", "notes")), None)
            assert nxt is None or nxt["slide_type"] in ("slide", "subslide"), f"{c.notebook}: widget {i} shares its slide"
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
    assert text.count("</strong> — static snapshot of an interactive widget") == sum(map(is_widget_cell, nb.cells))
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


MEASURE = """() => {
  const s = Reveal.getCurrentSlide(), r = s.getBoundingClientRect(), sc = Reveal.getScale();
  let bottom = 0, right = 0;
  for (const el of s.querySelectorAll('*')) {
    if (el.closest('aside.notes') || (el.closest('pre') && el.tagName !== 'PRE')) continue;
    const q = el.getBoundingClientRect();
    if (q.width === 0 && q.height === 0) continue;
    bottom = Math.max(bottom, (q.bottom - r.top) / sc); right = Math.max(right, (q.right - r.left) / sc);
  }
  const imgs = [...s.querySelectorAll('img[data-natural-width]')].map(i => ({
    natural: +i.dataset.naturalWidth, shown: i.getBoundingClientRect().width / sc,
    height: i.getBoundingClientRect().height / sc, snapshot: !!i.closest('.celltag_kml-widget-snapshot')}));
  return {idx: Reveal.getIndices(), bottom, right, imgs, text: s.innerText.slice(0, 40)};
}"""


@pytest.mark.browser
@pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is absent (apt-get install chromium)")
def test_deck_in_chromium_every_slide_fits_1280x720(decks):
    from playwright.sync_api import sync_playwright

    out, _ = decks
    deck = out / "01-svm.slides.html"
    if ARTIFACTS.exists():
        shutil.rmtree(ARTIFACTS)
    ARTIFACTS.mkdir(parents=True)
    errors, over, small = [], [], []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("requestfailed", lambda r: errors.append(f"request failed: {r.url}"))
        page.goto(deck.as_uri())
        page.wait_for_function("window.Reveal && Reveal.isReady()")
        page.wait_for_function("window.MathJax && MathJax.startup && MathJax.startup.promise")
        page.evaluate("MathJax.startup.promise")
        n_total = page.evaluate("Reveal.getTotalSlides()")
        k = 0
        while True:
            info = page.evaluate(MEASURE)
            where = f"slide {k + 1} {info['idx']} ({info['text']!r})"
            if info["bottom"] > HEIGHT + 1 or info["right"] > WIDTH + 1:
                over.append(f"{where}: content {info['right']:.0f}×{info['bottom']:.0f}")
            for im in info["imgs"]:
                fills = im["shown"] >= 0.9 * (WIDTH - 420) or im["height"] >= 0.75 * HEIGHT
                if im["snapshot"] and not (im["shown"] >= WIDGET_SCALE * im["natural"] - 1 or fills):
                    small.append(f"{where}: widget figure {im['shown']:.0f}px, reading size {im['natural']}px")
            page.screenshot(path=str(ARTIFACTS / f"slide-{k + 1:02d}.png"))
            k += 1
            if not page.evaluate("Reveal.availableRoutes().down || Reveal.availableRoutes().right"):
                break
            page.evaluate("Reveal.next()")
            page.wait_for_timeout(30)
        browser.close()
    assert k == n_total, f"stepped through {k} of {n_total} slides"
    assert not errors, errors[:5]
    assert not over, "slides overflow 1280×720:\n" + "\n".join(over)
    assert not small, "\n".join(small)
