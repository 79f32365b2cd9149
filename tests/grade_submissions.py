"""Submissions of chapter 01 for the grader's tests and benchmark, built from the real
instructor notebook: honest, partial, empty (the released student version) and hostile
ones (one exercise function replaced by an attack; the others stay correct).

``hostile(paths)`` returns ``{name: (notebook bytes, expected)}`` where ``expected`` has
the total the submission must get and, optionally, its status and the points of single
exercises. ``paths`` names files the attacks try to damage (the test checks them).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
NB01 = ROOT / "notebooks" / "01-svm.ipynb"
NB02 = ROOT / "notebooks" / "02-kernels.ipynb"
FUNCS = {
    "01.distance": "distance",
    "01.hinge": "hinge_and_subgradient",
    "01.sgd_step": "sgd_step",
    "01.perceptron": "batch_perceptron",
    "01.subgradient_perceptron": "max_margin_subgradient",
}


def load(path=NB01) -> dict:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def dump(nb: dict) -> bytes:
    return json.dumps(nb).encode()


def with_function(nb: dict, exercise: str, source: str, name: str | None = None) -> dict:
    """A copy of ``nb`` whose cell defining the exercise's function (``name``, by default
    chapter 01's from :data:`FUNCS`) holds ``source``."""
    nb = copy.deepcopy(nb)
    name = name or FUNCS[exercise]
    for cell in nb["cells"]:
        src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if cell["cell_type"] == "code" and f"def {name}(" in src:
            cell["source"] = f"{source.strip()}\n\n\ncheck({exercise!r}, {name})\n"
            return nb
    raise KeyError(exercise)


def with_cell(nb: dict, source: str, before: str = "01.distance") -> dict:
    """A copy with a code cell inserted before the cell of exercise ``before``."""
    nb = copy.deepcopy(nb)
    name = FUNCS[before]
    for i, cell in enumerate(nb["cells"]):
        src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if cell["cell_type"] == "code" and f"def {name}(" in src:
            nb["cells"].insert(
                i,
                {
                    "cell_type": "code",
                    "metadata": {},
                    "outputs": [],
                    "execution_count": None,
                    "source": source,
                },
            )
            return nb
    raise KeyError(before)


def student(nb: dict) -> dict:
    from kmlteach.course.release import student_notebook

    return student_notebook(nb)


def honest_variants() -> dict:
    nb = load()
    empty = student(nb)
    partial = copy.deepcopy(empty)
    for ex in ("01.distance", "01.hinge"):
        src = {
            "01.distance": "def distance(x, w, b):\n    return abs(np.dot(w, x) + b) / np.linalg.norm(w)",
            "01.hinge": (
                "def hinge_and_subgradient(w, x, y):\n    z = y * np.dot(w, x)\n"
                "    if z < 1:\n        return 1 - z, -y * x\n    return 0.0, np.zeros_like(x)"
            ),
        }[ex]
        partial = with_function(partial, ex, src)
    # a subtle bug: `<` instead of `<=` passes some visible cases but not the hidden "w = 0" kinds
    buggy = with_function(
        nb,
        "01.perceptron",
        (
            "def batch_perceptron(X, y):\n    w = np.zeros(X.shape[1])\n    while True:\n"
            "        bad = np.flatnonzero(y * (X @ w) < 0)\n        if bad.size == 0:\n            return w\n"
            "        w = w + y[bad[0]] * X[bad[0]]"
        ),
    )
    return {
        "honest": (dump(nb), {"total": 13, "status": "ok"}),
        "empty": (dump(empty), {"total": 0, "status": "ok"}),
        "partial": (dump(partial), {"total": 3, "status": "ok"}),
        "buggy_perceptron": (dump(buggy), {"total": 10, "status": "ok"}),
    }


def _vandal_source(paths: dict) -> str:
    lines = ["def distance(x, w, b):", "    import os, shutil"]
    for action in (
        f"shutil.rmtree({str(paths['submissions'])!r})",
        f"open({str(paths['gradebook'])!r}, 'w').write('forged')",
        f"open({str(paths['course_file'])!r}, 'a').write('# pwned')",
        f"open({str(paths['cases_file'])!r}, 'a').write('# pwned')",
        f"open({str(paths['outside'])!r}, 'w').write('pwned')",
        f"os.remove({str(paths['other_submission'])!r})",
    ):
        lines += ["    try:", f"        {action}", "    except Exception:", "        pass"]
    lines.append("    return abs(np.dot(w, x) + b) / np.linalg.norm(w)")
    return "\n".join(lines)


