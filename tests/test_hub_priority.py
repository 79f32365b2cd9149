"""Interactive before batch on the hub (deploy/hub/kernel/kmlteach_hub_priority.py).

The hub's kernelspec loads the extension; while a cell runs the student's CPU cgroup is
``cpu.idle`` and afterwards it is not, so widget updates win the CPU over other
students' cells. Speed is measured in ``benchmarks/bench_hub_priority.py``, not here.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HUB = ROOT / "deploy" / "hub"
sys.path.insert(0, str(HUB / "kernel"))
sys.path.insert(0, str(HUB))

import kmlteach_hub_priority as prio  # noqa: E402  (deploy/hub/kernel is put on sys.path first)


def _cgroup(root: Path, rel: str) -> Path:
    d = root / rel
    d.mkdir(parents=True)
    (d / "cpu.idle").write_text("0")
    return d / "cpu.idle"


def test_idle_file_of_a_v1_and_a_v2_cgroup(tmp_path):
    v1 = _cgroup(tmp_path / "a", "cpu/kmlteach-hub/alice")
    lines = "4:memory:/kmlteach-hub/alice\n1:cpu:/kmlteach-hub/alice\n0::/\n"
    assert prio.idle_file(lines, tmp_path / "a") == v1
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "cgroup.controllers").write_text("cpu memory")
    v2 = _cgroup(tmp_path / "b", "kmlteach-hub/bob")
    assert prio.idle_file("0::/kmlteach-hub/bob\n", tmp_path / "b") == v2
    # the root cgroup, a cgroup without cpu.idle (Linux < 5.15), no CPU controller at all
    assert prio.idle_file("1:cpu:/\n0::/\n", tmp_path / "a") is None
    assert prio.idle_file("1:cpu:/elsewhere\n", tmp_path / "a") is None
    assert prio.idle_file("4:memory:/kmlteach-hub/alice\n", tmp_path / "a") is None


def test_idle_file_needs_write_access(tmp_path):
    f = _cgroup(tmp_path, "cpu/kmlteach-hub/alice")
    f.chmod(0o444)
    if os.access(f, os.W_OK):
        pytest.skip("root writes read-only files")
    assert prio.idle_file("1:cpu:/kmlteach-hub/alice\n", tmp_path) is None


def test_a_cell_runs_idle_and_a_widget_update_does_not(tmp_path, monkeypatch):
    from IPython.core.events import EventManager, available_events

    f = _cgroup(tmp_path, "cpu/kmlteach-hub/alice")
    monkeypatch.setattr(prio, "idle_file", lambda: f)
    shell = types.SimpleNamespace(events=EventManager(None, available_events))
    prio.load_ipython_extension(shell)
    try:
        prio.load_ipython_extension(shell)  # loading twice registers once
        assert len(shell.events.callbacks["pre_run_cell"]) == 1
        shell.events.trigger("pre_run_cell", None)
        assert f.read_text() == "1"
        shell.events.trigger("post_run_cell", None)
        assert f.read_text() == "0"
        shell.events.trigger("pre_run_cell", None)
    finally:
        prio.unload_ipython_extension(shell)
    assert f.read_text() == "0" and not shell.events.callbacks["pre_run_cell"]
    f.unlink()  # the cgroup is gone (server stopped): the hooks do not fail
    prio.load_ipython_extension(shell)
    try:
        shell.events.trigger("pre_run_cell", None)
    finally:
        prio.unload_ipython_extension(shell)


def test_no_cgroup_no_hooks(monkeypatch):
    from IPython.core.events import EventManager, available_events

    monkeypatch.setattr(prio, "idle_file", lambda: None)
    shell = types.SimpleNamespace(events=EventManager(None, available_events))
    prio.load_ipython_extension(shell)
    assert not shell.events.callbacks["pre_run_cell"] and prio._active is None


def test_the_spawner_hands_cpu_idle_to_the_user(tmp_path):
    from limits_spawner import CgroupLimits

    spawner = types.SimpleNamespace(_uid=lambda: 65534)
    if os.geteuid() != 0:
        spawner = types.SimpleNamespace(_uid=lambda: os.geteuid())
    (tmp_path / "cpu.idle").write_text("0")  # left by a server that stopped between cells
    CgroupLimits._delegate_idle(spawner, tmp_path)
    assert (tmp_path / "cpu.idle").read_text() == "1"  # start-up is batch work
    assert (tmp_path / "cpu.idle").stat().st_uid == spawner._uid()
    CgroupLimits._delegate_idle(spawner, tmp_path / "missing")  # Linux < 5.15: nothing to do


def fake_hub_env(folder: Path) -> Path:
    """The files of a students' environment (``python -m kmlteach hub-env``) the hub's
    configuration reads: its marker, the server's command, the interpreter, book.toml."""
    (folder / "venv" / "bin").mkdir(parents=True)
    (folder / "edition").mkdir()
    (folder / "hub-env.json").write_text("{}")
    (folder / "venv" / "bin" / "jupyterhub-singleuser").write_text("")
    (folder / "venv" / "bin" / "python").symlink_to(sys.executable)
    (folder / "edition" / "book.toml").write_text((ROOT / "book.toml").read_text())
    return folder


