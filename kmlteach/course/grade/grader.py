"""Grade one submission: notebook bytes in, one gradebook row (and feedback data) out.

Steps: parse the notebook and decide its chapter (no code run); select the code
that the exercises need (:mod:`.cells`); start a fresh sandboxed kernel
(:mod:`.kernel`, inside :mod:`.isolation`); run its start-up cell (:mod:`.inkernel`),
then one probe per exercise, whose child runs the selected cells and then which calls the student's function on the
visible and hidden cases. Each exercise is scored as soon as its probe returns, so a
later timeout or crash does not take away earlier points. Expected values come from
:mod:`.plan` (computed in this process); comparison happens here, on values parsed
by :func:`.codec.decode_result`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re
import time

from .cells import check_calls, imports_package, notebook_code_cells, run_all_code, select_code
from .codec import MAX_RESULT_BYTES, ResultError, loads_limited
from .inkernel.startup import startup_code
from .isolation.mode import detect
from .isolation.uids import uid_slot
from .kernel import LAUNCHER, KernelDied, KernelTimeout, SandboxKernel
from .limits import Limits
from .plan import ChapterPlan, ExercisePlan, book_exercises, chapter_plan, reference_files, student_plan
from .scoring import ExerciseResult, SubmissionResult, _name, _short, score_exercise, student_text  # noqa: F401  (re-exported: grader.score_exercise etc.)
from .submission import InvalidSubmission, detect_chapter, read_notebook

__all__ = ["ExerciseResult", "SubmissionResult", "grade_submission", "grade_submission_sync"]

BLOCKED_MODULES = ["kmlteach.exercises", "kmlteach.course"]


class SubmissionTimeout(RuntimeError):
    """The submission's total time (``Limits.submission_seconds``) is used up."""


class Tampered(RuntimeError):
    """The probe the grader installed is no longer the one it calls."""


class NotebookFailed(RuntimeError):
    """The notebook's own code (the cells every probe's child runs first) ended the child
    or ran out of time: it would for every exercise."""

    def __init__(self, status: str, message: str):
        super().__init__(message)
        self.status = status


# how a probe's child ended without a reply, as the kernel words it (inkernel/server.ending)
_HOW = re.compile(
    r"(exit -?\d{1,3}(: [a-zA-Z ;']{1,60})?|signal \d{1,2}|stopped by the kernel: [a-z ]{1,40}|the kernel raised \w{1,40}|replied)"
)


def _detailed(exc: Exception, detail) -> Exception:
    """``exc`` with ``detail``, what the instructor's state file records beside it
    (:func:`_diagnostic`), when it is worded as the kernel words it (the kernel writes
    ``how`` over anything the child's reply said; "replied": the child sent a whole reply
    that said it died)."""
    exc.detail = detail if isinstance(detail, str) and _HOW.fullmatch(detail) else None
    return exc


def _diagnostic(exercise: str, phase: int, exc: BaseException) -> str:
    """One line of ``SubmissionResult.diagnostics``: which probe failed and why, in the
    grader's words, with how its child ended. The instructor's state file alone holds it:
    on a hidden case the outcome is the student's code's choice (a channel), so neither the
    gradebook nor the feedback says it."""
    detail = getattr(exc, "detail", None)
    what = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    return f"{exercise} {('visible', 'hidden')[phase]}: {what}" + (f" ({detail})" if detail else "")


