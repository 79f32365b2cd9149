"""A notebook opened again shows what to do where its widgets were (walk report 5).

JupyterLab keeps a widget cell's output in the saved notebook but not the widget's model:
opened again with a new kernel, the cell reads "Error displaying widget: model not found".
Every explorer's output is therefore followed by a note ("Run this cell ... to get it back",
:data:`kmlteach.widgets._base.STALE_NOTE_HTML`) that CSS hides while the explorer above it
is alive. Checked here: the outputs an explorer leaves (kernel side), the executed
notebooks, the static site's pages (which drop the note), and in JupyterLab + Chromium:
hidden under a live explorer, shown once the notebook is reopened with a new kernel.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kmlteach.widgets._base import STALE_NOTE_CLASS, STALE_NOTE_HTML

ROOT = Path(__file__).resolve().parent.parent
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def _explorer():
    from kmlteach.datasets import separable
    from kmlteach.widgets.welcome import make_angle_demo

    X, y = separable(m=30, d=2, margin=0.6, seed=0)
    return make_angle_demo(X * 2.5, y)


def test_an_explorer_shows_itself_then_the_note(monkeypatch):
    import IPython.display

    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, raw=False, **k: shown.append((obj, raw)))
    ex = _explorer()
    ex._ipython_display_()
    assert [raw for _, raw in shown] == [True, True]
    (view, note) = (obj for obj, _ in shown)
    assert view[WIDGET_VIEW]["model_id"] == ex.model_id
    assert set(note) == {"text/html"} and STALE_NOTE_CLASS in note["text/html"]
    assert "Run this cell" in note["text/html"]
    # hidden only under a live explorer: the rule needs the explorer's own class before it
    assert (
        f".jp-OutputArea-child:has(.kml-explorer) + .jp-OutputArea-child .{STALE_NOTE_CLASS}"
        in STALE_NOTE_HTML
    )
    assert "kml-explorer" in ex._dom_classes


def _explorer_models(nb: dict) -> set[str]:
    state = nb.get("metadata", {}).get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {})
    return {
        mid
        for mid, m in state.get("state", {}).items()
        if "kml-explorer" in (m.get("state", {}).get("_dom_classes") or [])
    }


@pytest.mark.parametrize(
    "path", sorted((ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb")), ids=lambda p: p.stem
)
def test_every_explorer_output_of_the_executed_notebooks_is_followed_by_the_note(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    explorers = _explorer_models(nb)
    seen = 0
    for cell in nb["cells"]:
        outs = cell.get("outputs", []) if cell["cell_type"] == "code" else []
        for i, out in enumerate(outs):
            view = (out.get("data") or {}).get(WIDGET_VIEW)
            if view and view["model_id"] in explorers:
                seen += 1
                nxt = outs[i + 1] if i + 1 < len(outs) else {}
                assert STALE_NOTE_CLASS in str((nxt.get("data") or {}).get("text/html", "")), (
                    f"{path.name}: the explorer output of cell {cell.get('id')} has no note after it"
                )
    assert seen or not explorers


def test_the_site_drops_the_note():
    from kmlteach.course._widget_snapshot import replace_widget_views

    nb = json.loads((ROOT / "notebooks" / "00-welcome.ipynb").read_text(encoding="utf-8"))
    assert STALE_NOTE_CLASS in json.dumps(nb["cells"])
    replace_widget_views(nb)
    assert STALE_NOTE_CLASS not in json.dumps(nb["cells"])


# --- in JupyterLab ---------------------------------------------------------------------

CELL = """from kmlteach.datasets import separable
from kmlteach.widgets.welcome import make_angle_demo

X, y = separable(m=30, d=2, margin=0.6, seed=0)
make_angle_demo(X, y)"""

JS_NOTE_SHOWN = f"""() => {{
  const n = document.querySelector('.jp-Notebook .{STALE_NOTE_CLASS}');
  return n ? (n.offsetParent !== null && n.getBoundingClientRect().height > 0) : null;
}}"""


@pytest.mark.skipif(not Path("/usr/bin/chromium").exists(), reason="needs /usr/bin/chromium")
def test_the_note_shows_only_when_the_widget_is_gone(tmp_path):
    from playwright.sync_api import sync_playwright
    from test_browser import CHROMIUM, CHROMIUM_ARGS, JS_ALL_RAN, JS_CLOSE, JS_SHOWS, JupyterLab

    root = tmp_path / "root"
    root.mkdir()
    nb = {
        "cells": [
            {
                "cell_type": "code",
                "id": "c1",
                "metadata": {},
                "source": CELL,
                "outputs": [],
                "execution_count": None,
            }
        ],
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (root / "w.ipynb").write_text(json.dumps(nb))
    server = JupyterLab(tmp_path, root)
    server.start()
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.set_default_timeout(90_000)
            page.goto(
                f"{server.url}/lab/tree/w.ipynb?reset&token={server.token}", wait_until="domcontentloaded"
            )
            page.wait_for_function(JS_SHOWS, arg="w.ipynb")
            page.wait_for_function(
                "() => { const w = window.jupyterapp.shell.currentWidget; const k = w && w.sessionContext"
                " && w.sessionContext.session && w.sessionContext.session.kernel; return !!k && k.status === 'idle'; }"
            )
            page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
            page.wait_for_function(JS_ALL_RAN, polling=100)
            page.wait_for_selector(".jp-Notebook .kml-explorer img", state="visible")
            page.wait_for_function(f"() => !!document.querySelector('.jp-Notebook .{STALE_NOTE_CLASS}')")
            assert page.evaluate(JS_NOTE_SHOWN) is False, "the note shows under a live widget"
            page.screenshot(path=str(tmp_path / "live.png"))
            page.evaluate("() => window.jupyterapp.commands.execute('docmanager:save')")
            page.wait_for_function(
                "() => !window.jupyterapp.shell.currentWidget.context.model.dirty", polling=100
            )
            page.evaluate(JS_CLOSE)  # the kernel shut down, the panel gone: the models with them
            page.evaluate(
                "() => { window.jupyterapp.commands.execute('docmanager:open', {path: 'w.ipynb'}); }"
            )
            page.wait_for_function(JS_SHOWS, arg="w.ipynb")
            page.wait_for_function(
                "() => /model not found/.test(document.querySelector('.jp-Notebook').textContent)",
                polling=200,
            )
            assert page.query_selector(".jp-Notebook .kml-explorer") is None
            page.wait_for_function(JS_NOTE_SHOWN, polling=100)
            text = page.inner_text(f".jp-Notebook .{STALE_NOTE_CLASS}")
            assert "Run this cell" in text, text
            page.screenshot(path=str(tmp_path / "reopened.png"))
            # run again: the widget is back and the note hidden again
            page.wait_for_function(
                "() => { const w = window.jupyterapp.shell.currentWidget; const k = w && w.sessionContext"
                " && w.sessionContext.session && w.sessionContext.session.kernel; return !!k && k.status === 'idle'; }"
            )
            page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
            page.wait_for_selector(".jp-Notebook .kml-explorer img", state="visible")
            page.wait_for_function(f"() => !!document.querySelector('.jp-Notebook .{STALE_NOTE_CLASS}')")
            assert page.evaluate(JS_NOTE_SHOWN) is False
            assert not errors, errors
            browser.close()
    finally:
        server.stop()
        for name in ("live.png", "reopened.png"):
            if (tmp_path / name).exists():
                (ROOT / "tests" / "_artifacts").mkdir(exist_ok=True)
                (ROOT / "tests" / "_artifacts" / f"reopened-widget-{name}").write_bytes(
                    (tmp_path / name).read_bytes()
                )
