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
from kmlteach.course.grade.isolation.launcher import landlock_abi as launcher_abi

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


def _run_script(text: str, *args: str) -> list[str]:
    """``text`` run by a Python process of its own (it may become a subreaper, fork and
    stop processes without touching the test worker); the words it printed."""
    out = subprocess.run([sys.executable, "-c", text, *args], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout.split()


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


# A process that forks and lets its parent exit ("hopper"), played once, at the worst time:
# the scan of /proc lists its process X, then X forks Y and exits before the kill. Run in a
# process of its own, which becomes a subreaper (Y is handed to it) without changing the
# test worker's.
_HOP = r"""
import ctypes, os, sys, time
from kmlteach.course.grade.isolation import reaping

assert reaping.become_subreaper()
go_r, go_w = os.pipe()
pid_r, pid_w = os.pipe()
x = os.fork()
if x == 0:
    ctypes.CDLL(None).prctl(38, 1, 0, 0, 0)  # no_new_privs, as a sandboxed process
    os.read(go_r, 1)
    if os.fork() == 0:
        os.write(pid_w, str(os.getpid()).encode())
        time.sleep(60)
        os._exit(0)
    os._exit(0)  # the hop: its child is handed to this process, the subreaper
while "NoNewPrivs:\t1" not in open(f"/proc/{x}/status").read():
    time.sleep(0.01)
real, hop = reaping._orphans, {}

def orphans(live):
    found = real(live)
    if not hop:  # the first scan has listed X: X hops now
        os.write(go_w, b"g")
        hop["y"] = int(os.read(pid_r, 16))
        os.waitid(os.P_PID, x, os.WEXITED | os.WNOWAIT)  # X has exited (a zombie, still ours)
    return found

reaping._orphans = orphans
n = reaping.reap_orphans(set())
y = hop["y"]
time.sleep(0.05)
try:
    state = open(f"/proc/{y}/stat").read().rsplit(")", 1)[1].split()[0]
except OSError:
    state = "gone"
print(n, "alive" if state not in ("gone", "Z") else "reaped")
if state not in ("gone", "Z"):
    os.kill(y, 9)
"""


def test_a_process_that_hops_to_a_new_pid_during_the_sweep_is_reaped():
    """Red team of 2026-12-07: a hopper outlived the grader's single scan. The sweep scans
    again until a scan finds none; X (a zombie by the kill) and Y are both reaped."""
    printed = _run_script(_HOP)
    assert printed == ["2", "reaped"], f"after the sweep (count, the hop's child): {printed}"


# A probe's child without bubblewrap (no folder of its own: confine_writes' first branch),
# its kernel played by this script's process
_SIGNAL = r"""
import os, signal, sys, time
from pathlib import Path
from kmlteach.course.grade.inkernel.lock import confine_writes
from kmlteach.course.grade.isolation import launcher

got = []
signal.signal(signal.SIGUSR1, lambda *a: got.append(1))
from kmlteach.course.grade.inkernel.lock import launcher_names

cfg = {"launcher_source": Path(launcher.__file__).read_text(), "policy": {"child_write": []}}
confine = confine_writes(cfg, launcher_names(cfg))
pid = os.fork()
if pid == 0:
    if not confine():
        os._exit(3)
    own = os.fork()  # what the child starts it may still signal (multiprocessing works)
    if own == 0:
        time.sleep(60)
        os._exit(0)
    os.kill(own, signal.SIGKILL)
    os.waitpid(own, 0)
    try:
        os.kill(os.getppid(), signal.SIGUSR1)
    except PermissionError:
        os._exit(0)
    os._exit(1)
_, status = os.waitpid(pid, 0)
time.sleep(0.1)
print(os.waitstatus_to_exitcode(status), len(got))
"""


@pytest.mark.skipif(launcher_abi() < 6, reason="Landlock scopes signals from ABI 6 (Linux 6.12)")
def test_a_probe_child_without_bwrap_cannot_signal_its_kernel():
    """Red team of 2026-12-07: as an ordinary user without bubblewrap, a probe's child killed
    its kernel (it shared the kernel's Landlock domain), whose reaper then never ran. The
    child now stacks a domain of its own that scopes signals (apply_scope)."""
    status, received = _run_script(_SIGNAL)
    assert status != "3", "confine() refused where Landlock scopes signals"
    assert (status, received) == ("0", "0"), (
        f"the child signalled its kernel (exit {status}, {received} received)"
    )


# A "ladder" (red team of 2026-12-07): a chain of processes, each the parent of the next,
# whose bottom forks a new rung whenever its top is cut (the new top learns it through
# PR_SET_PDEATHSIG). Killing the reaper's children one generation a scan removed one rung a
# scan: the grader's sweep gave up after 10 s with the ladder alive, the kernel's reaper
# looped until the submission's time ran out. Played below the kernel's reaper (``kernel``)
# and the grader's sweep (``grader``), each in a process of its own that is a subreaper.
_LADDER = r"""
import ctypes, mmap, os, signal, struct, sys, time
from pathlib import Path
from kmlteach.course.grade.isolation import launcher, reaping
from kmlteach.course.grade.inkernel.lock import launcher_names
from kmlteach.course.grade.inkernel.reaping import reaper

NAME, CAP = sys.argv[2].encode(), 25
libc = ctypes.CDLL(None)
assert reaping.become_subreaper()
m = mmap.mmap(-1, 4096, mmap.MAP_SHARED | mmap.MAP_ANONYMOUS)
if os.fork() == 0:
    libc.prctl(38, 1, 0, 0, 0)  # no_new_privs: sandboxed, as the grader's sweep wants it
    libc.prctl(15, NAME, 0, 0, 0)
    g = 0
    signal.signal(signal.SIGUSR1, lambda *a: struct.pack_into("q", m, 8, g))  # the top now
    while True:
        bottom, top = struct.unpack_from("qq", m, 0)
        if bottom - top >= CAP:
            time.sleep(0.002)
            continue
        if os.fork() == 0:
            g += 1
            struct.pack_into("q", m, 0, g)
            libc.prctl(1, signal.SIGUSR1, 0, 0, 0)  # PR_SET_PDEATHSIG
            continue
        while True:
            signal.pause()
while struct.unpack_from("qq", m, 0)[0] < CAP:
    time.sleep(0.01)


def alive():
    n = 0
    for pid in os.listdir("/proc"):
        try:
            st = open(f"/proc/{pid}/stat", "rb").read()
        except OSError:
            continue
        if st[st.find(b"(") + 1 : st.rfind(b")")] == NAME and st[st.rfind(b")") + 2 : st.rfind(b")") + 3] != b"Z":
            n += 1
    return n


t = time.monotonic()
if sys.argv[1] == "grader":
    reaping.reap_orphans(set(), timeout=5)
else:
    cfg = {"launcher_source": Path(launcher.__file__).read_text()}
    reaper(launcher_names(cfg))()
seconds = time.monotonic() - t
time.sleep(0.1)
print(alive(), f"{seconds:.1f}")  # what is left, the test's finaliser kills by its name
"""


@pytest.mark.parametrize("side", ["grader", "kernel"])
def test_a_ladder_is_stopped_whole_and_ended(side):
    import uuid

    name = f"kmlladder{uuid.uuid4().hex[:6]}"
    try:
        left, seconds = _run_script(_LADDER, side, name)
    finally:
        subprocess.run(["pkill", "-KILL", "-x", name], check=False)
    assert left == "0", f"{left} rungs of the ladder outlived the {side}'s reaping ({seconds} s)"
    assert float(seconds) < 5, f"the {side}'s reaping took {seconds} s"
