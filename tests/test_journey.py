"""A student's journey through every chapter, in a real browser (issue 36 point 1).

The student edition is published into a temp folder and started with *its own*
``make lab`` (tests/edition_lab.py): the test reads the steps it prints and opens the
address it prints in Debian's Chromium, driven by Playwright (never a downloaded
browser). One JupyterLab server and one page serve the whole module; chapters 00-09 are
walked one after the other as a student would (following each chapter's "Next" link when
it has one), and each chapter is a row of steps, each a test of its own:

=========  =============================================================================
open       the notebook opens (00-welcome: the printed address itself) and Run All runs
           every cell: no error, one "not implemented yet" per exercise
concept    each concept check ``ask(id, "?")`` answered wrong (the reply names what is
           wrong with that option, invites a retry and gives nothing away), then right
mistakes   each exercise written first as a catalogued mistake of the registry (its
           "Common mistake:" or "Convention:" line is printed), then as the solution
hints      the call ``check()`` points to, pasted as printed, and every further hint
           level, each shown once; ``solution()`` where the chapter names it
predict    each prediction explorer: guess, Reveal (scored once, a second press scores
           nothing); a new question by dragging a point or changing the setting, Reveal
           at once (the old guess is not scored against it); a new guess and Reveal at
           once (the result shows, scored once); the figure does not move when the
           question changes (a drag, a key on a slider, a button)
recap      the recap quiz's widget: a wrong choice gets a reply of its own, then the
           right one; each example call in the quiz's header fits its question
progress   the chapter's progress line, run again: every exercise passed, no concept
           check nor recap question right the first time (each was answered wrong
           first), each prediction explorer's first guess counted
outputs    no error and no NameError in any cell, no ``Out[n]`` under a cell that ends with
           ``ask``/``check``/``hint``/``solution`` (True/False, or the hint once more)
links      every link of the notebook clicked: a file opens (no 404), an anchor exists,
           an outside link opens a tab (its request is stopped: no network here)
next       every chapter but the last links to the next one (followed: it opens it)
console    no JavaScript error in the page during the chapter
=========  =============================================================================

The replies, mistakes, solutions and hints come from the registry
(:mod:`kmlteach.exercises`, tests/journey_code.py), never from the test. A screenshot of
each step goes to ``build/journey/NN-step.png`` and the seconds of each step to
``build/journey/times.json``; the last test prints the chapter × step table.

Steps that fail because of work other helpers have not landed yet are marked
``xfail(strict=True)`` in :data:`PENDING`, each with the issue item it waits for.

A subset walks only the chapters it names (``-k "05-"``: chapter 05 alone, from the printed
address to its own notebook): each chapter opens with every other document closed (the
next chapter a subset's earlier chapter opened by its link, too), and each step looks only
inside the chapter's notebook panel.
"""

from __future__ import annotations

import json
import os
import re
import time
import urllib.parse
from pathlib import Path

import pytest
from edition_lab import EditionLab, numba_cache, tree_cpu
from journey_code import attempt, concept_questions, replace_stub, reply_source, right_reply, wrong_reply
from test_browser import CHROMIUM, CHROMIUM_ARGS

ROOT = Path(__file__).resolve().parent.parent
SHOTS = ROOT / "build" / "journey"

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not os.path.exists(CHROMIUM),
        reason=f"{CHROMIUM} is absent: install Debian's chromium (apt-get install chromium; .ci/run does)",
    ),
]

STEPS = (
    "open",
    "concept",
    "mistakes",
    "hints",
    "predict",
    "recap",
    "progress",
    "outputs",
    "links",
    "next",
    "console",
)


def _chapters() -> list[tuple[str, str]]:
    from kmlteach.course.book import load

    return [(c.id, Path(c.notebook).stem) for c in load().chapters if c.ready]


CHAPTERS = _chapters()

# (chapter, step): the issue item it waits for; xfail(strict=True): remove the line when it lands
PENDING: dict[tuple[str, str], str] = {}


def _params():
    out = []
    for chapter, _nb in CHAPTERS:
        for step in STEPS:
            why = PENDING.get((chapter, step))
            marks = [pytest.mark.xfail(strict=True, reason=why)] if why else []
            out.append(pytest.param(chapter, step, id=f"{chapter}-{step}", marks=marks))
    return out


# ---------------------------------------------------------------------------------------
# the page: JupyterLab's application, exposed by --LabApp.expose_app_in_browser
# ---------------------------------------------------------------------------------------

