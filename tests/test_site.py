"""The static course site (``make site``): built offline, complete, solution-free, accessible.

One build of the whole site (jupyter-book 1.x, ~15-20 s on 2 cores) is shared by the
tests of this module. They check that

* every ready chapter of ``book.toml`` has a page (and a deck), and no planned one;
* every internal link and ``#anchor`` of every page resolves (our own crawler over the
  built files), and LinkChecker, run over the built site offline, finds no broken link
  (its anchor plugin crashes on these pages, so anchors are the crawler's job);
* no line of any exercise solution appears anywhere on the site (pages, downloads,
  sources, search index), a check that is shown to fire on the instructor notebooks;
* nothing is loaded from the network; MathJax is the local copy and renders;
* an axe-core scan in Debian's Chromium reports no serious or critical violation on
  any page (skipped only where ``/usr/bin/chromium`` is absent).
"""

from __future__ import annotations

import contextlib
import functools
import html
import http.server
import json
import os
import re
import shutil
import tempfile
import threading
import urllib.parse
from html.parser import HTMLParser
from pathlib import Path

import pytest

from kmlteach.course import book as _book
from kmlteach.course.release import BEGIN, END

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
B = _book.load()
READY = [c for c in B.chapters if c.ready]


@pytest.fixture(scope="module")
def site():
    pytest.importorskip("jupyter_book")
    from kmlteach.course.site import build_site

    tmp = Path(tempfile.mkdtemp(prefix="kml-site-"))
    try:
        out = build_site(tmp / "site", tmp / "src", book=B, verbose=False)
        yield out
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _pages(site: Path) -> list[Path]:
    return sorted(p for p in site.rglob("*.html") if "_static" not in p.parts)


# -- completeness -------------------------------------------------------------------


def test_every_ready_chapter_has_a_page_and_a_deck(site):
    home = (site / "index.html").read_text(encoding="utf-8")
    for c in B.chapters:
        stem = Path(c.notebook).stem
        page = site / "notebooks" / f"{stem}.html"
        if c.ready:
            assert page.exists(), f"chapter {c.id} has no page"
            text = html.unescape(page.read_text(encoding="utf-8"))
            assert c.title in text
            assert f"notebooks/{stem}.html" in home, f"the home page does not link chapter {c.id}"
            assert (site / "slides" / f"{stem}.slides.html").exists()
            student = B.binder_url(f"notebooks/{stem}.ipynb", B.student_repository)
            assert student.replace("&", "&amp;") in page.read_text(), (
                f"chapter {c.id}: no Binder link to the student version"
            )
            assert re.search(
                r'href="[^"]*_downloads/[^"]*' + re.escape(stem) + r'\.ipynb"', page.read_text()
            ), f"chapter {c.id}: no download link"
        else:
            assert not page.exists(), f"planned chapter {c.id} has a page"
    for name in ("course-map.html", "instructor-guide.html", "search.html", "searchindex.js"):
        assert (site / name).exists(), name
    # the manuals of docs/ (the command-line reference, grading, security, design, ...)
    from kmlteach.course.site import PUBLISHED_DOCS

    for doc in PUBLISHED_DOCS:
        page = site / (Path(doc).stem + ".html")
        assert page.exists(), f"docs/{doc} has no page"
        assert f'href="{page.name}' in home, f"the home page does not link docs/{doc}"


def test_widgets_are_static_snapshots_with_alt_text(site):
    for c in READY:
        text = (site / "notebooks" / f"{Path(c.notebook).stem}.html").read_text(encoding="utf-8")
        assert "application/vnd.jupyter.widget" not in text, f"chapter {c.id} still has widget views"
        imgs = re.findall(r"<img[^>]*>", text)
        assert imgs and all(re.search(r'alt="[^"]{10,}"', i) for i in imgs), (
            f"chapter {c.id}: image without alt"
        )
        nb = json.loads((ROOT / c.notebook).read_text(encoding="utf-8"))
        n_widgets = sum(
            "application/vnd.jupyter.widget-view+json" in (o.get("data") or {})
            for cell in nb["cells"]
            for o in cell.get("outputs", [])
        )
        assert text.count("static snapshot of an interactive widget") >= n_widgets


def test_nothing_is_loaded_from_the_network(site):
    for page in _pages(site):
        text = page.read_text(encoding="utf-8")
        remote = [r for r in re.findall(r'<(?:script|img|iframe)[^>]+src="((?:https?:)?//[^"]+)"', text)]
        remote += [
            h
            for h in re.findall(r'<link[^>]+href="((?:https?:)?//[^"]+)"', text)
            if "stylesheet" in text[text.find(h) - 200 : text.find(h)]
        ]
        assert not remote, f"{page.relative_to(site)} loads {remote[:3]}"
    assert (site / "mathjax" / "tex-svg-full.js").exists()


