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
from grade_submissions import HOPPER

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


def _run_named(prefix: str, text: str, *args: str) -> list[str]:
    """:func:`_run_script` with one more last argument, a process name of its own (``prefix``
    and six hex digits) for the processes it starts; every process of that name is killed
    after, whatever the script left."""
    import uuid

    name = f"{prefix}{uuid.uuid4().hex[:6]}"
    try:
        return _run_script(text, *args, name)
    finally:
        subprocess.run(["pkill", "-KILL", "-x", name], check=False)


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


def test_a_sweep_that_leaves_orphans_says_so_for_the_instructor(child, monkeypatch):
    """``end_kernel`` returns ``""`` when its sweep left nothing, else a line for the state
    file (before, a sweep that ran to its 10 s limit with processes left was recorded
    nowhere). The sweep that fails is played by a sweep that kills nothing."""
    monkeypatch.setattr(reaping, "reap_orphans", lambda live, timeout=10.0: 0)
    note = reaping.end_kernel(None, None, None, None, False)
    assert note.startswith("the sweep of orphans ran") and note.endswith("left a process alive"), note
    monkeypatch.undo()
    assert reaping.end_kernel(None, None, None, None, False) == ""
    assert _gone(child.pid)


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


# what the scripts below share: reaping the children left, counting the live processes
# of a name
_ALIVE = r"""
def drain(seconds=5):  # reap every child left (what a killed tree hands us, as it dies):
    end = time.monotonic() + seconds  # none is left for init (this VM's reaps them late)
    while time.monotonic() < end:
        try:
            if os.waitpid(-1, os.WNOHANG)[0] == 0:
                time.sleep(0.01)
        except ChildProcessError:
            return


def alive(name):
    n = 0
    for pid in os.listdir("/proc"):
        try:
            st = open(f"/proc/{pid}/stat", "rb").read()
        except OSError:
            continue
        if st[st.find(b"(") + 1 : st.rfind(b")")] == name and st[st.rfind(b")") + 2 : st.rfind(b")") + 3] != b"Z":
            n += 1
    return n
"""


# A "ladder" (red team of 2026-12-07): a chain of processes, each the parent of the next,
# whose bottom forks a new rung whenever its top is cut (the new top learns it through
# PR_SET_PDEATHSIG). Killing the reaper's children one generation a scan removed one rung a
# scan: the grader's sweep gave up after 10 s with the ladder alive, the kernel's reaper
# looped until the submission's time ran out. Played below the kernel's reaper (``kernel``)
# and the grader's sweep (``grader``), each in a process of its own that is a subreaper.
_LADDER = (
    r"""
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

"""
    + _ALIVE
    + r"""
t = time.monotonic()
if sys.argv[1] == "grader":
    reaping.reap_orphans(set(), timeout=5)
else:
    cfg = {"launcher_source": Path(launcher.__file__).read_text()}
    reaper(launcher_names(cfg))[0]()
seconds = time.monotonic() - t
time.sleep(0.1)
print(alive(NAME), f"{seconds:.1f}")  # what is left, the test's finaliser kills by its name
"""
)


@pytest.mark.parametrize("side", ["grader", "kernel"])
def test_a_ladder_is_stopped_whole_and_ended(side):
    left, seconds = _run_named("kmlladder", _LADDER, side)
    assert left == "0", f"{left} rungs of the ladder outlived the {side}'s reaping ({seconds} s)"
    assert float(seconds) < 5, f"the {side}'s reaping took {seconds} s"


# An exec'd "hopper" (red team of 2026-12-07, as an ordinary user without bwrap): a small
# interpreter in a session of its own that forks and lets its parent exit, thousands of
# times a second. Each parent that exits is handed to the kernel (a subreaper) as a zombie:
# three of them left 16 750 processes of the user in 4 s (pid_max 32 768), because the
# grader stopped the kernel (no more reaping) and then walked its thousands of zombies
# oldest first, reading each one's children, while the hoppers ran on. Capped here (4 000
# hops or 4 s each), so that even a regression leaves a bounded pile.
_HOPPER = (
    "import ctypes, os, sys, time\n"
    "ctypes.CDLL(None).prctl(15, sys.argv[1].encode(), 0, 0, 0)\n"
    "os.setsid()\n"
    "end = time.monotonic() + 4\n"
    "for _ in range(4000):\n"
    "    if os.fork():\n"
    "        os._exit(0)\n"
    "    if time.monotonic() > end:\n"
    "        break\n"
)


_BELOW_A_STOPPED_KERNEL = (
    r"""
import os, subprocess, sys, time
from kmlteach.course.grade.isolation import reaping
from kmlteach.course.grade.isolation.launcher import children

HOPPER, NAME = sys.argv[1], sys.argv[2]
assert reaping.become_subreaper()
KERNEL = (  # a subreaper that never reaps: a kernel the grader has stopped
    "import ctypes, os, sys, time\n"
    "ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)\n"
    "for _ in range(2):\n"
    "    if os.fork() == 0:\n"
    "        os.execv(sys.executable, [sys.executable, '-S', '-I', '-c', sys.argv[1], sys.argv[2]])\n"
    "time.sleep(60)\n"
)
k = subprocess.Popen([sys.executable, "-S", "-I", "-c", KERNEL, HOPPER, NAME])
t = time.monotonic()
while len(children(k.pid)) < 500 and time.monotonic() - t < 20:
    time.sleep(0.005)
t = time.monotonic()
reaping.kill_tree(k)
seconds = time.monotonic() - t
k.wait()
"""
    + _ALIVE
    + r"""
drain()
print(alive(NAME.encode()), f"{seconds:.2f}")
"""
)