def hostile(paths: dict) -> dict:
    """``{name: (bytes, expected)}`` — every attack of issue 11, point 3."""
    nb = load()
    H = {}

    def add(name, notebook, total, status="ok", **points):
        H[name] = (
            dump(notebook) if isinstance(notebook, dict) else notebook,
            {"total": total, "status": status, "points": points},
        )

    # a probe that hangs or kills the kernel costs its exercise; the others are graded in a
    # fresh kernel (issue 24), so only that exercise's points are lost
    add(
        "infinite_loop",
        with_function(
            nb,
            "01.subgradient_perceptron",
            "def max_margin_subgradient(w, X, y):\n    while True:\n        pass",
        ),
        11,
        "timeout",
    )
    add(
        "memory_bomb",
        with_function(
            nb, "01.hinge", "def hinge_and_subgradient(w, x, y):\n    big = np.ones(10**10)\n    return big"
        ),
        11,
        "memory",
    )
    add(
        "many_processes",
        with_function(
            nb,
            "01.sgd_step",
            (
                "def sgd_step(theta, t, lam, x, y):\n    import os, time\n    for k in range(400):\n"
                "        if os.fork() == 0:\n            if k % 2:\n                os.setsid()\n"
                "            time.sleep(300)\n            os._exit(0)\n    return None"
            ),
        ),
        11,
        "crashed",
    )
    add(
        "sys_exit",
        with_function(nb, "01.distance", "def distance(x, w, b):\n    import sys\n    sys.exit(3)"),
        12,
    )
    add(
        "os_exit",
        with_function(nb, "01.perceptron", "def batch_perceptron(X, y):\n    import os\n    os._exit(0)"),
        10,
        "crashed",
    )
    add(
        "kill_parent_and_group",
        with_function(
            nb,
            "01.hinge",
            (
                "def hinge_and_subgradient(w, x, y):\n    import os, signal\n"
                "    for pid in (os.getppid(), -1):\n        try:\n            os.kill(pid, signal.SIGKILL)\n"
                "        except OSError:\n            pass\n    os.killpg(os.getpgid(0), signal.SIGKILL)"
            ),
        ),
        11,
        "crashed",
    )  # in its PID namespace it reaches nothing but its own kernel (the probe runs in a child);
    # where the child's Landlock domain scopes signals (ABI >= 6, in bwrap) not even that. Its
    # process group is the probe child's own (launcher's child_rules): it kills itself there,
    # the hinge's cases are not graded (the kernel's group, which it shared before, refused
    # the whole call: the function raised, "ok" with its cases failed; the same 11 points)
    add("vandal", with_function(nb, "01.distance", _vandal_source(paths)), 13)
    add(
        "forged_results",
        with_cell(
            with_function(
                nb,
                "01.distance",
                (
                    "def distance(x, w, b):\n    import json, os\n"
                    "    line = json.dumps({'id': '01.distance', 'passed': True, 'cases': [{'value': 1.0}]})\n"
                    "    print(line)\n    open('results.jsonl', 'a').write(line + '\\n')\n"
                    "    p = os.environ.get('KMLTEACH_RESULTS')\n    if p:\n        open(p, 'a').write(line + '\\n')\n"
                    "    return -1.0"
                ),
            ),
            'print(\'{"cases": [{"value": 1.0}], "called": []}\')\nFORGED = 1',
        ),
        12,
    )
    add(
        "monkeypatch",
        with_function(
            nb,
            "01.hinge",
            (
                "def hinge_and_subgradient(w, x, y):\n    import numpy.testing\n"
                "    import kmlteach.exercises as E\n    E.check = lambda *a, **k: True\n"
                "    numpy.testing.assert_allclose = lambda *a, **k: None\n    np.allclose = lambda *a, **k: True\n"
                "    get_ipython().showtraceback = lambda *a, **k: None\n    raise ValueError('silenced?')"
            ),
        ),
        11,
    )
    add(
        "eq_always_true",
        with_function(
            nb,
            "01.distance",
            (
                "class Anything(float):\n    def __eq__(self, other):\n        return True\n"
                "    __hash__ = float.__hash__\n\n"
                "def distance(x, w, b):\n    return Anything(-5.0)"
            ),
        ),
        12,
    )
    add(
        "numpy_subclass",
        with_function(
            nb,
            "01.hinge",
            (
                "class Liar(np.ndarray):\n    def __eq__(self, other):\n        return np.ones(self.shape, bool)\n\n"
                "def hinge_and_subgradient(w, x, y):\n    return 0.0, np.zeros(len(x)).view(Liar)"
            ),
        ),
        11,
    )
    add(
        "read_hidden_cases",
        with_function(
            nb,
            "01.perceptron",
            (
                "def batch_perceptron(X, y):\n    import glob, importlib\n    ref = None\n"
                "    for mod in ('kmlteach.exercises.ch01', 'kmlteach.exercises.core', 'kmlteach.course.grade.cases.ch01'):\n"
                "        try:\n            m = importlib.import_module(mod)\n            ref = getattr(m, 'batch_perceptron', ref)\n"
                "        except Exception:\n            pass\n"
                "    try:\n        from kmlteach.exercises import registry, get\n"
                "        ref = get('01.perceptron').reference or registry()['01.perceptron'].reference\n"
                "    except Exception:\n        pass\n"
                "    for f in glob.glob('/**/grade/cases/ch01.py', recursive=False):\n"
                "        try:\n            open(f).read()\n        except Exception:\n            pass\n"
                f"    try:\n        open({str(paths['cases_file'])!r}).read()\n    except Exception:\n        pass\n"
                "    return ref(X, y) if ref else np.zeros(X.shape[1])"
            ),
        ),
        10,
    )
    add(
        "calls_reference",
        with_function(
            with_function(
                nb,
                "01.perceptron",
                (
                    "def batch_perceptron(X, y):\n    from kmlteach import svm\n    return svm.perceptron(X, y).w"
                ),
            ),
            "01.distance",
            (
                "def distance(x, w, b):\n    from kmlteach import svm\n    try:\n"
                "        return float(svm.distance_to_hyperplane(x[None, :], w, b)[0])\n    except Exception:\n"
                "        return abs(np.dot(w, x) + b) / np.linalg.norm(w)"
            ),
        ),
        9,
        **{"01.perceptron": 0, "01.distance": 0},
    )
    add(
        "big_output",
        with_cell(
            with_function(
                nb,
                "01.sgd_step",
                (
                    "def sgd_step(theta, t, lam, x, y):\n    print('y' * 1_000_000)\n    _ = BIG\n"
                    "    w = theta / (lam * t)\n    if y * np.dot(w, x) < 1:\n        return w, theta + y * x\n"
                    "    return w, theta.copy()"
                ),
            ),
            "BIG = print('x' * 50_000_000) or 1",
        ),
        13,
    )
    add(
        "env_spy",
        with_function(
            nb,
            "01.distance",
            (
                "def distance(x, w, b):\n    import os\n    leak = [k for k in os.environ if k.startswith('KMLTEACH')"
                " or 'SECRET' in k]\n    return abs(np.dot(w, x) + b) / np.linalg.norm(w) + 1000 * len(leak)"
            ),
        ),
        13,
    )
    add("corrupt_json", b'{"cells": [', 0, "invalid")
    add("not_a_notebook", b"\x89PNG\r\n\x1a\n\x00\x00 binary", 0, "invalid")
    add("nbformat3", json.dumps({"nbformat": 3, "worksheets": []}).encode(), 0, "invalid")
    ch02 = load(NB02)
    add("chapter02_notebook", ch02, 14)  # graded as what it is: its own row and columns
    lying = copy.deepcopy(ch02)
    lying["metadata"]["kmlteach"] = {"chapter": "01"}
    add("chapter02_claims_01", lying, 0, "invalid")
    H.update(hostile_issue24(nb))
    return H


DISTANCE = "abs(np.dot(w, x) + b) / np.linalg.norm(w)"
# per test process: two runs of the hostile test on one machine (abstract sockets, SysV
# keys and /dev/shm are host-wide) must not collide
IPC_NAME = f"kmlteach-leak-{__import__('os').getpid()}"
SHM_KEY = 0x6B6D0000 + 2 * (__import__("os").getpid() % 0x7FFF)


def _visible_args(exercise: str) -> list:
    """The arguments of an exercise's visible cases as lists (what ``check`` shows a student)."""
    from kmlteach.exercises import get

    return [
        [np.asarray(a).tolist() if np.ndim(a) else float(a) for a in c.args] for c in get(exercise).cases()
    ]


def _distance_unless(probe_code: str) -> str:
    """``distance`` that is correct only if ``probe_code`` (which sets ``hit``) found nothing."""
    body = "\n".join("    " + line for line in probe_code.strip().splitlines())
    return f"def distance(x, w, b):\n    hit = False\n{body}\n    return -1.0 if hit else {DISTANCE}"


