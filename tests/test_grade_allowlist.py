"""Issue 35, point 5: a grading kernel reads only its allowlist (kmlteach/course/grade/
isolation/policy.py), in every mode the grader has, and grades in the student's environment.

As root (the grader as a teaching assistant runs it): a root-only file under ``/opt``
(0600), world-readable files under ``/srv``, ``/home`` and ``/var``, a file in ``/root``,
``/etc/shadow`` and the ``--secret`` file (0644, as ``head -c 32 /dev/urandom >
grading.key`` leaves it) are unreadable from a submission, and neither the feedback nor
the gradebook shows any of them; a second course checkout under ``/opt`` (its
``notebooks/src`` globbed and executed once gave 13/13 with nothing implemented) scores 0.
Modes: bubblewrap (a dedicated uid on the host, no user namespace), Landlock without
bubblewrap (root kernels with ``--unsafe-allow-root-kernels``: Landlock alone keeps them
in), and a dedicated uid without bubblewrap where an unprivileged uid can run this
interpreter. Everyone: SciPy and scikit-learn (not in the student edition) are not
importable, so their one-liners score nothing where the exercise says "no SciPy".
"""

from __future__ import annotations

import ast
import contextlib
import csv
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import numpy as np
import pytest
from grade_submissions import ROOT, dump, load, with_cell, with_function

from kmlteach.course.grade import Limits, grade_folder
from kmlteach.course.grade.isolation import mode
from kmlteach.course.grade.isolation.bwrap import bwrap_problem
from kmlteach.course.grade.isolation.launcher import landlock_abi
from kmlteach.course.grade.isolation.policy import kernel_policy, student_distributions

ROOT_ONLY = pytest.mark.skipif(
    os.geteuid() != 0, reason="the grader's kernel against root's files: run as root"
)
LANDLOCK = pytest.mark.skipif(landlock_abi() < 1, reason="Linux Landlock is unavailable here")
# chapter 01's exercise functions, in the order the probes below use them
SIGNATURES = [
    ("01.distance", "distance", None),
    ("01.hinge", "hinge_and_subgradient", None),
    ("01.sgd_step", "sgd_step", None),
    ("01.perceptron", "batch_perceptron", None),
    ("01.subgradient_perceptron", "max_margin_subgradient", None),
    ("01.dual", "dual_from_alpha", None),
]
PROBE = """
def _kml_read(path):
    try:
        with open(path, "rb") as fh:
            return "READ " + fh.read(120).decode("latin-1")
    except BaseException as exc:
        return "DENIED " + type(exc).__name__
"""
STEAL = """
def _kml_steal(name):
    import ast, glob
    import numpy as np
    for path in glob.glob("/opt/*/notebooks/src/01-*.py") + glob.glob("/opt/**/01-*.py", recursive=True):
        tree = ast.parse(open(path).read())
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name == name:
                ns = {"np": np}
                exec(compile(ast.Module([node], []), path, "exec"), ns)
                return ns[name]
    raise LookupError("no other checkout")
"""


def _signature(name: str) -> str:
    """The real parameter list of a chapter 01 exercise function (the notebook's)."""
    tree = ast.parse((ROOT / "notebooks" / "src" / "01-svm.py").read_text(encoding="utf-8"))
    fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name)
    return ", ".join(a.arg for a in fn.args.args)


def _prober(targets: list[str]) -> bytes:
    """A chapter 01 notebook whose k-th exercise raises the outcome of reading targets[k]
    (its first visible case's 'got' in the feedback is that text)."""
    nb = with_cell(load(), PROBE)
    for (ex, name, _), path in zip(SIGNATURES, targets, strict=False):
        src = f"def {name}({_signature(name)}):\n    raise ValueError(_kml_read({path!r}))"
        nb = with_function(nb, ex, src, name=name)
    return dump(nb)


def _thief() -> bytes:
    """Every exercise of chapter 01 taken from a second checkout's notebook source."""
    nb = with_cell(load(), STEAL)
    for ex, name, _ in SIGNATURES:
        args = _signature(name)
        nb = with_function(nb, ex, f"def {name}({args}):\n    return _kml_steal({name!r})({args})", name=name)
    return dump(nb)


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    """Files the kernel must never read, each holding a marker; removed afterwards."""
    tag = uuid.uuid4().hex[:12]
    marker = f"KMLMARK{tag}"
    made: list[Path] = []

    def plant(path: Path, mode_: int, text: str = "") -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        made.append(path.parent if path.parent.name.startswith("kml-") else path)
        path.write_text(text or f"{marker} {path}\n")
        path.chmod(mode_)
        return path

    opt = Path(f"/opt/kml-{tag}")
    targets = {
        "opt_root_only": plant(opt / "root-only.txt", 0o600),
        "srv": plant(Path(f"/srv/kml-{tag}.txt"), 0o644),
        "home": plant(Path(f"/home/kml-{tag}/notes.txt"), 0o644),
        "var": plant(Path(f"/var/tmp/kml-{tag}.txt"), 0o644),
        "root": plant(Path(f"/root/.kml-{tag}"), 0o600),
    }
    for p in (opt, Path(f"/home/kml-{tag}")):
        p.chmod(0o755)
    # a second course checkout: its instructor notebook source, world-readable
    src = opt / "kmlteach-2025" / "notebooks" / "src"
    src.mkdir(parents=True)
    shutil.copy(ROOT / "notebooks" / "src" / "01-svm.py", src / "01-svm.py")
    for d in (opt / "kmlteach-2025", opt / "kmlteach-2025" / "notebooks", src):
        d.chmod(0o755)
    (src / "01-svm.py").chmod(0o644)
    secret = tmp_path_factory.mktemp("key") / "grading.key"
    secret.write_text(f"{marker}-secret-bytes-0123456789\n")
    secret.chmod(0o644)
    targets["secret"] = secret
    shadow = (
        Path("/etc/shadow").read_text(encoding="utf-8", errors="replace")[:60]
        if Path("/etc/shadow").exists()
        else ""
    )
    targets["shadow"] = Path("/etc/shadow")
    yield {"targets": targets, "marker": marker, "shadow": shadow, "secret": secret}
    for p in made:
        shutil.rmtree(p, ignore_errors=True) if p.is_dir() else p.unlink(missing_ok=True)
    shutil.rmtree(opt, ignore_errors=True)