JS_HELPERS = r"""() => {
  const app = window.jupyterapp;
  const J = window.__j = {};
  J.panel = () => app.shell.currentWidget;
  J.path = () => { const w = app.shell.currentWidget; return w && w.context ? w.context.path : null; };
  J.ready = (path) => { const w = app.shell.currentWidget;
    return !!(w && w.context && w.context.path === path && w.sessionContext && w.sessionContext.session
              && w.sessionContext.session.kernel && w.sessionContext.session.kernel.status === 'idle'
              && w.content && w.content.widgets.length > 0); };
  J.idle = () => { const w = app.shell.currentWidget; const k = w && w.sessionContext.session
                   && w.sessionContext.session.kernel; return !!(k && k.status === 'idle'); };
  J.nb = () => J.panel().content;
  J.cells = () => J.nb().widgets.map(c => ({id: c.model.id, type: c.model.type,
                                             source: c.model.sharedModel.getSource()}));
  J.find = (id) => J.nb().widgets.findIndex(c => c.model.id === id);
  J.cell = (id) => J.nb().widgets[J.find(id)];
  J.select = (id) => { const nb = J.nb(); nb.activeCellIndex = J.find(id); nb.deselectAll(); };
  J.outputs = (id) => { const c = J.cell(id);
    return {count: c.model.executionCount, outputs: c.model.outputs.toJSON()}; };
  J.all = () => J.nb().widgets.filter(c => c.model.type === 'code').map(c => ({
    id: c.model.id, source: c.model.sharedModel.getSource(), count: c.model.executionCount,
    outputs: c.model.outputs.toJSON()}));
  const within = (p, ms, what) => Promise.race([p, new Promise((_, no) =>
    setTimeout(() => no(new Error(`${what}: not done within ${ms} ms`)), ms))]);
  J.run = async (id, source) => {
    const cell = J.cell(id);
    if (source !== null && source !== undefined) cell.model.sharedModel.setSource(source);
    J.select(id);
    await within(app.commands.execute('notebook:run-cell'), 120000, 'run-cell');
    return J.outputs(id);
  };
  J.insert = async (id, source) => {
    J.select(id);
    await app.commands.execute('notebook:insert-cell-below');
    const c = J.nb().activeCell;
    c.model.sharedModel.setSource(source);
    return c.model.id;
  };
  // code run in the notebook's kernel without a cell (what the test asks the kernel itself)
  J.probe = (code) => new Promise((ok, no) => {
    const future = J.panel().sessionContext.session.kernel.requestExecute({code, silent: false, store_history: false});
    let text = '';
    future.onIOPub = (msg) => { if (msg.header.msg_type === 'stream') text += msg.content.text;
                                if (msg.header.msg_type === 'error') no(new Error(msg.content.evalue)); };
    future.done.then(() => ok(text), no);
  });
  J.runAll = async () => {
    await within(app.commands.execute('notebook:run-all-cells'), 300000, 'run-all-cells');
  };
  // a kernel's busy periods, counted: "the kernel has handled what the page just sent" is
  // a new busy period over, whatever the message (a cell, a click, a key on a slider)
  J.busy = 0;
  J.changed = performance.now();
  J.watch = () => { const k = J.panel().sessionContext.session.kernel;
    if (k.__journey) return; k.__journey = true;
    k.statusChanged.connect((_, s) => { J.changed = performance.now(); if (s === 'busy') J.busy++; }); };
  J.settled = (mark) => J.busy > mark && J.idle();
  // and nothing more for ms milliseconds: a throttled drag sends its last move after the
  // button is released
  J.quiet = (mark, ms) => J.settled(mark) && performance.now() - J.changed > ms;
  J.show = (id) => J.cell(id).node.scrollIntoView({block: 'start'});
  J.close = async (path) => {
    for (const w of Array.from(app.shell.widgets('main'))) {
      if (w.context && w.context.path === path) {
        if (w.sessionContext && w.sessionContext.session) await w.sessionContext.shutdown();
        w.dispose();
      }
    }
  };
  // every document but the chapter's own (the one a subset run's earlier chapter opened by
  // its "Next" link, too): only the chapter walked is in the page, and only its kernel runs
  J.closeOthers = async (path) => {
    for (const w of Array.from(app.shell.widgets('main')))
      if (w.context && w.context.path !== path) await J.close(w.context.path);
  };
  // the current document's kernel idle and quiet for ms (at most 30 s): JupyterLab's own
  // requests on a kernel that has just started (the debugger restores its state) are over
  J.settledKernel = async (ms) => {
    const k = J.panel().sessionContext.session.kernel;
    let last = performance.now();
    const seen = () => { last = performance.now(); };
    k.statusChanged.connect(seen); k.anyMessage.connect(seen);
    const t0 = performance.now();
    while ((k.status !== 'idle' || performance.now() - last < ms) && performance.now() - t0 < 30000)
      await new Promise(r => setTimeout(r, 50));
    k.statusChanged.disconnect(seen); k.anyMessage.disconnect(seen);
  };
  J.open = (path) => { if (!J.activate(path)) app.commands.execute('docmanager:open', {path}); return true; };
  J.activate = (path) => {
    for (const w of Array.from(app.shell.widgets('main')))
      if (w.context && w.context.path === path) { app.shell.activateById(w.id); return true; }
    return false;
  };
  return true;
}"""

JS_APP = "() => !!(window.jupyterapp && window.jupyterapp.shell && window.jupyterapp.commands)"


def _text(outputs: list[dict]) -> str:
    """What a cell shows as text: streams, results (text/plain or HTML) and errors."""
    parts = []
    for o in outputs:
        if o["output_type"] == "stream":
            parts.append(o["text"] if isinstance(o["text"], str) else "".join(o["text"]))
        elif o["output_type"] in ("execute_result", "display_data"):
            data = o.get("data", {})
            t = data.get("text/plain", "")
            parts.append(t if isinstance(t, str) else "".join(t))
        elif o["output_type"] == "error":
            parts.append(f"{o['ename']}: {o['evalue']}")
    return "\n".join(parts)


def _flat(text: str) -> str:
    return " ".join(text.split())


def _errors(outputs: list[dict]) -> list[str]:
    return [f"{o['ename']}: {o['evalue']}" for o in outputs if o["output_type"] == "error"]


def _results(outputs: list[dict]) -> list[str]:
    """The ``Out[n]`` texts of a cell."""
    return [
        "".join(o.get("data", {}).get("text/plain", ""))
        for o in outputs
        if o["output_type"] == "execute_result"
    ]