IPC_PROBE = """
import ctypes, os, socket
libc = ctypes.CDLL(None, use_errno=True)
for key in KEYS:
    if libc.shmget(key, 0, 0) >= 0:
        hit = True
for name in NAMES:
    if os.path.exists("/dev/shm/" + name):
        hit = True
    try:
        rt = ctypes.CDLL("librt.so.1", use_errno=True)
        rt.mq_open.restype = ctypes.c_int
        if rt.mq_open(("/" + name).encode(), os.O_RDONLY) >= 0:
            hit = True
    except OSError:
        pass
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect("\\0" + name)
        hit = True
    except OSError:
        pass
    finally:
        s.close()
"""

IPC_WRITER = f"""
import ctypes, os, socket, threading
libc = ctypes.CDLL(None, use_errno=True)
libc.shmget({SHM_KEY + 1}, 4096, 0o1666)
with open("/dev/shm/{IPC_NAME}-w", "w") as fh:
    fh.write("answers")
try:
    rt = ctypes.CDLL("librt.so.1", use_errno=True)
    rt.mq_open(b"/{IPC_NAME}-w", os.O_CREAT | os.O_RDWR, 0o666, None)
except OSError:
    pass
srv = globals().get("_srv")
if srv is None:
    srv = socket.socket(socket.AF_UNIX)
    try:
        srv.bind("\\0{IPC_NAME}-w")
        srv.listen(8)
        globals()["_srv"] = srv
    except OSError:
        pass
"""

ROOT_PROBES = {
    "root_mknod": "import os, stat\ntry:\n    os.mknod('blk', stat.S_IFBLK | 0o600, os.makedev(7, 0))\n"
    "    hit = True\nexcept OSError:\n    pass",
    "root_raw_socket": "import socket\ntry:\n    socket.socket(socket.AF_PACKET, socket.SOCK_RAW)\n"
    "    hit = True\nexcept OSError:\n    pass",
    "root_parent_environ": "import os\nfor pid in {os.getppid(), 1}:\n    try:\n"
    "        if b'KMLTEACH' in open(f'/proc/{pid}/environ', 'rb').read():\n"
    "            hit = True\n    except OSError:\n        pass",
    "root_sched_fifo": "import os\ntry:\n    os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(10))\n"
    "    hit = True\nexcept OSError:\n    pass",
    # red team's finding C: the cgroup tree (counters shared by concurrent kernels) is a
    # channel between submissions; /sys is not in the sandbox at all
    "sys_cgroup": "import os\nfor p in ('/sys/fs/cgroup/cgroup.procs', '/sys/fs/cgroup/memory.stat', "
    "'/sys/fs/cgroup/pids/tasks', '/sys/kernel/uevent_seqnum'):\n    try:\n        open(p).read()\n"
    "        hit = True\n    except OSError:\n        pass\ntry:\n    hit = hit or bool(os.listdir('/sys'))\n"
    "except OSError:\n    pass",
}

EXFIL = """
import sys
_SEEN = []

def _walk():
    f = sys._getframe(2)
    while f is not None:
        for k, v in list(f.f_locals.items()):
            if k in ('payload', 'payload_json', 'case', 'args', 'cases'):
                _SEEN.append(repr(v)[:2000])
        f = f.f_back

def hinge_and_subgradient(w, x, y):
    _walk()
    raise ValueError('LEAK ' + ' | '.join(_SEEN[-3:]))

def distance(x, w, b):
    _walk()
    return abs(np.dot(w, x) + b) / np.linalg.norm(w)
"""

HOPPER = """
def batch_perceptron(X, y):
    import ctypes, os, time
    if os.fork() == 0:
        ctypes.CDLL(None).prctl(15, b"kmlhopper", 0, 0, 0)
        os.setsid()
        while True:
            if os.fork() != 0:
                os._exit(0)
            time.sleep(0.01)
    w = np.zeros(X.shape[1])
    while True:
        bad = np.flatnonzero(y * (X @ w) <= 0)
        if bad.size == 0:
            return w
        w = w + y[bad[0]] * X[bad[0]]
"""

# a probe's child that starts a hopper and then kills its kernel, whose reaper would have
# ended the hopper (red team of 2026-12-07, as an ordinary user without bwrap: hundreds
# ran on); refused where Landlock scopes signals, the child's ruleset does in every mode
KERNEL_KILLER = HOPPER.replace(
    "    w = np.zeros(X.shape[1])",
    "    import signal\n    try:\n        os.kill(os.getppid(), signal.SIGKILL)\n"
    "    except OSError:\n        pass\n    w = np.zeros(X.shape[1])",
)
assert KERNEL_KILLER != HOPPER


GUARD_SWITCH = """
def batch_perceptron(X, y):
    import gc, importlib, sys, types
    import kmlteach.svm
    Xc, yc = np.ascontiguousarray(X, dtype=float), np.ascontiguousarray(y, dtype=float)
    tries = []
    f = kmlteach.svm.perceptron
    seen = [f, getattr(f, '__wrapped__', None)]
    for g in list(seen):  # the guard's closure: switch off its state, call what it holds
        for cell in getattr(g, '__closure__', None) or ():
            v = cell.cell_contents
            if isinstance(v, dict):
                for k in list(v):
                    if isinstance(v[k], (str, set, type(None))):
                        v[k] = set() if isinstance(v[k], set) else None
            elif isinstance(v, (set, list)):
                try:
                    v.clear()
                except Exception:
                    pass
            elif callable(v):
                seen.append(v)
    tries += [lambda g=g: g(X, y).w for g in seen if callable(g)]
    for o in gc.get_objects():  # every copy the garbage collector knows, kernel included
        mod = getattr(o, '__module__', '')
        name = getattr(o, '__name__', '')
        if mod == 'kmlteach.svm.perceptron' and name == 'perceptron':
            tries.append(lambda o=o: o(X, y).w)
        if mod == 'kmlteach.svm.perceptron' and name == '_perceptron_kernel':
            tries.append(lambda o=o: o(Xc, yc, 100000)[0])
    tries.append(lambda: importlib.reload(sys.modules['kmlteach.svm.perceptron']).perceptron(X, y).w)
    for t in tries:
        try:
            w = np.asarray(t(), dtype=float)
            if w.shape == (X.shape[1],):
                return w
        except BaseException:
            pass
    return np.zeros(X.shape[1])
"""