def test_hoppers_below_a_stopped_kernel_are_stopped_before_the_walk_s_limit():
    """``kill_tree`` (the grader's, on a kernel with too many processes): each children list
    is walked newest first, so a hopper's running process is met before the zombies it
    left, and a zombie's children (it has none) are not read. Before, the walk below 500+
    zombies ran to its 2 s limit on every try (3 000 to 3 800 processes by then)."""
    left, seconds = _run_named("kmlhz", _BELOW_A_STOPPED_KERNEL, _HOPPER)
    assert left == "0", f"{left} hoppers outlived kill_tree"
    assert float(seconds) < 1.5, f"kill_tree's walk ran {seconds} s: it did not find the trees still"


_KERNEL_BURIES = (
    r"""
import os, sys, time
from pathlib import Path
from kmlteach.course.grade.isolation import launcher, reaping
from kmlteach.course.grade.inkernel.lock import launcher_names
from kmlteach.course.grade.inkernel.reaping import reaper

HOPPER, NAME = sys.argv[1], sys.argv[2]
assert reaping.become_subreaper()
reap, bury = reaper(launcher_names({"launcher_source": Path(launcher.__file__).read_text()}))
for _ in range(2):
    if os.fork() == 0:
        os.execv(sys.executable, [sys.executable, "-S", "-I", "-c", HOPPER, NAME])
most, end = 0, time.monotonic() + 1
while time.monotonic() < end:  # a probe's second, as ForkServer.receive waits
    time.sleep(0.05)
    most = max(most, len(launcher.children(os.getpid())))
    bury()
reap()
"""
    + _ALIVE
    + r"""
drain()
print(alive(NAME.encode()), most)
"""
)


def test_the_kernel_buries_what_hoppers_leave_while_a_probe_runs():
    """``bury()``, every 50 ms of a probe (``ForkServer.receive``), reaps the zombies hoppers
    hand the kernel: 260-270 children at most here, where without it they reached 3 000
    in the same second (2026-12-07, 2 cores); ``reap()`` then ends the hoppers."""
    left, most = _run_named("kmlhb", _KERNEL_BURIES, _HOPPER)
    assert left == "0", f"{left} hoppers outlived the kernel's reap()"
    assert int(most) < 1500, f"{most} children of the kernel at once: zombies were not buried"


# chapter 01's hopper (tests/grade_submissions.py), its fork made three exec'd hoppers
_EXEC_HOPPERS = (
    HOPPER[: HOPPER.index("    import ctypes")]
    + "    import os, sys\n"
    + "    for _ in range(3):\n"
    + "        if os.fork() == 0:\n"
    + "            os.execv(sys.executable, [sys.executable, '-S', '-I', '-c', HOPPER, NAME])\n"
    + HOPPER[HOPPER.index("    w = np.zeros") :]
)


def _grade_without_bwrap_nor_cgroup(subs, gradebook, monkeypatch):
    """The one row of ``subs`` graded where only the grader counts processes (no bubblewrap,
    no cgroup; as root, root kernels)."""
    from kmlteach.course.grade import Limits, grade_folder
    from kmlteach.course.grade.isolation import mode

    unsafe = os.geteuid() == 0
    if unsafe:
        monkeypatch.setattr(mode, "runs_on_host", lambda: False)
    mode._detect.cache_clear()
    try:
        (row,) = grade_folder(
            subs,
            gradebook,
            limits=Limits(timeout=20, bwrap=False, cgroup=False),
            progress=None,
            unsafe_root=unsafe,
        )
    finally:
        mode._detect.cache_clear()
    return row