def test_the_second_checkout_attack_is_real(planted):
    """Unsandboxed, the thief's source finds the other checkout and its functions answer
    correctly: the 0 points below are the sandbox's doing."""
    ns: dict = {}
    exec(compile(STEAL, "steal", "exec"), ns)
    distance = ns["_kml_steal"]("distance")
    assert np.isclose(distance(np.array([3.0, 4.0]), np.array([0.6, 0.8]), 0.0), 5.0)
    ns = {}
    exec(compile(PROBE, "probe", "exec"), ns)
    assert ns["_kml_read"](str(planted["targets"]["opt_root_only"])).startswith("READ " + planted["marker"])


_UID_OK = os.geteuid() == 0 and mode.runs_on_host()


def _modes():
    """(name, Limits, unsafe_root) of every mode the grader has, as root."""
    return [
        pytest.param(
            "bwrap",
            Limits(timeout=30),
            False,
            id="bwrap",
            marks=pytest.mark.skipif(bwrap_problem() is not None, reason=f"{bwrap_problem()}"),
        ),
        pytest.param(
            "uid",
            Limits(timeout=30, bwrap=False),
            False,
            id="uid-landlock",
            marks=[
                LANDLOCK,
                pytest.mark.skipif(not _UID_OK, reason="no unprivileged uid can run this interpreter here"),
            ],
        ),
        pytest.param(
            "landlock", Limits(timeout=30, bwrap=False), True, id="root-landlock-only", marks=LANDLOCK
        ),
    ]


@ROOT_ONLY
@pytest.mark.parametrize(("name", "limits", "unsafe"), _modes())
def test_a_root_grader_s_kernel_reads_only_its_allowlist(
    tmp_path, planted, monkeypatch, name, limits, unsafe
):
    if name == "landlock":  # root kernels: Landlock alone keeps them in
        monkeypatch.setattr(mode, "runs_on_host", lambda: False)
    mode._detect.cache_clear()
    t = planted["targets"]
    first = [t["opt_root_only"], t["srv"], t["home"], t["shadow"], t["secret"], t["root"]]
    second = [
        t["var"],
        "/etc/hostname",
        str(ROOT / "notebooks" / "src" / "01-svm.py"),
        str(ROOT / "docs" / "midterm.md"),
        str(ROOT / "kmlteach" / "exercises" / "ch01.py"),
        "/proc/1/environ",
    ]
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "probe1.ipynb").write_bytes(_prober([str(p) for p in first]))
    (subs / "probe2.ipynb").write_bytes(_prober([str(p) for p in second]))
    (subs / "thief.ipynb").write_bytes(_thief())
    out = tmp_path / "out"
    try:
        grade_folder(
            subs,
            out / "gb.csv",
            limits=limits,
            jobs=2,
            feedback=out / "fb",
            progress=None,
            secret=planted["secret"],
            unsafe_root=unsafe,
        )
    finally:
        mode._detect.cache_clear()
    with open(out / "gb.csv", newline="", encoding="utf-8") as fh:
        rows = {r["submission"]: r for r in csv.DictReader(fh)}
    assert rows["thief"]["total"] == "0", rows["thief"]  # nothing of /opt's checkout reached it
    texts = {p.name: p.read_text(encoding="utf-8") for p in (out / "fb").iterdir()}
    texts["gb.csv"] = (out / "gb.csv").read_text(encoding="utf-8")
    everything = "\n".join(texts.values())
    assert planted["marker"] not in everything
    if planted["shadow"]:
        assert planted["shadow"][:20] not in everything
    assert "READ " not in everything, [ln for ln in everything.splitlines() if "READ " in ln]
    for sub, paths in (("probe1", first), ("probe2", second)):
        sections = texts[f"{sub}.md"].split("\n## ")[1:]
        for (ex, _, _), path, section in zip(SIGNATURES, paths, sections, strict=True):
            shown = [ln for ln in section.splitlines() if "first failing" in ln or "not graded" in ln]
            assert section.startswith(ex) and "DENIED " in section, (name, path, shown)


