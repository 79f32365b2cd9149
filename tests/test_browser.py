"""End to end in a real browser: JupyterLab + Debian's Chromium driven by Playwright.

One JupyterLab server (127.0.0.1, free port, random token, every Jupyter/IPython/
matplotlib directory isolated in a temp dir; the venv's ``share/jupyter`` still
provides the ipywidgets and ipyevents lab extensions) and one Chromium page serve every
case: JupyterLab is loaded once and each chapter's notebook opened in turn (both cases
of chapter 01 share one run). The notebook is a *copy* (nothing in the repository can be
autosaved over) holding the chapter's text up to the widget and, of its code, the widget's
cell and the cells it needs (an ``ast`` slice; nbval runs every cell of every notebook
elsewhere). The test clears and runs its cells, then performs the real gesture — a mouse
drag on the figure, arrow keys on a focused slider, clicks on a curve — one input at a
time, and checks that

* the readout (the widget's state) and the ``<img src>`` (the figure) changed as the
  gesture implies;
* no JavaScript error reached the console;
* the end-to-end latency, from the input event (a capturing DOM listener's
  ``performance.now()``) to the new figure on screen (its ``src`` changed — a
  MutationObserver —, the PNG decoded and the next frame produced), is measured without
  polling the page (a promise resolves when it is there) and recorded against the
  ``E2E_P50_MS`` target (80 ms p50), with the input → ``src`` time beside it. It is not
  asserted: the course measures speed in ``make bench``, never in timed tests (a timed
  assertion fails on any busy runner and says nothing about correctness).

The prediction modes (guess, then *Reveal*) are walked in every chapter by
``tests/test_journey.py``'s *predict* step, with the real controls and stricter checks (scored
once, a second press scores nothing, a new question does not score the old guess).

Latencies go to ``tests/_artifacts/browser_latency.json`` (``make bench`` reports
them) and a screenshot per case to ``tests/_artifacts/jupyterlab-<case>.png``
(git-ignored). Pixel positions of the gestures come from building the same widget
in the test process (``ex.drag.event`` maps data coordinates to PNG pixels), scaled
to the ``<img>``'s size on the page.

Hook contract with ``kmlteach.widgets``: every explorer has a DOM class
``kml-<name>``, its readout the class ``kml-readout``, its figure is the ``<img>``
inside it. Never lets Playwright download a browser; skipped only when
``/usr/bin/chromium`` is absent (``.ci/run`` installs it).
"""

from __future__ import annotations

import datetime
import json
import os
import re
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = ROOT / "tests" / "_artifacts"
LATENCY_FILE = ARTIFACTS / "browser_latency.json"
E2E_P50_MS = 80.0
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not os.path.exists(CHROMIUM),
        reason=f"{CHROMIUM} is absent: install Debian's chromium "
        "(apt-get install chromium; .ci/run does) to run the browser test",
    ),
]

