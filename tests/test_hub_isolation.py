"""Two students on the course's hub attack each other and the answer key (issue 35).

As root, this module makes two Unix users in a group of their own (homes left 0755, as
Debian's ``useradd -m`` makes them), starts the hub of ``deploy/hub/jupyterhub_config.py``
in its PAM mode on 127.0.0.1 (``loadtest.LocalHub``: the students' environment of
``python -m kmlteach hub-env``, the course's repository served by ``git daemon``), logs
both students in and starts their servers. Each test is one attack, from a student's
kernel (inside the hub) or from the student's Unix account (a shell on the machine):

answer key · a build planted for a classmate's kernel · the debugger's port · the
server's port taken first · other homes · the hub's database and secrets · processes
(``pids``) · nbgitpuller with another repository, and a folder shadowing ``kmlteach``.

Every outcome must be "contained". About a minute on two cores once the students'
environment is built (kept in /var/tmp/kmlteach-hub-env-<hash> while the course does not
change). Not root: skipped in one line.
"""

from __future__ import annotations

import asyncio
import base64
import importlib
import json
import os
import pwd
import re
import shutil
import subprocess
import sys
import threading
import time
import urllib.parse
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parent.parent
HUB = ROOT / "deploy" / "hub"
sys.path.insert(0, str(HUB))

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0
    or not all(shutil.which(t) for t in ("bwrap", "node", "useradd", "git", "setpriv"))
    or not (HUB / "node_modules" / ".bin" / "configurable-http-proxy").exists(),
    reason="needs root, bubblewrap, useradd, setpriv, git and the hub's proxy (npm ci --prefix deploy/hub)",
)


def _run(loop, coro, timeout=300):
    return loop.run_until_complete(asyncio.wait_for(coro, timeout))


def _json(result: dict) -> dict:
    assert result["status"] == "ok", result
    return json.loads(result["stdout"].strip().splitlines()[-1])