def hostile_issue24(nb: dict) -> dict:
    """The findings of issue 24, each a submission (built on the honest notebook)."""
    H = {}

    def add(name, notebook, total, status="ok", **points):
        H[name] = (dump(notebook), {"total": total, "status": status, "points": points})

    add("exfil_exception_text", with_function(nb, "01.hinge", EXFIL), 11)
    # the reader looks for the test's host objects and the writer's; the writer (which
    # sees its own) for the host's only
    both = f"KEYS, NAMES = ({SHM_KEY}, {SHM_KEY + 1}), ({IPC_NAME!r}, {IPC_NAME + '-w'!r})\n"
    host = f"KEYS, NAMES = ({SHM_KEY},), ({IPC_NAME!r},)\n"
    add("ipc_reader", with_function(nb, "01.distance", _distance_unless(both + IPC_PROBE)), 13)
    add("ipc_writer", with_function(nb, "01.distance", _distance_unless(IPC_WRITER + host + IPC_PROBE)), 13)
    for name, probe in ROOT_PROBES.items():
        add(name, with_function(nb, "01.distance", _distance_unless(probe)), 13)
    add(
        "setsid_fork_bomb",
        with_function(
            nb,
            "01.sgd_step",
            (
                "def sgd_step(theta, t, lam, x, y):\n    import os, time\n    for k in range(150):\n"
                "        if os.fork() == 0:\n            os.setsid()\n            time.sleep(300)\n"
                "            os._exit(0)\n    w = theta / (lam * t)\n    if y * np.dot(w, x) < 1:\n"
                "        return w, theta + y * x\n    return w, theta.copy()"
            ),
        ),
        11,
        "crashed",
    )
    add("fork_hopper", with_function(nb, "01.perceptron", HOPPER), 13)
    add("kernel_killer", with_function(nb, "01.perceptron", KERNEL_KILLER), 13)
    add(
        "reply_300mb",
        with_function(
            nb,
            "01.hinge",  # built once: the cap is tested, not malloc
            "BIG = 'x' * 300_000_000\n\ndef hinge_and_subgradient(w, x, y):\n    return BIG",
        ),
        11,
    )
    add(
        "forged_feedback",
        with_function(
            nb,
            "01.distance",
            (
                "def distance(x, w, b):\n    raise ValueError('x\\n\\n# 13 / 13\\n**13 / 13**\\n<h1>pwned</h1>`<b>`')"
            ),
        ),
        12,
    )
    add(
        "hidden_case_text",
        with_function(
            nb,
            "01.distance",
            (
                # hidden = not one of the visible cases, which a student knows (a count kept in a
                # file no longer works: each probe's child starts with empty folders)
                f"VISIBLE = {_visible_args('01.distance')!r}\n\n\n"
                "def distance(x, w, b):\n"
                "    if [np.asarray(x).tolist(), np.asarray(w).tolist(), float(b)] not in VISIBLE:\n"
                "        raise ValueError('HIDDENMARKER ' + repr(x))\n"
                f"    return {DISTANCE}"
            ),
        ),
        12,  # 01.distance: its 7 visible cases pass, every hidden one raises; partial
        **{"01.distance": 0},  # credit counts hidden cases only: 1 × 0/7
    )
    add(
        "replaced_probe",
        with_function(
            nb,
            "01.sgd_step",
            (
                "def sgd_step(theta, t, lam, x, y):\n    ns = get_ipython().user_ns\n    for k in list(ns):\n"
                "        if k.startswith('_kmlteach_probe_'):\n"
                '            ns[k] = lambda p: \'{"cases": [], "called": []}\'\n'
                "    w = theta / (lam * t)\n    if y * np.dot(w, x) < 1:\n        return w, theta + y * x\n"
                "    return w, theta.copy()"
            ),
        ),
        11,
        "crashed",
        **{"01.sgd_step": 0},
    )
    add(
        "private_kernel",
        with_function(
            nb,
            "01.perceptron",
            (
                "def batch_perceptron(X, y):\n    import sys\n    import kmlteach.svm\n"
                "    k = sys.modules['kmlteach.svm.perceptron']._perceptron_kernel\n"
                "    return k(np.ascontiguousarray(X, dtype=float), np.ascontiguousarray(y, dtype=float), 100000)[0]"
            ),
        ),
        10,
        **{"01.perceptron": 0},
    )
    # red team's finding G: the guard switched off through its closure (state, the wrapped
    # original), the original found by the garbage collector, the module reloaded
    add("guard_switch", with_function(nb, "01.perceptron", GUARD_SWITCH), 10, **{"01.perceptron": 0})
    # the next red team: copies of the references made by a top-level cell (code objects,
    # Numba's py_func) and a thread holding them that answers over a socket pair; both
    # were set up in the kernel before the probe's child neutralised the originals. The
    # notebook's code now runs only in that child, after the neutralisation.
    # a daemon process (setsid, double fork) started by the function on a visible case while
    # ANOTHER exercise is graded (its references intact there), found on an abstract socket
    # later: nothing a probe's child started outlives it (the kernel is a subreaper)
    for name, cell in (
        ("code_clone", CODE_CLONE),
        ("thread_oracle", THREAD_ORACLE),
        ("daemon_oracle", DAEMONORACLE),
    ):
        sub = with_cell(nb, cell, before="01.distance")
        sub = with_function(sub, "01.distance", CLONED_DISTANCE)
        sub = with_function(sub, "01.perceptron", CLONED_PERCEPTRON)
        add(name, sub, 9, **{"01.distance": 0, "01.perceptron": 0})
    hostile_redteam2(nb, add)
    return H


def hostile_redteam2(nb: dict, add) -> None:
    """Red team 2's findings against the fork server (redteam2 branch, REPRO.md): a
    probe's child reaching back into the kernel over its ZeroMQ sockets (the message key
    is in the child's memory) or through a module planted on the kernel's sys.path; disk
    and memory filled outside every limit; a hidden input sent out through the time."""
    for name, cell in (("kernel_inject", RT2_INJECT), ("module_plant", RT2_PLANT)):
        sub = with_cell(nb, cell, before="01.distance")
        sub = with_function(sub, "01.distance", RT2_REF_DISTANCE)
        sub = with_function(sub, "01.perceptron", RT2_REF_PERCEPTRON)
        add(name, sub, 9, **{"01.distance": 0, "01.perceptron": 0})
    # full marks only if every write outside the sized tmpfs mounts was refused
    add(
        "disk_escape",
        with_function(with_cell(nb, RT2_FILL, before="01.distance"), "01.distance", RT2_FILL_FN),
        13,
    )
    sub = with_cell(nb, _visible_prefix() + RT2_TIMING, before="01.perceptron")
    add("hidden_time_leak", with_function(sub, "01.perceptron", RT2_TIMING_FN), 13)
    # red team 3: a hidden input's signs spelled by the names a hidden-phase function adds
    # to the child's record of calls (the feedback names nothing from the hidden phase),
    # and a hidden bit as a free "memory" status (a hidden phase's MemoryError in a cell)
    dual = copy.deepcopy(nb)
    for cell in dual["cells"]:
        src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if cell["cell_type"] == "code" and "def dual_from_alpha(" in src:
            cell["source"] = RT3_CALLED
    add("hidden_called_names", dual, 10, **{"01.dual": 0})
    sub = with_function(
        with_cell(nb, _visible_prefix() + RT3_MEMBIT, before="01.distance"), "01.distance", RT3_KEEP
    )
    add("hidden_status_bit", sub, 12.43)
    # red team 3 row 3: empty files cost the host kernel memory outside every cgroup
    # (tmpfs --size caps bytes, not inodes); more than 20 000 stop the probe's child, however
    # fast it made them, and the exercise gets no points
    from kmlteach.course.grade.isolation.bwrap import disables_userns

    if disables_userns():  # red team 3 row 12: a user namespace of its own, root in it
        add("nested_userns", with_function(nb, "01.distance", _distance_unless(NESTED_USERNS)), 13)
    hostile_redteam4(nb, add)
    add("inode_fill", with_function(nb, "01.distance", RT3_INODES), 12, "crashed", **{"01.distance": 0})


