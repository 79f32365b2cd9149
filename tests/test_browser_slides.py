"""Live lecture mode: a chapter notebook shown with jupyterlab-rise, its widget live.

``jupyterlab-rise`` is a runtime dependency, so ``make lab`` and Binder offer "Render
as Reveal Slideshow" (command ``RISE:preview``, the toolbar button) and "Open as Reveal
Slideshow" (``RISE:slideshow``, a new browser tab served by the RISE server extension
at ``/rise/<path>``). This test uses the JupyterLab harness of ``test_browser.py``
(isolated config, Debian's Chromium): it opens a copy of chapter 01 cut after the λ
explorer, runs its cells in JupyterLab, selects the widget cell, executes
``RISE:slideshow`` and, in the slideshow tab it opens, checks that

* reveal.js shows the widget's slide (the slide holding the active cell);
* the explorer's figure is a live ``<img>`` of the widget (not a stored snapshot), and a
  click on its slider brings a new figure and a new readout from the kernel (a click, not
  a key: RISE binds the arrow keys to slide navigation, even on a focused slider);
* no JavaScript error reached either console, except the three that jupyterlab-rise
  0.43.1 raises whatever the notebook (``UPSTREAM_RISE_ERRORS``); failed requests to the
  network are reported separately: the sandbox has no network and RISE's MathJax 2
  default is a CDN URL.

The widgets are live in RISE thanks to the kmlteach-rise-shim extension
(jupyter/rise-shim/, installed by ``pip install -e .``): RISE's app does not share
``@jupyterlab/console``, which ipywidgets' widget manager consumes (jupyterlab-contrib/rise#119);
without the shim every widget shows as its text repr and this test fails on ``live``.

A screenshot of the live slide goes to ``tests/_artifacts/rise-01-lambda.png``.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest
from test_browser import CHROMIUM, CHROMIUM_ARGS, JS_ALL_RAN, JS_APP_READY, JS_KERNEL_IDLE, JupyterLab

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "tests" / "_artifacts"
NOTEBOOK, MARKER, EXPLORER = "01-svm", "make_lambda_explorer(", "kml-lambda-explorer"
RISE_COMMAND = "RISE:slideshow"  # jupyterlab-rise 0.43: labextensions/jupyterlab-rise/static/*.js

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is absent (apt-get install chromium)"
    ),
]


# JavaScript errors that jupyterlab-rise 0.43.1's slideshow app raises with or without the
# course's widgets (checked with the shim removed), none of them from a widget:
# * a recursion in the design tokens of the app's web components (colorContrast; the app
#   loads no JupyterLab theme): "RangeError: Maximum call stack size exceeded", every
#   frame in RISE's own bundle (/static/rise/);
# * the app loads every installed extension, including Notebook 7's JupyterLab extension,
#   which consumes @jupyterlab/docregistry, a module the app does not share (RUNTIME-012),
# * and nbgrader's, which then fails on that extension's INotebookShell;
# * depending on which chunk loads first, the Notebook 7 extension's failure shows instead
#   as its own module read before initialisation (INotebookPathOpener), every frame in
#   that extension or RISE's bundle (seen once in CI, 1 run in 3).
# Neither extension has anything to do in a slideshow.
def upstream_rise_error(text: str, stack: str) -> bool:
    if text.startswith("RangeError: Maximum call stack size exceeded"):
        frames = re.findall(r"https?://[^/\s]+(/[^\s:)]+)", stack)
        return bool(frames) and all(f.startswith("/static/rise/") for f in frames)
    if "#RUNTIME-012" in text and '"shareKey":"@jupyterlab/docregistry"' in text:
        return "/@jupyter-notebook/lab-extension/" in text + stack
    if "before initialization" in text and "at Module.INotebookShell" in text:
        return "/@jupyter/nbgrader/" in text + stack
    if (
        text.startswith("ReferenceError: ")
        and "before initialization" in text
        and "at Module.INotebookPathOpener" in text
    ):
        frames = re.findall(r"https?://[^/\s]+(/[^\s:)?]+)", text + "\n" + stack)
        return bool(frames) and all(
            f.startswith(("/lab/extensions/@jupyter-notebook/lab-extension/", "/static/rise/"))
            for f in frames
        )
    return False


def _console_error(msg) -> tuple[str, str]:
    """A console error's text and, when it logs an Error object, that object's stack."""
    stack = ""
    try:
        if msg.args:
            stack = msg.args[0].evaluate("e => (e && e.stack) ? String(e.stack) : ''") or ""
    except Exception:  # the page navigated or closed meanwhile
        pass
    return msg.text, stack


JS_SELECT_WIDGET_CELL = """(marker) => {
  const panel = window.jupyterapp.shell.currentWidget, nb = panel.content;
  const k = nb.widgets.findIndex(c => c.model.type === 'code' && c.model.sharedModel.getSource().includes(marker));
  nb.activeCellIndex = k;
  return k;
}"""

JS_RISE_STATE = """(cls) => {
  const slide = document.querySelector('.reveal .slides section.present section.present')
                || document.querySelector('.reveal .slides section.present');
  const ex = slide && slide.querySelector('.' + cls);
  const img = ex && ex.querySelector('img');
  const readout = ex && ex.querySelector('.kml-readout');
  const r = img && img.getBoundingClientRect();
  return {indices: location.hash, has_explorer: !!ex,
          src: img ? img.getAttribute('src') : null,
          loaded: !!(img && img.complete && img.naturalWidth > 0),
          visible: !!(r && r.width > 100 && r.height > 100 && r.top >= 0 && r.bottom <= window.innerHeight + 1),
          readout: readout ? readout.innerText : null};
}"""


def small_notebook(src: Path, dst: Path, marker: str) -> None:
    """``src``'s Markdown up to the first cell calling ``marker``, then that cell alone (it
    imports its own builder): the slides keep their structure and the kernel runs one cell."""
    import nbformat

    nb = nbformat.read(src, as_version=4)
    k = next(i for i, c in enumerate(nb.cells) if c.cell_type == "code" and marker in c.source)
    nb.cells = [c for c in nb.cells[:k] if c.cell_type == "markdown"] + [nb.cells[k]]
    nb.cells[-1].outputs, nb.cells[-1].execution_count = [], None
    nb.metadata.pop("widgets", None)
    dst.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, dst)


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    base = tmp_path_factory.mktemp("rise")
    small_notebook(
        ROOT / "notebooks" / f"{NOTEBOOK}.ipynb", base / "root" / "notebooks" / f"{NOTEBOOK}.ipynb", MARKER
    )
    server = JupyterLab(base, base / "root")
    try:
        server.start()
        yield server
    finally:
        server.stop()


# The last cell's output area in the slideshow: the live explorer, or what stands in its place.
JS_WIDGET_OUTPUT = """(cls) => {
  const areas = document.querySelectorAll('.jp-Cell .jp-OutputArea');
  const area = areas[areas.length - 1];
  if (!area || !area.innerText.trim()) return null;
  const ex = area.querySelector('.' + cls);
  return {live: !!(ex && ex.querySelector('img') && ex.querySelector('img').naturalWidth > 0),
          text: area.innerText.slice(0, 120)};
}"""

JS_PRESENT = """(cls) => {
  const s = document.querySelector('.reveal .slides section.present section.present')
            || document.querySelector('.reveal .slides section.present');
  return !!(s && s.querySelector('.' + cls));
}"""


def test_rise_slideshow_shows_the_widget_live(lab):
    from playwright.sync_api import sync_playwright

    errors: list[tuple[str, str]] = []  # (text, stack)
    shot = ARTIFACTS / "rise-01-lambda.png"
    shot.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1280, "height": 720})
        context.on(
            "page",
            lambda p: (
                p.on("console", lambda m: errors.append(_console_error(m)) if m.type == "error" else None),
                p.on("pageerror", lambda e: errors.append((str(e), e.stack or ""))),
            ),
        )
        page = context.new_page()
        page.set_default_timeout(30_000)
        try:
            page.goto(
                f"{lab.url}/lab/tree/notebooks/{NOTEBOOK}.ipynb?reset&token={lab.token}",
                wait_until="domcontentloaded",
            )
            page.wait_for_function(JS_APP_READY, timeout=60_000)
            page.wait_for_function(JS_KERNEL_IDLE, timeout=60_000, polling=250)
            page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
            page.wait_for_timeout(300)
            page.wait_for_function(JS_ALL_RAN, timeout=60_000, polling=250)
            assert page.evaluate(JS_SELECT_WIDGET_CELL, MARKER) >= 0
            commands = page.evaluate("() => window.jupyterapp.commands.listCommands()")
            assert RISE_COMMAND in commands, "jupyterlab-rise is not installed in this Lab"
            with context.expect_page(timeout=30_000) as popup:  # the command opens a new tab
                page.evaluate(f"() => window.jupyterapp.commands.execute('{RISE_COMMAND}')")
            rise = popup.value
            rise.set_default_timeout(30_000)
            assert "/rise/notebooks/" in rise.url, rise.url
            rise.wait_for_function(JS_WIDGET_OUTPUT, arg=EXPLORER, polling=250)
            rise.wait_for_function(
                f"() => {{ const o = ({JS_WIDGET_OUTPUT})('{EXPLORER}');"
                " return o && !o.text.includes('Loading widget'); }",
                polling=250,
            )
            out = rise.evaluate(JS_WIDGET_OUTPUT, EXPLORER)
            assert out["live"], f"the widget is not live on the slide; the output shows {out['text']!r}"
            # the slideshow opens on the first slide: step forward to the widget's slide
            for _ in range(60):
                if rise.evaluate(JS_PRESENT, EXPLORER):
                    break
                rise.keyboard.press("Space")
                rise.wait_for_timeout(60)
            assert rise.evaluate(JS_PRESENT, EXPLORER), "never reached the widget's slide"
            before = rise.evaluate(JS_RISE_STATE, EXPLORER)
            assert before["visible"], "the explorer's figure is not inside the window"
            # a click at 80 % of the slider's track: λ jumps up (RISE takes the arrow keys)
            track = rise.locator(f".{EXPLORER} .widget-slider .noUi-base").first.bounding_box()
            rise.mouse.click(track["x"] + 0.8 * track["width"], track["y"] + track["height"] / 2)
            rise.wait_for_function(
                f"(src) => {{ const s = ({JS_RISE_STATE})('{EXPLORER}');"
                " return s && s.src !== src && s.loaded; }",
                arg=before["src"],
                polling=50,
            )
            rise.wait_for_timeout(300)
            after = rise.evaluate(JS_RISE_STATE, EXPLORER)
            rise.screenshot(path=str(shot))
        except Exception as exc:
            for k, p in enumerate(context.pages):
                try:
                    p.screenshot(path=str(shot.with_name(f"rise-failure-{k}.png")))
                except Exception:
                    pass
            raise AssertionError(f"{exc}\nJavaScript errors: {[t for t, _ in errors][:5]}") from exc
        finally:
            browser.close()
    print(f"RISE live slide: {time.monotonic() - t0:.1f} s; slide {before['indices']}")
    assert after["src"] != before["src"], "the figure did not change on the click"
    assert after["readout"] != before["readout"], f"the readout did not change: {after['readout']!r}"
    # the sandbox has no network (the Binder badge), and RISE asks for <notebook>.css / rise.css
    # beside the notebook (optional per-deck styles): missing files, not JavaScript errors
    js_errors = [
        t
        for t, stack in errors
        if not t.startswith(("Failed to load resource:", "Refused to apply style"))
        and not upstream_rise_error(t, stack)
    ]
    assert not js_errors, f"JavaScript errors: {js_errors[:5]}"


def test_only_rise_s_own_errors_are_exempt():
    rise = "http://127.0.0.1:8888/static/rise/4437.bundle.js:467:3874"
    manager = "http://127.0.0.1:8888/lab/extensions/@jupyter-widgets/jupyterlab-manager/static/remoteEntry.c8.js:1:13"
    overflow = "RangeError: Maximum call stack size exceeded"
    assert upstream_rise_error(
        overflow, f"{overflow}\n    at si.getValueFor ({rise})\n    at Set.forEach (<anonymous>)"
    )
    assert not upstream_rise_error(overflow, f"{overflow}\n    at a ({manager})\n    at b ({rise})")
    assert not upstream_rise_error(overflow, "")  # no stack: not known to be RISE's
    nb7 = (
        "Error: The getter for the shared module is not a function. #RUNTIME-012\nargs: "
        '{"shareKey":"@jupyterlab/docregistry"}\n    at http://h/lab/extensions/@jupyter-notebook/lab-extension/static/r.js:5:7'
    )
    assert upstream_rise_error(nb7, "")
    assert not upstream_rise_error(nb7.replace("docregistry", "console"), "")
    assert not upstream_rise_error(
        nb7.replace("@jupyter-notebook/lab-extension", "@jupyter-widgets/jupyterlab-manager"), ""
    )
    nbgrader = (
        "ReferenceError: Cannot access 'y' before initialization\n    at Module.INotebookShell "
        "(http://h/lab/extensions/@jupyter-notebook/lab-extension/static/148.js:1:200)\n"
        "    at 296 (http://h/lab/extensions/@jupyter/nbgrader/static/161.js:9:21580)"
    )
    assert upstream_rise_error(nbgrader, "")
    nb7_order = (
        "ReferenceError: Cannot access 'x' before initialization\n    at Module.INotebookPathOpener "
        "(http://h/lab/extensions/@jupyter-notebook/lab-extension/static/148.6f.js?v=6f:1:179)\n"
        "    at 8509 (http://h/lab/extensions/@jupyter-notebook/lab-extension/static/590.02.js?v=02:1:680)\n"
        "    at t (http://h/static/rise/483.bundle.js:1:234)"
    )
    assert upstream_rise_error(nb7_order, "")
    assert not upstream_rise_error(
        nb7_order.replace(
            "@jupyter-notebook/lab-extension/static/590", "@jupyter-widgets/jupyterlab-manager/static/590"
        ),
        "",
    )
    assert not upstream_rise_error(nb7_order + f"\n    at a ({manager})", "")
    # the failure the shim fixes is never exempt
    assert not upstream_rise_error(
        f"Error: Shared module @jupyterlab/console doesn't exist in shared scope default\n"
        f"    at a ({manager})",
        "",
    )
    assert not upstream_rise_error(
        "Plugin 'ipyevents' failed to activate. TypeError: No provider for: "
        "jupyter.extensions.jupyterWidgetRegistry.",
        "",
    )