def _as(user: str, argv: list[str], **kw) -> subprocess.CompletedProcess:
    """Run ``argv`` as the Unix user ``user`` outside the hub (a student with a shell)."""
    pw = pwd.getpwnam(user)
    return subprocess.run(
        ["setpriv", f"--reuid={pw.pw_uid}", f"--regid={pw.pw_gid}", "--init-groups", *argv],
        capture_output=True,
        text=True,
        env={"HOME": pw.pw_dir, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
        cwd="/",
        **kw,
    )


@pytest.fixture(scope="module")
def hub():
    from loadtest import LocalHub

    Student = importlib.import_module("student").Student  # deploy/hub's (a top-level student/ may exist)

    from aot_build import generic_build

    generic_build()  # the students' environment copies it instead of compiling its own
    h = LocalHub(unix_users=True)
    loop = asyncio.new_event_loop()
    kernels = []
    try:
        h.start(report=lambda msg: print(msg, flush=True))
        h.users.add(2, home_mode=0o755)  # as Debian's useradd -m leaves them
        # another repository, served beside the course's: a package named kmlteach in it
        hostile = h.tmp / "hostile"
        (hostile / "kmlteach").mkdir(parents=True)
        (hostile / "kmlteach" / "__init__.py").write_text(
            "import os\nopen(os.path.expanduser('~/PWNED-by-pull'), 'w').close()\n"
        )
        git = ["git", "-C", str(hostile), "-c", "user.name=x", "-c", "user.email=x@x"]
        subprocess.run(["git", "init", "-q", "-b", "main", str(hostile)], check=True)
        subprocess.run(git + ["add", "-A"], check=True)
        subprocess.run(git + ["commit", "-q", "-m", "x"], check=True)
        subprocess.run(
            ["git", "clone", "-q", "--bare", str(hostile), str(h.tmp / "git" / "hostile.git")], check=True
        )
        env = Path(h.env["KMLTEACH_HUB_ENV"])
        names = [h.student_name(i) for i in range(2)]

        async def arrive():
            students = [Student(h.url, n, h.password, h.repo_url, "notebooks/01-svm.ipynb") for n in names]
            for s in students:
                await s.login()
            await asyncio.gather(*(s.spawn() for s in students))
            ks = await asyncio.gather(*(s.start_kernel() for s in students))
            return students, ks

        (alice, bob), (ka, kb) = _run(loop, arrive())
        kernels += [ka, kb]
        yield SimpleNamespace(
            hub=h,
            loop=loop,
            env=env,
            python=str(env / "venv" / "bin" / "python"),
            alice=alice,
            bob=bob,
            ka=ka,
            kb=kb,
            uid={n: pwd.getpwnam(n).pw_uid for n in names},
            home={n: pwd.getpwnam(n).pw_dir for n in names},
            hostile=f"git://127.0.0.1:{h.git_port}/hostile.git",
        )
    finally:
        for k in kernels:
            try:
                _run(loop, k.close(), 30)
            except Exception:
                pass
        loop.close()
        h.stop()
        h.cleanup()


def _user_id(hub, name: str) -> str:
    """The hub's id of a user (its runtime folder's name)."""
    for p in hub.hub.processes():
        try:
            e = p.environ()
        except Exception:
            continue
        if e.get("JUPYTERHUB_USER") == name and e.get("JUPYTER_RUNTIME_DIR"):
            return Path(e["JUPYTER_RUNTIME_DIR"]).parent.name
    raise AssertionError(f"no server of {name}")


# ------------------------------------------------------------------------ the answer key
def test_a_students_kernel_runs_the_student_edition_without_the_answer_key(hub):
    from kmlteach.exercises import registry

    code = f"""
import importlib.util, json, os, sys, io, contextlib
import kmlteach
from kmlteach import exercises
def found_spec(m):
    try:
        return importlib.util.find_spec(m) is not None
    except ModuleNotFoundError:
        return False
out = io.StringIO()
with contextlib.redirect_stdout(out):
    exercises.solution("05.viterbi")
paths = {{p: os.path.exists(p) for p in {[str(ROOT), str(ROOT / "docs" / "midterm.md"), str(ROOT / "notebooks" / "src"), sys.prefix, "/root", "/work"]!r}}}
found = []
for top in (os.path.dirname(kmlteach.__file__), {str(hub.env / "edition")!r}):
    for d, dirs, files in os.walk(top):
        found += [os.path.join(d, f) for f in files if f == "midterm.md" or f.endswith(".ipynb") and "src" in d]
        found += [d for x in dirs if x == "src" and d.endswith("notebooks")]
print(json.dumps({{
    "file": kmlteach.__file__, "exe": sys.executable, "solution": out.getvalue(),
    "grader": [m for m in ("kmlteach.course.grade", "kmlteach.course.grade.cases", "kmlteach.exercises.ch05")
               if found_spec(m)],
    "paths": paths, "found": found,
}}))
"""
    r = _json(_run(hub.loop, hub.ka.execute(code)))
    assert r["file"].startswith(str(hub.env / "venv")) and r["exe"].startswith(str(hub.env / "venv")), r
    reference = registry()["05.viterbi"].solution
    assert reference and reference.splitlines()[0] not in r["solution"], r["solution"]
    assert "solution" in r["solution"] and "def " not in r["solution"], r["solution"]
    assert r["grader"] == [] and r["found"] == [], r
    assert not any(r["paths"].values()), r["paths"]
    # nothing of the answer key (the edition's own definition: solution lines, references,
    # hidden values, last hints) in the package a kernel imports, its bytecode and its
    # compiled kernels (tests/test_release_edition.py searches the edition's files)
    from kmlteach.course.edition import leaks, secrets

    key = secrets()
    (package,) = hub.env.glob("venv/lib/python3*/site-packages/kmlteach")
    assert len(key) > 100 and leaks(package, key) == []


# ------------------------------------------------------------- a build planted for a classmate
_EVIL_C = r"""
#include <Python.h>
#include <stdio.h>
#include <stdlib.h>
PyMODINIT_FUNC PyInit_kmlteach_aot(void) {
    const char *home = getenv("HOME");
    char path[4096];
    snprintf(path, sizeof path, "%s/PWNED-by-aot", home ? home : "/tmp");
    FILE *f = fopen(path, "w");
    if (f) { fputs("a planted build ran\n", f); fclose(f); }
    PyErr_SetString(PyExc_ImportError, "planted");
    return NULL;
}
"""


def _evil_build(hub, tmp: Path) -> tuple[bytes, dict]:
    """A module that, if loaded, leaves ~/PWNED-by-aot (gcc; a file that is no module
    otherwise: loading it would fail the import) and a manifest this environment accepts."""
    info = json.loads(
        subprocess.run(
            [
                hub.python,
                "-c",
                "import json, sysconfig; from kmlteach._aot import _versions; "
                "print(json.dumps({'v': _versions(), 'inc': sysconfig.get_paths()['include']}))",
            ],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    so = b"not a shared object"
    if shutil.which("gcc") and Path(info["inc"], "Python.h").exists():
        (tmp / "evil.c").write_text(_EVIL_C)
        subprocess.run(
            ["gcc", "-shared", "-fPIC", f"-I{info['inc']}", "-o", str(tmp / "evil.so"), str(tmp / "evil.c")],
            check=True,
        )
        so = (tmp / "evil.so").read_bytes()
    manifest = {"file": "evil.so", "versions": info["v"], "cpu_flags": [], "sources": {}, "kernels": {}}
    return so, manifest


def test_a_build_planted_for_a_classmate_is_never_loaded(hub, tmp_path):
    alice, bob = hub.alice.name, hub.bob.name
    so, manifest = _evil_build(hub, tmp_path)
    target = f"/tmp/kmlteach-numba-{hub.uid[alice]}"
    plant = f"""
import base64, json, os
os.makedirs({target!r}, mode=0o755, exist_ok=True)
open({target!r} + "/evil.so", "wb").write(base64.b64decode({base64.b64encode(so).decode()!r}))
open({target!r} + "/kmlteach_aot.json", "w").write({json.dumps(manifest)!r})
os.chmod({target!r}, 0o755)
print(json.dumps(sorted(os.listdir({target!r}))))
"""
    # from bob's kernel: into the only /tmp bob's sandbox has, his own
    assert _json(_run(hub.loop, hub.kb.execute(plant))) == ["evil.so", "kmlteach_aot.json"]
    probe = f"""
import json, os, warnings
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    import kmlteach.svm
    from kmlteach import _aot
    status = _aot.status()
print(json.dumps({{"planted": os.path.exists({target!r}), "status": status, "aot": _aot._TABLE is not None}}))
"""
    k = _run(hub.loop, hub.alice.start_kernel())
    try:
        r = _json(_run(hub.loop, k.execute(probe)))
    finally:
        _run(hub.loop, k.close())
    assert r["planted"] is False and "compiled ahead of time" in r["status"] and r["aot"], r
    # from bob's shell: into the machine's /tmp, then alice's own process (outside the hub)
    # looks there, as a kernel does when the package's build is missing or stale
    shutil.rmtree(target, ignore_errors=True)
    try:
        r = _as(bob, [hub.python, "-c", plant])
        assert r.returncode == 0, r.stderr
        assert os.stat(target).st_uid == hub.uid[bob]
        probe_env = ["env", "KMLTEACH_AOT=1", f"KMLTEACH_AOT_DIR={target}"]
        r = _as(
            alice, [*probe_env, hub.python, "-W", "always", "-c", "import kmlteach.svm; print('imported')"]
        )
        assert r.returncode == 0 and r.stdout.strip() == "imported", r.stderr
        warned = [ln for ln in r.stderr.splitlines() if "ignored the build" in ln]
        assert len(warned) == 1 and f"owned by uid {hub.uid[bob]}" in warned[0], r.stderr
    finally:
        shutil.rmtree(target, ignore_errors=True)
    for name in (alice, bob):
        assert not Path(hub.home[name], "PWNED-by-aot").exists()


# --------------------------------------------------------------------------- the debugger
def test_no_kernel_offers_a_debugger_and_no_student_process_can_listen(hub):
    info = hub.ka.info
    assert "debugger" not in info.get("supported_features", []) and not info.get("debugger"), info
    code, specs = _run(hub.loop, hub.alice.api("GET", "kernelspecs"))
    assert code == 200 and specs["kernelspecs"]["python3"]["spec"]["metadata"]["debugger"] is False
    r = _run(hub.loop, hub.ka.execute("import debugpy"))
    assert r["status"] == "error" and "ModuleNotFoundError" in r["stderr"]
    # Landlock: a port of one's choice cannot be bound (a debugger's, a classmate's server's)
    probe = """
import json, socket
out = {}
for port in (25001, 5678, 0):
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", port)); out[port] = s.getsockname()[1]
    except OSError as e:
        out[port] = type(e).__name__
    s.close()
print(json.dumps(out))
"""
    r = _json(_run(hub.loop, hub.kb.execute(probe)))  # (and no port 0 either: red team H1)
    assert r["25001"] == r["5678"] == r["0"] == "PermissionError", r


# ------------------------------------------------------------------------- other homes
def test_a_student_sees_no_other_home_and_files_are_private(hub):
    alice, bob = hub.alice.name, hub.bob.name
    code, _ = _run(
        hub.loop,
        hub.bob.api(
            "PUT", "contents/secret.txt", {"type": "file", "format": "text", "content": "bob's answers"}
        ),
    )
    assert code in (200, 201)
    secret = Path(hub.home[bob], "secret.txt")
    for name in (alice, bob):  # homes made private at the first start (they were 0755)
        assert Path(hub.home[name]).stat().st_mode & 0o777 == 0o700
    assert secret.stat().st_mode & 0o777 == 0o600 and secret.stat().st_uid == hub.uid[bob]
    probe = f"""
import json, os
home = os.path.expanduser("~")
r = {{"listing": sorted(os.listdir(os.path.dirname(home))), "bob": os.path.exists({hub.home[bob]!r})}}
try:
    open({str(secret)!r}).read(); r["read"] = "read"
except OSError as e:
    r["read"] = type(e).__name__
pids = [p for p in os.listdir("/proc") if p.isdigit()]
r["users"] = sorted({{os.stat("/proc/" + p).st_uid for p in pids}})
r["n"] = len(pids)
print(json.dumps(r))
"""
    r = _json(_run(hub.loop, hub.ka.execute(probe)))
    assert r["listing"] == [alice] and r["bob"] is False and r["read"] == "FileNotFoundError", r
    assert r["users"] == [hub.uid[alice]] and r["n"] < 20, r  # its own processes only
    # and from alice's shell: bob's home is closed
    r = _as(alice, ["cat", str(secret)])
    assert r.returncode != 0 and "Permission denied" in r.stderr


# ------------------------------------------------------------------- the hub's state
def test_the_hubs_database_and_secrets_are_out_of_reach(hub):
    alice, bob = hub.alice.name, hub.bob.name
    state = Path(hub.hub.env["KMLTEACH_HUB_STATE"])
    db, secret = state / "jupyterhub.sqlite", state / "jupyterhub_cookie_secret"
    assert state.stat().st_mode & 0o777 == 0o700
    assert db.stat().st_mode & 0o777 == 0o600 and secret.stat().st_mode & 0o777 == 0o600
    for key in (state / "internal-ssl").rglob("*.key"):
        assert key.stat().st_mode & 0o077 == 0, key
    run = Path(hub.hub.env["KMLTEACH_HUB_RUNTIME"])
    bob_id = _user_id(hub, bob)
    probe = f"""
import json, os
r = {{p: os.path.exists(p) for p in {[str(state), str(db), str(run / bob_id)]!r}}}
try:
    r["run"] = sorted(os.listdir({str(run)!r}))
except OSError as e:
    r["run"] = type(e).__name__
print(json.dumps(r))
"""
    r = _json(_run(hub.loop, hub.ka.execute(probe)))
    assert r.pop("run") == [_user_id(hub, alice)] and not any(r.values()), r
    for path in (db, secret, run / bob_id / "certs", run / bob_id / "runtime"):
        got = _as(alice, ["ls", str(path)])
        assert got.returncode != 0 and "Permission denied" in got.stderr, (path, got)
    assert _as(alice, ["ls", str(run)]).returncode != 0  # the runtime base is not listable


# --------------------------------------------------------------------------- processes
def test_a_thread_bomb_stops_at_the_students_pids_limit(hub):
    bomb = """
import json, threading
ev, n, err = threading.Event(), 0, None
try:
    while n < 3000:
        threading.Thread(target=ev.wait, daemon=True).start()
        n += 1
except Exception as e:
    err = type(e).__name__
ev.set()
print(json.dumps({"n": n, "err": err}))
"""
    k = _run(hub.loop, hub.alice.start_kernel())
    try:
        r = _json(_run(hub.loop, k.execute(bomb)))
    finally:
        _run(hub.loop, k.close())
    from limits_spawner import cgroup_layout

    layout = cgroup_layout() or {}
    if "pids" not in layout:
        pytest.skip("no pids cgroup controller here")
    limit = (layout["pids"] / hub.hub.cgroup / hub.alice.name / "pids.max").read_text().strip()
    assert limit == "512" and r["err"] == "RuntimeError" and 300 < r["n"] < 512, (limit, r)
    t0 = time.monotonic()  # the classmate is not slowed
    assert _run(hub.loop, hub.kb.execute("print(sum(range(10)))"))["stdout"].strip() == "45"
    assert time.monotonic() - t0 < 10


# ------------------------------------------------------------------------- nbgitpuller
def test_links_pull_only_the_course_and_no_folder_shadows_the_package(hub):
    alice = hub.alice
    base = f"/user/{alice.name}"

    async def get(path, **query):
        resp = await alice.fetch(f"{path}?{urllib.parse.urlencode(query)}")
        return resp.code, (resp.body or b"").decode(errors="replace")

    shadow = "kmlteach-student/notebooks/kmlteach"
    for path, query in [
        (f"{base}/git-pull", {"repo": hub.hostile, "targetpath": shadow}),
        (f"{base}/git-pull/api", {"repo": hub.hostile, "targetpath": shadow}),
        (f"{base}/git-pull", {"repo": hub.hub.repo_url, "targetpath": ".ipython/profile_default/startup"}),
        (f"{base}/git-pull/api", {"repo": hub.hub.repo_url, "targetpath": "/tmp/elsewhere"}),
    ]:
        code, body = _run(hub.loop, get(path, **query))
        assert code == 403 and len(body.strip().splitlines()) == 1, (path, query, code, body)
    # the link a classmate would hand out, through the hub
    link = "/hub/user-redirect/git-pull?" + urllib.parse.urlencode(
        {"repo": hub.hostile, "targetpath": shadow}
    )
    page = _run(hub.loop, alice.follow(link))
    assert page.code == 403 and b"only the course's repository" in page.body
    assert not Path(hub.home[alice.name], shadow).exists()
    # the course's own repository is pulled
    events = _run(
        hub.loop,
        alice.events(
            f"{base}/git-pull/api?"
            + urllib.parse.urlencode({"repo": hub.hub.repo_url, "targetpath": "kmlteach-student"})
        ),
    )
    assert events and events[-1].get("phase") == "finished", events[-3:]
    # a package folder beside a notebook (however it got there) does not replace kmlteach,
    # a student's own module there still imports
    for path, body in [
        (shadow, {"type": "directory"}),
        (
            f"{shadow}/__init__.py",
            {
                "type": "file",
                "format": "text",
                "content": "import os\nopen(os.path.expanduser('~/PWNED-by-shadow'), 'w').close()\n",
            },
        ),
        ("kmlteach-student/notebooks/helpers.py", {"type": "file", "format": "text", "content": "X = 42\n"}),
    ]:
        code, _ = _run(hub.loop, alice.api("PUT", f"contents/{path}", body))
        assert code in (200, 201), (path, code)
    k = _run(hub.loop, alice.start_kernel("kmlteach-student/notebooks"))
    try:
        r = _json(
            _run(
                hub.loop,
                k.execute(
                    "import json, os, kmlteach, helpers\n"
                    "print(json.dumps({'file': kmlteach.__file__, 'cwd': os.getcwd(), 'x': helpers.X}))"
                ),
            )
        )
    finally:
        _run(hub.loop, k.close())
    assert (
        r["file"].startswith(str(hub.env))
        and r["cwd"].endswith("kmlteach-student/notebooks")
        and r["x"] == 42
    )
    for name in ("PWNED-by-shadow", "PWNED-by-pull"):
        assert not Path(hub.home[alice.name], name).exists()


def test_the_sandbox_sees_an_allowlist(hub):
    """What a student's kernel can read at the top of its world: nothing but the allowlist."""
    probe = """
import json, os
top = sorted(os.listdir("/"))
etc = sorted(os.listdir("/etc"))
print(json.dumps({"top": top, "etc": etc, "local": os.listdir("/usr/local"), "sys": sorted(os.listdir("/sys"))}))
"""
    r = _json(_run(hub.loop, hub.kb.execute(probe)))
    from sandbox import ETC_FILES, OWN_ETC

    assert set(r["etc"]) <= {f.split("/")[0] for f in ETC_FILES} | set(OWN_ETC), r["etc"]
    assert "shadow" not in r["etc"] and r["local"] == [] and r["sys"] == ["devices", "fs"], r
    # the first level: the OS's (/usr and its links), the sandbox's own, and the parents of
    # the bound folders (the environment, the home, the runtime folder)
    binds = {Path(p).parts[1] for p in (hub.env, hub.home[hub.bob.name], hub.hub.env["KMLTEACH_HUB_RUNTIME"])}
    assert (
        set(r["top"])
        <= {"usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "proc", "dev", "tmp", "etc", "sys"}
        | binds
    ), r["top"]
    assert not {"root", "home", "opt", "srv", "var", "run", "work", "boot", "mnt", "media"} - binds & set(
        r["top"]
    )


def _server_port(hub, name: str) -> int:
    for p in hub.hub.student_trees().get(name, [])[:1]:
        return urllib.parse.urlsplit(p.environ()["JUPYTERHUB_SERVICE_URL"]).port
    raise AssertionError(f"no server of {name}")


def test_no_student_reaches_a_classmates_server_or_sockets(hub):
    """Alice's kernel tries bob's server directly (its port is listed in /proc/net/tcp):
    plain HTTP, TLS without a certificate and TLS with her own valid server certificate are
    all refused (mutual TLS: a server accepts only the hub's and the proxy's clients); an
    abstract Unix socket bob's kernel made is out of her reach (Landlock's scope)."""
    port = _server_port(hub, hub.bob.name)
    certs = Path(hub.hub.env["KMLTEACH_HUB_RUNTIME"]) / _user_id(hub, hub.alice.name) / "certs"
    key = next(certs.glob("user-*.key"))
    listen = """
import socket
s = socket.socket(socket.AF_UNIX)
s.bind("\\0kmlteach-bob")
s.listen(1)
globals()["_abstract"] = s
print("listening")
"""
    assert _run(hub.loop, hub.kb.execute(listen))["stdout"].strip() == "listening"
    probe = f"""
import json, socket, ssl
out = {{}}
def attempt(name, wrap):
    try:
        with socket.create_connection(("127.0.0.1", {port}), timeout=5) as raw:
            conn = wrap(raw)
            conn.sendall(b"GET /user/{hub.bob.name}/api/contents HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n")
            out[name] = conn.recv(200).decode(errors="replace")[:40] or "closed"
    except (OSError, ssl.SSLError) as e:
        out[name] = type(e).__name__
attempt("plain", lambda s: s)
ctx = ssl.create_default_context(); ctx.check_hostname = False; ctx.verify_mode = ssl.CERT_NONE
attempt("tls", lambda s: ctx.wrap_socket(s))
mine = ssl.create_default_context(); mine.check_hostname = False; mine.verify_mode = ssl.CERT_NONE
mine.load_cert_chain({str(key.with_suffix(".crt"))!r}, {str(key)!r})
attempt("tls with her certificate", lambda s: mine.wrap_socket(s))
s = socket.socket(socket.AF_UNIX)
try:
    s.connect("\\0kmlteach-bob"); out["abstract"] = "connected"
except OSError as e:
    out["abstract"] = type(e).__name__
print(json.dumps(out))
"""
    r = _json(_run(hub.loop, hub.ka.execute(probe)))  # (before the last test restarts alice's server)
    assert r.pop("abstract") == "PermissionError", r
    for how, got in r.items():  # no HTTP answer came back
        assert not got.startswith("HTTP/"), (how, got)


# ------------------------------------------------------------- the server's port, taken first
_SQUATTER = """
import socket, ssl, sys, threading
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(sys.argv[2], sys.argv[1])
port = int(sys.stdin.readline())
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", port))
s.listen(16)
print("bound", port, flush=True)
s.settimeout(0.2)
conns = 0
done = threading.Event()  # set when the test closes our stdin
threading.Thread(target=lambda: (sys.stdin.read(), done.set()), daemon=True).start()
while not done.is_set():
    try:
        c, _ = s.accept()
        conns += 1
        c.close()
    except (socket.timeout, OSError):
        pass
print("connections", conns, flush=True)
"""


def test_a_port_taken_first_gets_no_traffic_and_the_server_starts_elsewhere(hub):
    """bob, with a shell and his own valid server certificate, binds alice's next port
    the moment the hub chose it (the test reads it for him from /proc, as root): alice's
    server is started again on another port, reaches her, and bob's listener gets no
    connection."""
    alice, bob = hub.alice, hub.bob
    certs = Path(hub.hub.env["KMLTEACH_HUB_RUNTIME"]) / _user_id(hub, bob.name) / "certs"
    key = next(certs.glob("user-*.key"))
    crt = key.with_suffix(".crt")
    _run(hub.loop, alice.stop_server())
    pw = pwd.getpwnam(bob.name)
    squatter = subprocess.Popen(
        ["setpriv", f"--reuid={pw.pw_uid}", f"--regid={pw.pw_gid}", "--init-groups"]
        + [hub.python, "-c", _SQUATTER, str(key), str(crt)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd="/",
    )
    seen = {}

    def watch():  # the first server process of alice's next start, and its port
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and "port" not in seen:
            for pid in os.listdir("/proc"):
                if not pid.isdigit():
                    continue
                try:
                    env = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
                except OSError:
                    continue
                if f"JUPYTERHUB_USER={alice.name}".encode() in env:
                    url = next((e for e in env if e.startswith(b"JUPYTERHUB_SERVICE_URL=")), b"")
                    port = urllib.parse.urlsplit(url.split(b"=", 1)[1].decode()).port if url else None
                    if port:
                        seen["port"] = port
                        squatter.stdin.write(f"{port}\n")
                        squatter.stdin.flush()
                        break
            time.sleep(0.005)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        _run(hub.loop, alice.spawn())
        watcher.join()
        code, me = _run(hub.loop, alice.api("GET", "me"))
        assert code == 200 and me["identity"]["username"] == alice.name, (code, me)
        kernel = _run(hub.loop, alice.start_kernel())
        assert _run(hub.loop, kernel.execute("print(6 * 7)"))["stdout"].strip() == "42"
        _run(hub.loop, kernel.close())
    finally:
        watcher.join()
        out, err = squatter.communicate(timeout=30)  # (closes its stdin: it reports and exits)
    assert f"bound {seen['port']}" in out, (out, err)
    log = hub.hub.log_path.read_text(errors="replace")
    assert re.search(rf"port {seen['port']} of {alice.name}'s server is held by another process", log), log[
        -3000:
    ]
    assert "connections 0" in out, out  # neither the hub nor the proxy ever connected to it
    now = [
        p
        for p in hub.hub.student_trees().get(alice.name, [])[:1]
        if f"127.0.0.1:{seen['port']}" not in p.environ().get("JUPYTERHUB_SERVICE_URL", "")
    ]
    assert now, "alice's server still on the taken port"


# ------------------------------------------- a student's own URL: the server cannot be taken over
_TAKEOVER = """
import ctypes, errno, json, os, signal, socket, urllib.parse
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
server = os.getppid()
port = urllib.parse.urlsplit(os.environ["JUPYTERHUB_SERVICE_URL"]).port
out = {"server": b"jupyterhub-singleuser" in open(f"/proc/{server}/cmdline", "rb").read()}
pfd = libc.syscall(434, server, 0)  # pidfd_open: allowed; pidfd_getfd below needs ptrace access
got, errs = 0, set()
for fd in range(3, 128):
    r = libc.syscall(438, pfd, fd, 0)
    if r >= 0:
        got += 1
        os.close(r)
    else:
        errs.add(errno.errorcode[ctypes.get_errno()])
out["pidfd_getfd"] = [got, sorted(errs)]
def attempt(name, f):
    try:
        f(); out[name] = "done"
    except OSError as e:
        out[name] = type(e).__name__
attempt("list fds", lambda: os.listdir(f"/proc/{server}/fd"))
attempt("open fd 3", lambda: os.close(os.open(f"/proc/{server}/fd/3", os.O_RDONLY)))
attempt("open mem", lambda: os.close(os.open(f"/proc/{server}/mem", os.O_RDONLY)))
attempt("stop", lambda: os.kill(server, signal.SIGSTOP))
attempt("kill", lambda: os.kill(server, signal.SIGKILL))
def bind(p):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        s.bind(("127.0.0.1", p))
    finally:
        s.close()
attempt("bind its port", lambda: bind(port))
attempt("bind port 0", lambda: bind(0))
print(json.dumps(out))
"""


def test_a_kernel_cannot_take_over_its_own_server(hub):
    """Red team H1: bob's kernel copied his server's listening socket (pidfd_getfd, same
    uid), stopped the server and answered the proxy itself, so that /user/bob/... served
    his pages on the hub's origin. Now the server is non-dumpable (no pidfd_getfd, no
    /proc/<server>/fd or mem), the kernel can signal none of its server's processes, and
    binds no TCP port: not the server's (``PermissionError`` from Landlock, where it
    would be ``EADDRINUSE`` without the layer), not port 0. No terminals either."""
    r = _json(_run(hub.loop, hub.kb.execute(_TAKEOVER)))
    assert r.pop("server") is True, r
    assert r.pop("pidfd_getfd") == [0, ["EPERM"]], r
    assert r == dict.fromkeys(
        ("list fds", "open fd 3", "open mem", "stop", "kill", "bind its port", "bind port 0"),
        "PermissionError",
    ), r
    code, _ = _run(hub.loop, hub.bob.api("GET", "terminals"))
    assert code == 404, code
    code, _ = _run(hub.loop, hub.bob.api("POST", "terminals"))
    assert code == 404, code
    assert (
        _run(hub.loop, hub.kb.execute("print(6 * 7)"))["stdout"].strip() == "42"
    )  # the server still answers
    log = hub.hub.log_path.read_text(errors="replace")
    assert "kmlteach_hub_guard: non-dumpable, binds no further TCP port" in log, log[-3000:]


_HOLD = """
import errno, os, socket, sys, time
host, port, procs, each = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
kids = []
for _ in range(procs):
    pid = os.fork()
    if pid == 0:
        held = []
        try:
            while len(held) < each:
                s = socket.socket(); s.setblocking(False); s.connect_ex((host, port)); held.append(s)
        except OSError as e:
            print("stopped", len(held), type(e).__name__, flush=True)
        else:
            print("held", len(held), flush=True)
        time.sleep(2)  # the resets have come back: a refused connection's socket says so
        bad = (errno.ECONNREFUSED, errno.ECONNRESET)
        print("refused", sum(s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) in bad for s in held), flush=True)
        time.sleep(40)
        os._exit(0)
    kids.append(pid)
for pid in kids:
    os.waitpid(pid, 0)
"""


def test_one_student_cannot_fill_the_proxy(hub):
    """Red team H9: bob's kernel held 22 000 idle connections to the proxy (20 000 open
    files) and the hub stopped answering. Now each of his processes may open 1024 files
    (soft and hard: not raised again), and nftables lets one user but root hold at most 256
    connections at once to each of the hub's ports: his 22 processes trying 1 000
    connections each (more than the proxy's 20 000 files) leave the hub answering."""
    import psutil
    import requests

    table = f"kmlteach_hub_{hub.hub.port}"
    rules = subprocess.run(["nft", "list", "table", "inet", table], capture_output=True, text=True)
    assert rules.returncode == 0 and "ct count over 256" in rules.stdout, rules.stderr
    proxy = next(p for p in hub.hub.processes() if "configurable-http-proxy" in " ".join(p.cmdline()))
    soft, _ = proxy.rlimit(psutil.RLIMIT_NOFILE)
    limits = (
        "import json, resource\nout = list(resource.getrlimit(resource.RLIMIT_NOFILE))\n"
        "try:\n    resource.setrlimit(resource.RLIMIT_NOFILE, (4096, 4096)); out.append('raised')\n"
        "except (OSError, ValueError) as e:\n    out.append(type(e).__name__)\nprint(json.dumps(out))"
    )
    assert _json(_run(hub.loop, hub.kb.execute(limits))) == [1024, 1024, "ValueError"]
    start = f"""
import subprocess, sys
_hold = subprocess.Popen([sys.executable, "-c", {_HOLD!r}, "127.0.0.1", "{hub.hub.port}", "22", "1000"],
                         stdout=subprocess.PIPE, text=True, start_new_session=True)
print("started")
"""
    before = proxy.num_fds()
    assert _run(hub.loop, hub.kb.execute(start))["stdout"].strip() == "started"
    results, peak, rss = [], 0, 0
    try:
        time.sleep(5)  # 22 000 connection attempts made
        for _ in range(8):
            peak = max(peak, proxy.num_fds())
            rss = max(rss, proxy.memory_info().rss)
            try:
                results.append(requests.get(hub.hub.url + "/hub/login", timeout=5).status_code)
            except requests.RequestException as e:
                results.append(type(e).__name__)
            time.sleep(0.5)
        held = """
import json, os, select, signal, time
fd, text, deadline = _hold.stdout.fileno(), b"", time.monotonic() + 30
while text.count(b"refused") < 22 and time.monotonic() < deadline:  # every process's count
    if select.select([fd], [], [], 0.5)[0]:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            break
        text += chunk
os.killpg(_hold.pid, signal.SIGKILL); _hold.wait()
print(json.dumps(text.decode().split("\\n")))
"""
        lines = [line for line in _json(_run(hub.loop, hub.kb.execute(held))) if line]
    finally:
        _run(
            hub.loop,
            hub.kb.execute("import os, signal\ntry:\n    os.killpg(_hold.pid, 9)\nexcept OSError:\n    pass"),
        )
    # refused by the per-port count or, beyond 200 at once, by the per-user rate of new
    # connections (test_a_kernel_adds_few_conntrack_entries): a reset, which each socket
    # reports (not the tables' counters: another hub's table may refuse bob and be gone
    # before it is read, and they count other users too; the full suite of 2026-12-07 read 0)
    reset = sum(int(line.split()[1]) for line in lines if line.startswith("refused "))
    print(
        f"H9: proxy fds {before} before, peak {peak} while held (limit {soft}), RSS {rss / 2**20:.0f} MiB; "
        f"refused {reset} (reset sockets); /hub/login: {results}"
    )
    # every process made its 1 000 attempts and counted its refused ones
    assert sorted(line for line in lines if not line.startswith("refused ")) == ["held 1000"] * 22, lines
    assert len(lines) == 44, lines
    assert peak < before + 2 * 256 + 50 and reset > 20_000, (before, peak, reset)
    assert results == [200] * 8, results


_PLANT = """
import json, os
home = os.path.expanduser("~")
def put(rel, text):
    p = os.path.join(home, rel)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    open(p, "w").write(text)
pwn = "import os\\nopen(os.path.expanduser('~/PWNED-by-{}'), 'w').close()\\n"
for where, rel in [("jupyter", ".jupyter"), ("local", ".local/etc/jupyter"), ("cwd", "")]:
    put(os.path.join(rel, "jupyter_server_config.py"), pwn.format("config-" + where))
    put(os.path.join(rel, "jupyter_config.py"), pwn.format("config-" + where))
ext = json.dumps({"ServerApp": {"jpserver_extensions": {"kmlteach_evil": True}}})
put(".jupyter/jupyter_server_config.d/evil.json", ext)
put(".local/etc/jupyter/jupyter_server_config.d/evil.json", ext)
evil = pwn.format("extension") + "def _load_jupyter_server_extension(app):\\n    pass\\n"
for rel in ("kmlteach_evil.py", ".jupyter/kmlteach_evil.py", ".local/lib/python3.11/site-packages/kmlteach_evil.py"):
    put(rel, evil)
put(".local/lib/python3.11/site-packages/evil.pth", "import os; open(os.path.expanduser('~/PWNED-by-pth'), 'w').close()\\n")
lab = ".local/share/jupyter/labextensions/kmlteach-evil/"
put(lab + "package.json", json.dumps({"name": "kmlteach-evil", "version": "1.0.0",
    "jupyterlab": {"_build": {"load": "static/remoteEntry.evil.js", "extension": "./extension"}}}))
put(lab + "static/remoteEntry.evil.js", "fetch('/hub/token')")
put(lab + "static/evil.html", "<script>fetch('/hub/token')</script>")
put(".local/share/jupyter/kernels/python3/kernel.json", json.dumps({"argv": ["python", "-m", "ipykernel_launcher",
    "-f", "{connection_file}"], "display_name": "evil", "language": "python"}))
print(json.dumps("planted"))
"""


def test_no_configuration_or_extension_from_the_home_is_loaded(hub):
    """Red team H1's other roads to one's own URL: bob plants server configuration files
    (``~/.jupyter``, ``~/.local/etc/jupyter``, his home), a server extension enabled by a
    ``jupyter_server_config.d`` file, a ``.pth`` in his user site, a lab extension whose
    static folder holds an HTML page, and a kernelspec without the guard; then restarts
    his server. Nothing runs, the page is not served, the kernelspec is the environment's;
    JupyterLab's settings still go to his home."""
    bob = hub.bob
    assert _json(_run(hub.loop, hub.kb.execute(_PLANT))) == "planted"
    _run(hub.loop, hub.kb.close())
    _run(hub.loop, bob.stop_server())
    _run(hub.loop, bob.spawn())
    hub.kb = _run(hub.loop, bob.start_kernel())
    home = Path(hub.home[bob.name])
    assert sorted(p.name for p in home.glob("PWNED-*")) == []
    base = f"/user/{bob.name}"
    page = _run(hub.loop, bob.fetch(f"{base}/lab/extensions/kmlteach-evil/static/evil.html"))
    assert page.code == 404, (page.code, page.body[:200])
    lab = _run(hub.loop, bob.follow(f"{base}/lab"))
    assert lab.code == 200 and b"kmlteach-evil" not in lab.body
    code, specs = _run(hub.loop, bob.api("GET", "kernelspecs"))
    assert code == 200 and "kmlteach_hub_guard" in specs["kernelspecs"]["python3"]["spec"]["argv"], specs
    headers = {"X-XSRFToken": bob.jar.get("_xsrf", f"{base}/") or "", "Content-Type": "application/json"}
    theme = json.dumps({"raw": '{"theme": "JupyterLab Dark"}'})
    resp = _run(
        hub.loop,
        bob.fetch(f"{base}/lab/api/settings/@jupyterlab/apputils-extension:themes", "PUT", theme, headers),
    )
    assert resp.code == 204, (resp.code, resp.body[:300])
    saved = (
        home
        / ".jupyter"
        / "lab"
        / "user-settings"
        / "@jupyterlab"
        / "apputils-extension"
        / "themes.jupyterlab-settings"
    )
    assert "JupyterLab Dark" in saved.read_text()
    assert _run(hub.loop, hub.kb.execute("print(6 * 7)"))["stdout"].strip() == "42"


# ------------------------------------------------ red team 2: the servers' ports and the kernel
def _seccomp(pid: int) -> tuple[int, int]:
    """(mode, number of filters) of a process, from /proc (as root)."""
    status = Path(f"/proc/{pid}/status").read_text()
    mode = int(re.search(r"^Seccomp:\s+(\d+)", status, re.M).group(1))
    found = re.search(r"^Seccomp_filters:\s+(\d+)", status, re.M)
    return mode, int(found.group(1)) if found else 0


_CONNECT = """
import json, socket, sys
out = {}
for name, port in json.loads(sys.argv[1]).items():
    try:
        socket.create_connection(("127.0.0.1", port), timeout=5).close(); out[name] = "connected"
    except OSError as e:
        out[name] = type(e).__name__
print(json.dumps(out))
"""

_FLOOD = """
import json, socket, sys, time
port, n = int(sys.argv[1]), int(sys.argv[2])
held, errors = [], {}
for _ in range(n):
    s = socket.socket(); s.setblocking(False)
    s.connect_ex(("127.0.0.1", port))
    held.append(s)
time.sleep(1)
for s in held:  # each connection's outcome (0: connected)
    e = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
    errors[e] = errors.get(e, 0) + 1
for s in held:
    s.close()
print(json.dumps({str(k): v for k, v in errors.items()}))
"""


def test_no_student_process_connects_to_a_servers_port(hub):
    """Red team H11: bob's kernel held 3 000 idle TCP connections to alice's server's port
    (listed in /proc/net/tcp): her server reached its 1024 open files, she got 503 and
    time-outs for the whole hold, and its accept loop wrote 110 MB of tracebacks into the
    hub's log in 100 s. Now only the hub and the proxy (root here) connect to the servers'
    ports: bob's kernel and shell, and alice's own kernel, are refused at once (nftables,
    before any connection exists); 500 attempts from bob leave alice's server's open
    files and the hub's log as they were, and alice's server answering."""
    ports = {"alice": _server_port(hub, hub.alice.name), "own": _server_port(hub, hub.bob.name)}
    cell = f"import sys\nsys.argv = ['x', {json.dumps(ports)!r}]\n" + _CONNECT
    refused = dict.fromkeys(ports, "ConnectionRefusedError")
    assert _json(_run(hub.loop, hub.kb.execute(cell))) == refused
    ka = _run(hub.loop, hub.alice.start_kernel())  # (an earlier test restarted alice's server)
    try:
        assert _json(_run(hub.loop, ka.execute(cell))) == refused  # not even one's own server
    finally:
        _run(hub.loop, ka.close())
    shell = _as(hub.bob.name, [hub.python, "-c", _CONNECT, json.dumps(ports)])
    assert shell.returncode == 0 and json.loads(shell.stdout) == refused, (shell.stdout, shell.stderr)
    server = hub.hub.student_trees()[hub.alice.name][0]
    fds, log = server.num_fds(), hub.hub.log_path.stat().st_size
    flood = f"import sys\nsys.argv = ['x', '{ports['alice']}', '500']\n" + _FLOOD
    errors = _json(_run(hub.loop, hub.kb.execute(flood)))
    statuses = []
    for _ in range(3):
        code, _ = _run(hub.loop, hub.alice.api("GET", "status"))
        statuses.append(code)
    grown = hub.hub.log_path.stat().st_size - log
    print(f"H11: connect_ex results {errors}; alice's server fds {fds} -> {server.num_fds()}; log +{grown} B")
    assert errors == {"111": 500}, errors  # ECONNREFUSED: none connected
    assert server.num_fds() < fds + 20 and statuses == [200] * 3, (fds, server.num_fds(), statuses)
    assert grown < 100_000, grown
    table = subprocess.run(
        ["nft", "list", "table", "inet", f"kmlteach_hub_{hub.hub.port}"], capture_output=True, text=True
    )
    assert 'oifname "lo" tcp dport 20000-29999' in table.stdout, table.stdout


_MPTCP = """
import ctypes, errno, json, socket, subprocess, sys
def mptcp():
    out = {}
    for fam, host in ((socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1")):
        try:
            s = socket.socket(fam, socket.SOCK_STREAM, 262)  # IPPROTO_MPTCP
            s.bind((host, 25001)); s.listen(); out[fam.name] = "listening"; s.close()
        except OSError as e:
            out[fam.name] = errno.errorcode[e.errno]
    libc = ctypes.CDLL(None, use_errno=True)
    r = libc.syscall(425, 8, ctypes.create_string_buffer(120))  # io_uring_setup
    out["io_uring"] = errno.errorcode[ctypes.get_errno()] if r < 0 else "made"
    keyctl = {"x86_64": 250, "aarch64": 219}[__import__("os").uname().machine]
    r = libc.syscall(keyctl, 0, -3, 0)  # KEYCTL_GET_KEYRING_ID of the session keyring
    out["keyctl"] = errno.errorcode[ctypes.get_errno()] if r < 0 else "got a keyring"  # red team 3, H15
    return out
if sys.argv[1:] == ["child"]:
    print(json.dumps(mptcp()))
else:
    child = subprocess.run([sys.executable, "-c", _SRC, "child"], capture_output=True, text=True)
    print(json.dumps({"kernel": mptcp(), "child": json.loads(child.stdout)}))
"""


def test_no_student_process_opens_an_mptcp_socket_or_io_uring(hub):
    """Red team H12: Landlock's TCP port rules do not cover MPTCP sockets
    (``socket(AF_INET, SOCK_STREAM, IPPROTO_MPTCP)``, Linux 6.18): bob's kernel bound
    1 997 ports of the servers' range in 0.1 s (all of them would stop every server start).
    Now the seccomp filter of the kernel's launcher and of the server (set before it
    executes: every process of the student) refuses such sockets (EPROTONOSUPPORT, also in
    a subprocess) and io_uring (which makes sockets without socket()); red team 3 (H15): no
    keyring either (a session keyring the hub was started in is shared with every student)."""
    cell = f"_SRC = {_MPTCP!r}\n" + _MPTCP
    r = _json(_run(hub.loop, hub.kb.execute(cell)))
    want = {
        "AF_INET": "EPROTONOSUPPORT",
        "AF_INET6": "EPROTONOSUPPORT",
        "io_uring": "ENOSYS",
        "keyctl": "EPERM",
    }
    assert r == {"kernel": want, "child": want}, r
    tree = hub.hub.student_trees()[hub.bob.name]
    server = tree[0]
    kernels = [p for p in tree[1:] if "kmlteach_hub_guard" in p.cmdline()]  # (-m kmlteach_hub_guard)
    assert kernels and _seccomp(server.pid)[0] == 2, (kernels, _seccomp(server.pid))
    for k in kernels:  # the server's filter and the launcher's own
        assert _seccomp(k.pid)[0] == 2 and _seccomp(k.pid)[1] >= 2, _seccomp(k.pid)


_PRLIMIT = """
import json, os, resource, subprocess
server = os.getppid()
out = {"server": b"jupyterhub-singleuser" in open(f"/proc/{server}/cmdline", "rb").read()}
def attempt(name, f):
    try:
        f(); out[name] = "done"
    except OSError as e:
        out[name] = type(e).__name__
before = resource.prlimit(0, resource.RLIMIT_NOFILE)
attempt("lower its server's files", lambda: resource.prlimit(server, resource.RLIMIT_NOFILE, (3, before[1])))
if out["lower its server's files"] == "done":  # (today's hole: give them back at once)
    resource.prlimit(server, resource.RLIMIT_NOFILE, before)
attempt("read its server's cpu limit", lambda: resource.prlimit(server, resource.RLIMIT_CPU))
child = subprocess.Popen(["sleep", "30"])
attempt("a child's", lambda: resource.prlimit(child.pid, resource.RLIMIT_NOFILE, (3, before[1])))
child.kill()
attempt("its own", lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (512, before[1])))
out["own now"] = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
resource.setrlimit(resource.RLIMIT_NOFILE, before)
print(json.dumps(out))
"""


def test_a_kernel_cannot_change_its_servers_limits(hub):
    """Red team H14: bob's kernel set its own server's RLIMIT_NOFILE to 3 with prlimit(2)
    (same uid: no ptrace check, no Landlock hook) and left 5 connections waiting: its accept
    loop wrote 84 MiB of tracebacks into the hub's log in 10 s. Now prlimit64 works on the
    calling process only (pid 0, which glibc's setrlimit passes): another process's limits
    are refused (EPERM), its own still change; the server keeps 1024 files. (The waiting
    connections are refused too: test_no_student_process_connects_to_a_servers_port.)"""

    r = _json(_run(hub.loop, hub.kb.execute(_PRLIMIT)))
    assert r == {
        "server": True,
        "lower its server's files": "PermissionError",
        "read its server's cpu limit": "PermissionError",
        "a child's": "PermissionError",
        "its own": "done",
        "own now": 512,
    }, r
    server = hub.hub.student_trees()[hub.bob.name][0]
    limits = Path(f"/proc/{server.pid}/limits").read_text()
    assert re.search(r"^Max open files\s+1024\s+1024\s", limits, re.M), limits
    assert re.search(r"^Max cpu time\s+unlimited\s+unlimited\s", limits, re.M), limits


_CHURN = """
import json, socket, time
ok, refused, t0 = 0, 0, time.monotonic()
while time.monotonic() - t0 < 2:
    s = socket.socket()
    try:
        s.connect(("127.0.0.1", PORT)); ok += 1
    except OSError:
        refused += 1
    s.close()
print(json.dumps([ok, refused]))
"""


def test_a_kernel_adds_few_conntrack_entries(hub):
    """Red team H13: short loopback connections from bob's kernel added 28 000 entries to
    the machine's conntrack table (262 144, shared by everything on the machine; each lives
    120 s in TIME_WAIT) in 5 s. Now one user opens at most 20 new connections a second in
    bursts of 200 (nftables, per uid): 2 s of connect/close to the hub's public port get
    through at most ~240 times, the rest refused before any entry is made (the table's
    growth measured over the same 2 s; not filled)."""
    count = Path("/proc/sys/net/netfilter/nf_conntrack_count")
    before = int(count.read_text())
    ok, refused = _json(_run(hub.loop, hub.kb.execute(_CHURN.replace("PORT", str(hub.hub.port)))))
    grown = int(count.read_text()) - before
    print(f"H13: {ok} connections, {refused} refused in 2 s; conntrack {before} -> +{grown}")
    assert ok <= 200 + 2 * 20 + 20 and refused > 0, (ok, refused)
    assert grown < 1000, grown


_SPILL = """
import json, os, sys
fd = getattr(sys.stderr, "_original_stdstream_copy", None)  # ipykernel's copy of the server's stderr
fd = 2 if fd is None else fd
chunk = b"kmlteach-spill " * 4096
n = 0
while n < 4 << 20:
    n += os.write(fd, chunk)
print(json.dumps(n))
"""


def test_a_server_writes_a_bounded_share_of_the_hubs_log(hub):
    """Red team H14's other half: whatever reaches a server's stderr went into the hub's
    log, at any rate (the accept loop's tracebacks: 84 MiB in 10 s; a kernel writes to the
    server's stderr it inherited just as fast). Now each server's output passes through a
    pipe the hub reads: 1 MiB at once, then 2 KiB a second, the rest dropped with one
    warning a minute; the hub reads at most 2 MiB a second of it (a faster writer waits).
    bob's kernel writes 4 MiB: the log grows by about 1 MiB."""
    log = hub.hub.log_path
    size = log.stat().st_size
    assert _json(_run(hub.loop, hub.kb.execute(_SPILL))) >= 4 << 20
    time.sleep(1)  # (the hub reads what is left in the pipe)
    grown = log.stat().st_size - size
    tail = log.read_bytes()[size:]
    print(f"H14: the hub's log grew {grown} B for 4 MiB written by a kernel")
    assert grown < (1 << 20) + 200_000, grown
    assert re.search(
        rb"%s's server wrote more than its share of the hub's log: \d+ bytes dropped" % hub.bob.name.encode(),
        tail,
    )
    assert _run(hub.loop, hub.kb.execute("print(6 * 7)"))["stdout"].strip() == "42"