# JupyterLab user settings: no virtual scrolling (every cell stays in the DOM), no
# autosave. News and update checks are left to the course's own page config
# (jupyter/labconfig/page_config.json disables the announcements plugin), which is tested.
LAB_SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/docmanager-extension/plugin.jupyterlab-settings": {"autosave": False},
}
DISABLED: dict = {}
# No outside request at all: the chapters link to Binder with text, not a remote badge image.
OUTSIDE_ALLOWED = ()


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class JupyterLab:
    """A JupyterLab server with isolated config/data/runtime dirs, serving ``root_dir``."""

    lab_settings = LAB_SETTINGS

    def __init__(self, base: Path, root_dir: Path):
        self.base = base
        self.root_dir = root_dir
        self.port = _free_port()
        self.token = secrets.token_hex(16)
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = base / "jupyterlab.log"
        self.proc: subprocess.Popen | None = None

    def env(self) -> dict:
        dirs = {
            name: self.base / name.lower()
            for name in (
                "HOME",
                "JUPYTER_CONFIG_DIR",
                "JUPYTER_DATA_DIR",
                "JUPYTER_RUNTIME_DIR",
                "IPYTHONDIR",
                "MPLCONFIGDIR",
                "JUPYTERLAB_SETTINGS_DIR",
                "JUPYTERLAB_WORKSPACES_DIR",
            )
        }
        for d in dirs.values():
            d.mkdir(parents=True, exist_ok=True)
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("JUPYTER", "IPYTHON", "MPL", "PYTEST", "NBVAL"))
        }
        env.update({k: str(v) for k, v in dirs.items()})
        env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
        env["PYTHONHASHSEED"] = "0"
        env.pop("JUPYTER_PATH", None)
        # settings and disabled plugins, in the isolated dirs only
        for name, value in self.lab_settings.items():
            path = dirs["JUPYTERLAB_SETTINGS_DIR"] / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(value))
        labconfig = dirs["JUPYTER_CONFIG_DIR"] / "labconfig"
        labconfig.mkdir(parents=True, exist_ok=True)
        (labconfig / "page_config.json").write_text(json.dumps({"disabledExtensions": DISABLED}))
        return env

    def start(self, timeout: float = 60.0) -> None:
        cmd = [
            sys.executable,
            "-m",
            "jupyterlab",
            "--no-browser",
            "--ip=127.0.0.1",
            f"--port={self.port}",
            "--port-retries=0",
            f"--IdentityProvider.token={self.token}",
            f"--ServerApp.root_dir={self.root_dir}",
            "--LabApp.expose_app_in_browser=True",
            "--allow-root",
        ]
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(
            cmd,
            env=self.env(),
            cwd=self.root_dir,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"JupyterLab exited with {self.proc.returncode}")
            try:
                with urllib.request.urlopen(f"{self.url}/api/status?token={self.token}", timeout=2) as r:
                    if r.status == 200:
                        return
            except OSError:
                pass
            time.sleep(0.3)
        raise RuntimeError(f"JupyterLab did not answer within {timeout:.0f} s")

    def server_log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-8000:]
        except OSError:
            return "(no log)"

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)  # the server shuts its kernels down
            self.proc.wait(timeout=15)
        except (subprocess.TimeoutExpired, ProcessLookupError):
            pass
        finally:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)  # anything left in the group
            except ProcessLookupError:
                pass
            self.proc.wait(timeout=10)
            self.log.close()


JS_APP_READY = (
    "() => !!(window.jupyterapp && window.jupyterapp.shell && window.jupyterapp.shell.currentWidget"
    " && window.jupyterapp.shell.currentWidget.sessionContext)"
)

JS_KERNEL_IDLE = """() => {
  const w = window.jupyterapp.shell.currentWidget;
  const ctx = w && w.sessionContext;
  return !!(ctx && ctx.session && ctx.session.kernel && ctx.session.kernel.status === 'idle');
}"""

JS_ALL_RAN = """() => {
  const w = window.jupyterapp.shell.currentWidget;
  if (!w || !w.content || !w.sessionContext.session) return false;
  const kernel = w.sessionContext.session.kernel;
  if (!kernel || kernel.status !== 'idle') return false;
  const cells = w.content.widgets.filter(c => c.model.type === 'code');
  return cells.length > 0 && cells.every(c => c.model.executionCount !== null
                                          && !c.node.querySelector('.jp-InputArea-prompt')
                                                 .textContent.includes('*'));
}"""

JS_CLEARED = """() => window.jupyterapp.shell.currentWidget.content.widgets
  .filter(c => c.model.type === 'code').every(c => c.model.executionCount === null)"""

JS_ERRORS = """() => Array.from(document.querySelectorAll('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"], .jp-RenderedText[data-mime-type="application/vnd.jupyter.stderr"]'))
  .map(e => e.textContent).filter(t => /Error|Traceback/.test(t)).slice(0, 3)"""

JS_PAGE_CONFIG = """() => {
  const raw = document.getElementById('jupyter-config-data');
  if (!raw) return {extensions: [], disabled: []};
  const cfg = JSON.parse(raw.textContent);
  return {extensions: (cfg.federated_extensions || []).map(e => e.name),
          disabled: cfg.disabledExtensions || []};
}"""


