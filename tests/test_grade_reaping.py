"""The grader's reaping of orphans (``isolation/reaping.py``) and kernels being started.

``end_kernel`` ends with ``reap_orphans``: every child of the grader with no_new_privs that
is not a listed kernel is killed (a submission's escaped daemons). A starting kernel's
bwrap is such a child until its start returns and it is listed; with ``--jobs 2`` the
other job's kernel could end in that window and kill it ("the kernel did not start",
retried; once in a make test of 2026-12-07, seen in the state file's diagnostics). Played
here with a child of this process that has no_new_privs, as a starting kernel's bwrap has.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from kmlteach.course.grade.isolation import reaping

pytestmark = pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="Linux /proc needed")

_NNP_SLEEPER = "import ctypes, time; ctypes.CDLL(None).prctl(38, 1, 0, 0, 0); time.sleep(60)"


def _nnp_child() -> subprocess.Popen:
    """A child of this process with no_new_privs (PR_SET_NO_NEW_PRIVS = 38), as a kernel's bwrap."""
    child = subprocess.Popen([sys.executable, "-c", _NNP_SLEEPER])
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with open(f"/proc/{child.pid}/status", encoding="ascii") as fh:
            if "NoNewPrivs:\t1" in fh.read():
                return child
        time.sleep(0.01)
    child.kill()
    raise AssertionError("the child never took no_new_privs")


def _gone(pid: int, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not os.path.exists(f"/proc/{pid}"):
            return True
        time.sleep(0.01)
    return False


@pytest.fixture
def child():
    """A child of this process with no_new_privs, killed and unlisted after the test."""
    proc = _nnp_child()
    yield proc
    reaping.LIVE_KERNELS.discard(proc.pid)
    proc.kill()
    proc.wait()


def test_an_unlisted_child_with_no_new_privs_is_reaped_when_a_kernel_ends(child):
    """The rule itself (what the starting kernel needs sparing from)."""
    reaping.end_kernel(None, None, None, None, False)
    assert _gone(child.pid), "an orphan-like child survived end_kernel"


def test_a_kernel_starting_while_another_ends_is_spared_then_reaped_if_never_listed(child):
    with reaping.starting():  # this job's kernel is being launched ...
        reaping.end_kernel(None, None, None, None, False)  # ... as the other job's ends
        time.sleep(0.2)
        assert child.poll() is None, "the starting kernel was killed as an orphan"
    # the start is over and the child was never listed: the deferred reaping takes it
    assert _gone(child.pid), "the deferred reaping of orphans did not run"


def test_a_kernel_listed_by_its_start_survives_the_deferred_reaping(child):
    with reaping.starting():
        reaping.end_kernel(None, None, None, None, False)
        reaping.LIVE_KERNELS.add(child.pid)  # what SandboxKernel._start does once launched
    time.sleep(0.2)
    assert child.poll() is None, "a listed kernel was reaped"


def test_no_start_begins_while_the_sweep_scans(monkeypatch):
    """Dask runs graders' loops in threads of one process: a start that began while another
    thread's sweep scanned /proc would have its new process taken for an orphan (review of
    2026-12-07). The sweep holds the lock that a start takes to begin."""
    import threading

    seen = []

    def slow_sweep(live):  # what the sweep sees of starts while it runs
        for _ in range(20):
            seen.append(reaping._START["starting"])
            time.sleep(0.01)
        return 0

    monkeypatch.setattr(reaping, "reap_orphans", slow_sweep)
    began = threading.Event()

    def start():
        began.set()
        with reaping.starting():
            time.sleep(0.05)

    sweeper = threading.Thread(target=reaping.end_kernel, args=(None, None, None, None, False))
    sweeper.start()
    while not seen:
        time.sleep(0.001)
    starter = threading.Thread(target=start)
    starter.start()
    began.wait(5)
    sweeper.join(10)
    starter.join(10)
    assert len(seen) >= 20 and not any(seen), f"a start began during the sweep: {seen}"