class Journey:
    """The page, the chapter open in it, and what the steps share (the exercises' hint
    pointers, the seconds of each step, the console errors since the chapter opened)."""

    def __init__(self, browser, lab: EditionLab):
        self.lab = lab
        self.context = browser.new_context(viewport={"width": 1400, "height": 1000})
        # no network here: a link to another host opens a tab whose request is stopped
        self.context.route(
            re.compile(r"^(?!https?://(127\.0\.0\.1|localhost)[:/])(?!data:|blob:).*"), lambda r: r.abort()
        )
        self.page = self.context.new_page()
        self.page.set_default_timeout(60_000)
        self.console: list[str] = []
        self.page.on("console", lambda m: self.console.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.console.append(f"page error: {e}"))
        self.chapter: str | None = None
        self.path: str | None = None
        self.opened: dict[str, bool] = {}
        self.console_from = 0
        self.pointers: dict[str, str] = {}
        self.times: dict[str, dict[str, float]] = {}
        self.outcome: dict[str, dict[str, str]] = {}
        self.widgets_built: set[str] = set()
        self.next_open: str | None = None
        self.exercises: dict[str, list[tuple[str, str, str, str]]] = {}
        self.notes: list[str] = []  # what a student would notice that no step asserts
        self.panel = None  # the chapter's notebook panel: every locator of a step is inside it

    # -- cells ----------------------------------------------------------------------------
    def js(self, expr: str, arg=None):
        return self.page.evaluate(f"(a) => {expr}", arg)

    def cells(self) -> list[dict]:
        return self.js("window.__j.cells()")

    def run(self, cell_id: str, source: str | None = None) -> dict:
        return self.js("window.__j.run(a[0], a[1])", [cell_id, source])

    def insert_run(self, after_id: str, source: str) -> tuple[str, dict]:
        new = self.js("window.__j.insert(a[0], a[1])", [after_id, source])
        return new, self.run(new)

    def mark(self) -> int:
        return self.js("window.__j.busy")

    def settle(self, mark: int, quiet_ms: int = 0) -> None:
        """Wait until the kernel has handled what the page sent since ``mark`` (and has had
        nothing more to do for ``quiet_ms``)."""
        self.page.wait_for_function(
            "([m, ms]) => window.__j.quiet(m, ms)", arg=[mark, quiet_ms], polling=20, timeout=60_000
        )

    def show(self, cell_id: str) -> None:
        self.js("window.__j.show(a)", cell_id)

    def shot(self, chapter: str, step: str) -> Path:
        SHOTS.mkdir(parents=True, exist_ok=True)
        path = SHOTS / f"{chapter}-{STEPS.index(step)}-{step}.png"
        self.page.screenshot(path=str(path))
        return path

    # -- chapters -------------------------------------------------------------------------
    def open(self, chapter: str, nb: str) -> None:
        path = f"notebooks/{nb}.ipynb"
        previous = self.path
        if previous is None:
            self.page.goto(self.lab.url, wait_until="domcontentloaded")
            self.page.wait_for_function(JS_APP, timeout=120_000)
            self.js("(" + JS_HELPERS + ")()")
            if self.js("window.__j.path()") != path:  # a walk that starts after 00-welcome
                self.page.wait_for_function("() => window.__j.path() !== null", timeout=120_000)
                self.js("window.__j.open(a)", path)
        else:
            self.js("window.__j.open(a)", path)
        self.page.wait_for_function("(p) => window.__j.ready(p)", arg=path, timeout=120_000, polling=100)
        self.js("window.__j.watch()")
        # the chapter left behind (and any other document) closes: its kernel stops. (Kept
        # open for its "previous" link, its hidden tab cost Chromium 142 -> 179 s of CPU
        # over the walk, in two full runs of 2026-12-06.)
        self.js("window.__j.closeOthers(a)", path)
        self.chapter, self.path, self.next_open = chapter, path, None
        self.panel = self.page.locator(f'[id="{self.js("window.__j.panel().id")}"]')
        self.console_from = len(self.console)


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    from kmlteach.course.edition import publish

    base = tmp_path_factory.mktemp("journey")
    edition = base / "kmlteach-student"
    report: list[str] = []
    t0, cpu0 = time.monotonic(), tree_cpu(os.getpid())
    publish(edition, report=report.append)
    numba_cache(ROOT / "kmlteach", edition / "kmlteach")
    server = EditionLab(base / "lab", edition)
    try:
        server.start()
        server.publish_report = report
        server.setup_seconds = round(time.monotonic() - t0, 1)  # publish-student and make lab
        yield server
    finally:
        # the CPU seconds of the module, read from /proc while the processes live: make's
        # tree (install, warm-up, JupyterLab, the kernels) and this process's (this test,
        # Playwright's driver, Chromium; measured by the journey before it closes Chromium)
        served = server.tree_cpu() if server.proc is not None and server.proc.poll() is None else 0.0
        server.stop()
        browser = getattr(server, "browser_cpu", cpu0) - cpu0
        SHOTS.mkdir(parents=True, exist_ok=True)
        (SHOTS / "cpu.txt").write_text(
            f"wall {time.monotonic() - t0:.0f} s, CPU {served + browser:.0f} s: make lab's processes "
            f"(install, warm-up, JupyterLab, kernels) {served:.0f} s, this test, Playwright and "
            f"Chromium {browser:.0f} s; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores\n"
        )


@pytest.fixture(scope="module")
def journey(lab):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        j = Journey(browser, lab)
        yield j
        lab.browser_cpu = tree_cpu(os.getpid(), exclude=lab.proc.pid)
        SHOTS.mkdir(parents=True, exist_ok=True)
        (SHOTS / "times.json").write_text(json.dumps({"set-up": lab.setup_seconds, **j.times}, indent=1))
        j.context.close()
        browser.close()