async def _probe(
    kernel: SandboxKernel, probe_name: str, plan: ExercisePlan, visible: bool, probe_id: str, left: float
) -> dict:
    """One probe call on the visible *or* the hidden cases of an exercise (never both: a
    function that inspects its caller's frame while a visible case runs finds no hidden
    argument there)."""
    cases = [c.encoded for c in plan.cases if c.visible == visible]
    if not cases:
        return {"cases": [], "called": []}
    # every probe's child runs the notebook's code again, within the time limit each time;
    # that time is credited to the kernel's deadline (SandboxKernel.credit_cells), and
    # ``left`` (of Limits.submission_seconds) bounds the whole submission
    cells_budget = max(0.1, min(kernel.limits.timeout, left))
    payload = json.dumps(
        {
            "exercise": plan.id,
            "function": plan.function,
            "cases": cases,
            "budget": max(0.1, min(kernel._remaining(), left) - 0.5),
            "cells_budget": cells_budget,
        }
    )
    var = f"_kmlteach_r_{kernel.nonce}"
    t0 = time.monotonic()
    content = await kernel.run(
        f"{var} = {probe_name}({payload!r})", {"r": var, "p": f"id({probe_name})"}, extra=cells_budget
    )
    exprs = content.get("user_expressions") or {}
    if _expr_text(exprs.get("p")) != probe_id:
        raise Tampered(f"the grader's probe was replaced while {plan.id} was graded")
    if content.get("status") != "ok":
        failed = Tampered(f"the grader's probe failed while {plan.id} was graded")
        raise _detailed(failed, f"the kernel raised {content.get('ename')}")
    text = _expr_text(exprs.get("r"))
    if text is None:
        raise ResultError("no result")
    import ast

    try:
        literal = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        raise ResultError("not a literal") from None
    reply = loads_limited(literal)
    if not isinstance(reply, dict):
        raise ResultError("not an object")
    # the cells' time, measured by the kernel (which runs no student code), is not the
    # exercise's: every probe's child runs the notebook's code again
    cells_time = reply.get("cells_time")
    if not isinstance(cells_time, (int, float)) or not 0 <= cells_time <= cells_budget + 1:
        raise ResultError("no cells time")
    kernel.credit_cells(float(cells_time))
    late = reply.get("late") is True
    # (what any reply of the hidden phase says beyond its cases is dropped by _run_kernel)
    if reply.get("late") == "stuck":  # files the kernel could not remove (_inode_guard): a new kernel
        raise KernelDied(f"the code left files the grader could not remove while {plan.id} was graded")
    if reply.get("late") == "files":  # stopped by the kernel's _inode_guard, not by the clock
        if reply.get("phase") == "cells":
            raise NotebookFailed("crashed", "the notebook's code created more than 20 000 files")
        raise KernelDied(f"the function created more than 20 000 files while {plan.id} was graded")
    if "MemoryError" in (reply.get("cell_errors") or []):
        kernel.memory_event = True
    if reply.get("phase") == "cells":  # the notebook's own code: again would fail again
        if late and cells_budget < kernel.limits.timeout - 0.05:  # cut by the submission's total
            raise SubmissionTimeout()
        if late:
            raise NotebookFailed("timeout", f"time limit of {kernel.limits.timeout:g} s reached")
        if kernel.memory_event:
            raise NotebookFailed("memory", "the notebook's code ran out of memory")
        raise _detailed(
            NotebookFailed("crashed", "the process running the notebook's code ended"), reply.get("how")
        )
    if late:
        raise KernelTimeout()
    if reply.get("unreadable"):
        raise ResultError("unreadable")
    if reply.get("died"):  # the probe's child ended without a reply (os._exit, a signal)
        raise _detailed(
            KernelDied(f"the process running the function ended while {plan.id} was graded"), reply.get("how")
        )
    if reply.get("tampered"):
        raise Tampered(f"the grader's probe was replaced while {plan.id} was graded")
    # time measured here, never what the kernel reports (a number it chose is a channel),
    # less the cells' (measured by the kernel, which runs no student code)
    reply["elapsed"] = max(0.0, time.monotonic() - t0 - float(cells_time))
    return reply


def _expr_text(expr) -> str | None:
    if not isinstance(expr, dict) or expr.get("status") != "ok":
        return None
    text = (expr.get("data") or {}).get("text/plain")
    return text if isinstance(text, str) else None


HIDDEN_FAILED = {"cases": [], "called": []}  # a hidden phase that did not complete: its cases failed


class _NextKernel(Exception):
    """The hidden phase ended this kernel; the work left goes to a fresh one."""


START_ATTEMPTS = 3
MAX_KERNELS = 3  # a hang or crash in one exercise's probe: the rest go to a fresh kernel


def _merge(halves, ex_plan) -> dict:
    vis, hid = halves
    # the visible replies stop at a KeyboardInterrupt: the cases not run count as stopped,
    # so the hidden replies stay beside their own cases
    n_vis = sum(c.visible for c in ex_plan.cases)
    shown = list(vis.get("cases") or [])[:n_vis]
    shown += [{"error": "KeyboardInterrupt", "message": "not run"}] * (n_vis - len(shown))
    hidden = hid.get("cases")  # as many as there are hidden cases, whatever the child wrote
    hidden = hidden[: len(ex_plan.cases) - n_vis] if isinstance(hidden, list) else []
    return {
        "cases": shown + hidden,
        # the hidden phase gives its cases' values only: which cases pass. Not the names it
        # called (red team 3 spelled a hidden input's signs with 4 of 27), nor a verdict of
        # its own: a reference called there fails those cases, as any error does
        "called": sorted(set(vis.get("called") or [])),
        "missing": bool(vis.get("missing")),
        # the visible cases' time only: a process that held hidden inputs (the hidden
        # phase's child, its cells included) sends no number to the feedback; red team 2
        # encoded a hidden input in a cell's sleep and read it in "time used"
        "elapsed": float(vis.get("elapsed") or 0.0),
    }