def test_the_policy_is_an_allowlist():
    """What the policy grants, checked without a kernel: no home, no /opt, /srv, /var, no
    /etc but its minimal files, no test or instructor library, no reference."""
    pol = kernel_policy("/tmp/kml-scratch", bwrap=False, deny=["/tmp/kml-secret.key"])
    grants = [os.path.realpath(p) for p in pol.read]
    for banned in ("/home", "/root/.ssh", "/opt", "/srv", "/var", "/etc/shadow", "/etc/hostname"):
        assert not [g for g in grants if g == banned or g.startswith(banned + "/")], banned
    assert not [
        g
        for g in grants
        if os.path.basename(g).startswith(
            ("scipy", "sklearn", "scikit_learn", "hmmlearn", "pytest", "jupyterhub", "nbgrader")
        )
    ]
    assert {"numpy", "numba", "matplotlib", "ipykernel", "kmlteach"} <= student_distributions()
    assert not {"scipy", "scikit-learn", "pytest", "nbgrader"} & student_distributions()
    etc = {g for g in grants if g.startswith("/etc/")}
    assert etc <= {"/etc/passwd", "/etc/group", "/etc/nsswitch.conf", "/etc/ld.so.cache", "/etc/localtime"}
    pkg = str(ROOT / "kmlteach")
    assert pkg in grants and f"{pkg}/exercises" in pol.deny and f"{pkg}/course" in pol.deny
    assert "/tmp/kml-secret.key" in pol.deny and pol.write[0] == "/tmp/kml-scratch"
    # a gradebook written in the checkout's root: the grader's folder holds the package, which
    # the kernel still reads (the allowlist refuses the rest of that folder anyway)
    pol = kernel_policy("/tmp/kml-scratch", bwrap=False, deny=[ROOT, ROOT / "subs"])
    assert str(ROOT) not in pol.deny and str(ROOT / "subs") in pol.deny and pkg in pol.read
    bw = kernel_policy("/tmp/kml-scratch", bwrap=True, uid=1234, gid=1234)
    assert "grading:x:1234:1234" in bw.etc["passwd"][1] and "/etc/passwd" not in bw.read


def _one_liners() -> bytes:
    """Chapter 03's instructor notebook with the three exercises that say "no SciPy" (or
    compute it yourself) replaced by a library's one-liner."""
    nb = load(next((ROOT / "notebooks").glob("03-*.ipynb")))
    nb = with_function(
        nb,
        "03.diffusion",
        "def heat_kernel(A, beta):\n    import scipy.linalg\n"
        "    return scipy.linalg.expm(beta * (A - np.diag(A.sum(axis=1))))",
        name="heat_kernel",
    )
    nb = with_function(
        nb,
        "03.center",
        "def center_gram(K):\n    from sklearn.preprocessing import KernelCenterer\n"
        "    return KernelCenterer().fit_transform(K)",
        name="center_gram",
    )
    return dump(
        with_function(
            nb,
            "03.kpca",
            "def kpca_embedding(K, p):\n    from sklearn.decomposition import KernelPCA\n"
            "    return KernelPCA(p, kernel='precomputed').fit_transform(K)",
            name="kpca_embedding",
        )
    )


def test_library_one_liners_score_nothing(tmp_path):
    """SciPy's expm, scikit-learn's KernelCenterer and KernelPCA are not in the student
    edition: in the grading kernel they are not importable (they would pass: checked here)."""
    import scipy.linalg
    from sklearn.preprocessing import KernelCenterer

    A = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]], dtype=float)
    L = A - np.diag(A.sum(axis=1))
    lam, V = np.linalg.eigh(L)
    assert np.allclose(scipy.linalg.expm(0.5 * L), (V * np.exp(0.5 * lam)) @ V.T)
    K = np.random.default_rng(0).random((4, 4))
    K = K @ K.T
    assert np.allclose(KernelCenterer().fit_transform(K), K - K.mean(0) - K.mean(1)[:, None] + K.mean())
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "one_liners.ipynb").write_bytes(_one_liners())
    (r,) = grade_folder(
        subs, tmp_path / "gb.csv", limits=Limits(timeout=60), feedback=tmp_path / "fb", progress=None
    )
    pts = {e.id: e.points for e in r.exercises}
    assert r.status == "ok" and pts["03.diffusion"] == pts["03.center"] == pts["03.kpca"] == 0, pts
    assert all(
        p == e.max_points
        for e in r.exercises
        for p in [pts[e.id]]
        if e.id not in ("03.diffusion", "03.center", "03.kpca")
    )
    fb = (tmp_path / "fb" / "one_liners.md").read_text(encoding="utf-8")
    assert fb.count("ModuleNotFoundError") >= 3, fb


def test_a_child_is_denied_its_references_whether_or_not_the_kernel_loaded_them(tmp_path):
    """The files a probe's child may not read (the modules of the functions its exercise
    re-implements) come from the grader (plan.reference_files). The kernel imports those
    modules, and Numba with them, only for a submission whose code imports the package
    (cells.imports_package): ``quiet`` names it nowhere and its kernel leaves them out;
    ``uses`` imports it and finds the module loaded, its reference disarmed. Either way the
    reference's file is refused to the child."""
    from kmlteach.course.grade.cells import imports_package

    body = (
        "    import sys\n"
        "    pkg = sys.modules['kml' + 'teach']\n"
        "    try:\n        open(pkg.__path__[0] + '/svm/margins.py', 'rb').close()\n        seen = 'READ'\n"
        "    except OSError as exc:\n        seen = 'DENIED ' + type(exc).__name__\n"
        "    raise ValueError(f'KMLREF {seen} numba={\"numba\" in sys.modules}{extra}')"
    )
    quiet = "def distance(x, w, b):\n    extra = ''\n" + body
    uses = (
        "def distance(x, w, b):\n    from kmlteach.svm import margins\n"
        "    try:\n        margins.distance_to_hyperplane(np.atleast_2d(x), w, b)\n        extra = ' called'\n"
        "    except Exception as exc:\n        extra = ' ' + type(exc).__name__\n" + body
    )
    assert not imports_package([quiet]) and imports_package([uses])
    subs = tmp_path / "subs"
    subs.mkdir()
    for name, src in (("quiet", quiet), ("uses", uses)):
        (subs / f"{name}.ipynb").write_bytes(dump(with_function(load(), "01.distance", src, name="distance")))
    grade_folder(
        subs, tmp_path / "gb.csv", limits=Limits(timeout=60), jobs=2, feedback=tmp_path / "fb", progress=None
    )
    quiet_fb = (tmp_path / "fb" / "quiet.md").read_text(encoding="utf-8")
    uses_fb = (tmp_path / "fb" / "uses.md").read_text(encoding="utf-8")
    if mode.detect(Limits()).bwrap and landlock_abi() >= 1:  # the child's own ruleset denies them
        assert "KMLREF DENIED PermissionError numba=False" in quiet_fb, quiet_fb
        assert "KMLREF DENIED PermissionError numba=True ReferenceUnavailable" in uses_fb, uses_fb
    else:
        assert "numba=False" in quiet_fb and "numba=True ReferenceUnavailable" in uses_fb, uses_fb