JS_INSTRUMENT = """(img) => {
  const k = window.__kml = {inputs: [], images: [], painted: [], waiters: []};
  for (const t of ['keydown', 'mousedown', 'mousemove'])
    document.addEventListener(t, () => k.inputs.push(performance.now()), true);
  const wake = () => { k.waiters = k.waiters.filter(ready => !ready()); };
  new MutationObserver(() => {
    const t = performance.now(), src = img.src;
    k.images.push(t);
    // on screen: the new PNG decoded, then the first frame after it produced
    const done = () => requestAnimationFrame(() => setTimeout(() => {
      k.painted.push({src_at: t, at: performance.now(), shown: img.src === src});
      wake();
    }, 0));
    img.decode().then(done, done);
  }).observe(img, {attributes: true, attributeFilter: ['src']});
}"""

# Resolves once the first figure whose src changed after image number n is on screen (or a
# later one, when a newer src replaced it before it was painted). A promise, not polling:
# polling (requestAnimationFrame or a 20 ms timer, plus one DevTools call per poll) ran
# JavaScript and produced frames on the page's main thread during the very interval it
# measured (requestAnimationFrame polling: ~90 ms of CPU per second over Chromium's
# processes, read from /proc, on a two-core machine that the kernel shares).
JS_WAIT_PAINTED = """([n, ms]) => new Promise((resolve, reject) => {
  const k = window.__kml;
  const ready = () => {
    const t = k.images[n];
    if (t === undefined || !k.painted.some(p => p.src_at >= t && p.shown)) return false;
    resolve(); return true;
  };
  if (!ready()) {
    k.waiters.push(ready);
    setTimeout(() => reject(new Error(`no new figure on screen within ${ms} ms`)), ms);
  }
})"""


# ---------------------------------------------------------------------------------------
# the cases: one main widget per chapter and the gesture a student would make
# ---------------------------------------------------------------------------------------


def _pixel_path(module: str, builder: str, axes_index: int, path):
    """PNG pixel positions (dataX, dataY) of data points ``path`` on the widget's axes."""
    import importlib

    ex = getattr(importlib.import_module(f"kmlteach.widgets.{module}"), builder)()
    ax = ex.fig.axes[axes_index]
    return [(e["dataX"], e["dataY"]) for e in (ex.drag.event(ax, *p) for p in path)]


def _margin_path():
    from kmlteach.widgets.ch01 import default_margin_points

    X, _ = default_margin_points()
    x0, y0 = X[4]  # a support vector: pulling it away widens the margin
    pts = [(x0 - 0.1 * k, y0 + 0.05 * k) for k in range(7)]
    return _pixel_path("ch01", "make_margin_explorer", 0, pts)


def _ova_path():
    from kmlteach.widgets.ch04 import CLASS2_CENTRE

    cx, cy = CLASS2_CENTRE
    return _pixel_path("ch04", "make_ova_failure", 0, [(cx + 0.2 + 0.3 * k, cy + 0.2 * k) for k in range(7)])


def _ranking_path():
    return _pixel_path(
        "ch06",
        "make_ranking_explorer",
        0,
        [(1, 0.5), (2, 0.5), (3, 0.5), (4, 0.5), (5, 0.5), (4, 0.5), (3, 0.5)],
    )


def _boundary_clicks():
    return _pixel_path("ch02", "make_boundary_explorer", 0, [(-1.4, 2.4 - 0.35 * k) for k in range(6)])


def _pr_clicks():
    from kmlteach import metrics as M
    from kmlteach.plots.ch07 import example_scores

    p, r, thr = M.precision_recall_curve(*example_scores())
    idx = np.linspace(1, len(thr) - 2, 6).round().astype(int)
    return _pixel_path("ch07", "make_pr_explorer", 1, [(r[j], p[j]) for j in idx])