async def _start(limits, uid, deny, data, notes):
    # a kernel that fails to start has run none of the student's code: the failure is the
    # machine's (seen under load: a kernel dying before its first reply), so it is started
    # again, up to START_ATTEMPTS times, before the submission counts as crashed
    for attempt in range(1, START_ATTEMPTS + 1):
        kernel = SandboxKernel(limits, uid, deny, data)
        try:
            await kernel.__aenter__()
            return kernel
        except BaseException as exc:
            # whatever failed: its client's sockets (left open, a garbage-collected ZeroMQ
            # context waits for them forever), processes, cgroup and folders in /tmp
            await kernel.__aexit__(None, None, None)
            notes.append(f"kernel start {attempt}: {type(exc).__name__}: {exc}"[:300])
            if kernel.end_note:
                notes.append(kernel.end_note)
            if not isinstance(exc, KernelDied) or attempt == START_ATTEMPTS:
                raise


async def _run_kernel(
    res: SubmissionResult,
    plan: ChapterPlan,
    code: list[str],
    data: bytes,
    limits: Limits,
    deny=(),
) -> None:
    """Visible cases of every exercise first, then the hidden ones (hidden inputs never
    reach the kernel before every visible result, the only student text shown, is in).
    An exercise is scored as soon as both halves are in. A probe that times out, kills
    the kernel or finds the probe replaced costs that exercise its points and the
    submission its ``ok`` status; the remaining work continues in a fresh kernel."""
    n = len(plan.exercises)
    preload = imports_package(code)
    work = [(0, i) for i in range(n)] + [(1, i) for i in range(n)]
    halves = [[None, None] for _ in range(n)]
    spent = [0.0]  # seconds of probes so far (kernel start-ups not counted)

    def score(i, hidden=None):
        if hidden is not None:
            halves[i][1] = hidden
        ex = plan.exercises[i]
        res.exercises[i] = score_exercise(ex, _merge(halves[i], ex), tuple(plan.guards or {}))

    def note(i, phase, exc):  # the instructor's record (the state file only): see _diagnostic
        if len(res.diagnostics) < 2 * n + START_ATTEMPTS * MAX_KERNELS:
            res.diagnostics.append(_diagnostic(plan.exercises[i].id, phase, exc))

    def fail(status, message, i=None):
        if res.status == "ok":
            res.status, res.message = status, message
        if i is not None:
            e = res.exercises[i]
            e.verdict, e.message, e.points = status, f"not graded: {message}", 0.0
            work[:] = [w for w in work if w[1] != i]

    with uid_slot(detect(limits).dedicated_uid) as uid:
        for _ in range(MAX_KERNELS):
            if not work:
                break
            try:
                kernel = await _start(limits, uid, deny, data, res.diagnostics)
            except KernelDied as exc:
                fail("crashed", str(exc))
                break
            current = None
            try:
                res.sandbox = kernel.sandbox_note()
                probe = f"_kmlteach_probe_{kernel.nonce}"
                cfg = {
                    "blocked_modules": BLOCKED_MODULES,
                    "guards": plan.guards,
                    "spared": plan.spared,  # helpers of the guards that stay working (cases.SHARED)
                    "max_bytes": MAX_RESULT_BYTES // 2,
                    "probe_name": probe,
                    "cells": code,  # run by each probe's child only, never by the kernel
                    "policy": kernel.policy.to_json(),  # the child's rules; sys.path (inkernel/lock.py)
                    "launcher_source": LAUNCHER.read_text(encoding="utf-8"),  # its Landlock, seccomp, reaper
                    # each exercise's files its child may not read
                    "refs": reference_files(plan.guards, plan.spared),
                    "preload": preload,  # the kernel imports the references' modules first
                }
                pre = startup_code(cfg, probe)
                probe_id = _expr_text(
                    (await kernel.run(pre, {"p": f"id({probe})"})).get("user_expressions", {}).get("p")
                )
                kernel.seal()  # before any of the student's code runs (in a probe's child)
                while work:
                    current = work[0][1]
                    phase, i = work[0]
                    left = limits.submission_seconds - spent[0]
                    memory_before = kernel.memory_event
                    t0 = time.monotonic()
                    try:
                        if left <= 0.1:
                            raise SubmissionTimeout()
                        reply = await _probe(kernel, probe, plan.exercises[i], phase == 0, probe_id, left)
                    except ResultError as exc:
                        note(i, phase, exc)
                        if phase == 1:
                            reply = HIDDEN_FAILED
                        else:
                            raise Tampered(f"unreadable reply from the kernel ({exc})") from None
                    except (SubmissionTimeout, KernelTimeout, KernelDied, Tampered, NotebookFailed) as exc:
                        note(i, phase, exc)
                        # on the hidden cases, whatever went wrong (time, a crash, memory, the
                        # cells, a replaced probe) has one outcome: those cases failed. Which
                        # one it was would be bits of the hidden inputs (red team 4 chose
                        # among 7 outcomes), so neither the status nor a message says it
                        if phase == 0:
                            raise
                        reply = HIDDEN_FAILED
                        if isinstance(exc, (KernelTimeout, KernelDied)):  # this kernel is done
                            work.pop(0)
                            score(i, HIDDEN_FAILED)
                            raise _NextKernel() from None
                    finally:
                        spent[0] += time.monotonic() - t0
                        if phase == 1:  # a hidden phase's memory says nothing either
                            kernel.memory_event = memory_before
                    halves[i][phase] = reply
                    work.pop(0)
                    if phase == 1:
                        score(i)
                current = None
                if kernel.memory_event or any(e.verdict == "memory" for e in res.exercises):
                    fail("memory", f"ran out of memory (address-space limit {limits.memory_mb} MB)")
            except _NextKernel:
                pass
            except (SubmissionTimeout, KernelTimeout) as exc:
                total = f"the submission's total time limit of {limits.submission_seconds:g} s reached"
                if isinstance(exc, SubmissionTimeout) or spent[0] >= limits.submission_seconds - 0.6:
                    for _, i in list(work):  # cut by the total: nothing else is run
                        fail("timeout", total, i)
                    current = None
                else:
                    fail("timeout", f"time limit of {limits.timeout:g} s reached", current)
            except KernelDied as exc:
                mem = kernel.memory_event
                fail(
                    "memory" if mem else "crashed",
                    "the kernel died after running out of memory" if mem else str(exc),
                    current,
                )
            except Tampered as exc:
                fail("crashed", str(exc), current)
            except NotebookFailed as exc:
                fail(exc.status, str(exc))
                current = None
            finally:
                await kernel.__aexit__(None, None, None)
                if kernel.end_note:
                    res.diagnostics.append(kernel.end_note)
            if current is None:  # not in a probe: the notebook's own code failed; again would too
                break
    for phase, i in list(work) if res.status == "ok" else ():  # no kernel left for its hidden cases
        if phase == 1:
            score(i, HIDDEN_FAILED)
    for e in res.exercises:
        if e.verdict == "not run" and res.status != "ok":
            e.verdict, e.message = res.status, f"not graded: {res.message}"