def test_the_grading_kernel_has_no_debugger(tmp_path):
    """debugpy is in the student's environment (ipykernel requires it) but not in a grading
    kernel's (policy.NOT_GRADING): the kernel started without it and a submission cannot
    import it (its files are not granted)."""
    from kmlteach.course.grade.isolation.policy import NOT_GRADING, libraries

    assert "debugpy" in NOT_GRADING and "debugpy" in student_distributions()
    assert not [g for g in libraries() if os.path.basename(g).startswith("debugpy")]
    nb = with_function(
        load(),
        "01.distance",
        "def distance(x, w, b):\n    import importlib.util, sys\n"
        "    loaded = sorted(m for m in sys.modules if m.startswith(('debugpy', '_pydevd')))\n"
        "    try:\n        import debugpy\n        found = debugpy.__file__\n"
        "    except ImportError as exc:\n        found = type(exc).__name__\n"
        "    raise ValueError(f'KMLDEBUG loaded={loaded} import={found}')",
        name="distance",
    )
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "debugger.ipynb").write_bytes(dump(nb))
    (r,) = grade_folder(
        subs, tmp_path / "gb.csv", limits=Limits(timeout=60), feedback=tmp_path / "fb", progress=None
    )
    fb = (tmp_path / "fb" / "debugger.md").read_text(encoding="utf-8")
    assert "KMLDEBUG loaded=[] import=ModuleNotFoundError" in fb, fb
    assert r.status == "ok" and {e.id for e in r.exercises if e.points == e.max_points} == {
        e.id for e in r.exercises if e.id != "01.distance"
    }


@ROOT_ONLY
def test_uid_slots_are_machine_wide(tmp_path, monkeypatch):
    """Two grading runs with different temporary folders never share a uid (each would kill
    the other's kernels as its own leftovers): the slots live in one folder of root's."""
    import tempfile

    from kmlteach.course.grade.isolation.uids import uid_slot

    with uid_slot(True) as first:
        monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
        with uid_slot(True) as second:
            assert first is not None and second is not None and first != second
    assert not (tmp_path / "kmlteach-grade-slots").exists()


DIAL = """
def _kml_dial(how, path):
    import socket
    try:
        if how == "stream":
            s = socket.socket(socket.AF_UNIX)
            s.settimeout(3)
            s.connect(path)
            return "GOT " + s.recv(200).decode("latin-1")
        d = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        if how == "sendto":
            d.sendto(b"kml-dgram", path)
        else:
            d.sendmsg([b"kml-dgram"], [], 0, path)
        return "SENT " + how
    except BaseException as exc:
        return "DENIED " + type(exc).__name__
"""


def _dialer(calls: list[tuple[str, str]]) -> bytes:
    """A chapter 01 notebook whose k-th exercise raises what ``_kml_dial(*calls[k])`` gave."""
    nb = with_cell(load(), DIAL)
    for (ex, name, _), (how, path) in zip(SIGNATURES, calls, strict=False):
        src = f"def {name}({_signature(name)}):\n    raise ValueError(_kml_dial({how!r}, {path!r}))"
        nb = with_function(nb, ex, src, name=name)
    return dump(nb)


def under_kernel_filter(setup: str, body: str):
    """Run ``body`` in a fresh Python process under the launcher's kernel filter (installed
    after ``setup``, with no_new_privs, as the launcher does); both see ``ctypes``, ``os``,
    ``resource``, ``socket``, ``subprocess``, ``sys``, ``launcher``, ``libc`` (``syscall``
    returning a long) and, in ``body``, ``errno(f)``: 0 when ``f()`` works, else its errno."""
    import subprocess
    import sys

    script = (
        "import ctypes, os, resource, socket, subprocess, sys\n"
        f"sys.path.insert(0, {str(ROOT / 'kmlteach' / 'course' / 'grade' / 'isolation')!r})\n"
        "import launcher\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "libc.syscall.restype = ctypes.c_long\n"
        f"{setup}\n"
        "libc.prctl(38, 1, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS\n"
        "assert launcher.apply_seccomp(launcher.KERNEL_SECCOMP)\n"
        "def errno(f):\n"
        "    try:\n"
        "        f()\n"
        "        return 0\n"
        "    except OSError as e:\n"
        "        return e.errno\n"
        f"{body}"
    )
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)