# ---------------------------------------------------------------------------------------
# set-up
# ---------------------------------------------------------------------------------------


def test_make_lab_talks_and_its_address_opens_the_welcome_chapter(lab, journey):
    """The edition's own make lab: a line as each step starts and ends (install, warm-up
    with its count of kernels, server), the address it prints opens 00-welcome (not the
    Launcher); publish-student warned in one line for each placeholder it wrote."""
    steps = [(n, name) for _t, n, name, _text in lab.steps]
    assert steps == [(1, "install"), (1, "install"), (2, "warm-up"), (2, "warm-up"), (3, "server")], (
        lab.printed
    )
    warm = next(text for _t, _n, name, text in lab.steps[3:4])
    assert re.match(r"\d+ kernels ready in \d+ s$", warm) and int(warm.split()[0]) > 20, warm
    assert lab.url.split("?")[0].endswith("/lab/tree/notebooks/00-welcome.ipynb"), lab.url
    assert "token=" in lab.url
    warnings = [ln for ln in lab.publish_report if ln.startswith("warning:")]
    assert len(warnings) == 2 and all("placeholder" in w for w in warnings), lab.publish_report
    journey.open(*CHAPTERS[0])
    assert journey.js("window.__j.path()") == f"notebooks/{CHAPTERS[0][1]}.ipynb"
    assert journey.page.get_by_text("Jupyter news").count() == 0


# ---------------------------------------------------------------------------------------
# the steps
# ---------------------------------------------------------------------------------------

_ASK = re.compile(r"""ask\(\s*["'](\d\d\.c_\w+)["']\s*,\s*["']\?["']\s*\)""")
_CHECK = re.compile(r"""check\(\s*["'](\d\d\.\w+)["']\s*,\s*(\w+)\s*\)""")


def step_open(j: Journey, chapter: str, nb: str) -> None:
    from kmlteach.course.book import load

    j.open(chapter, nb)
    j.js("window.__j.runAll()")
    j.page.wait_for_function("() => window.__j.idle()", polling=100, timeout=60_000)
    cells = j.js("window.__j.all()")
    not_run = [c["source"][:60] for c in cells if c["count"] is None and c["source"].strip()]
    errors = {c["source"][:60]: _errors(c["outputs"]) for c in cells if _errors(c["outputs"])}
    assert not errors, f"Run All: errors in {errors}"
    assert not not_run, f"Run All left cells unrun: {not_run[:3]}"
    stubs = sum(_text(c["outputs"]).count("not implemented yet") for c in cells)
    book = next(c for c in load().chapters if c.id == chapter)
    assert stubs == len(book.exercises), f"{stubs} 'not implemented yet' for {len(book.exercises)} exercises"
    if chapter == CHAPTERS[0][0]:
        # the kernel runs the edition's own package, installed by its make lab, with no
        # reference implementation in it (check() compares with the records' data)
        probe = json.loads(
            j.js(
                "window.__j.probe(a)",
                "import json, kmlteach, sys\nfrom kmlteach.exercises import registry\n"
                "print(json.dumps([kmlteach.__file__, sys.prefix, "
                "[k for k, e in registry().items() if e.reference is not None]]))",
            )
        )
        edition = j.lab.root_dir.resolve()
        assert Path(probe[0]).resolve().is_relative_to(edition / "kmlteach"), probe
        assert Path(probe[1]).resolve() == edition / ".venv", probe
        assert probe[2] == [], f"reference code in the edition: {probe[2][:5]}"
    j.widgets_built |= {
        name for c in cells if c["count"] is not None for name in re.findall(r"\b(make_\w+)\(", c["source"])
    }
    j.exercises[chapter] = [
        (c["id"], m.group(1), m.group(2), c["source"])
        for c in cells
        if "NotImplementedError" in c["source"]
        for m in [_CHECK.search(c["source"])]
        if m
    ]
    j.opened[chapter] = True


def _parsed(q, reply):
    """A reply as ``Question.feedback_for`` takes it: an option's index, or the number."""
    from kmlteach.exercises.quiz import LETTERS

    return reply if q.numeric else LETTERS.index(reply)


def step_concept(j: Journey, chapter: str, nb: str) -> None:
    qs = concept_questions(chapter)
    found = [(c["id"], m.group(1), c["source"]) for c in j.cells() for m in [_ASK.search(c["source"])] if m]
    concept = [q for q in qs.values() if q.kind == "concept"]
    assert {q for _, q, _ in found} == {q.id for q in concept}, (
        "the notebook's ask() cells and the registry differ"
    )
    for cell_id, qid, source in found:
        q = qs[qid]
        call = _ASK.search(source).group(0)
        wrong, right = wrong_reply(q), right_reply(q)
        out = j.run(cell_id, source.replace(call, f'ask("{qid}", {reply_source(wrong)})'))
        said = _flat(_text(out["outputs"]))
        why = _flat(q.feedback_for(_parsed(q, wrong)))
        assert not _errors(out["outputs"]), said
        assert "✗" in said and why and why in said, (
            f"{qid}: the wrong reply {wrong!r} does not say why: {said}"
        )
        assert "try another" in said.lower(), f"{qid}: the wrong reply does not invite a retry: {said}"
        assert _flat(q.explanation) not in said and "the answer is" not in said, (
            f"{qid} gives it away: {said}"
        )
        out = j.run(cell_id, source.replace(call, f'ask("{qid}", {reply_source(right)})'))
        said = _flat(_text(out["outputs"]))
        assert "✓" in said and "right" in said and _flat(q.explanation) in said, f"{qid}: {said}"
        j.show(cell_id)