# name: (notebook, the call whose cell ends the cut, DOM class, gesture, path factory); the
# main widgets' calls are written so that they do not match the prediction cell before them
CASES = {
    "00-angle-demo": ("00-welcome", "make_angle_demo(", "kml-angle-demo", "keys", None),
    "01-margin-explorer": ("01-svm", "make_margin_explorer()", "kml-margin-explorer", "drag", _margin_path),
    "01-lambda-explorer": ("01-svm", "make_lambda_explorer(", "kml-lambda-explorer", "keys", None),
    "02-boundary-explorer": (
        "02-kernels",
        "make_boundary_explorer()",
        "kml-boundary-explorer",
        "clicks",
        _boundary_clicks,
    ),
    "03-kpca-explorer": ("03-kernels-rkhs", "make_kpca_explorer()", "kml-kpca-explorer", "keys", None),
    "04-ova-failure": ("04-multiclass", "make_ova_failure()", "kml-ova-failure", "drag", _ova_path),
    "05-viterbi-trace": (
        "05-structured",
        "make_viterbi_trace(chain, ocr_words(10, noise=NOISE, seed=3))",
        "kml-ch05-viterbi",
        "keys",
        1,
    ),
    "06-ranking-explorer": (
        "06-ranking",
        "make_ranking_explorer()",
        "kml-ranking-explorer",
        "drag",
        _ranking_path,
    ),
    "07-pr-explorer": ("07-bipartite", "make_pr_explorer()", "kml-pr-explorer", "clicks", _pr_clicks),
    # 08 and 09 build the widget in the cell of its static figure and show it in the next one
    "08-adaboost-stepper": (
        "08-boosting",
        "NBVAL_IGNORE_OUTPUT\nstepper",
        "kml-adaboost-stepper",
        "keys",
        None,
    ),
    "09-nu-explorer": ("09-theory", "NBVAL_IGNORE_OUTPUT\nnu_view", "kml-nu-explorer", "keys", None),
}


def _names(source: str) -> tuple[set, set]:
    """Names a code cell binds (assignments, imports, defs) and names it reads."""
    import ast

    code = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!")))
    bound, read = set(), set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Name):
            (read if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
    return bound, read


def _calls(cell, marker: str) -> bool:
    return (
        cell.cell_type == "code"
        and marker in cell.source
        and "import" not in cell.source.split(marker)[0].split("\n")[-1]
    )


def cut_notebook(src: Path, dst: Path, markers: list[str]) -> None:
    """Copy ``src`` to ``dst`` up to the last code cell calling one of ``markers``, keeping
    every markdown cell (the chapter as the student reads it) and, of the code cells, the
    widget cells and those that bind a name they read, transitively (an ``ast`` slice).

    nbval runs every cell of every notebook; what this test adds is the widget in the real
    front end. The code cells a widget does not need (static figures, tables, timings)
    only cost kernel time here: running them took 40–70 % of a case."""
    import nbformat

    nb = nbformat.read(src, as_version=4)
    ends = [next((k for k, c in enumerate(nb.cells) if _calls(c, m)), None) for m in markers]
    if None in ends:
        raise AssertionError(f"{src.name}: no code cell calls {markers[ends.index(None)]}")
    cells = nb.cells[: max(ends) + 1]
    keep, need = set(ends), set()
    for k in ends:
        need |= _names(cells[k].source)[1]
    for k in range(len(cells) - 1, -1, -1):
        if cells[k].cell_type != "code" or k in keep:
            continue
        bound, read = _names(cells[k].source)
        if bound & need:
            keep.add(k)
            need = (need - bound) | read
    nb.cells = [c for k, c in enumerate(cells) if c.cell_type == "markdown" or k in keep]
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    dst.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, dst)


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    base = tmp_path_factory.mktemp("lab")
    site = base / "root"
    (site / "notebooks").mkdir(parents=True)
    for nb in dict.fromkeys(nb for nb, *_rest in CASES.values()):
        markers = [marker for name, (book, marker, *_rest) in CASES.items() if book == nb]
        cut_notebook(ROOT / "notebooks" / f"{nb}.ipynb", site / "notebooks" / f"{nb}.ipynb", markers)
    server = JupyterLab(base, site)
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def browser(lab):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