def test_the_kernel_s_seccomp_filter_refuses_connect_and_addressed_sends(tmp_path):
    """The launcher's filter, installed in a fresh process: connect() (Unix path, TCP), any
    datagram, seqpacket or other family's socket, a datagram socketpair and TCP Fast Open
    fail with EPERM, in a forked child too; netlink, stream sockets, bind, send() on a
    connected pair and subprocesses still work; unshare(CLONE_NEWUSER) is refused."""
    setup = f"""
path = {str(tmp_path / "s")!r}
srv = socket.socket(socket.AF_UNIX); srv.bind(path); srv.listen()
"""
    body = """
out = [
    errno(lambda: socket.socket(socket.AF_UNIX).connect(path)),
    errno(lambda: socket.socket().connect(("127.0.0.1", 9))),
    errno(lambda: socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)),
    errno(lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM | socket.SOCK_NONBLOCK)),
    errno(lambda: socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)),
    errno(lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)),
    errno(lambda: socket.socket(40, socket.SOCK_STREAM)),  # AF_VSOCK
    errno(lambda: socket.socket().sendto(b"x", 0x20000000, ("127.0.0.1", 9))),  # MSG_FASTOPEN
    errno(lambda: socket.socket(socket.AF_NETLINK, socket.SOCK_RAW).close()),
    errno(lambda: socket.socket(socket.AF_INET6).close()),
    errno(lambda: socket.socket(socket.AF_UNIX).bind(path + "2")),
]
a, b = socket.socketpair()
a.sendall(b"hi")
out.append(b.recv(2).decode())
out.append(libc.unshare(0x10000000) == -1 and ctypes.get_errno())
pid = os.fork()
if pid == 0:
    os._exit(errno(lambda: socket.socket(socket.AF_UNIX).connect(path)))
out.append(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
out.append(subprocess.run(["true"]).returncode)
print(out)
"""
    res = under_kernel_filter(setup, body)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == "[1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 'hi', 1, 1, 0]".split(), res.stdout


def agent(path: str):
    """``(server, secret, seen)``: a Unix stream socket of the grader's own user at ``path``
    (an ssh-agent's) that answers ``secret`` to whoever connects, and lists them in ``seen``;
    ``server.shutdown()`` and ``server.server_close()`` end it."""
    import socketserver
    import threading

    secret = "kml-agent-secret-" + uuid.uuid4().hex
    seen = []

    class Answer(socketserver.BaseRequestHandler):
        def handle(self):
            seen.append("stream")
            self.request.sendall(secret.encode())

    server = socketserver.ThreadingUnixStreamServer(path, Answer)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, secret, seen


def grade_in_mode(name: str, subs: Path, out: Path, timeout: float, monkeypatch, server) -> None:
    """Grade ``subs`` into ``out`` (gb.csv, fb/) in mode ``name``, then stop the ``agent``
    ``server``: "bwrap"; "uid" (no bubblewrap: a dedicated uid and Landlock, as root);
    "landlock" (no bubblewrap, Landlock alone: the kernel is the grader's own uid, as for an
    ordinary user; as root, root kernels with ``--unsafe-allow-root-kernels``)."""
    limits = Limits(timeout=timeout) if name == "bwrap" else Limits(timeout=timeout, bwrap=False)
    unsafe = name == "landlock" and os.geteuid() == 0
    if unsafe:
        monkeypatch.setattr(mode, "runs_on_host", lambda: False)
    mode._detect.cache_clear()
    try:
        grade_folder(
            subs, out / "gb.csv", limits=limits, feedback=out / "fb", progress=None, unsafe_root=unsafe
        )
    finally:
        mode._detect.cache_clear()
        server.shutdown()
        server.server_close()


def _landlock_only_modes():
    """bubblewrap, and Landlock alone (an ordinary user's grader where bwrap cannot run: the
    kernel is the grader's own uid; as root, root kernels with ``--unsafe-allow-root-kernels``)."""
    return [
        pytest.param(
            "bwrap",
            marks=pytest.mark.skipif(bwrap_problem() is not None, reason=f"{bwrap_problem()}"),
        ),
        pytest.param("landlock", marks=LANDLOCK),
    ]


@pytest.mark.parametrize("name", _landlock_only_modes())
def test_a_submission_reaches_no_unix_socket_of_the_grader_s_user(tmp_path, monkeypatch, name):
    """Red team G1: without bubblewrap a submission found the TA's ssh-agent and D-Bus
    session sockets in /proc/net/unix and connected (Landlock does not cover connect() to
    a path socket). Here the grader's own user listens on a stream socket that answers a
    secret and on a datagram socket; the kernel's seccomp filter refuses connect(), sendto()
    with an address and sendmsg(): no connection, no datagram, no secret in the feedback."""
    import socket

    stream, dgram = str(tmp_path / "agent.sock"), str(tmp_path / "bus.sock")
    server, secret, seen = agent(stream)

    inbox = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    inbox.bind(dgram)
    inbox.settimeout(0.2)
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "dialer.ipynb").write_bytes(_dialer([("stream", stream), ("sendto", dgram), ("sendmsg", dgram)]))
    out = tmp_path / "out"
    grade_in_mode(name, subs, out, 30, monkeypatch, server)
    try:
        seen.append(inbox.recv(100).decode("latin-1"))
    except OSError:
        pass
    inbox.close()
    fb = (out / "fb" / "dialer.md").read_text(encoding="utf-8")
    assert seen == [] and secret not in fb and "GOT " not in fb and "SENT " not in fb, (seen, fb)
    sections = fb.split("\n## ")[1:4]
    assert len(sections) == 3 and all("DENIED " in s for s in sections), fb
    if name == "landlock":
        assert "DENIED PermissionError" in fb, fb  # refused by the filter, not missing