def step_mistakes(j: Journey, chapter: str, nb: str) -> None:
    from kmlteach.exercises.record import solution_texts

    solutions = solution_texts(chapter)
    cells = j.exercises[chapter]
    assert {e for _, e, _, _ in cells} == {e for e in solutions}, "exercise cells and the registry differ"
    for cell_id, ex_id, name, source in cells:
        a = attempt(ex_id, name, solutions[ex_id])
        out = j.run(cell_id, replace_stub(source, name, a.wrong))
        said = _flat(_text(out["outputs"]))
        assert not _errors(out["outputs"]), said
        assert "✗" in said and a.line in said, f"{ex_id}: expected «{a.line}», the check said: {said}"
        j.pointers[ex_id] = said
        j.show(cell_id)
        out = j.run(cell_id, replace_stub(source, name, a.right))
        said = _flat(_text(out["outputs"]))
        assert "✓" in said and "visible cases passed" in said, f"{ex_id}: the solution: {said}"


def step_hints(j: Journey, chapter: str, nb: str) -> None:
    from kmlteach.exercises import get

    names_solution = any("solution(" in c["source"] for c in j.cells() if c["type"] == "markdown")
    problems = []
    for cell_id, ex_id, _name, _source in j.exercises[chapter]:
        levels = get(ex_id).hints
        said = j.pointers.get(ex_id, "")
        call = re.search(r"""((?:[\w.]+\.)?hint\(\s*["']""" + re.escape(ex_id) + r"""["']\s*\))""", said)
        if not call:
            problems.append(f"{ex_id}: the failed check names no hint call: {said[-200:]}")
            continue
        count = re.search(r"\((\d+) levels\)|level=2 \.\. (\d+)", said)
        if count and int(count.group(1) or count.group(2)) != len(levels):
            problems.append(f"{ex_id}: the pointer promises {count.group(0)}, there are {len(levels)} levels")
        # the call as check() printed it, pasted into a new cell
        new, out = j.insert_run(cell_id, call.group(1))
        problems += _one_hint(ex_id, out, [levels[0]], levels[-1])
        more = "\n".join(f'hint("{ex_id}", level={k})' for k in range(2, len(levels) + 1))
        if more:
            new, out = j.insert_run(new, more)
            problems += _one_hint(ex_id, out, levels[1:-1], levels[-1], withheld_last=True)
        if names_solution:
            new, out = j.insert_run(new, f'solution("{ex_id}")')
            said_sol = _text(out["outputs"])
            if _errors(out["outputs"]) or not said_sol.strip() or _results(out["outputs"]):
                problems.append(f"{ex_id}: solution(): {said_sol[:200]!r}")
        j.show(new)
    assert not problems, "\n".join(problems)


def _one_hint(ex_id: str, out: dict, shown: list[str], last: str, withheld_last: bool = False) -> list[str]:
    """Problems with a hint cell's output: an error, a level missing or shown twice (printed
    and then again as the cell's Out), the withheld last level given away."""
    outputs = out["outputs"]
    if _errors(outputs):
        return [f"{ex_id}: {_errors(outputs)[0]}"]
    text = _flat(_text(outputs))
    problems = [f"{ex_id}: hint text missing: {h[:60]!r}" for h in shown if _flat(h) not in text]
    problems += [f"{ex_id}: hint shown twice: {h[:60]!r}" for h in shown if text.count(_flat(h)) > 1]
    if _results(outputs):
        problems.append(f"{ex_id}: the hint cell also shows Out: {_results(outputs)[0][:80]!r}")
    if withheld_last and _flat(last) in text:
        problems.append(f"{ex_id}: the last hint level is given away before its release")
    return problems


# -- prediction explorers -----------------------------------------------------------------

_SCORE = re.compile(r"Score(?: so far)?:\s*(\d+)\s*/\s*(\d+)")

# how a student gets a new question from a prediction explorer: by default a key on its
# first slider (the setting); chapter 01 drags a point, chapter 07 (whose setting does not
# change its question) asks for the next question; chapter 06's question is the order of
# the scores (a move that keeps it keeps the answer shown): its first score (item A, 0.3)
# is moved by 15 steps of 0.01, past item E's 0.4
NEW_QUESTION = {"01": ("drag", None), "06": ("keys", 15), "07": ("button", r"next question")}


def _total(readout: str) -> tuple[int, int]:
    m = _SCORE.findall(readout)
    assert m, f"no score in the readout: {readout!r}"
    return int(m[-1][0]), int(m[-1][1])


def step_predict(j: Journey, chapter: str, nb: str) -> None:
    boxes = j.panel.locator(".jp-Notebook .kml-predict")
    n = boxes.count()
    assert n >= 1, "no prediction explorer"
    for k in range(n):
        _predict_one(j, chapter, boxes.nth(k), k)


JS_EXPLORER = """(el, k) => {
  let p = el.parentElement;
  while (p && !Array.from(p.classList).some(c => c.startsWith('kml-') && c !== 'kml-predict')) p = p.parentElement;
  p.setAttribute('data-journey-explorer', String(k));
}"""