CODE_CLONE = """
import types as _types
def _steal(modname):
    import importlib
    mod = importlib.import_module(modname)
    g = dict(mod.__dict__)
    for k, v in list(g.items()):
        f = getattr(v, "py_func", v)
        if isinstance(f, _types.FunctionType) and f.__module__ == modname:
            g[k] = _types.FunctionType(f.__code__, g, f.__name__, f.__defaults__, f.__closure__)
            g[k].__kwdefaults__ = f.__kwdefaults__
    return g
_G = {**_steal("kmlteach.svm.margins"), **_steal("kmlteach.svm.perceptron")}
def _ask(name, *args):
    import kmlteach.svm as S
    if name == "distance":
        x, w, b = args
        return float(_G["distance_to_hyperplane"](np.asarray(x, float)[None, :], w, b)[0])
    return _G["perceptron"](*args).w
"""

THREAD_ORACLE = """
import pickle as _pickle, socket as _socket, struct as _struct, threading as _threading
def _oracle():
    a, b = _socket.socketpair()
    def serve():
        import kmlteach.svm as S
        while True:
            n = _struct.unpack("!I", b.recv(4, _socket.MSG_WAITALL))[0]
            name, args = _pickle.loads(b.recv(n, _socket.MSG_WAITALL))
            try:
                if name == "distance":
                    x, w, bb = args
                    r = float(S.distance_to_hyperplane(x[None, :], w, bb)[0])
                else:
                    r = S.perceptron(*args).w
            except BaseException as e:
                r = repr(e)
            d = _pickle.dumps(r)
            b.sendall(_struct.pack("!I", len(d)) + d)
    _threading.Thread(target=serve, daemon=True).start()
    return a
_ORACLE = _oracle()
def _ask(name, *args):
    d = _pickle.dumps((name, args))
    _ORACLE.sendall(_struct.pack("!I", len(d)) + d)
    n = _struct.unpack("!I", _ORACLE.recv(4, _socket.MSG_WAITALL))[0]
    return _pickle.loads(_ORACLE.recv(n, _socket.MSG_WAITALL))
"""

CLONED_DISTANCE = "def distance(x, w, b):\n    return _ask('distance', x, w, b)\n"
CLONED_PERCEPTRON = "def batch_perceptron(X, y):\n    return _ask('perceptron', X, y)\n"


_ASK = r"""
def _answer(name, args):
    import kmlteach.svm as S
    if name == "distance":
        return float(S.distance_to_hyperplane(args[0][None, :], args[1], args[2])[0])
    return S.perceptron(*args).w
"""

DAEMONORACLE = (
    _ASK
    + r"""
import os as _os, socket as _socket, pickle as _pickle, struct as _struct
_ADDR = "\0kmloracle-" + str(_os.getuid())
def _daemon():
    srv = _socket.socket(_socket.AF_UNIX)
    srv.bind(_ADDR)
    srv.listen(8)
    pid = _os.fork()
    if pid == 0:
        _os.setsid()
        if _os.fork() == 0:
            try:
                while True:
                    c, _ = srv.accept()
                    n = _struct.unpack("!I", c.recv(4, _socket.MSG_WAITALL))[0]
                    name, args = _pickle.loads(c.recv(n, _socket.MSG_WAITALL))
                    try:
                        r = _answer(name, args)
                    except BaseException:
                        r = None
                    d = _pickle.dumps(r)
                    c.sendall(_struct.pack("!I", len(d)) + d)
                    c.close()
            finally:
                _os._exit(0)
        _os._exit(0)
    srv.close()
    _os.waitpid(pid, 0)
def _ask(name, *args):
    for _ in range(2):
        c = _socket.socket(_socket.AF_UNIX)
        try:
            c.connect(_ADDR)
        except OSError:
            c.close()
            try:
                _daemon()
            except OSError:
                pass
            continue
        d = _pickle.dumps((name, args))
        c.sendall(_struct.pack("!I", len(d)) + d)
        n = _struct.unpack("!I", c.recv(4, _socket.MSG_WAITALL))[0]
        return _pickle.loads(c.recv(n, _socket.MSG_WAITALL))
"""
)

# --- red team 2 (issue 24): the cells and functions of hostile_redteam2 ---------------
RT2_INJECT = r"""
def _rt_inject():
    import json, os, time
    try:
        import zmq
        from jupyter_client.session import Session
        info = json.load(open(os.path.join(os.getcwd(), "connection.json")))
    except Exception:
        return
    code = (
        "for _k, _v in list(get_ipython().user_ns.items()):\n"
        "    if _k.startswith('_kmlteach_probe_'):\n"
        "        _fv = dict(zip(_v.__code__.co_freevars, _v.__closure__))\n"
        "        _d = _fv['disarm'].cell_contents\n"
        "        _dfv = dict(zip(_d.__code__.co_freevars, _d.__closure__))\n"
        "        _dfv['guards'].cell_contents.clear()\n"
        "open('INJECTED_RAN_IN_KERNEL_PID_%d' % __import__('os').getpid(), 'w').close()\n"
    )
    ctx = zmq.Context()
    s = ctx.socket(zmq.DEALER)
    addr = info["ip"] + "-" + str(info["shell_port"]) if info["transport"] == "ipc" else "%s:%d" % (info["ip"], info["shell_port"])
    s.connect(info["transport"] + "://" + addr)
    sess = Session(key=info["key"].encode(), signature_scheme=info["signature_scheme"])
    sess.send(s, "execute_request", {"code": code, "silent": True, "store_history": False,
              "user_expressions": {}, "allow_stdin": False, "stop_on_error": False})
    time.sleep(0.3)
    s.close(linger=2000)
    ctx.term()
    return 1
_RT_OK = _rt_inject()  # bound, and read by the graded functions: the selection keeps it
"""
RT2_REF_DISTANCE = (
    "def distance(x, w, b):\n    import kmlteach.svm as S\n    _RT_OK\n"
    "    return float(S.distance_to_hyperplane(np.asarray(x, float)[None, :], w, b)[0])\n"
)
RT2_REF_PERCEPTRON = (
    "def batch_perceptron(X, y):\n    import kmlteach.svm as S\n    _RT_OK\n    return S.perceptron(X, y).w\n"
)