def _hub_config(tmp_path, monkeypatch, mode="test"):
    from traitlets.config import Config

    monkeypatch.setenv("KMLTEACH_HUB_MODE", mode)
    monkeypatch.setenv("KMLTEACH_HUB_STATE", str(tmp_path / "state"))
    monkeypatch.setenv("KMLTEACH_HUB_CLASSROOM", "0")  # its section is tested by its own tests
    if not (tmp_path / "hubenv").exists():
        fake_hub_env(tmp_path / "hubenv")
    monkeypatch.setenv("KMLTEACH_HUB_ENV", str(tmp_path / "hubenv"))
    c = Config()
    path = HUB / "jupyterhub_config.py"
    exec(compile(path.read_text(), str(path), "exec"), {"get_config": lambda: c, "__file__": str(path)})
    return c


def _hub_kernelspec(tmp_path) -> tuple[Path, dict]:
    """The kernelspec ``hub-env`` writes, on this environment's interpreter (the hub's
    modules from deploy/hub/kernel instead of the environment's site-packages)."""
    from kmlteach.course.hub_env import kernelspec

    spec = kernelspec(Path(sys.prefix))
    spec["env"] = {"PYTHONPATH": f"{HUB / 'kernel'}:{HUB / 'server'}"}  # (kmlteach_hub_guard: server/)
    d = tmp_path / "jupyter" / "kernels" / "python3"
    d.mkdir(parents=True)
    (d / "kernel.json").write_text(json.dumps(spec))
    return tmp_path / "jupyter", spec


@pytest.mark.parametrize("mode", ["system", "test"])
def test_a_student_server_loads_no_unused_extension_and_the_pull_guard(tmp_path, monkeypatch, mode):
    import ast

    c = _hub_config(tmp_path, monkeypatch, mode)
    args = c.Spawner.args
    [ext] = [a.split("=", 1)[1] for a in args if a.startswith("--ServerApp.jpserver_extensions=")]
    ext = ast.literal_eval(ext)
    assert ext == {
        "jupyter_lsp": False,
        "jupyterlab_jupytext": False,
        "kmlteach_hub_pull": True,
        "kmlteach_hub_guard": True,
    }
    assert ("--ServerApp.allow_root=True" in args) == (mode == "test" and os.geteuid() == 0)
    # the students' environment, nothing of the hub's (instructor's) own environment
    assert c.Spawner.cmd == [str(tmp_path / "hubenv" / "venv" / "bin" / "jupyterhub-singleuser")]
    assert c.Spawner.env_keep == ["LANG", "LC_ALL"] and c.Spawner.disable_user_config is True
    assert c.Spawner.environment["PATH"].split(":")[0] == str(tmp_path / "hubenv" / "venv" / "bin")
    assert "JUPYTER_PATH" not in c.Spawner.environment and "PYTHONPATH" not in c.Spawner.environment


def test_the_hub_kernelspec_loads_the_extensions_without_a_debugger(tmp_path):
    _, spec = _hub_kernelspec(tmp_path)
    argv = spec["argv"]
    assert argv[1:3] == ["-P", "-s"] and "{connection_file}" in argv
    assert argv[-2:] == ["--ext=kmlteach_hub_priority", "--ext=kmlteach_hub_path"]
    assert spec["metadata"]["debugger"] is False
    for name in ("kmlteach_hub_priority", "kmlteach_hub_path"):
        assert (HUB / "kernel" / f"{name}.py").exists()