def _predict_one(j: Journey, chapter: str, box, k: int) -> None:
    box.evaluate(JS_EXPLORER, k)
    explorer = j.panel.locator(f'[data-journey-explorer="{k}"]')
    explorer.evaluate("(el) => el.scrollIntoView({block: 'start'})")
    readout = explorer.locator(".kml-readout").first
    image = explorer.locator("img").first
    reveal = box.locator("button", has_text="Reveal")
    text = readout.inner_text()
    assert "Predict first" in text, text
    total0 = _total(text)[1]

    def press_reveal(expect_figure: bool) -> str:
        src, mark = image.get_attribute("src"), j.mark()
        if reveal.is_enabled():
            reveal.click()
            j.settle(mark)
        if expect_figure:  # the verdict, then the figure with the result drawn
            j.page.wait_for_function(
                "(el) => /✔ right|✘ not quite/.test(el.innerText)",
                arg=readout.element_handle(),
                timeout=30_000,
            )
            j.page.wait_for_function(
                "([el, s]) => el.getAttribute('src') !== s", arg=[image.element_handle(), src], timeout=30_000
            )
        return readout.inner_text()

    # 1. a guess, Reveal: the result shows, scored once; pressing again scores nothing
    _guess(j, box, 0)
    text = press_reveal(True)
    assert ("✔ right" in text or "✘ not quite" in text) and _total(text)[1] == total0 + 1, text
    text = press_reveal(False)
    assert _total(text)[1] == total0 + 1, f"a second Reveal scored the same guess again: {text}"
    # 2. a new question (a point dragged, the setting changed), Reveal at once: the old
    #    guess is not scored against the new question; the figure stays where it is
    before = image.bounding_box()
    how, what = NEW_QUESTION.get(chapter, ("keys", None))
    _new_question(j, explorer, image, how, what)
    after = image.bounding_box()
    text = press_reveal(False)
    assert _total(text)[1] == total0 + 1, f"Reveal right after a new question scored the old guess: {text}"
    # under a drag the point must land under the pointer (issue 36: 56 px, 0.8 units off);
    # after a key or a button the figure a student compares with stays put (05's guess row
    # wrapped differently for a shorter word: 32 px)
    shift = max(abs(after["y"] - before["y"]), abs(after["x"] - before["x"]))
    assert shift < 1, f"the figure moved {shift:.0f} px when the setting changed ({how}): {before} -> {after}"
    # 3. a new guess and Reveal at once (the guess's message still on its way): the result
    #    shows and the guess is scored once
    _guess(j, box, 1, wait=False)
    text = press_reveal(True)
    assert ("✔ right" in text or "✘ not quite" in text) and _total(text)[1] == total0 + 2, text
    text = press_reveal(False)
    assert _total(text)[1] == total0 + 2, f"a second Reveal scored the same guess again: {text}"


def _guess(j: Journey, box, k: int, wait: bool = True) -> None:
    """Set a guess with the real control, a different one for each ``k``: options of a list
    or a drop-down, a toggle button, checkboxes, or a slider moved by keys."""
    mark = j.mark()
    select, toggles = box.locator("select"), box.locator(".widget-toggle-button")
    ticks = box.locator("input[type=checkbox]")
    typed = box.locator("input[type=text], input[type=number]")
    if select.count():
        n = select.first.evaluate("(el) => el.options.length")
        if select.first.evaluate("(el) => el.multiple"):
            select.first.select_option(index=[k % n, (k + 2) % n])
        else:
            select.first.select_option(index=(k + 1) % n)
    elif ticks.count():
        for i in (k % ticks.count(), (k + 2) % ticks.count()):
            ticks.nth(i).click()
    elif typed.count():  # a number box: its placeholder gives the range ("0 to 1")
        lo, hi = (
            float(v) for v in re.findall(r"-?[\d.]+", typed.first.get_attribute("placeholder") or "0 to 8")
        )
        guess = lo + (hi - lo) * (k + 1) / 4
        # a count (00: "0 to 30") takes a whole number; a range of integers this wide is one
        guess = round(guess) if lo == int(lo) and hi == int(hi) and hi - lo >= 4 else round(guess, 2)
        typed.first.fill(f"{guess:g}")
        typed.first.press("Tab")  # the value is sent when the box loses the focus
    elif toggles.count() > 1:
        toggles.nth((k + 1) % toggles.count()).click()
    else:
        _nudge(j, box.locator(".noUi-handle").first, 3 + k)
    if wait:
        j.settle(mark)


def _nudge(j: Journey, handle, presses: int = 2) -> None:
    """Move a slider by keys, to the right (to the left when it is at its right end)."""
    handle.focus()
    value = "(el) => el.getAttribute('aria-valuetext')"  # aria-valuenow is rounded to 0.1
    start = handle.evaluate(value)
    for key in ("ArrowRight", "ArrowLeft"):
        for _ in range(presses):
            j.page.keyboard.press(key)
        if handle.evaluate(value) != start:
            return
    raise AssertionError("the slider does not move")


def _new_question(j: Journey, explorer, image, how: str, what) -> None:
    mark = j.mark()
    if how == "keys":
        _nudge(
            j,
            explorer.locator(".widget-slider:not(.kml-predict .widget-slider) .noUi-handle").first,
            what or 2,
        )
    elif how == "button":
        button = explorer.locator("button", has_text=re.compile(what, re.I))
        assert button.count(), "nothing offers a new question after a Reveal"
        button.first.click()
    else:
        from test_browser import _margin_path, _to_page

        points = [_to_page(image, *p) for p in _margin_path()]
        j.page.mouse.move(*points[0])
        j.page.mouse.down()
        for x, y in points[1:]:
            j.page.mouse.move(x, y, steps=2)
        j.page.mouse.up()
        j.settle(mark, quiet_ms=250)  # ipyevents' throttle sends the last move late (20 ms)
        return
    j.settle(mark)


# -- recap quiz ---------------------------------------------------------------------------