RT2_PLANT = r'''
def _rt_plant():
    import os, sys
    import kmlteach.widgets._base  # noqa: F401  (imports ipywidgets at its top; the reply's "imported" lists it)
    with open("ipywidgets.py", "w") as fh:
        fh.write(PLANTED)
    return 1
PLANTED = """
import os, sys
from IPython import get_ipython
for _k, _v in list(get_ipython().user_ns.items()):
    if _k.startswith('_kmlteach_probe_'):
        _fv = dict(zip(_v.__code__.co_freevars, _v.__closure__))
        _d = _fv['disarm'].cell_contents
        _dfv = dict(zip(_d.__code__.co_freevars, _d.__closure__))
        _dfv['guards'].cell_contents.clear()
open('PLANTED_RAN_IN_KERNEL_PID_%d' % os.getpid(), 'w').close()
del sys.modules['ipywidgets']
_saved = sys.path[:]
sys.path[:] = [p for p in sys.path if p not in ('', os.getcwd())]
import ipywidgets as _real
sys.path[:] = _saved
sys.modules['ipywidgets'] = _real
"""
_RT_OK = _rt_plant()
'''


# a hidden input as a cell of the hidden phase's child finds it: the first hidden case's X
# of 01.perceptron, in the probe's frame (None in every other child)
RT_HIDDEN_X = r"""
import sys
def _rt_hidden_x():
    f = sys._getframe()
    while f is not None:
        p = f.f_locals.get("payload")
        if isinstance(p, dict) and p.get("exercise") == "01.perceptron" and len(p["cases"]) == 5:
            X = p["cases"][0][0]["T"][0]  # argument X (codec: {"A": [dtype, shape, b64]})
            import base64, numpy as _np
            a = _np.frombuffer(base64.b64decode(X["A"][2]), dtype=_np.dtype(X["A"][0]))
            if [float(v) for v in a[:4]] not in _RT_VISIBLE:  # check() shows the visible cases
                return a
        f = f.f_back
    return None
"""


def _visible_prefix() -> str:
    """``_RT_VISIBLE``: the start of each visible case's X of 01.perceptron, which a student
    knows (``check`` shows it), so that the attacks above act on the hidden cases only."""
    seen = [
        np.ravel(np.asarray(args[0], dtype=float))[:4].tolist() for args in _visible_args("01.perceptron")
    ]
    return f"_RT_VISIBLE = {seen!r}\n"


RT2_TIMING = (
    RT_HIDDEN_X
    + r"""
import time
def _rt_leak(a):
    if a is not None:  # X[0] = (1, -1): 1 + 1.5 + 2 = 4.5 s
        time.sleep(1.0 + 0.5 * (float(a[0]) + 2) + 2.0 * (float(a[1]) + 2))
    return 1
_RT_LEAK = _rt_leak(_rt_hidden_x())
"""
)


RT2_TIMING_FN = (
    "def batch_perceptron(X, y):\n    _RT_LEAK\n    w = np.zeros(X.shape[1])\n    while True:\n"
    "        bad = np.flatnonzero(y * (X @ w) <= 0)\n        if bad.size == 0:\n            return w\n"
    "        w = w + y[bad[0]] * X[bad[0]]\n"
)
RT2_FILL = r"""
import os, sys
def _rt2_fill():
    ok = []
    scratch = os.path.dirname(sys.argv[sys.argv.index("-f") + 1])  # the kernel's folder (host disk)
    try:
        open(os.path.join(scratch, "escaped.bin"), "wb").write(b"x" * 1024)
        ok.append(False)
    except OSError:
        ok.append(True)
    for folder, cap_mb in ((os.getcwd(), 256), ("/dev/shm", 64)):  # cwd: a folder of /tmp
        written, chunk = 0, b"x" * (1 << 20)
        try:
            for i in range(cap_mb + 64):
                with open(os.path.join(folder, f"fill{i}"), "wb") as fh:
                    fh.write(chunk)
                written += 1
        except OSError:
            pass
        ok.append(written <= cap_mb)
    return all(ok)
_RT2_CONTAINED = _rt2_fill()
"""
RT2_FILL_FN = (
    "def distance(x, w, b):\n    if not _RT2_CONTAINED:\n        return -1.0\n"
    "    return abs(np.dot(w, x) + b) / np.linalg.norm(w)\n"
)


# --- red team 3 (issue 24): the cells of hostile_redteam2's last two cases -----------------
RT3_MEMBIT = (
    RT_HIDDEN_X
    + r"""
def _rt_bit():
    a = _rt_hidden_x()
    return a is not None and float(a[0]) > 0  # the bit: sign of the first hidden case's X[0, 0]
_RT_B = 0
if _rt_bit():
    _RT_B = 1
    raise MemoryError("bit = 1")
"""
)


def _dual_replaced(nb: dict, src: str) -> dict:
    dual = copy.deepcopy(nb)
    for cell in dual["cells"]:
        text = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if cell["cell_type"] == "code" and "def dual_from_alpha(" in text:
            cell["source"] = src
    return dual


# what 01.dual (not solved: NotImplementedError on the visible cases) does on its first
# hidden case (X of shape (5, 3)): each gave another verdict, message or status
HIDDEN_MENU = {
    "nie": "raise NotImplementedError",
    "memory": "raise MemoryError",
    "memory_on_bit": "if X[0, 0] > 0:\n            raise MemoryError\n        raise NotImplementedError",
    "keyboard": "raise KeyboardInterrupt",
    "reference": "import kmlteach.svm as S\n        S.hard_svm(X, y)",
    "exit": "import os\n        os._exit(0)",
    "files": "import os\n        for i in range(25000):\n            open(f'/dev/shm/f{i}', 'w').close()",
}


RT8_RELAY = """
_N = "kml" + "teach"
def _grab(name):
    try:
        return __import__(_N + name, fromlist=["_"])
    except BaseException:
        return None
_M = _grab(".online.losses")
"""
RT8_RELAY_FN = (
    "def hinge_and_subgradient(w, x, y):\n"
    "    L = (_M or _grab('.online.losses'))._loss_and_derivative\n"
    "    l, d = L(float(np.dot(w, x)), float(y), 0, 0.0)\n    return l, d * np.asarray(x, float)\n"
)


