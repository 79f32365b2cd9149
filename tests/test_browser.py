"""End to end in a real browser: JupyterLab + Debian's Chromium driven by Playwright.

Starts JupyterLab on 127.0.0.1 (free port, random token) with every Jupyter/IPython/
matplotlib directory isolated in a temp dir (the venv's ``share/jupyter`` still
provides the ipywidgets lab extension), opens a *copy* of ``notebooks/01-svm.ipynb``
(so nothing in the repository can be autosaved over), runs all cells, waits for the
kernel to be idle, scrolls to the soft-margin λ explorer, moves its slider with the
keyboard and checks that the readout text and the figure changed. A screenshot is
saved to ``tests/_artifacts/jupyterlab-01-svm.png`` (git-ignored).

Hook contract with ``kmlteach.widgets.ch01.make_lambda_explorer``: the explorer has
the DOM class ``kml-lambda-explorer``; its first ``.widget-slider`` is λ, the element
with class ``kml-readout`` is the readout and the ``<img>`` inside is the figure.

Never lets Playwright download a browser; skipped only when ``/usr/bin/chromium`` is
absent (``.ci/run`` installs it).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
NOTEBOOK = "notebooks/01-svm.ipynb"
WIDGET = ".kml-lambda-explorer"
ARTIFACTS = ROOT / "tests" / "_artifacts"
SCREENSHOT = ARTIFACTS / "jupyterlab-01-svm.png"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not os.path.exists(CHROMIUM),
                       reason=f"{CHROMIUM} is absent: install Debian's chromium "
                              "(apt-get install chromium; .ci/run does) to run the browser test"),
]

# JupyterLab user settings: no virtual scrolling (every cell stays in the DOM), no
# autosave, no news or update checks.
LAB_SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/docmanager-extension/plugin.jupyterlab-settings": {"autosave": False},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false", "checkForUpdates": False},
}
DISABLED = {"@jupyterlab/apputils-extension:announcements": True}


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class JupyterLab:
    """A JupyterLab server with isolated config/data/runtime dirs, serving ``root_dir``."""

    def __init__(self, base: Path, root_dir: Path):
        self.base = base
        self.root_dir = root_dir
        self.port = _free_port()
        self.token = secrets.token_hex(16)
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = base / "jupyterlab.log"
        self.proc: subprocess.Popen | None = None

    def env(self) -> dict:
        dirs = {name: self.base / name.lower() for name in (
            "HOME", "JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "IPYTHONDIR",
            "MPLCONFIGDIR", "JUPYTERLAB_SETTINGS_DIR", "JUPYTERLAB_WORKSPACES_DIR")}
        for d in dirs.values():
            d.mkdir(parents=True, exist_ok=True)
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("JUPYTER", "IPYTHON", "MPL", "PYTEST", "NBVAL"))}
        env.update({k: str(v) for k, v in dirs.items()})
        env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
        env["PYTHONHASHSEED"] = "0"
        env.pop("JUPYTER_PATH", None)
        # settings and disabled plugins, in the isolated dirs only
        for name, value in LAB_SETTINGS.items():
            path = dirs["JUPYTERLAB_SETTINGS_DIR"] / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(value))
        labconfig = dirs["JUPYTER_CONFIG_DIR"] / "labconfig"
        labconfig.mkdir(parents=True, exist_ok=True)
        (labconfig / "page_config.json").write_text(json.dumps({"disabledExtensions": DISABLED}))
        return env

    def start(self, timeout: float = 60.0) -> None:
        cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1",
               f"--port={self.port}", "--port-retries=0", f"--IdentityProvider.token={self.token}",
               f"--ServerApp.root_dir={self.root_dir}", "--LabApp.expose_app_in_browser=True", "--allow-root",
               "--LabApp.news_url=", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(cmd, env=self.env(), cwd=self.root_dir, stdout=self.log,
                                     stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                     start_new_session=True)
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


JS_APP_READY = "() => !!(window.jupyterapp && window.jupyterapp.shell && window.jupyterapp.shell.currentWidget" \
               " && window.jupyterapp.shell.currentWidget.sessionContext)"

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


def run_lambda_slider(notebook: Path, base: Path, screenshot: Path) -> dict:
    """Open ``notebook`` in JupyterLab, run it, move the λ slider; returns what was seen."""
    from playwright.sync_api import sync_playwright

    site = base / "root"
    (site / "notebooks").mkdir(parents=True)
    shutil.copy(notebook, site / "notebooks" / notebook.name)
    lab = JupyterLab(base, site)
    seen: dict = {"timings": {}}
    t0 = time.monotonic()

    def mark(what: str) -> None:
        seen["timings"][what] = round(time.monotonic() - t0, 1)

    try:
        lab.start()
        mark("server up")
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            try:
                page = browser.new_page(viewport={"width": 1400, "height": 1000})
                page.set_default_timeout(60_000)
                page.goto(f"{lab.url}/lab/tree/notebooks/{notebook.name}?reset&token={lab.token}",
                          wait_until="domcontentloaded")
                seen.update(page.evaluate(JS_PAGE_CONFIG))
                page.wait_for_function(JS_APP_READY, timeout=60_000)
                page.wait_for_function(JS_KERNEL_IDLE, timeout=60_000, polling=250)
                mark("lab loaded, kernel idle")
                # clear the stored outputs (and execution counts) first, so that "every code
                # cell has an execution count" means this run executed it
                page.evaluate("() => window.jupyterapp.commands.execute('notebook:clear-all-cell-outputs')")
                page.wait_for_function(JS_CLEARED, timeout=30_000)
                page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
                page.wait_for_timeout(500)
                try:
                    page.wait_for_function(JS_ALL_RAN, timeout=120_000, polling=500)
                except Exception as exc:
                    raise AssertionError(f"not every cell ran; errors shown: {page.evaluate(JS_ERRORS)}") from exc
                mark("all cells ran")

                explorer = page.locator(WIDGET).first
                explorer.wait_for(state="attached", timeout=30_000)
                explorer.scroll_into_view_if_needed()
                readout = explorer.locator(".kml-readout").first
                image = explorer.locator("img").first
                image.wait_for(state="visible", timeout=30_000)
                page.wait_for_function(
                    "(el) => el.getAttribute('src') && el.getAttribute('src').length > 0",
                    arg=image.element_handle(), timeout=30_000)
                seen["readout_before"] = readout.inner_text()
                seen["src_before"] = image.get_attribute("src")

                slider = explorer.locator(".widget-slider").first
                handle = slider.locator(".noUi-handle").first
                handle.focus()
                for _ in range(3):
                    page.keyboard.press("ArrowRight")
                    page.wait_for_timeout(100)
                page.wait_for_function(
                    "([el, old]) => el.innerText !== old", arg=[readout.element_handle(),
                                                                seen["readout_before"]],
                    timeout=30_000)
                page.wait_for_function(
                    "([el, old]) => el.getAttribute('src') !== old",
                    arg=[image.element_handle(), seen["src_before"]], timeout=30_000)
                mark("slider moved, figure changed")
                page.wait_for_function(JS_KERNEL_IDLE, timeout=60_000, polling=250)
                page.wait_for_timeout(500)  # let the last image message render
                seen["readout_after"] = readout.inner_text()
                seen["src_after"] = image.get_attribute("src")
                explorer.evaluate("(el) => el.scrollIntoView({block: 'start'})")
                page.wait_for_timeout(300)
                seen["news_prompt"] = page.get_by_text("Jupyter news").count()
                screenshot.parent.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(screenshot))
            except Exception:
                try:
                    screenshot.parent.mkdir(parents=True, exist_ok=True)
                    page.screenshot(path=str(screenshot.with_name(screenshot.stem + "-failure.png")))
                except Exception:
                    pass
                raise
            finally:
                browser.close()
    except Exception as exc:
        raise AssertionError(f"browser test failed: {exc}\n--- JupyterLab log ---\n{lab.server_log()}") from exc
    finally:
        lab.stop()
    return seen


def test_lambda_explorer_reacts_in_jupyterlab(tmp_path):
    notebook = ROOT / NOTEBOOK
    assert notebook.exists(), f"{NOTEBOOK} is missing: the browser test drives its λ explorer"
    seen = run_lambda_slider(notebook, tmp_path, SCREENSHOT)
    assert "@jupyter-widgets/jupyterlab-manager" in seen["extensions"], (
        "the ipywidgets lab extension is not loaded: widgets would not render")
    assert "@jupyterlab/apputils-extension:announcements" in seen["disabled"], (
        "the isolated JUPYTER_CONFIG_DIR was not used")
    assert seen["news_prompt"] == 0, "the Jupyter news prompt is showing"
    assert "λ" in seen["readout_before"], seen["readout_before"]
    assert seen["readout_after"] != seen["readout_before"]
    assert seen["src_after"] != seen["src_before"]
    assert SCREENSHOT.stat().st_size > 10_000
    print(f"browser test timings (s since start): {seen['timings']}")
