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


def _hub_config(tmp_path, monkeypatch, mode="test"):
    from traitlets.config import Config

    monkeypatch.setenv("KMLTEACH_HUB_MODE", mode)
    monkeypatch.setenv("KMLTEACH_HUB_STATE", str(tmp_path / "state"))
    c = Config()
    path = HUB / "jupyterhub_config.py"
    exec(compile(path.read_text(), str(path), "exec"), {"get_config": lambda: c, "__file__": str(path)})
    return c


def _hub_kernelspec(tmp_path, monkeypatch) -> tuple[Path, dict]:
    c = _hub_config(tmp_path, monkeypatch)
    jpath = Path(c.Spawner.environment["JUPYTER_PATH"])
    return jpath, json.loads((jpath / "kernels" / "python3" / "kernel.json").read_text())


@pytest.mark.parametrize("mode", ["system", "test"])
def test_a_student_server_loads_no_instructor_extension(tmp_path, monkeypatch, mode):
    import ast

    args = _hub_config(tmp_path, monkeypatch, mode).Spawner.args
    [ext] = [a.split("=", 1)[1] for a in args if a.startswith("--ServerApp.jpserver_extensions=")]
    off = ast.literal_eval(ext)
    assert set(off.values()) == {False}
    assert "nbgrader.server_extensions.formgrader" in off and "jupyter_lsp" in off
    assert not {"jupyterlab", "nbgitpuller", "kmlteach.course.lab_server"} & set(off)
    assert ("--ServerApp.allow_root=True" in args) == (mode == "test" and os.geteuid() == 0)


def test_the_hub_kernelspec_loads_the_extension(tmp_path, monkeypatch):
    jpath, spec = _hub_kernelspec(tmp_path, monkeypatch)
    assert jpath.is_relative_to(tmp_path / "state")
    assert spec["argv"][-1] == "--ext=kmlteach_hub_priority" and "{connection_file}" in spec["argv"]
    assert (Path(spec["env"]["PYTHONPATH"]) / "kmlteach_hub_priority.py").exists()
    assert Path(spec["argv"][0]).parent == Path(sys.executable).parent


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
        jpath, _ = _hub_kernelspec(tmp_path, monkeypatch)
        km = KernelManager(
            kernel_name="python3", kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(jpath / "kernels")])
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


def test_kernels_use_unix_sockets_in_a_private_runtime_folder(tmp_path):
    """runtime_dir: <base>/<user id>, mode 0700, in a base only the hub's user may write;
    a base someone else could write to stops the server; the server's arguments ask for
    ipc kernels (TCP ports collided between kernels starting together)."""
    import limits_spawner as ls

    spawner = types.SimpleNamespace(
        runtime_base=str(tmp_path / "run"), user=types.SimpleNamespace(id=42), _uid=lambda: None
    )
    d = ls.CgroupLimits.runtime_dir(spawner)
    assert d == tmp_path / "run" / "42" and (d.stat().st_mode & 0o777) == 0o700
    socket_path = f"{ls.CgroupLimits().runtime_base}/99999999/kernel-{'0' * 36}-ipc-5"
    assert len(socket_path) < 108  # a Unix socket's path: sun_path holds 107 bytes
    (tmp_path / "run").chmod(0o777)
    with pytest.raises(RuntimeError, match="writable by no one else"):
        ls.CgroupLimits.runtime_dir(spawner)
    (tmp_path / "run").chmod(0o755)
    (tmp_path / "elsewhere").symlink_to(tmp_path / "run")
    spawner.runtime_base = str(tmp_path / "elsewhere")
    with pytest.raises(RuntimeError, match="not a symlink"):
        ls.CgroupLimits.runtime_dir(spawner)

    class Base:
        def get_args(self):
            return ["--ServerApp.allow_root=True"]

    class Both(ls.CgroupLimits, Base):
        pass

    assert Both().get_args() == ["--ServerApp.allow_root=True", "--KernelManager.transport=ipc"]