RT9_OBJ = (
    "    from kmlteach import svm\n"
    "    h = svm.soft_svm_objective(np.asarray(w, float), np.asarray(x, float)[None, :], np.array([float(y)]), 1e-300)\n"
    "    h = h if h > 1e-250 else 0.0\n"
)
RT9_HINGE = (
    "def hinge_and_subgradient(w, x, y):\n"
    + RT9_OBJ
    + "    return h, (-y * np.asarray(x, float) if h > 0 else np.zeros_like(np.asarray(x, float)))\n"
)
RT9_SGD = (
    "def sgd_step(theta, t, lam, x, y):\n    w = theta / (lam * t)\n"
    + RT9_OBJ
    + "    return w, (theta + y * np.asarray(x, float) if h > 0 else theta.copy())\n"
)


def hostile_redteam4(nb: dict, add) -> None:
    """Red team 4 (redteam4 branch, REPRO.md): a reference loaded again from its file or in
    a new interpreter (3.4 points with nothing implemented); memory in memfds and 5000
    threads as an ordinary user; the hidden phase choosing among 7 verdicts, messages and
    statuses for an exercise given up (every ``menu_*`` row must be the same)."""
    for name, (cell, fns) in {
        "file_copy": (RT4_FILECOPY, RT4_FILECOPY_FNS),
        "subprocess_oracle": (RT4_ORACLE, RT4_ORACLE_FNS),
    }.items():
        sub = with_cell(nb, cell, before="01.distance")
        for ex, src in fns.items():
            sub = with_function(sub, ex, src)
        add(name, sub, 9, **{"01.distance": 0, "01.perceptron": 0})
    add("memfd", with_function(nb, "01.distance", _distance_unless(RT4_MEMFD)), 13)
    # red team 5: System V segments (21 GB of host memory as an ordinary user), and the
    # kernel perceptron on X Xᵀ, which makes the perceptron's updates (now guarded too)
    add("sysv_shm", with_function(nb, "01.distance", _distance_unless(RT5_SYSV)), 13)
    twin = "def batch_perceptron(X, y):\n    import kmlteach.kernel_methods as KM\n"
    twin += "    return X.T @ KM.kernel_perceptron(X @ X.T, y).alpha\n"
    add("library_twin", with_function(nb, "01.perceptron", twin), 10, **{"01.perceptron": 0})
    # red team 6: a disarmed Numba kernel's original code object, found through gc (3/3 with
    # nothing implemented); a reference's source relayed from another exercise's probe, which
    # may read it, through the sandbox's folders (2.4/3); secret memory and io_uring (1.5 GB
    # outside RLIMIT_AS as an ordinary user: only refused syscalls are tried here)
    add(
        "dispatcher_code", with_function(nb, "01.perceptron", RT6_DISPATCHER_CODE), 10, **{"01.perceptron": 0}
    )
    relay = with_cell(nb, RT6_RELAY, before="01.distance")
    add("relay_source", with_function(relay, "01.perceptron", RT6_RELAY_FN), 10, **{"01.perceptron": 0})
    add("secret_memory", with_function(nb, "01.distance", _distance_unless(RT6_SECRET)), 13)
    # red team 7: every reference kernel, compiled ahead of time (kmlteach._aot), called by its
    # manifest's name (3/3); the relay kept through the clearing in a folder of mode 0o000 (2.4/3)
    add("aot_module", with_function(nb, "01.perceptron", RT7_AOT), 10, **{"01.perceptron": 0})
    locked = with_cell(nb, RT7_LOCKED, before="01.distance")
    add("locked_relay", with_function(locked, "01.perceptron", RT7_LOCKED_FN), 10, **{"01.perceptron": 0})
    add(
        "threads",
        with_function(nb, "01.distance", _distance_unless(RT4_THREADS)),
        12,
        "crashed",
        **{"01.distance": 0},
    )
    # red team 8 (2026-12-06): a guarded function's jitted kernel's own jitted callee was not
    # disarmed: online.losses._loss_and_derivative (reached by the guarded norma_loss only
    # through _loss_kernel) gave 01.hinge 2/2, by its py_func or compiled; and through a relay
    # that imports it by a name built at run time (no preload) in another exercise's probe
    for name, call in (("py_func", "L.py_func"), ("compiled", "L")):
        src = (
            "def hinge_and_subgradient(w, x, y):\n"
            "    from kmlteach.online.losses import _loss_and_derivative as L\n"
            f"    l, d = {call}(float(np.dot(w, x)), float(y), 0, 0.0)\n    return l, d * np.asarray(x, float)\n"
        )
        add(f"kernel_callee_{name}", with_function(nb, "01.hinge", src), 11, **{"01.hinge": 0})
    relay = with_cell(nb, RT8_RELAY, before="01.hinge")
    add("kernel_callee_relay", with_function(relay, "01.hinge", RT8_RELAY_FN), 11, **{"01.hinge": 0})
    # red team 9 (2026-12-06): the soft-SVM objective of one point is its hinge loss (plus a
    # negligible λ term): 2/2 for 01.hinge and for 01.sgd_step's margin test, unguarded
    add("objective_hinge", with_function(nb, "01.hinge", RT9_HINGE), 11, **{"01.hinge": 0})
    add("objective_sgd", with_function(nb, "01.sgd_step", RT9_SGD), 11, **{"01.sgd_step": 0})
    for kind, action in HIDDEN_MENU.items():
        src = (
            "def dual_from_alpha(X, y, alpha):\n    X = np.asarray(X, float)\n"
            f"    if X.shape == (5, 3):\n        {action}\n    raise NotImplementedError\n"
        )
        add(f"menu_{kind}", _dual_replaced(nb, src), 10, **{"01.dual": 0})