JS_SHOWS = """(path) => {
  const w = window.jupyterapp && window.jupyterapp.shell && window.jupyterapp.shell.currentWidget;
  return !!(w && w.context && w.context.path === path && w.sessionContext);
}"""

# the notebook's kernel is shut down and its panel disposed (not closed: a run notebook is
# "dirty" and closing would ask whether to save it)
JS_CLOSE = """async () => {
  const w = window.jupyterapp.shell.currentWidget;
  if (w && w.sessionContext) { await w.sessionContext.shutdown(); w.dispose(); }
}"""


class Lab:
    """One Chromium page holding JupyterLab for every case, one notebook open at a time.

    Loading JupyterLab is paid once: the first notebook comes by URL, the next ones through
    the ``docmanager:open`` command. The two cases of chapter 01 share one run of its
    notebook. After a failure the page is replaced, so the next case starts clean."""

    def __init__(self, browser, lab):
        self.browser, self.lab = browser, lab
        self.page = None

    def _new_page(self) -> None:
        if self.page is not None:
            self.page.close()
        self.page = self.browser.new_page(viewport={"width": 1400, "height": 1000})
        self.errors: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.outside: list[str] = []  # requests to any host but this machine
        self.page.on(
            "request",
            lambda r: (
                None
                if r.url.startswith(("http://127.0.0.1", "http://localhost", "data:", "blob:"))
                else self.outside.append(r.url)
            ),
        )
        self.page.set_default_timeout(60_000)
        self.config: dict | None = None
        self.notebook: str | None = None

    def open(self, nb: str) -> bool:
        """Show notebook ``nb`` with every cell run; False when it already was."""
        if self.page is None:
            self._new_page()
        if self.notebook == nb:
            return False
        page, path = self.page, f"notebooks/{nb}.ipynb"
        if self.notebook is not None:
            page.evaluate(JS_CLOSE)
            self.notebook = None
        self.errors_from = len(self.errors)
        if self.config is None:
            page.goto(
                f"{self.lab.url}/lab/tree/{path}?reset&token={self.lab.token}", wait_until="domcontentloaded"
            )
            self.config = page.evaluate(JS_PAGE_CONFIG)
        else:
            page.evaluate(
                "(p) => { window.jupyterapp.commands.execute('docmanager:open', {path: p}); }", path
            )
        page.wait_for_function(JS_SHOWS, arg=path, timeout=60_000)
        page.wait_for_function(JS_KERNEL_IDLE, timeout=60_000, polling=100)
        page.evaluate("() => window.jupyterapp.commands.execute('notebook:clear-all-cell-outputs')")
        page.wait_for_function(JS_CLEARED, timeout=30_000)
        page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
        page.wait_for_timeout(300)
        try:
            page.wait_for_function(JS_ALL_RAN, timeout=120_000, polling=100)
        except Exception as exc:
            raise AssertionError(f"not every cell ran; errors shown: {page.evaluate(JS_ERRORS)}") from exc
        self.notebook = nb
        return True

    def failed(self) -> None:
        try:
            self.page.close()
        finally:
            self.page = None

    def close(self) -> None:
        if self.page is not None:
            if self.notebook is not None:
                self.page.evaluate(JS_CLOSE)
            self.page.close()


@pytest.fixture(scope="module")
def jlab(browser, lab):
    session = Lab(browser, lab)
    yield session
    session.close()


def _to_page(image, px: float, py: float) -> tuple[float, float]:
    box = image.bounding_box()
    natural = image.evaluate("(el) => [el.naturalWidth, el.naturalHeight]")
    return box["x"] + px * box["width"] / natural[0], box["y"] + py * box["height"] / natural[1]


