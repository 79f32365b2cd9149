"""How a probe's child ended, as the kernel reports it to the grader for the instructor's
state file (``SubmissionResult.diagnostics``; docs/grading.md): the kernel's own receive
loop (``inkernel/server.py``, ``ForkServer.receive``) run on real forked children that end
in each way, and every wording it can produce kept by the grader's filter (``grader._HOW``).
The whole grading path (a child that calls ``os._exit(0)``, recorded in the state file and
absent from the feedback) is in test_grade_hostile.py."""

from __future__ import annotations

import json
import os
import signal
import time
from typing import NamedTuple

import pytest

from kmlteach.course.grade import grader
from kmlteach.course.grade.inkernel.server import STEPS, ForkServer, ending

_CHILD = [0]  # the pid of the child _receive forked last
_BURIED: list = []  # what receive asked the kernel's bury() to keep, call by call


class Received(NamedTuple):
    reply: str | None
    cells_time: float
    phase: str
    late: bool | str
    how: str
    seconds: float


def _receive(child, budget: float = 5.0) -> Received:
    """``ForkServer.receive`` on a forked ``child(w)`` (which must end with ``os._exit``)."""
    fs = ForkServer.__new__(ForkServer)
    fs.max_bytes, fs.too_many_files = 1 << 20, lambda: False
    _BURIED.clear()
    fs.bury = _BURIED.append  # the real one reaps this process's children: recorded here
    r, w = os.pipe()
    pid = _CHILD[0] = os.fork()
    if pid == 0:  # pragma: no cover - child
        try:
            os.close(r)
            child(w)
        finally:
            os._exit(99)
    os.close(w)
    t0 = time.monotonic()
    try:
        got = fs.receive(r, pid, budget, budget)
    finally:
        os.close(r)
    return Received(*got, time.monotonic() - t0)


def _reply(w, text: bytes = b'{"cases": []}'):
    os.write(w, b"C" + len(text).to_bytes(8, "big") + text)


def test_a_whole_reply_is_replied():
    got = _receive(lambda w: (_reply(w), os._exit(0)))
    assert (got.reply, got.phase, got.late, got.how) == ('{"cases": []}', "cases", False, "replied")


@pytest.fixture
def late_select(monkeypatch):
    """The kernel's select, except the first time it waits: then it lets the child finish
    (waited for, not reaped) and answers "nothing yet". Its list is true until then."""
    from kmlteach.course.grade.inkernel import server

    real, first = server._select, [True]

    def select(r, w, x, timeout=None):
        if first[0] and timeout:
            first[0] = False
            os.waitid(os.P_PID, _CHILD[0], os.WEXITED | os.WNOWAIT)
            return [], [], []
        return real(r, w, x, timeout)

    monkeypatch.setattr(server, "_select", select)
    return first


def test_a_reply_written_between_an_empty_select_and_the_waitpid_is_read(late_select):
    """The race behind honest probes that "ended" on a loaded machine (exit 0, 3 of 8 runs
    of make test, 2026-12-07): the kernel's select finds the pipe empty, the child then
    writes its whole reply and exits before the kernel's waitpid."""
    got = _receive(lambda w: (_reply(w, b'{"cases": [1]}'), os._exit(0)))
    assert not late_select[0], "the kernel never waited"
    assert (got.reply, got.phase, got.late, got.how) == ('{"cases": [1]}', "cases", False, "replied")


def test_cells_that_end_in_the_drained_reply_are_not_credited_the_cases_time(late_select):
    """When even the cells' end ("C") is read only after the child ended, the time credited
    for the cells is when the pipe was last seen empty, not the moment the whole reply was
    read: the cases' time on top would be credited to the deadline (review of 2026-12-07)."""

    def reply_alone(w):  # its cells take no time ("C" at once), its cases 0.3 s
        os.write(w, b"C")
        time.sleep(0.3)
        os.write(w, (2).to_bytes(8, "big") + b"{}")
        os._exit(0)

    got = _receive(reply_alone)
    assert not late_select[0], "the kernel never waited"
    assert (got.reply, got.phase, got.how) == ("{}", "cases", "replied")
    assert got.cells_time < 0.1, f"{got.cells_time:.3f} s credited for cells that took none"