def test_a_hub_kernel_marks_its_cgroup_idle_while_a_cell_runs(tmp_path, monkeypatch):
    """The real kernel of the hub's kernelspec, in a CPU cgroup of its own."""
    from jupyter_client import KernelManager
    from jupyter_client.kernelspec import KernelSpecManager

    base = Path("/sys/fs/cgroup/cpu")
    if not (base / "cpu.shares").exists():
        base = Path("/sys/fs/cgroup")
    cg = base / f"kmlteach-test-priority-{os.getpid()}"
    try:
        cg.mkdir()
    except OSError:
        pytest.skip("CPU cgroups are not writable here")
    try:
        if not (cg / "cpu.idle").exists():
            pytest.skip("no cpu.idle (Linux < 5.15)")
        jpath, _ = _hub_kernelspec(tmp_path)
        km = KernelManager(
            kernel_name="python3",
            kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(jpath / "kernels")]),
            transport="ipc",  # as on the hub: the kernel's launcher lets it bind no TCP port
            ip=str(tmp_path / "kernel"),
        )
        # the spawner moves the server before it executes; here the kernel joins at its start
        km.start_kernel()
        try:
            (cg / "cgroup.procs").write_text(str(km.provisioner.pid))
            kc = km.client()
            kc.start_channels()
            kc.wait_for_ready(timeout=120)
            code = f"print(open({str(cg / 'cpu.idle')!r}).read().strip())"
            outputs = []
            reply = kc.execute_interactive(code, timeout=120, output_hook=outputs.append)
            assert reply["content"]["status"] == "ok"
            text = "".join(m["content"].get("text", "") for m in outputs if m["msg_type"] == "stream")
            assert text.strip() == "1"  # during the cell
            assert (cg / "cpu.idle").read_text().strip() == "0"  # after it
            kc.stop_channels()
        finally:
            km.shutdown_kernel(now=True)
    finally:
        for pid in (cg / "cgroup.procs").read_text().split():
            os.kill(int(pid), 9)
        cg.rmdir()


def test_the_hub_and_proxy_get_a_cgroup_above_the_class(tmp_path, monkeypatch):
    """prioritise_services: a CPU cgroup beside the students' parent with the largest
    weight, the process moved in; the students' cgroups stay where they were."""
    import limits_spawner as ls

    cpu = tmp_path / "cpu" / "course"
    cpu.mkdir(parents=True)
    monkeypatch.setattr(ls, "cgroup_layout", lambda: {"memory": tmp_path / "memory", "cpu": cpu})
    made_dir = lambda d: (d / "cpu.shares").write_text("1024") or (d / "cgroup.procs").write_text("")
    real_mkdir = Path.mkdir

    def mkdir(self, *a, **k):  # a cgroup file system creates the control files itself
        real_mkdir(self, *a, **k)
        made_dir(self)

    monkeypatch.setattr(Path, "mkdir", mkdir)
    d = ls.prioritise_services(pid=4242)
    assert d == cpu / ls.SERVICES
    assert (d / "cpu.shares").read_text() == "262144" and (d / "cgroup.procs").read_text() == "4242"
    # the hub, once inside, still sees its own cgroup as the one above (students' parent)
    text = f"4:memory:/course\n3:cpu,cpuacct:/course/{ls.SERVICES}\n0::/\n"
    monkeypatch.setattr(Path, "read_text", lambda self, *a, **k: text)
    assert ls._own_cgroup("cpu") == "/course" and ls._own_cgroup("memory") == "/course"
    monkeypatch.undo()
    monkeypatch.setattr(ls, "cgroup_layout", lambda: None)
    assert ls.prioritise_services(pid=4242) is None  # no cgroups: nothing changes


def test_reading_the_config_moves_no_process(tmp_path, monkeypatch):
    """Only the hub's own process prioritises itself: a test (or tool) that reads the
    configuration stays in its cgroup."""
    before = Path("/proc/self/cgroup").read_text()
    _hub_config(tmp_path, monkeypatch)
    assert Path("/proc/self/cgroup").read_text() == before