def test_bwrap_binds_site_packages_once_from_a_view_of_exactly_the_allowlist(tmp_path):
    """~210 binds of site-packages' allowlisted entries cost each kernel ~0.12 s of CPU in
    bwrap (it reads /proc/self/mountinfo again for every bind): the folder is bound once,
    from a view beside it that holds hard links to exactly those entries, nothing else."""
    from kmlteach.course.grade.isolation import bwrap as B

    if sys.prefix == sys.base_prefix:
        pytest.skip("views are made in a virtual environment only")
    pol = kernel_policy(str(tmp_path), bwrap=True)
    binds, _links = B._mounts(tuple(pol.read))
    argv = B.bwrap_argv(pol, str(tmp_path), userns=False)
    pairs = [(argv[i + 1], argv[i + 2]) for i, x in enumerate(argv) if x == "--ro-bind"]
    sites = {os.path.dirname(b) for b in binds if os.path.basename(os.path.dirname(b)) == "site-packages"}
    assert sites
    for sp in sites:
        granted = sorted(os.path.basename(b) for b in binds if os.path.dirname(b) == sp)
        assert len(granted) >= B.VIEW_MIN and "scipy" not in granted and "numpy" in granted
        (view,) = [s for s, d in pairs if d == sp]
        assert os.path.basename(view).startswith(B.VIEW_PREFIX)
        assert sorted(os.listdir(view)) == granted  # the allowlist, nothing else
        assert not [d for _, d in pairs if os.path.dirname(d) == sp]  # no entry bound on its own
        for rel in ("numpy/__init__.py", "ipykernel/kernelapp.py"):
            assert os.stat(os.path.join(view, rel)).st_ino == os.stat(os.path.join(sp, rel)).st_ino
    assert len(pairs) < 40, len(pairs)


def test_a_view_follows_its_folder_and_is_not_used_where_others_may_write(tmp_path):
    from kmlteach.course.grade.isolation import bwrap as B

    make = B._view.__wrapped__  # not the per-process cache

    def view():
        B._deep_stamp.cache_clear()  # as a new grader process would
        return make(str(sp), names, B._view_stamp(str(sp), names))

    sp = tmp_path / "lib" / "site-packages"
    (sp / "a" / "sub").mkdir(parents=True)
    (sp / "a" / "x.py").write_text("1")
    (sp / "a" / "sub" / "y.py").write_text("y")
    (sp / "b.py").write_text("b")
    (sp / "scipy").mkdir()
    names = ("a", "b.py")
    v1 = view()
    assert v1 and sorted(os.listdir(v1)) == ["a", "b.py"]
    assert os.stat(Path(v1) / "a" / "x.py").st_ino == os.stat(sp / "a" / "x.py").st_ino
    assert view() == v1  # found again, not rebuilt
    # an upgrade replaces the distribution's files: a new view; the old one stays while a
    # grader uses it (this process: it holds a shared lock on every view it used)
    shutil.rmtree(sp / "a")
    (sp / "a" / "sub").mkdir(parents=True)
    (sp / "a" / "x.py").write_text("2")
    (sp / "a" / "sub" / "y.py").write_text("y")
    os.utime(sp / "a" / "sub", ns=(1, 1))  # (any change below then moves its mtime)
    v2 = view()
    assert v2 != v1 and os.path.exists(v1) and (Path(v2) / "a" / "x.py").read_text() == "2"
    assert v1 in B._HELD and v2 in B._HELD
    # a file replaced by rename deep inside a package (a hand-applied patch): a new view that
    # holds the new file (red team of 2026-12-06: the stamp saw the top level only)
    (sp / "a" / "sub" / "y.new").write_text("patched")
    os.rename(sp / "a" / "sub" / "y.new", sp / "a" / "sub" / "y.py")
    v3 = view()
    assert v3 not in (v1, v2) and (Path(v3) / "a" / "sub" / "y.py").read_text() == "patched"
    # another grader (another process) uses v3, and this one lets go of all three: the next
    # view this process uses, even one already made, removes v1 and v2 (nobody uses them,
    # whatever their age) and keeps v3
    other = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"import fcntl, os, sys\nfd = os.open({v3!r}, os.O_RDONLY)\n"
            "fcntl.flock(fd, fcntl.LOCK_SH)\nprint('held', flush=True)\nsys.stdin.read()",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert other.stdout.readline().strip() == "held"
        for v in (v1, v2, v3):
            os.close(B._HELD.pop(v))
        assert view() == v3 and not os.path.exists(v1) and not os.path.exists(v2)
        os.close(B._HELD.pop(v3))
        (sp / "b.py").write_text("b2")
        v4 = view()
        assert v4 != v3 and os.path.exists(v3)
    finally:
        other.communicate("")
    # once that grader is gone, v3 is unused too: the next view used removes it
    (sp / "b.py").write_text("b3")
    v5 = view()
    assert os.path.exists(v4) and not os.path.exists(v3) and v5 not in (v3, v4)
    # a deep file replaced with its folder's mtime then restored (tar extracting a package
    # again; red team of 2026-12-06, F1): the folder's ctime still moves, a new view
    made = os.stat(sp / "a" / "sub")
    (sp / "a" / "sub" / "y.new").write_text("patched again")
    os.rename(sp / "a" / "sub" / "y.new", sp / "a" / "sub" / "y.py")
    os.utime(sp / "a" / "sub", ns=(made.st_atime_ns, made.st_mtime_ns))
    v6 = view()
    assert v6 != v5 and (Path(v6) / "a" / "sub" / "y.py").read_text() == "patched again"
    # a folder that others may write could hold a planted view: none is used there
    os.chmod(tmp_path / "lib", 0o777)
    assert view() is None
    os.chmod(tmp_path / "lib", 0o755)
    os.chmod(v6, 0o775)
    assert view() is None
    for v in [v for v in B._HELD if v.startswith(str(tmp_path))]:
        os.close(B._HELD.pop(v))