@pytest.mark.parametrize("code", sorted(STEPS))
def test_a_child_that_exits_before_its_reply_names_its_step(code):
    got = _receive(lambda w: (os.write(w, b"C"), os._exit(code)))
    assert got.reply is None and got.phase == "cases"
    assert got.how == f"exit {code}: {STEPS[code]}"
    assert got.seconds < 2.0


def test_a_signal_is_named_and_a_silent_exit_is_its_status():
    def killed_by_sigterm(w):  # the default action (a test worker may handle SIGTERM itself)
        os.write(w, b"C")
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)

    got = _receive(killed_by_sigterm)
    assert (got.phase, got.how) == ("cases", "signal 15")
    got = _receive(lambda w: os._exit(0))  # before the cells' end: phase "cells"
    assert (got.phase, got.how) == ("cells", "exit 0")
    got = _receive(lambda w: (os.write(w, b"C" + (100).to_bytes(8, "big") + b"{"), os._exit(5)))
    assert got.how == "exit 5"  # half a reply


def test_a_child_that_closes_its_pipe_and_stays_is_stopped_at_once():
    """It is given 0.1 s to end (its own status then says why), not its budget."""

    def child(w):
        os.write(w, b"C")
        os.close(w)
        time.sleep(30)

    got = _receive(child, budget=20.0)
    assert got.reply is None and got.late is False
    assert got.how == "stopped by the kernel: pipe closed or reply too large"
    assert got.seconds < 2.0


def test_a_late_child_is_stopped_by_the_kernel():
    got = _receive(lambda w: (os.write(w, b"C"), time.sleep(30)), budget=0.3)
    assert (got.reply, got.phase, got.late, got.how) == (None, "cases", True, "stopped by the kernel: late")
    assert got.seconds < 5.0
    # while it waited, the kernel buried what the child's processes left every 50 ms, and
    # never the child itself, whose status it reads
    assert len(_BURIED) >= 3 and set(_BURIED) == {_CHILD[0]}, _BURIED


def test_every_wording_of_the_kernel_passes_the_grader_s_filter_and_nothing_else_does():
    said = {ending(code << 8, False, False) for code in range(256)}
    said |= {ending(sig, False, False) for sig in range(1, 65)}
    said |= {ending(signal.SIGKILL, True, late) for late in (True, "files", False)}
    said |= {ending(3 << 8, True, True)}  # it ended by itself just before the kill: its own status
    assert "exit 3: " + STEPS[3] in said and "stopped by the kernel: too many files" in said
    assert all(grader._HOW.fullmatch(s) for s in said), [s for s in said if not grader._HOW.fullmatch(s)]
    for forged in ("exit 1: <b>see me</b>", "signal 9\nexit 0", "x" * 200, "stopped by the kernel: LATE!"):
        exc = grader._detailed(grader.KernelDied("the process running the function ended"), forged)
        assert exc.detail is None
    exc = grader._detailed(grader.KernelDied("ended"), "signal 9")
    assert grader._diagnostic("01.dual", 1, exc) == "01.dual hidden: KernelDied: ended (signal 9)"


def test_the_kernel_s_reply_carries_its_own_how_over_the_child_s():
    """A child that sends a whole reply saying it died and how gets ``how`` = "replied": the
    kernel writes its own over whatever the reply held (red team of 2026-12-07)."""

    class Forger(ForkServer):
        def __init__(self):
            self.max_bytes, self.before = 1 << 20, {}
            self.too_many_files, self.reap, self.bury = (lambda: False), (lambda: False), (lambda keep: [])

        def child(self, w, payload):
            forged = {"cases": [], "called": [], "died": True, "how": "stopped by the kernel: late"}
            _reply(w, json.dumps(forged).encode())
            os._exit(0)

    out = json.loads(Forger().probe(json.dumps({"budget": 5, "cells_budget": 5})))
    assert out["died"] is True and out["how"] == "replied", out