def _await_image(page, n_before: int) -> tuple[float, float]:
    """Wait until the figure's next image is on screen; returns the latencies in ms from the
    input to it: (painted, src set). Then waits for the kernel to be idle, so that the next
    input starts from a quiet state.

    *Painted* is what the student sees: the new PNG decoded and the next frame produced
    (``img.decode()``, then ``requestAnimationFrame`` + ``setTimeout(0)``); the ``src``
    change (a MutationObserver) comes 5-25 ms earlier and was the measure until then."""
    page.evaluate(JS_WAIT_PAINTED, [n_before, 15_000])
    page.wait_for_function(JS_KERNEL_IDLE, timeout=30_000, polling=20)
    k = page.evaluate("() => window.__kml")
    t_img = k["images"][n_before]
    t_seen = min(p["at"] for p in k["painted"] if p["src_at"] >= t_img and p["shown"])
    t_in = [t for t in k["inputs"] if t <= t_img][-1]
    return t_seen - t_in, t_img - t_in


def perform(page, explorer, image, gesture: str, path) -> list[tuple[float, float]]:
    """The gesture, one input at a time; each must bring a new figure. Latencies in ms,
    (input → painted, input → src) per input."""
    lat = []
    n = lambda: page.evaluate("() => window.__kml.images.length")
    if gesture == "keys":
        handle = explorer.locator(".widget-slider .noUi-handle").nth(path or 0)
        handle.focus()
        for _ in range(5):
            k = n()
            page.keyboard.press("ArrowRight")
            lat.append(_await_image(page, k))
        return lat
    points = [_to_page(image, *p) for p in path]
    if gesture == "clicks":
        for x, y in points:
            k = n()
            page.mouse.move(x, y)
            page.wait_for_timeout(30)  # a bare move changes nothing; let it pass
            k = n()
            page.mouse.down()
            lat.append(_await_image(page, k))
            page.mouse.up()
            page.wait_for_timeout(50)
        return lat
    page.mouse.move(*points[0])
    page.mouse.down()
    page.wait_for_timeout(400)  # a press may select something (one redraw): let it land
    for x, y in points[1:]:
        page.wait_for_timeout(40)  # longer than ipyevents' throttle: every move is delivered
        k = n()
        page.mouse.move(x, y)
        lat.append(_await_image(page, k))
    page.mouse.up()
    return lat


def _record(name: str, gesture: str, lat: list[float], lat_src: list[float], load: float) -> None:
    LATENCY_FILE.parent.mkdir(parents=True, exist_ok=True)
    data = json.loads(LATENCY_FILE.read_text()) if LATENCY_FILE.exists() else {}
    data[name] = {
        "gesture": gesture,
        "latencies_ms": [round(v, 1) for v in lat],
        "src_latencies_ms": [round(v, 1) for v in lat_src],
        "load_factor": round(load, 2),
        "when": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
    }
    LATENCY_FILE.write_text(json.dumps(data, indent=1, sort_keys=True))