async def grade_submission(
    sub_id: str,
    data: bytes,
    limits: Limits = Limits(),
    *,
    chapter: str | None = None,
    book_path: str | None = None,
    deny=(),
    secret: bytes | None = None,
    run_all: bool = False,
    chapters: frozenset | None = None,
) -> SubmissionResult:
    """Grade one notebook (its bytes); never raises for anything the submission does.

    ``secret``: hidden cases drawn for this submission (:func:`.plan.student_plan`);
    ``run_all``: run every code cell top to bottom instead of the selected code;
    ``deny``: the grader's paths the kernel must not read (the submissions, the gradebook,
    the feedback, the secret's file), whatever the file-access policy grants; ``chapters``:
    the ids of the chapters with graded exercises, when the caller has read ``book.toml``
    already (a run reads it once, not once a submission)."""
    t0 = time.monotonic()
    res = SubmissionResult(sub_id)
    try:
        nb = read_notebook(data)
        known = set(chapters) if chapters is not None else set(book_exercises(book_path))
        res.chapter = detect_chapter(nb, known, chapter)
    except InvalidSubmission as exc:
        res.status, res.message = "invalid", str(exc)
        res.seconds = round(time.monotonic() - t0, 3)
        return res
    plan = (
        student_plan(res.chapter, book_path, secret, sub_id)
        if secret
        else chapter_plan(res.chapter, book_path)
    )
    sources = notebook_code_cells(nb)
    theirs = check_calls(sources)
    plan = dataclasses.replace(
        plan,
        exercises=tuple(
            dataclasses.replace(e, function=theirs.get(e.id, e.function)) for e in plan.exercises
        ),
    )
    res.exercises = [
        ExerciseResult(e.id, 0.0, e.points, total=len(e.cases), hint=e.hint) for e in plan.exercises
    ]
    code = run_all_code(sources) if run_all else select_code(sources, [e.function for e in plan.exercises])
    await _run_kernel(res, plan, code, data, limits, deny)
    if res.status == "ok" and not res.message:
        res.message = "; ".join(
            f"{e.id}: {e.message if e.verdict == 'reference' else e.verdict}"
            for e in res.exercises
            if e.verdict != "passed"
        )
    res.seconds = round(time.monotonic() - t0, 3)
    return res


def grade_submission_sync(sub_id: str, data: bytes, limits: Limits = Limits(), **kw) -> dict:
    """:func:`grade_submission` for a plain function call (e.g. a Dask task); a dict."""
    return asyncio.run(grade_submission(sub_id, data, limits, **kw)).to_dict()