# -- links ----------------------------------------------------------------------------


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for key in ("id", "name") if tag in ("a",) else ("id",):
            if a.get(key):
                self.ids.add(a[key])
        for key in ("href", "src"):
            if a.get(key) and tag in ("a", "link", "script", "img", "iframe", "source"):
                self.links.append(a[key])


def _parse(path: Path) -> _Links:
    p = _Links()
    p.feed(path.read_text(encoding="utf-8", errors="replace"))
    return p


def test_internal_links_and_anchors_resolve(site):
    parsed = {p: _parse(p) for p in _pages(site)}
    broken = []
    n = 0
    for page, info in parsed.items():
        for link in info.links:
            url = urllib.parse.urlsplit(link)
            if url.scheme or link.startswith("//") or link.startswith("javascript:"):
                continue
            n += 1
            target = page if not url.path else (page.parent / urllib.parse.unquote(url.path)).resolve()
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                broken.append(f"{page.relative_to(site)} -> {link}")
                continue
            frag = url.fragment
            if frag and not frag.startswith("/") and target.suffix == ".html":
                ids = parsed[target].ids if target in parsed else _parse(target).ids
                # browsers try the fragment as written, then percent-decoded (HTML spec)
                if frag not in ids and urllib.parse.unquote(frag) not in ids:
                    broken.append(f"{page.relative_to(site)} -> {link} (no anchor)")
    assert n > 200, f"only {n} internal links found: is the crawler looking at the site?"
    assert not broken, f"{len(broken)} broken internal links:\n" + "\n".join(broken[:30])