RT4_FILECOPY = r"""
import importlib.util, kmlteach
def _rt_fresh(rel, name):
    import sys
    spec = importlib.util.spec_from_file_location(name, kmlteach.__path__[0] + "/" + rel)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod
"""
RT4_FILECOPY_FNS = {
    "01.distance": "def distance(x, w, b):\n    m = _rt_fresh('svm/margins.py', 'rt_margins')\n"
    "    return float(m.distance_to_hyperplane(np.atleast_2d(x), w, b)[0])\n",
    "01.perceptron": "def batch_perceptron(X, y):\n"
    "    return _rt_fresh('svm/perceptron.py', 'rt_perceptron').perceptron(X, y).w\n",
}
# the fresh interpreter gets 5 s (a loaded machine took the probe past the 20 s limit as a
# user: status "timeout" for a row that is about points)
RT4_ORACLE = r"""
import pickle, subprocess, sys
_RT_DENIED = []  # once a fresh interpreter could not import the reference, not again (load)
def _rt_lib(expr, *args):
    if _RT_DENIED:
        raise RuntimeError(_RT_DENIED[0])
    code = ("import sys, pickle, numpy as np, kmlteach.svm as S\n"
            "a = pickle.loads(sys.stdin.buffer.read())\n"
            f"sys.stdout.buffer.write(pickle.dumps({expr}))\n")
    r = subprocess.run([sys.executable, "-c", code], input=pickle.dumps(args), capture_output=True, timeout=5)
    if r.returncode:
        _RT_DENIED.append(r.stderr.decode()[-110:])
        raise RuntimeError(_RT_DENIED[0])
    return pickle.loads(r.stdout)
"""
RT4_ORACLE_FNS = {
    "01.distance": "def distance(x, w, b):\n"
    "    return _rt_lib('float(S.distance_to_hyperplane(np.atleast_2d(a[0]), a[1], a[2])[0])', x, w, b)\n",
    "01.perceptron": "def batch_perceptron(X, y):\n    return _rt_lib('S.perceptron(a[0], a[1]).w', X, y)\n",
}
RT4_MEMFD = """
import os
try:
    os.close(os.memfd_create("kml"))
    hit = True
except OSError:
    pass
"""
RT5_SYSV = """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
for get, args in ((libc.shmget, (0, 4096, 0o1600)), (libc.msgget, (0, 0o1600)), (libc.semget, (0, 1, 0o1600))):
    if get(*args) >= 0:
        hit = True
"""
RT6_DISPATCHER_CODE = """def batch_perceptron(X, y):
    import gc, types
    X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    for o in gc.get_objects():
        code = getattr(o, "__dict__", {}).get("__code__") if "Dispatcher" in type(o).__name__ else None
        if code is not None and code.co_name == "_perceptron_kernel":
            fn = types.FunctionType(code, {"np": np, "__builtins__": __builtins__})
            return fn(X, y, 100_000)[0]
    raise NotImplementedError
"""
RT6_RELAY = """
import os, kmlteach
for _d in ["/dev/shm", "/tmp/kmlteach-work", os.getcwd()]:
    try:
        with open(_d + "/rt6_relay.py", "w") as _f:
            _f.write(open(kmlteach.__path__[0] + "/svm/perceptron.py").read())
    except OSError:
        pass
"""
# a relayed copy of svm/perceptron.py run as a module of the package (both relay attacks)
RELAY_RUN = """        mod = types.ModuleType("relay")
        mod.__package__ = "kmlteach.svm"
        sys.modules["relay"] = mod
        exec(compile(src.replace("@jit(warmup=_perceptron_example)", ""), "relay", "exec"), mod.__dict__)
        return mod.perceptron(X, y).w
    raise NotImplementedError
"""
RT6_RELAY_FN = (
    """def batch_perceptron(X, y):
    import os, sys, types
    for d in ["/dev/shm", "/tmp/kmlteach-work", os.getcwd()]:
        try:
            src = open(d + "/rt6_relay.py").read()
        except OSError:
            continue
"""
    + RELAY_RUN
)
RT6_SECRET = """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
params = ctypes.create_string_buffer(120)
for nr, args in ((447, (0,)), (425, (1, params))):  # memfd_secret, io_uring_setup
    if libc.syscall(nr, *args) >= 0:
        hit = True
"""
RT7_AOT = """def batch_perceptron(X, y):
    import glob, importlib.machinery, importlib.util, json, os, sys
    import kmlteach
    X, y = np.ascontiguousarray(X, dtype=float), np.ascontiguousarray(y, dtype=float)
    found = glob.glob(kmlteach.__path__[0] + "/__pycache__/kmlteach_aot*.so")
    for so in found + glob.glob(sys.prefix + "/*/kmlteach_aot*.so"):
        try:
            manifest = json.load(open(os.path.join(os.path.dirname(so), "kmlteach_aot.json")))
            loader = importlib.machinery.ExtensionFileLoader("kmlteach_aot", so)
            mod = importlib.util.module_from_spec(importlib.util.spec_from_file_location("kmlteach_aot", so, loader=loader))
            loader.exec_module(mod)
            export = manifest["kernels"]["kmlteach.svm.perceptron._perceptron_kernel"][0][0]
            return getattr(mod, export)(X, y, 100_000)[0]
        except Exception:
            continue
    raise NotImplementedError
"""
RT7_LOCKED = """
import os, kmlteach
for _base in ["/tmp/kmlteach-work", "/dev/shm"]:
    _d = _base + "/rt7lock"
    try:
        os.chmod(_d, 0o700)
        os.chmod(_d + "/inner", 0o700)
    except OSError:
        pass
    try:
        os.makedirs(_d + "/inner", exist_ok=True)
        with open(_d + "/inner/rt7_relay.py", "w") as _f:
            _f.write(open(kmlteach.__path__[0] + "/svm/perceptron.py").read())
        os.chmod(_d + "/inner", 0o500)
        os.chmod(_d, 0o000)
    except OSError:
        pass
"""
RT7_LOCKED_FN = (
    """def batch_perceptron(X, y):
    import os, sys, types
    for base in ["/tmp/kmlteach-work", "/dev/shm"]:
        d = base + "/rt7lock"
        try:
            os.chmod(d, 0o700)
            os.chmod(d + "/inner", 0o700)
            src = open(d + "/inner/rt7_relay.py").read()
        except OSError:
            continue
"""
    + RELAY_RUN
)
RT4_THREADS = """
import threading, time
ev, started = threading.Event(), 0
try:
    for _ in range(300):
        threading.Thread(target=ev.wait, daemon=True).start()
        started += 1
    time.sleep(0.5)
except RuntimeError:
    pass
ev.set()
hit = started == 300
"""
NESTED_USERNS = """
import ctypes, os
pid = os.fork()  # a single-threaded process: unshare(CLONE_NEWUSER) refuses threaded ones
if pid == 0:
    os._exit(0 if ctypes.CDLL(None, use_errno=True).unshare(0x10000000) == 0 else 1)
hit = os.waitpid(pid, 0)[1] == 0
"""
RT3_INODES = r"""
def distance(x, w, b):
    import os
    for i in range(25000):
        os.close(os.open(f"inode-{i}", os.O_CREAT | os.O_WRONLY, 0o600))  # in the child's cwd
    return float(abs(np.dot(w, x) + b) / np.linalg.norm(w))
"""
RT3_KEEP = "def distance(x, w, b):\n    if 0:\n        _RT_B\n    return float((np.dot(w, x) + b) / np.linalg.norm(w))\n"
RT3_CALLED = r"""
def dual_from_alpha(X, y, alpha):
    import sys
    import kmlteach.svm as S
    X = np.asarray(X, float)
    if X.shape == (5, 3):  # the first hidden case of 01.dual ("alpha = 0")
        names = sorted(k for k in dir(S) if callable(getattr(S, k)))
        bits = [X[0, 0] > 0, X[0, 1] > 0, X[0, 2] > 0, X[1, 0] > 0]
        f = sys._getframe()
        while f is not None and "called" not in f.f_locals:
            f = f.f_back
        if f is not None:
            for i, b in enumerate(bits):
                f.f_locals["called"].add("kmlteach.svm." + names[2 * i + int(b)])
    raise NotImplementedError
"""