def test_servers_get_ports_of_their_own_below_the_kernels_range(monkeypatch):
    """server_port: low + user id while free; the ports of the hub's other servers and any
    port something else holds are skipped; the default range is below the ephemeral range
    the kernels' ports come from (a kernel took a server's port in a class of 40)."""
    import limits_spawner as ls

    monkeypatch.setattr(ls, "_TAKEN", {})
    free = lambda port: True
    ports = {ls.server_port(7, 20000, 20010, free) for _ in range(200)}
    assert ports == set(range(20000, 20010))  # random: no port a student could predict
    ls._TAKEN.update({p: "someone" for p in range(20000, 20009)})
    assert ls.server_port(7, 20000, 20010, free) == 20009
    assert ls.server_port(7, 20000, 20011, lambda p: p != 20009) == 20010
    with pytest.raises(RuntimeError, match="no free port"):
        ls.server_port(1, 20000, 20002, lambda p: False)
    with pytest.raises(ValueError, match="server_ports"):
        ls.server_port(1, 20000, 20000, free)
    low, high = ls.CgroupLimits().server_ports
    first = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    assert 1024 < low < high <= first
    with socket.socket() as s:  # the real check: a port in use is not handed out
        s.bind(("127.0.0.1", 0))
        used = s.getsockname()[1]
        with pytest.raises(RuntimeError, match="no free port"):
            ls.server_port(0, used, used + 1)


def _spawner(ls, base: Path, uid=None):
    sp = types.SimpleNamespace(runtime_base=str(base), user=types.SimpleNamespace(id=42), _uid=lambda: uid)
    for name in ("user_folder", "_users_folder", "runtime_dir"):
        setattr(sp, name, getattr(ls.CgroupLimits, name).__get__(sp))
    return sp


def test_kernels_use_unix_sockets_in_a_private_runtime_folder(tmp_path):
    """<base>/<user id> (the hub's, 0711: no student can make, swap or fill it) holds the
    user's runtime folder (0700), in a base only the hub's user may write; a base someone
    else could write to stops the server; the server's arguments ask for ipc kernels (TCP
    ports collided between kernels starting together)."""
    import limits_spawner as ls

    old = os.umask(0o077)  # as in the hub's own process
    try:
        spawner = _spawner(ls, tmp_path / "run")
        d = spawner.runtime_dir()
    finally:
        os.umask(old)
    assert d == tmp_path / "run" / "42" / "runtime" and (d.stat().st_mode & 0o777) == 0o700
    assert (tmp_path / "run").stat().st_mode & 0o777 == 0o711 == d.parent.stat().st_mode & 0o777
    assert d.parent.stat().st_uid == os.geteuid()
    socket_path = f"{ls.CgroupLimits().runtime_base}/99999999/runtime/kernel-{'0' * 36}-ipc-5"
    assert len(socket_path) < 108  # a Unix socket's path: sun_path holds 107 bytes
    (tmp_path / "run").chmod(0o777)
    with pytest.raises(RuntimeError, match="writable by no one else"):
        spawner.runtime_dir()
    (tmp_path / "run").chmod(0o755)
    (tmp_path / "elsewhere").symlink_to(tmp_path / "run")
    spawner.runtime_base = str(tmp_path / "elsewhere")
    with pytest.raises(RuntimeError, match="not a symlink"):
        spawner.runtime_dir()

    class Base:
        def get_args(self):
            return ["--ServerApp.allow_root=True"]

    class Both(ls.CgroupLimits, Base):
        pass

    assert Both().get_args() == ["--ServerApp.allow_root=True", "--KernelManager.transport=ipc"]


def test_a_users_certificates_go_to_a_folder_only_that_user_reads(tmp_path):
    """internal_ssl: the key pair the hub made for a server is moved into
    <base>/<user id>/certs (never into the student's home, where JupyterHub's own spawner
    writes as root through whatever symlink the student left), key 0400, folder 0500."""
    import asyncio

    import limits_spawner as ls

    hub = tmp_path / "hub"
    hub.mkdir()
    paths = {k: hub / f"user-alice.{k}" for k in ("keyfile", "certfile")} | {
        "cafile": hub / "notebooks-ca.crt"
    }
    for f in paths.values():
        f.write_text(f.name)
    uid = 65534 if os.geteuid() == 0 else None
    spawner = _spawner(ls, tmp_path / "run", uid)
    got = asyncio.run(ls.CgroupLimits.move_certs(spawner, {k: str(v) for k, v in paths.items()}))
    certs = tmp_path / "run" / "42" / "certs"
    assert {k: Path(v) for k, v in got.items()} == {k: certs / v.name for k, v in paths.items()}
    assert [Path(got[k]).read_text() for k in paths] == [v.name for v in paths.values()]
    assert Path(got["keyfile"]).stat().st_mode & 0o777 == 0o400 and certs.stat().st_mode & 0o777 == 0o500
    assert not paths["keyfile"].exists() and not paths["certfile"].exists() and paths["cafile"].exists()
    if uid is not None:
        assert {p.stat().st_uid for p in (certs, *certs.iterdir())} == {uid}
        assert certs.parent.stat().st_uid == 0