def test_a_child_loads_the_compiled_kernels_it_keeps_from_the_warm_up_s_cache(tmp_path):
    """A probe's child finds the library's compiled kernels in the warm-up's cache (each
    module's ``__pycache__``, read-only there: inkernel/lock.py's ``library_cache``), where it
    compiled each kernel it called again, 5 s of an honest 05.loss_augmented's time through
    ``structured.viterbi`` (CI of 2026-12-07 failed it by KernelTimeout under load). It still
    may not read the cache files of what its exercise re-implements: grading
    05.loss_augmented it reads Viterbi's max-sum kernels (``viterbi`` is spared) but not the
    structured learner's; grading 05.viterbi, none of Viterbi's."""
    import importlib

    from kmlteach._jit import _REGISTRY

    vmod = importlib.import_module("kmlteach.structured.viterbi")
    learning = importlib.import_module("kmlteach.structured.learning")
    kept = [vmod._viterbi_max_kernel, vmod._best_predecessor, vmod._viterbi_fill]
    kernels = [*kept, learning._structured_learn_kernel]
    for dispatcher, example in _REGISTRY.values():  # the cache the warm-up writes (make test's)
        if any(dispatcher is k for k in kernels):
            dispatcher(*example())
    folder = os.path.dirname(vmod.__file__) + "/__pycache__"
    if vmod._viterbi_max_kernel.stats.cache_path != folder:
        pytest.skip("Numba's cache is not the package's own __pycache__ here")
    index = [f"{folder}/{k._cache._impl.filename_base}.nbi" for k in kernels]
    assert all(os.path.exists(p) for p in index), index
    probe = (
        "    seen = ''\n"
        f"    for p in {index!r}:\n"
        "        try:\n            open(p, 'rb').close()\n            seen += 'R'\n"
        "        except OSError:\n            seen += 'D'\n"
    )
    aug = (
        "def loss_augmented(unary, pairwise, y_true):\n"
        "    import sys\n    import numpy as np\n    from kmlteach.structured import viterbi\n"
        "    aug = np.asarray(unary, dtype=float) + 1.0\n"
        "    aug[np.arange(len(y_true)), y_true] -= 1.0\n"
        "    labels = viterbi(aug, pairwise).labels\n"
        "    k = sys.modules['kmlteach.structured.viterbi']._viterbi_max_kernel\n"
        + probe
        + "    raise ValueError(f'KMLCACHE aug hits={sum(k.stats.cache_hits.values())} "
        "misses={sum(k.stats.cache_misses.values())} files={seen}')"
    )
    dec = (
        "def viterbi_decode(unary, pairwise):\n"
        + probe
        + "    raise ValueError(f'KMLCACHE dec files={seen}')"
    )
    nb = with_function(
        load(ROOT / "notebooks" / "05-structured.ipynb"), "05.loss_augmented", aug, "loss_augmented"
    )
    nb = with_function(nb, "05.viterbi", dec, "viterbi_decode")
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "cache.ipynb").write_bytes(dump(nb))
    grade_folder(
        subs, tmp_path / "gb.csv", limits=Limits(timeout=60), feedback=tmp_path / "fb", progress=None
    )
    fb = (tmp_path / "fb" / "cache.md").read_text(encoding="utf-8")
    assert "KMLCACHE aug hits=1 misses=0 " in fb, fb  # loaded, not compiled
    if mode.detect(Limits()).bwrap and landlock_abi() >= 1:  # the child's own ruleset
        assert "KMLCACHE aug hits=1 misses=0 files=RRRD" in fb, fb
        assert "KMLCACHE dec files=DDDD" in fb, fb


# red team 10 (2026-12-07, night): (exercise, a kernel its disarming leaves, the disarmed
# kernel that one calls), found by walking every kernel's globals; loaded from the warm-up's
# cache, the caller ran its callee's machine code (02.gram and 01.hinge through online.norma,
# 00.margins by calling _dcd_gap's code out of _dcd_kernel's through ctypes: full marks)
CALLERS_OF_DISARMED = [
    ("00.margins", "svm.dcd._dcd_kernel", "svm.dcd._dcd_gap"),
    ("01.distance", "svm.dcd._dcd_kernel", "svm.dcd._dcd_gap"),
    ("01.dual", "svm.dcd._dcd_kernel", "svm.dcd._dcd_gap"),
    ("01.hinge", "svm.dcd._dcd_kernel", "svm.dcd._dcd_gap"),
    ("01.hinge", "online.norma._norma_kernel", "online.losses._loss_and_derivative"),
    ("01.sgd_step", "svm.dcd._dcd_kernel", "svm.dcd._dcd_gap"),
    ("01.sgd_step", "online.norma._norma_kernel", "online.losses._loss_and_derivative"),
    ("01.subgradient_perceptron", "svm.dcd._dcd_kernel", "svm.dcd._dcd_gap"),
    ("02.class_mean", "svm.dcd._dcd_kernel", "svm.dcd._dcd_gap"),
    ("02.gram", "online.norma._norma_kernel", "kernels.evaluation.kernel_value"),
    ("02.kernel_ridge", "svm.min_norm._wolfe_kernel", "svm.min_norm._affine_min_norm"),
    ("02.poly_features", "online.norma._norma_kernel", "kernels.evaluation.kernel_value"),
    ("03.mean_distance", "svm.dcd._dcd_kernel", "svm.dcd._dcd_gap"),
    ("06.permutation", "ranking.assignment._ordered_kernel", "ranking.assignment._augment"),
    ("09.norma_step", "svm.dcd._dcd_kernel", "svm.dcd._dcd_gap"),
    ("09.nu_dual", "svm.dcd._dcd_kernel", "svm.dcd._dcd_gap"),
    ("09.rademacher", "svm.dcd._dcd_kernel", "svm.dcd._dcd_gap"),
]


