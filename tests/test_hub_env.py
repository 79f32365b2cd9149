"""``python -m kmlteach hub-env DIR`` (kmlteach/course/hub_env.py): what it refuses, the
interpreter it picks, the permissions it leaves, the kernelspec it writes. The build
itself runs in tests/test_hub.py and tests/test_hub_isolation.py (the students'
environment of their hubs), where a kernel imports it as a student."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from kmlteach.course import hub_env

ROOT = Path(__file__).resolve().parent.parent


def _cli(*argv) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "kmlteach", "hub-env", *argv],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )


def test_the_environment_is_never_built_in_the_instructors_checkout(tmp_path):
    for inside in (ROOT, ROOT / "build" / "hub", ROOT.parent):
        with pytest.raises(hub_env.HubEnvError, match="outside the instructor's checkout"):
            hub_env.build(inside)
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(hub_env.HubEnvError, match="not empty and not a hub environment"):
        hub_env.build(tmp_path)
    (tmp_path / "x").mkdir()
    with pytest.raises(hub_env.HubEnvError, match="not a student edition"):
        hub_env.build(tmp_path / "new", edition=tmp_path / "x")
    with pytest.raises(hub_env.HubEnvError, match="cpu"):
        hub_env.build(tmp_path / "new", cpu="fast")
    assert not (tmp_path / "new").exists()


def test_the_cli_reports_a_refusal_in_one_line(tmp_path):
    r = _cli(str(ROOT / "build" / "hub"))
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert (
        r.stderr.strip().splitlines() == [r.stderr.strip().splitlines()[0]]
        and "outside the instructor's checkout" in r.stderr
    )
    assert (
        "hub-env"
        in subprocess.run(
            [sys.executable, "-m", "kmlteach", "--help"], capture_output=True, text=True, cwd=ROOT
        ).stdout
    )


def test_the_interpreter_is_one_every_user_can_run(tmp_path):
    exe = hub_env._interpreter(None)
    v = f"{sys.version_info[0]}.{sys.version_info[1]}"
    out = subprocess.run(
        [exe, "-c", "import sys; print(tuple(sys.version_info[:2]))"], capture_output=True, text=True
    )
    assert out.stdout.strip() == str(tuple(sys.version_info[:2])) and hub_env._others_can_read(Path(exe))
    # the check reads the mode bits of every folder above (root passes any of them itself)
    for mode, readable in ((0o700, False), (0o711, True)):
        folder = tmp_path / f"m{mode:o}"
        folder.mkdir()
        (folder / "f").write_text("")
        (folder / "f").chmod(0o644)
        folder.chmod(mode)
        tmp_path.chmod(0o755)
        assert hub_env._others_can_read(folder / "f") is (readable and hub_env._others_can_read(tmp_path))
    with pytest.raises(hub_env.HubEnvError, match=f"no Python {v} that every student can run"):
        hub_env._interpreter(str(tmp_path / "missing-python"))


def test_the_folder_is_left_world_readable_and_writable_by_its_owner_alone(tmp_path):
    top = tmp_path / "env"
    (top / "venv" / "bin").mkdir(parents=True)
    script = top / "venv" / "bin" / "tool"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o770)
    data = top / "data.txt"
    data.write_text("x")
    data.chmod(0o666)
    (top / "venv").chmod(0o777)
    hub_env._share(top)
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in (top, top / "venv", script, data)}
    assert modes == {"env": 0o755, "venv": 0o755, "tool": 0o755, "data.txt": 0o644}
    if os.geteuid() == 0:
        assert {p.stat().st_uid for p in (top, script, data)} == {0}


def test_the_kernelspec_puts_no_folder_first_and_has_no_debugger():
    spec = hub_env.kernelspec(Path("/opt/kmlteach-hub/venv"))
    assert spec["argv"][:3] == ["/opt/kmlteach-hub/venv/bin/python", "-P", "-s"]
    assert spec["argv"][3:7] == ["-m", "kmlteach_hub_guard", "-f", "{connection_file}"]
    assert [a for a in spec["argv"] if a.startswith("--ext=")] == [
        f"--ext={e}" for e in hub_env.KERNEL_EXTENSIONS
    ]
    assert spec["metadata"] == {"debugger": False} and "env" not in spec
    for rel in hub_env.HUB_MODULES.values():
        assert (hub_env.HUB_DIR / rel).is_file(), rel


_GUARD_PROBE = """
import json, os, socket, sys
sys.path.insert(0, sys.argv[1])
import kmlteach_hub_guard as g
out = {"abi": g.landlock_abi(), "dump": g.no_dump()}
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(); out["before"] = s.getsockname()[1] > 0
out["no_bind"] = g.no_bind()
for port in (0, 5678):
    t = socket.socket()
    try:
        t.bind(("127.0.0.1", port)); out[port] = "bound"
    except OSError as e:
        out[port] = type(e).__name__
parent = os.getpid()
out["no_bind_scoped"] = g.no_bind(scope_signals=True)
try:
    os.kill(parent, 0); out["signal_self"] = "ok"
except OSError as e:
    out["signal_self"] = type(e).__name__
r = os.fork()  # a child inherits the layer
if r == 0:
    try:
        socket.socket().bind(("127.0.0.1", 0)); os._exit(1)
    except PermissionError:
        os._exit(0)
out["child"] = os.waitpid(r, 0)[1]
out["listening"] = s.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN)  # what was bound before stays
print(json.dumps(out))
"""


def test_the_guard_makes_a_process_non_dumpable_and_bind_no_port():
    """kmlteach_hub_guard (the server's extension and the kernels' launcher): no_dump and
    no_bind, in a process of their own (Landlock cannot be undone)."""
    import json

    r = subprocess.run(
        [sys.executable, "-c", _GUARD_PROBE, str(hub_env.HUB_DIR / "server")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    got = json.loads(r.stdout.strip().splitlines()[-1])
    assert got["dump"] is True and got["before"] is True and got["listening"] == 1, got
    if got["abi"] < 4:
        assert got["no_bind"] is False and got["0"] == "bound"
        pytest.skip(f"Landlock ABI {got['abi']}: no TCP rules on this kernel")
    assert got["no_bind"] is True and got["0"] == got["5678"] == "PermissionError" and got["child"] == 0, got
    assert got["no_bind_scoped"] is True and got["signal_self"] == "ok", got


def test_the_guard_launches_ipykernel():
    r = subprocess.run(
        [sys.executable, "-m", "kmlteach_hub_guard", "--version"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=hub_env.HUB_DIR / "server",
    )
    import IPython  # (ipykernel's --version is IPython's)

    assert r.returncode == 0 and r.stdout.strip() == IPython.__version__, (r.stdout, r.stderr)


def test_the_pinned_versions_are_this_environments():
    lines = dict(line.split("==") for line in hub_env._constraints().split())
    import importlib.metadata

    assert {"numpy", "numba", "ipykernel", "jupyter_server"} <= set(lines)
    assert all(importlib.metadata.version(n) == v for n, v in lines.items())
    assert set(lines) <= set(hub_env.PINNED)