def step_recap(j: Journey, chapter: str, nb: str) -> None:
    from kmlteach.exercises import questions

    qs = questions(chapter, kind="recap")
    quiz_cell = next(
        c["id"] for c in j.cells() if re.search(rf"""^quiz\(\s*["']{chapter}["']\s*\)""", c["source"], re.M)
    )
    header_cell = next(c["id"] for c in j.cells() if "quiz_html(" in c["source"])
    j.show(quiz_cell)
    problems = []
    header = _flat(_html_text(j.js("window.__j.outputs(a)", header_cell)["outputs"]))
    by_id = {q.id: q for q in qs}
    for qid, arg in re.findall(r"""ask\("(\d\d\.q\d+)",\s*([^)]*)\)""", header):
        lettered = re.fullmatch(r"""["'][a-j]["']""", arg.strip()) is not None
        if qid in by_id and lettered == by_id[qid].numeric:
            problems.append(f"the header's example ask({qid!r}, {arg}) does not fit {qid}")
    cell = j.panel.locator(".jp-Notebook .jp-Cell").nth(j.js("window.__j.find(a)", quiz_cell))
    checks = cell.locator("button", has_text=re.compile(r"^\s*check\s*$"))
    assert checks.count() == len(qs), f"{checks.count()} check buttons for {len(qs)} recap questions"
    for k, q in enumerate(qs):
        row = checks.nth(k).locator("xpath=ancestor::div[contains(@class, 'widget-vbox')][1]")
        assert q.id in row.inner_text(), (q.id, row.inner_text()[:100])
        out = row.locator(".widget-html").last
        for reply, ok in ((wrong_reply(q), False), (right_reply(q), True)):
            mark = j.mark()
            if q.numeric:
                row.locator("input[type=text]").fill(str(reply))
            else:
                row.locator("label", has_text=re.compile(rf"^\s*{reply}\)")).first.click()
            j.settle(mark)  # the reply has reached the kernel before the button is pressed
            mark = j.mark()
            checks.nth(k).click()
            j.settle(mark)  # the verdict's update came before the kernel went idle
            said = _flat(out.inner_text())
            if ok and not ("✓" in said and "right" in said):
                problems.append(f"{q.id}: the right reply {reply!r}: {said}")
            if not ok:
                why = _flat(q.feedback_for(_parsed(q, reply)))
                if not why or why not in said:
                    problems.append(f"{q.id}: the wrong reply {reply!r} gets no reply of its own: {said}")
                if _flat(q.explanation) in said:
                    problems.append(f"{q.id}: the wrong reply gives the explanation away: {said}")
    assert not problems, "\n".join(problems)


def step_progress(j: Journey, chapter: str, nb: str) -> None:
    from kmlteach.exercises import questions

    cell = next(c["id"] for c in j.cells() if re.search(r"progress\(\s*[\"']" + chapter, c["source"]))
    said = _flat(_text(j.run(cell)["outputs"]))
    j.show(cell)

    def count(what: str) -> tuple[int, int]:
        m = re.search(rf"(\d+) of (\d+) {what}", said)
        return (int(m.group(1)), int(m.group(2))) if m else (0, 0)

    n = len(j.exercises[chapter])
    concept = len(questions(chapter, kind="concept"))
    recap = len(questions(chapter, kind="recap"))
    boxes = j.panel.locator(".jp-Notebook .kml-predict").count()
    assert count("exercises passed") == (n, n), said
    assert count("concept checks right the first time") == (0, concept), said
    assert count("recap questions right the first time") == (0, recap), said
    assert count("predictions right")[1] == boxes, said


def _html_text(outputs: list[dict]) -> str:
    return "\n".join(
        re.sub(r"<[^>]+>", " ", "".join(o.get("data", {}).get("text/html", "")))
        for o in outputs
        if o["output_type"] in ("display_data", "execute_result")
    ).replace("&quot;", '"')


# -- the whole notebook -------------------------------------------------------------------


def step_outputs(j: Journey, chapter: str, nb: str) -> None:
    problems = []
    for c in j.js("window.__j.all()"):
        for e in _errors(c["outputs"]):
            problems.append(f"{e.split(':')[0]} in {c['source'][:50]!r}: {e[:160]}")
        last = c["source"].strip().splitlines()[-1] if c["source"].strip() else ""
        if re.match(r"^(ask|check|hint|solution)\(", last) and _results(c["outputs"]):
            problems.append(f"Out[{c['count']}]: {_results(c['outputs'])[0][:60]!r} under {last[:50]!r}")
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:12])


JS_LINKS = r"""() => {
  const root = window.__j.panel().node;
  // the notebook's own links (not JupyterLab's ¶ anchor beside each heading)
  const found = Array.from(root.querySelectorAll('.jp-RenderedMarkdown a[href], .jp-RenderedHTMLCommon a[href]'))
    .filter(a => !a.classList.contains('jp-InternalAnchorLink'));
  return found.map((a, i) => { a.setAttribute('data-journey-link', String(i));
    return {i, href: a.getAttribute('href'), text: a.textContent.trim().slice(0, 60)}; });
}"""