@pytest.mark.parametrize("name", list(CASES))
def test_main_widget_reacts_in_jupyterlab(jlab, name):
    nb, _marker, css, gesture, path_fn = CASES[name]
    path = path_fn() if callable(path_fn) else path_fn  # keys: index of the slider
    screenshot = ARTIFACTS / f"jupyterlab-{name}.png"
    timings: dict = {}
    t0 = time.monotonic()
    try:
        if jlab.open(nb):
            timings["cells ran"] = round(time.monotonic() - t0, 1)
        page = jlab.page
        # a prediction mode (test_journey's) has the DOM class of its chapter's main widget
        explorer = page.locator(f".{css}:not(:has(.kml-predict))").first
        explorer.wait_for(state="attached", timeout=30_000)
        explorer.evaluate("(el) => el.scrollIntoView({block: 'start'})")
        readout = explorer.locator(".kml-readout").first
        image = explorer.locator("img").first
        image.wait_for(state="visible", timeout=30_000)
        page.wait_for_function(
            "(el) => el.getAttribute('src') && el.complete && el.naturalWidth > 0",
            arg=image.element_handle(),
            timeout=30_000,
        )
        page.evaluate(JS_INSTRUMENT, image.element_handle())
        readout_before, src_before = readout.inner_text(), image.get_attribute("src")
        text_before = explorer.inner_text()
        timings["widget shown"] = round(time.monotonic() - t0, 1)
        both = perform(page, explorer, image, gesture, path)
        lat, lat_src = [p for p, _ in both], [s for _, s in both]
        timings["gesture done"] = round(time.monotonic() - t0, 1)
        page.wait_for_function(JS_KERNEL_IDLE, timeout=60_000, polling=100)
        page.wait_for_timeout(300)
        readout_after, src_after = readout.inner_text(), image.get_attribute("src")
        text_after = explorer.inner_text()
        news_prompt = page.get_by_text("Jupyter news").count()
        outside = [u for u in jlab.outside if u not in OUTSIDE_ALLOWED]
        screenshot.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(screenshot))
        config, errors = jlab.config, jlab.errors[jlab.errors_from :]
    except Exception as exc:
        try:
            jlab.page.screenshot(path=str(screenshot.with_name(screenshot.stem + "-failure.png")))
        except Exception:
            pass
        jlab.failed()
        raise AssertionError(f"{name}: {exc}\n--- JupyterLab log ---\n{jlab.lab.server_log()}") from exc
    _record(name, gesture, lat, lat_src, _load_factor())
    assert "@jupyter-widgets/jupyterlab-manager" in config["extensions"], (
        "ipywidgets' lab extension is missing"
    )
    assert "ipyevents" in config["extensions"], "ipyevents' lab extension is missing: no mouse gestures"
    assert "@jupyterlab/apputils-extension:announcements" in config["disabled"], (
        "the course's page config does not disable the announcements plugin (news, update checks)"
    )
    assert "@jupyterlab/application-extension:faviconbusy" in config["disabled"], (
        "the course's page config (<prefix>/etc/jupyter/labconfig, jupyter/labconfig/) is not in effect"
    )
    assert news_prompt == 0, "the Jupyter news prompt is showing"
    assert not outside, f"JupyterLab requested outside hosts: {outside[:5]}"
    assert src_after != src_before, "the figure did not change"
    assert text_after != text_before, "neither the readout nor the controls changed"
    EXPECT[name](readout_before, readout_after, text_before, text_after)
    # the sandbox has no network: the Binder badge image fails to load; that is not a JS error
    js_errors = [
        e for e in errors if "favicon" not in e and not e.startswith("Failed to load resource: net::")
    ]
    assert not js_errors, f"JavaScript errors: {js_errors[:5]}"
    p50 = statistics.median(lat)
    print(
        f"{name}: end-to-end (input → painted) p50 {p50:.0f} ms, p95 {np.percentile(lat, 95):.0f} ms, "
        f"n={len(lat)} (input → src p50 {statistics.median(lat_src):.0f} ms); seconds: {timings}"
    )
    # the latency itself goes to browser_latency.json; `make bench` reports it against the
    # 80 ms target (E2E_P50_MS), scaled by the load factor when the machine is shared
    assert len(lat) >= 3 and all(v > 0 for v in lat), f"{name}: no latency measured: {lat}"


def _load_factor() -> float:
    """How many times over the cores are subscribed (1 when the machine is idle)."""
    try:
        return max(1.0, os.getloadavg()[0] / (os.cpu_count() or 1))
    except OSError:
        return 1.0


def _number_after(text: str, label: str) -> float:
    m = re.search(re.escape(label) + r"\s*=?\s*([-+\u2212\d.]+)", text)
    assert m, f"{label!r} not in {text!r}"
    return float(m.group(1).replace("\u2212", "-"))


def _changed(label):
    def check(a, b, *_):
        assert _number_after(a, label) != _number_after(b, label), f"{label}: {a} → {b}"

    return check


def _grew(label):
    def check(a, b, *_):
        assert _number_after(b, label) > _number_after(a, label), f"{label}: {a} → {b}"

    return check