@pytest.mark.skipif(launcher_abi() < 6, reason="needs Landlock ABI >= 6 (signals scoped)")
def test_exec_hoppers_graded_without_bwrap_nor_cgroup_are_contained(tmp_path, monkeypatch):
    """The red team's case end to end, in the mode where only the grader counts processes
    (no bubblewrap, no cgroup; as root, root kernels): three exec'd hoppers started by a
    probe. The kernel buries their zombies while the probe runs; the grader, past 64
    processes below the kernel, stops the kernel's whole tree, process groups whole, and
    kills it. The row says so, the other exercises keep their points, none of the hoppers
    outlives the run, and the processes they made stay in the hundreds (16 750 in 4 s
    before; then 17 036 in a make test, until process groups were stopped whole; after,
    64-256 with six busy loops beside the test, 2026-12-07)."""
    import threading
    import uuid

    from grade_submissions import dump, load, with_function

    name = f"kmlhg{uuid.uuid4().hex[:6]}"
    code = _EXEC_HOPPERS.replace("HOPPER, NAME", f"{_HOPPER!r}, {name!r}")
    subs = tmp_path / "subs"
    (subs / "hopper").mkdir(parents=True)
    (subs / "hopper" / "01-svm.ipynb").write_bytes(dump(with_function(load(), "01.perceptron", code)))
    most, done = [0], threading.Event()

    def count():  # the hoppers' processes, zombies included
        while not done.is_set():
            n = 0
            for pid in os.listdir("/proc"):
                try:
                    with open(f"/proc/{pid}/comm", "rb") as fh:
                        n += fh.read().strip() == name.encode()
                except OSError:
                    continue
            most[0] = max(most[0], n)
            time.sleep(0.02)

    sampler = threading.Thread(target=count, daemon=True)
    sampler.start()
    try:
        row = _grade_without_bwrap_nor_cgroup(subs, tmp_path / "gb.csv", monkeypatch)
    finally:
        done.set()
        sampler.join(10)
        subprocess.run(["pkill", "-KILL", "-x", name], check=False)
    left = subprocess.run(["pgrep", "-x", name], capture_output=True, text=True).stdout.split()
    lost = {e.id: e.message for e in row.exercises if e.points != e.max_points}
    # the kernel's reaper may end a probe's hoppers before they pass 64 (a loaded machine):
    # then the exercise keeps its points; otherwise the grader's kill says why it lost them
    assert set(lost) <= {"01.perceptron"}, (row.diagnostics, lost)
    assert not lost or any("more than 64 processes" in d for d in row.diagnostics), (row.diagnostics, lost)
    assert not left, f"hoppers alive after the run: {left}"
    assert most[0] < 3000, f"{most[0]} processes of the hoppers at once"


_VFORK = r"""
import ctypes, os, sys, time
from kmlteach.course.grade.isolation import reaping
from kmlteach.course.grade.isolation.launcher import _stat, children, stop_and_kill

libc = ctypes.CDLL(None)
assert reaping.become_subreaper()
me = os.getpid()
parent = os.fork()
if parent == 0:
    if libc.syscall(58) == 0:  # vfork (x86-64): the parent waits in D until this child execs or ends
        libc.alarm(20)
        libc.pause()
        libc._exit(0)
    os._exit(0)
while _stat(parent)[:1] != [b"D"]:
    time.sleep(0.01)
t = time.monotonic()
ended = stop_and_kill(lambda: children(me))
seconds = time.monotonic() - t
for pid in ended:
    os.waitpid(pid, 0)
print(len(ended), f"{seconds:.2f}")
"""


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="vfork's syscall number is x86-64's")
def test_a_vfork_parent_does_not_hold_the_walk_to_its_limit():
    """A vfork parent waits in uninterruptible sleep (D) while its child, stopped by the walk,
    neither execs nor exits: SIGSTOP cannot stop it there, and the walk signalled it again and
    again until its 2 s limit (red team of 2026-12-07: each ``stop_and_kill`` of such a
    submission took 2 s). It takes the pending SIGSTOP before running any code of its own:
    signalled once, it counts as halted."""
    ended, seconds = _run_script(_VFORK)
    assert ended == "2", f"{ended} processes stopped and killed (the parent and its vfork child)"
    assert float(seconds) < 1.5, f"stop_and_kill took {seconds} s below a vfork parent"


# chapter 01's perceptron, right only where its probe's child is in a process group of its
# own and may not join its kernel's (launcher's child_rules)
_OWN_GROUP = """
def batch_perceptron(X, y):
    import os
    kernel = os.getpgid(os.getppid())
    own = os.getpgrp() == os.getpid() != kernel
    try:
        os.setpgid(0, kernel)
        joined = True
    except PermissionError:
        joined = False
    w = np.zeros(X.shape[1])
    while own and not joined:
        bad = np.flatnonzero(y * (X @ w) <= 0)
        if bad.size == 0:
            return w
        w = w + y[bad[0]] * X[bad[0]]
    return w + 1.0
"""


@pytest.mark.skipif(launcher_abi() < 6, reason="needs Landlock ABI >= 6 (signals scoped)")
def test_a_probe_s_child_has_a_group_of_its_own_and_cannot_rejoin_its_kernel_s(tmp_path, monkeypatch):
    """The last red team of 2026-12-07 (as an ordinary user without bwrap) put a process of a
    probe's tree back into the kernel's process group, which the kernel's reaper could stop
    only process by process, then orphaned that group: Linux woke its stopped processes. A
    probe's child now starts a group of its own (stopped and killed whole) and its tree may
    not join the kernel's: graded end to end, a perceptron that is right only then keeps its
    points."""
    from grade_submissions import dump, load, with_function

    subs = tmp_path / "subs"
    (subs / "group").mkdir(parents=True)
    (subs / "group" / "01-svm.ipynb").write_bytes(dump(with_function(load(), "01.perceptron", _OWN_GROUP)))
    row = _grade_without_bwrap_nor_cgroup(subs, tmp_path / "gb.csv", monkeypatch)
    lost = {e.id: e.message for e in row.exercises if e.points != e.max_points}
    assert not lost, (row.diagnostics, lost)