def step_links(j: Journey, chapter: str, nb: str) -> None:
    from kmlteach.course.book import load

    book = load()
    links = j.js(f"({JS_LINKS})()")
    assert links, "no link in the notebook"
    order = [n for _c, n in CHAPTERS]
    after = order[order.index(nb) + 1] if nb != order[-1] else None
    problems, follow = [], None
    server = urllib.parse.urlsplit(j.lab.url)
    files = f"{server.scheme}://{server.netloc}/files/"  # JupyterLab's address of a file of the course
    for link in links:
        href = link["href"] or ""
        anchor = j.panel.locator(f'[data-journey-link="{link["i"]}"]')
        if href.startswith("#"):
            frag = href[1:]
            if not j.js('!!window.__j.panel().node.querySelector(`[id="${CSS.escape(a)}"]`)', frag):
                problems.append(f"{link['text']!r}: no heading {href}")
            else:
                anchor.click()
        elif href.startswith(files):
            target = urllib.parse.unquote(href[len(files) :].split("?")[0])
            if after and target == f"notebooks/{after}.ipynb":
                follow = anchor  # the "Next" link: followed last, it opens the next chapter
                continue
            status = _click_local(j, anchor, target)
            if status != 200:
                problems.append(f"{link['text']!r} -> {target}: HTTP {status}")
        elif re.match(r"^https?://", href) and "127.0.0.1" not in href:
            with j.page.expect_popup() as popup:
                anchor.click()
            page = popup.value
            url = page.url if page.url != "about:blank" else href
            page.close()
            if "mybinder.org" in url and book.student_repository.split("github.com/")[-1] not in url:
                problems.append(f"{link['text']!r}: Binder opens {url}, not the student repository")
        else:
            problems.append(f"{link['text']!r}: {href} is neither a file of the course nor a web address")
    if follow is not None:
        follow.click()
        j.next_open = f"notebooks/{after}.ipynb"
        j.page.wait_for_function("(p) => window.__j.path() === p", arg=j.next_open, timeout=60_000)
        j.js("window.__j.activate(a)", j.path)
    assert not problems, "\n".join(problems)


def _click_local(j: Journey, anchor, target: str) -> int:
    """Click a link to a file of the course; the HTTP status of the file's contents request
    (200 when it opened; the file's tab is then closed again, a notebook once its kernel
    has started and JupyterLab's requests to it are answered: closed while it started,
    JupyterLab threw "Cannot read properties of null (reading 'kernel')"; closed as it
    became idle, "Could not restore the debugger state: Canceled future", each once in a
    loaded run)."""
    url_part = f"/api/contents/{target}"
    with j.page.expect_response(lambda r: url_part in r.url, timeout=30_000) as resp:
        anchor.click()
    status = resp.value.status
    if status == 200:
        j.page.wait_for_function("(p) => window.__j.path() === p", arg=target, timeout=30_000)
        if target.endswith(".ipynb"):
            j.page.wait_for_function("(p) => window.__j.ready(p)", arg=target, timeout=120_000, polling=100)
            j.js("window.__j.settledKernel(a)", 1000)
        j.js("window.__j.close(a)", target)
        j.js("window.__j.activate(a)", j.path)
    return status


def step_next(j: Journey, chapter: str, nb: str) -> None:
    order = [n for _c, n in CHAPTERS]
    if nb == order[-1]:
        return
    after = f"notebooks/{order[order.index(nb) + 1]}.ipynb"
    assert j.next_open == after, f"no link to the next chapter, {after} (a student following them stops here)"


def step_console(j: Journey, chapter: str, nb: str) -> None:
    errors = [e for e in j.console[j.console_from :] if "favicon" not in e]
    assert not errors, f"console errors: {errors[:5]}"


STEP_FN = {
    "open": step_open,
    "concept": step_concept,
    "mistakes": step_mistakes,
    "hints": step_hints,
    "predict": step_predict,
    "recap": step_recap,
    "progress": step_progress,
    "outputs": step_outputs,
    "links": step_links,
    "next": step_next,
    "console": step_console,
}


@pytest.mark.parametrize(("chapter", "step"), _params())
def test_journey(journey, chapter, step):
    nb = dict(CHAPTERS)[chapter]
    if step != "open" and not journey.opened.get(chapter):
        pytest.skip(f"chapter {chapter} did not open")
    t0 = time.monotonic()
    outcome = "passed"
    try:
        STEP_FN[step](journey, chapter, nb)
    except BaseException:
        outcome = "failed"
        raise
    finally:
        journey.times.setdefault(chapter, {})[step] = round(time.monotonic() - t0, 1)
        journey.outcome.setdefault(chapter, {})[step] = outcome
        try:
            journey.shot(chapter, step)
        except Exception:  # noqa: BLE001 - a screenshot must not hide the step's own failure
            pass


def test_every_widget_of_the_catalog_was_built_by_a_notebook(journey):
    from kmlteach.widgets._catalog import builders

    catalog = {name.split(".")[1].split("[")[0] for name, _ in builders()}
    assert len(catalog) > 20 and catalog <= journey.widgets_built, catalog - journey.widgets_built


def test_the_journey_table(journey):
    """The chapter × step table (seconds; x: failed), printed and kept in build/journey."""
    head = f"{'chapter':<8}" + "".join(f"{s:>10}" for s in STEPS) + f"{'total':>9}"
    rows = [head]
    for chapter, _nb in CHAPTERS:
        t, o = journey.times.get(chapter, {}), journey.outcome.get(chapter, {})
        cells = "".join(
            f"{(f'{t[s]:.1f}' + ('x' if o.get(s) == 'failed' else ' ')) if s in t else '-':>10}"
            for s in STEPS
        )
        rows.append(f"{chapter:<8}{cells}{sum(t.values()):>9.1f}")
    table = "\n".join(rows)
    SHOTS.mkdir(parents=True, exist_ok=True)
    notes = "".join(f"note: {n}\n" for n in journey.notes)
    (SHOTS / "table.txt").write_text(
        f"set-up (publish-student, make lab) {journey.lab.setup_seconds} s\n{table}\n{notes}"
    )
    print(f"\nset-up (publish-student, make lab): {journey.lab.setup_seconds} s\n{table}")
    assert len(journey.times) == len(CHAPTERS)