def _boundary(a, b, *_):
    assert "of 120" in a and "of 126" in b, f"six clicks should add six points: {a} → {b}"


def _viterbi(a, b, *_):
    assert a.startswith("τ = 1:") and b.startswith("τ = 6:"), f"five key presses: {a} → {b}"


def _ova(a, b, ta, tb):
    # the drag moved class 2 by (+1.8, +1.2): the dx/dy sliders' readouts follow (within
    # one 0.05 step: the page shows the PNG scaled, so the pointer lands on whole CSS pixels)
    def shift(text, axis):
        # ipywidgets' readout formats negatives with U+2212 (d3-format), not '-'
        field = text.split(f"shift class 2 → {axis}")[1].split()[0]
        return float(field.replace("\u2212", "-"))

    assert (shift(ta, "x₁"), shift(ta, "x₂")) == (0.0, 0.0), ta
    assert abs(shift(tb, "x₁") - 1.8) <= 0.051 and abs(shift(tb, "x₂") - 1.2) <= 0.051, tb
    assert a != b, "the OvA/linear errors did not change"


def _ranking(a, b, *_):
    first = [t.split("order (best first):")[1].split("\n")[0].strip() for t in (a, b)]
    assert first[0] != first[1], f"{a} → {b}"


EXPECT = {
    "00-angle-demo": _changed("w = ("),
    "01-margin-explorer": _changed("margin γ"),
    "01-lambda-explorer": _grew("λ"),
    "02-boundary-explorer": _boundary,
    "03-kpca-explorer": _grew("σ"),
    "04-ova-failure": _ova,
    "05-viterbi-trace": _viterbi,
    "06-ranking-explorer": _ranking,
    "07-pr-explorer": _changed("precision"),
    "08-adaboost-stepper": _grew("t ="),
    "09-nu-explorer": _grew("ν"),
}


def test_the_course_server_extension_is_loaded(lab):
    """The JupyterLab server runs kmlteach.course.lab_server (installed with the package):
    kernel websockets without Nagle's delay, which the latencies above depend on."""
    log = lab.log_path.read_text(errors="replace")
    assert "kernel websockets send without Nagle's delay (TCP_NODELAY)" in log, log[-3000:]


def test_cut_keeps_the_text_and_only_the_code_the_widgets_need(tmp_path):
    """The slice behind every case: markdown kept, code cells kept only when a widget cell
    reads (transitively) a name they bind, nothing after the last widget."""
    import nbformat

    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    cells = [
        md("# Title $x$"),
        code("import numpy as np\nfrom kmlteach.plots import show"),
        code("fig = show(np.eye(2))"),  # a static figure: not needed
        code("%matplotlib inline\nX = np.ones((3, 2))\nX = X * 2"),  # needed, and so is numpy
        code("from kmlteach.widgets.ch01 import make_margin_explorer\nmake_margin_explorer(X)"),
        md("between"),
        code("y = 3"),  # not read by any widget
        code("from kmlteach.widgets.ch01 import make_lambda_explorer\nmake_lambda_explorer()"),
        md("after"),
        code("z = X"),
    ]
    src, dst = tmp_path / "src.ipynb", tmp_path / "cut.ipynb"
    for c in cells:
        if c.cell_type == "code":
            c.outputs, c.execution_count = [nbformat.v4.new_output("stream", text="x")], 1
    nbformat.write(nbformat.v4.new_notebook(cells=cells), src)
    cut_notebook(src, dst, ["make_margin_explorer(", "make_lambda_explorer("])
    kept = nbformat.read(dst, as_version=4).cells
    assert [c.source for c in kept] == [cells[k].source for k in (0, 1, 3, 4, 5, 7)]
    assert all(c.outputs == [] and c.execution_count is None for c in kept if c.cell_type == "code")
    with pytest.raises(AssertionError, match="no code cell calls"):
        cut_notebook(src, dst, ["make_pr_explorer("])