def test_a_child_may_not_read_the_cache_of_a_kernel_that_calls_a_disarmed_one():
    """Numba links a callee's machine code into its caller's, and a caller loaded from the
    cache never types its callee again: every cache file of a kernel that calls one its
    exercise disarms, in any module (norma.py defines no reference of 01.hinge), is on the
    child's list of refused files, as are the disarmed kernel's own; a kept kernel that calls
    none (05.loss_augmented: Viterbi's max-sum kernel) is not. Each caller's index exists
    (the warm-up's, written here if missing), so the list holds real files."""
    import importlib

    from kmlteach._jit import _REGISTRY
    from kmlteach.course.grade import cases
    from kmlteach.course.grade.plan import reference_files

    def kernel(path):
        mod, _, name = f"kmlteach.{path}".rpartition(".")
        return getattr(importlib.import_module(mod), name)

    def index(k):
        folder = os.path.dirname(os.path.realpath(k.py_func.__code__.co_filename)) + "/__pycache__"
        return os.path.realpath(f"{folder}/{k._cache._impl.filename_base}.nbi")

    wanted = {id(kernel(c)) for _, c, _ in CALLERS_OF_DISARMED} | {
        id(kernel(d)) for _, _, d in CALLERS_OF_DISARMED
    }
    for dispatcher, example in _REGISTRY.values():
        if id(dispatcher) in wanted and example is not None and not os.path.exists(index(dispatcher)):
            dispatcher(*example())
    refs = {}
    for chapter in sorted({e[:2] for e, _, _ in CALLERS_OF_DISARMED} | {"05"}):
        refs.update(reference_files(cases.guards(chapter), cases.spared(chapter)))
    for exercise, caller, callee in CALLERS_OF_DISARMED:
        for path in (caller, callee):
            f = index(kernel(path))
            assert os.path.exists(f) and f in refs[exercise], (exercise, path, f)
    kept = index(kernel("structured.viterbi._viterbi_max_kernel"))
    assert os.path.exists(kept) and kept not in refs["05.loss_augmented"] and kept in refs["05.viterbi"]


def test_a_child_may_read_only_the_cache_files_of_the_current_kept_kernels():
    """The child's readable Numba cache is an allowlist: each kept kernel's index and the
    data files it names now. A file left by a kernel since removed (red team 11 scored
    02.gram with the index and data of ``svm.nu_smo._ensure_row``, removed in 46fce4d, which
    called ``kernel_value``: an older warm-up had left them) or an older data file beside a
    kept kernel's is refused; planted here as copies of ``online.norma._norma_kernel``'s."""
    import importlib
    import shutil

    from kmlteach._jit import _REGISTRY
    from kmlteach.course.grade import cases
    from kmlteach.course.grade.plan import reference_files

    norma = importlib.import_module("kmlteach.online.norma")._norma_kernel
    vit = importlib.import_module("kmlteach.structured.viterbi")._viterbi_max_kernel
    for dispatcher, example in _REGISTRY.values():
        if dispatcher is norma or dispatcher is vit:
            dispatcher(*example())
    planted = []
    try:
        for k, name in ((norma, "norma._removed_kernel-1"), (vit, None)):
            folder = os.path.dirname(os.path.realpath(k.py_func.__code__.co_filename)) + "/__pycache__"
            base = k._cache._impl.filename_base
            if not os.path.exists(f"{folder}/{base}.1.nbc"):
                pytest.skip("Numba's cache is not the package's own __pycache__ here")
            if name is not None:  # a removed kernel's index and data, under a name no kernel has
                for ext in (".nbi", ".1.nbc"):
                    planted.append(f"{folder}/{name}.py311{ext}")
                    shutil.copyfile(f"{folder}/{base}{ext}", planted[-1])
            else:  # an older data file beside a kept kernel's, which its index does not name
                planted.append(f"{folder}/{base}.9.nbc")
                shutil.copyfile(f"{folder}/{base}.1.nbc", planted[-1])
                kept = [f"{folder}/{base}.nbi", f"{folder}/{base}.1.nbc"]
        refs = {**reference_files(cases.guards("02"), cases.spared("02"))}
        refs.update(reference_files(cases.guards("05"), cases.spared("05")))
        assert {os.path.realpath(p) for p in planted[:2]} <= set(refs["02.gram"]), planted
        assert os.path.realpath(planted[2]) in refs["05.loss_augmented"], planted
        assert not {os.path.realpath(p) for p in kept} & set(refs["05.loss_augmented"]), kept
    finally:
        for p in planted:
            with contextlib.suppress(OSError):
                os.unlink(p)