def _linkchecker(start: Path) -> tuple[int, str]:
    """LinkChecker (the ``site`` extra) over the local files from ``start``: intern URLs
    only (no network), one CSV row per broken link."""
    import subprocess
    import sys

    pytest.importorskip("linkcheck")
    exe = Path(sys.executable).parent / "linkchecker"
    # as root LinkChecker becomes user `nobody` (keeping group root): the tree must be
    # readable by group and others (mkdtemp and pytest make their folders 0700)
    for p in [start.parent, *start.parent.rglob("*")]:
        p.chmod(p.stat().st_mode | (0o055 if p.is_dir() else 0o044))
    for p in start.parents:
        if p == Path(tempfile.gettempdir()):
            break
        p.chmod(p.stat().st_mode | 0o055)
    r = subprocess.run(
        [str(exe), "--no-status", "--no-warnings", "-o", "csv", str(start)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    rows = [ln for ln in r.stdout.splitlines() if ln and not ln.startswith("#")]
    return r.returncode, "\n".join(rows[1:])  # without the CSV header


def test_linkchecker_finds_no_broken_link(site):
    # the check fires: a page with a missing target is reported
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "index.html").write_text('<a href="here.html">ok</a> <a href="gone.html">bad</a>')
        (Path(tmp) / "here.html").write_text("<p>here</p>")
        code, broken = _linkchecker(Path(tmp) / "index.html")
    assert code == 1 and "gone.html" in broken and "here.html" not in broken, broken
    code, broken = _linkchecker(site / "index.html")
    assert code == 0 and not broken, f"LinkChecker found broken links:\n{broken}"


# -- no solutions ---------------------------------------------------------------------


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def _solution_lines() -> set[str]:
    """Lines written between the solution markers of the instructor notebooks, minus
    lines that also occur outside any solution (imports, ``return w``)."""
    inside, outside = set(), set()
    for c in READY:
        nb = json.loads((ROOT / c.notebook).read_text(encoding="utf-8"))
        for cell in nb["cells"]:
            src = "".join(cell["source"])
            flag = False
            for line in src.splitlines():
                s = line.strip()
                if s.startswith(BEGIN):
                    flag = True
                    continue
                if s.startswith(END):
                    flag = False
                    continue
                (inside if flag else outside).add(_norm(s))
    from kmlteach.exercises import registry

    for ex in registry().values():
        inside.update(_norm(ln.strip()) for ln in (ex.solution or "").splitlines())
    return {s for s in inside - outside if len(s) >= 14 and not s.startswith("#")}


def _site_text(path: Path) -> str:
    raw = path.read_text(encoding="utf-8", errors="replace")
    raw = re.sub(r"data:image/[a-z]+;base64,[A-Za-z0-9+/=]+", "", raw)
    if path.suffix == ".html":
        raw = html.unescape(re.sub(r"<[^>]+>", "", raw))
    elif path.suffix in (".ipynb", ".json", ".js"):
        raw = raw.replace('\\"', '"').replace("\\n", "\n")
    return _norm(raw)


def test_no_solution_line_appears_anywhere_on_the_site(site):
    lines = _solution_lines()
    assert len(lines) > 30, "too few solution lines collected"
    # the check fires where solutions are: the instructor notebooks' own text
    instructor = " ".join(_site_text(ROOT / c.notebook) for c in READY)
    hits = [s for s in lines if s in instructor]
    assert len(hits) > 0.5 * len(lines)
    leaks = []
    for path in site.rglob("*"):
        if (
            path.is_file()
            and path.suffix in (".html", ".ipynb", ".js", ".txt", ".md", ".json")
            and "mathjax" not in path.parts
            and "_vendor" not in path.parts
        ):
            text = _site_text(path)
            leaks += [f"{path.relative_to(site)}: {s}" for s in lines if s in text]
    assert not leaks, "solution text on the site:\n" + "\n".join(leaks[:20])
    # the markers themselves: only the manuals that explain them (releasing.md) may name them
    from kmlteach.course.site import PUBLISHED_DOCS

    manuals = {Path(d).stem + ".html" for d in PUBLISHED_DOCS}
    pages = [p for p in site.rglob("*.html") if p.name not in manuals or p.parent != site]
    assert "BEGIN SOLUTION" not in "".join(_site_text(p) for p in pages)


# -- the browser: math and accessibility ---------------------------------------------


@contextlib.contextmanager
def serve(root: Path):
    """Serve ``root`` over HTTP on 127.0.0.1 (a free port) while the block runs."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(root)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


# axe's colour-contrast rule costs ~1-3 ms per element that carries text (a background
# stack per element): 15-20 s of the ~20 s axe spends on a chapter page, whose 4 000-6 000
# text elements are mostly syntax-highlighted code tokens and MathJax's hidden MathML. The
# verdict depends only on the element's own colour, size, weight, shadow and opacity, on
# what is painted behind it and on whether it is visible; elements alike in all of these
# get the same verdict. So every page gets every other rule on the whole page, and the
# contrast rule on one representative of each such class (the first one, marked
# ``data-kml-contrast``): a few hundred elements instead of thousands. The shortcut is
# checked against axe's own full scan in test_contrast_representatives_find_what_axe_finds.
JS_CONTRAST_REPRESENTATIVES = """() => {
  const seen = new Set();
  let texts = 0, reps = 0;
  for (const el of document.body.querySelectorAll('*')) {
    if (![...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim())) continue;
    texts++;
    const cs = getComputedStyle(el), r = el.getBoundingClientRect();
    const key = [cs.color, cs.fontSize, cs.fontWeight, cs.textShadow, cs.visibility, cs.display,
                 r.width < 2 || r.height < 2];
    let opacity = 1;
    for (let a = el; a && a !== document.documentElement; a = a.parentElement) {
      const s = getComputedStyle(a);
      opacity *= parseFloat(s.opacity);
      if (s.backgroundColor !== 'rgba(0, 0, 0, 0)' || s.backgroundImage !== 'none')
        key.push(s.backgroundColor, s.backgroundImage);
      if (s.clip !== 'auto' || s.clipPath !== 'none' || s.position === 'fixed' || s.position === 'sticky')
        key.push(s.clip, s.clipPath, s.position);
    }
    key.push(opacity);
    const k = JSON.stringify(key);
    if (!seen.has(k)) { seen.add(k); el.setAttribute('data-kml-contrast', ''); reps++; }
  }
  return [texts, reps];
}"""


def _axe_violations(page, axe) -> list[dict]:
    """Every axe rule on ``page``, in one run: colour contrast on the representatives only
    (see above; ``axe.configure`` narrows the rule's selector, so the layout grid axe builds
    for its background lookups is built once per page, not once per rule set)."""
    texts, reps = page.evaluate(JS_CONTRAST_REPRESENTATIVES)
    assert texts == 0 or reps > 0
    page.evaluate(axe.axe_script)
    page.evaluate("axe.configure({rules: [{id: 'color-contrast', selector: '[data-kml-contrast]'}]})")
    return page.evaluate("axe.run(document, {resultTypes: ['violations']})")["violations"]


def _axe_scan(site: Path, pages: list[Path]) -> None:
    from axe_playwright_python.sync_playwright import Axe
    from playwright.sync_api import sync_playwright

    axe = Axe()
    found, errors = [], []
    with sync_playwright() as p, serve(site) as base:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on(
            "requestfailed",
            lambda r: (
                errors.append(f"request failed: {r.url} {r.failure}")
                if "ERR_ABORTED" not in (r.failure or "")
                else None
            ),
        )
        for path in pages:
            page.goto(f"{base}/{path.relative_to(site).as_posix()}")
            page.wait_for_load_state("load")
            if "notebooks" in path.parts:
                page.wait_for_function(
                    "window.MathJax && MathJax.startup && MathJax.startup.document", timeout=30000
                )
                page.evaluate("MathJax.startup.promise")
                assert page.locator("mjx-container").count() > 5, f"{path.name}: no rendered math"
            for v in _axe_violations(page, axe):
                if v["impact"] in ("serious", "critical"):
                    node = v["nodes"][0]
                    found.append(
                        f"{path.relative_to(site)}: {v['id']} ({v['impact']}) {len(v['nodes'])}x, "
                        f"e.g. {node['target']}: {node.get('failureSummary', '')[:160]}"
                    )
        browser.close()
    assert not errors, errors[:5]
    assert not found, "axe violations:\n" + "\n".join(found)


_needs_chromium = pytest.mark.skipif(
    not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is absent (apt-get install chromium)"
)


@pytest.mark.browser
@_needs_chromium
def test_axe_home_map_guide_and_first_chapter(site):
    """axe-core (1-4 s per page): the generated pages and one chapter page, with math rendered."""
    pages = [
        site / "index.html",
        site / "course-map.html",
        site / "instructor-guide.html",
        site / "search.html",
        site / "notebooks" / f"{Path(READY[1].notebook).stem}.html",
    ]
    _axe_scan(site, pages)


@pytest.mark.slow
@pytest.mark.browser
@_needs_chromium
def test_axe_every_other_chapter_page_and_the_manuals(site):
    from kmlteach.course.site import PUBLISHED_DOCS

    pages = [site / "notebooks" / f"{Path(c.notebook).stem}.html" for c in READY if c is not READY[1]]
    pages += [site / (Path(d).stem + ".html") for d in PUBLISHED_DOCS]
    _axe_scan(site, pages)


@pytest.mark.browser
@_needs_chromium
def test_search_works_offline(site):
    """The search page finds a chapter from the local index, with every non-local request blocked."""
    from playwright.sync_api import sync_playwright

    outside = []
    with sync_playwright() as p, serve(site) as base:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        page = browser.new_page()
        page.route(
            lambda url: not url.startswith(base),
            lambda route: (outside.append(route.request.url), route.abort()),
        )
        page.goto(f"{base}/search.html?q=perceptron")
        page.wait_for_function(
            "document.querySelectorAll('#search-results li, ul.search li').length > 0", timeout=30000
        )
        links = page.eval_on_selector_all(
            "#search-results li a, ul.search li a", "els => els.map(e => e.href)"
        )
        browser.close()
    assert any("01-svm" in h for h in links), links[:5]
    assert not outside, f"the search page asked the network for {outside[:3]}"


CONTRAST_SPECIMEN = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>specimen</title>
<style>body{font:16px sans-serif;background:#fff} .k{color:#333} .faint{color:#bbb} .dark{background:#222;padding:4px}
.hid{position:absolute;clip:rect(1px,1px,1px,1px);width:1px;height:1px;overflow:hidden;color:#ccc}</style></head>
<body><main><h1>Specimen</h1><pre>%s</pre><p>%s</p><div class="dark"><span class="k">dark on dark</span>
<span style="color:#eee">light on dark</span></div><div class="hid"><span>hidden</span></div>
<p><span style="color:#333;opacity:0.3">faded</span> <b style="color:#949494">bold grey</b>
<span style="color:#949494;font-size:30px">large grey</span></p></main></body></html>"""


@pytest.mark.browser
@_needs_chromium
def test_contrast_representatives_find_what_axe_finds(tmp_path):
    """The colour-contrast shortcut flags the same rule failures as axe's full scan on a page
    of many alike code tokens with a few bad ones hidden among them (a faint token in the
    middle of 600 good ones, text on a dark box, a faded span; a hidden one axe ignores)."""
    from axe_playwright_python.sync_playwright import Axe
    from playwright.sync_api import sync_playwright

    tokens = [f'<span class="k">tok{i}</span> ' for i in range(600)]
    tokens[311] = '<span class="faint">faint</span> '
    (tmp_path / "index.html").write_text(CONTRAST_SPECIMEN % ("".join(tokens), "plain text " * 50))
    axe = Axe()
    with sync_playwright() as p, serve(tmp_path) as base:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(f"{base}/index.html")
        full = axe.run(page, options={"resultTypes": ["violations"], "runOnly": ["color-contrast"]})
        texts, reps = page.evaluate(JS_CONTRAST_REPRESENTATIVES)
        ours = [v for v in _axe_violations(page, axe) if v["id"] == "color-contrast"]
        browser.close()
    assert texts > 600 and reps < 20, (texts, reps)
    bad = lambda vs: sorted(n["html"].replace(' data-kml-contrast=""', "") for v in vs for n in v["nodes"])
    expected = bad(full.response["violations"])
    assert len(expected) == 4, expected  # faint token, dark on dark, faded, bold grey
    assert bad(ours) == expected
