"""Interactive before batch on a hub, measured small: widget updates against a herd.

``python benchmarks/bench_hub_priority.py [--herd 6] [--moves 60] [--modes off,on]`` (as
root: it makes CPU cgroups). Starts ``--herd`` kernels that each run a CPU-bound cell
after another (a student's "Run All") and one kernel holding an ipywidgets slider whose
observer does ~15 ms of NumPy work (a redraw); every kernel sits in its own CPU cgroup
under one parent, as ``deploy/hub/limits_spawner.py`` places a class (quota 1 core,
parent weight scaled by the number of students). The slider is moved ``--moves`` times
(ipywidgets ``update`` comm messages on the shell channel, as JupyterLab sends them) and
the round trip (sent -> kernel idle again) is timed. ``off``: the course's plain kernel;
``on``: the hub's kernel with ``deploy/hub/kernel/kmlteach_hub_priority.py`` (the cgroup
is ``cpu.idle`` while a cell runs). Printed per mode: p50/p95/max round trip and the CPU
seconds the herd got per wall second (the batch work still gets the idle CPU).

Not part of ``make bench`` (it needs root and takes the machine for ~2 minutes);
``benchmarks/bench_hub.py`` measures the whole class.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from jupyter_client import AsyncKernelManager
from jupyter_client.kernelspec import KernelSpecManager

HERE = Path(__file__).resolve().parent
EXT_DIR = HERE.parent / "deploy" / "hub" / "kernel"
CPU_ROOT = Path("/sys/fs/cgroup/cpu")  # v1; v2 below
PARENT = "kmlteach-bench-priority"

HERD_CELL = (
    "t0 = time.process_time()\nwhile time.process_time() - t0 < 1.5:\n    sum(i * i for i in range(1000))"
)
WIDGET_SETUP = """
import ipywidgets, numpy as np
a = np.random.default_rng(0).random((300, 300))
def redraw(change):
    global r
    t0 = time.process_time()
    while time.process_time() - t0 < 0.015:
        r = float((a @ a).sum())
slider = ipywidgets.IntSlider(0, min=0, max=10_000)
slider.observe(redraw, "value")
print(slider.model_id)
"""


def cgroup_base() -> Path:
    if (CPU_ROOT / "cpu.shares").exists():
        return CPU_ROOT
    if Path("/sys/fs/cgroup/cgroup.controllers").exists():
        return Path("/sys/fs/cgroup")
    raise SystemExit("no CPU cgroup hierarchy here")


def make_cgroup(name: str, n: int) -> Path:
    base = cgroup_base()
    parent = base / PARENT
    v2 = base != CPU_ROOT
    if v2 and not parent.exists():
        (base / "cgroup.subtree_control").write_text("+cpu")
    parent.mkdir(exist_ok=True)
    if v2:
        (parent / "cgroup.subtree_control").write_text("+cpu")
        (parent / "cpu.weight").write_text(str(min(10000, 100 * n)))
    else:
        (parent / "cpu.shares").write_text(str(1024 * n))
    d = parent / name
    d.mkdir(exist_ok=True)
    if v2:
        (d / "cpu.max").write_text("100000 100000")
    else:
        (d / "cpu.cfs_quota_us").write_text("100000")
    (d / "cpu.idle").write_text("0")
    return d


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def execute(kc, code: str) -> str:
    """Run code; its stdout."""
    msg_id = kc.execute(code)
    out = []
    while True:
        msg = await kc.get_iopub_msg(timeout=600)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["msg_type"] == "stream":
            out.append(msg["content"]["text"])
        elif msg["msg_type"] == "error":
            raise RuntimeError("\n".join(msg["content"]["traceback"]))
        elif msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            return "".join(out)


async def move(kc, model_id: str, value: int) -> float:
    data = {"method": "update", "state": {"value": value}, "buffer_paths": []}
    msg = kc.session.msg("comm_msg", {"comm_id": model_id, "data": data})
    t0 = time.perf_counter()
    kc.shell_channel.send(msg)
    while True:
        reply = await kc.get_iopub_msg(timeout=600)
        if reply["parent_header"].get("msg_id") == msg["header"]["msg_id"] and reply["msg_type"] == "status":
            if reply["content"]["execution_state"] == "idle":
                return time.perf_counter() - t0


async def herd_loop(kc, stop: asyncio.Event) -> None:
    while not stop.is_set():
        await execute(kc, HERD_CELL)


async def run_mode(mode: str, herd: int, moves: int, specs: Path) -> dict:
    ksm = KernelSpecManager(kernel_dirs=[str(specs)])
    kms, kcs = [], []
    try:
        for i in range(herd + 1):
            km = AsyncKernelManager(kernel_name=mode, kernel_spec_manager=ksm)
            await km.start_kernel(env={**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"})
            pid = km.provisioner.pid
            (make_cgroup(f"k{i}", herd + 1) / "cgroup.procs").write_text(str(pid))
            kc = km.client()
            kc.start_channels()
            await kc.wait_for_ready(timeout=120)
            await execute(kc, "import time")
            kms.append(km)
            kcs.append(kc)
        model_id = (await execute(kcs[0], WIDGET_SETUP)).strip()
        stop = asyncio.Event()
        pids = [km.provisioner.pid for km in kms[1:]]
        loops = [asyncio.create_task(herd_loop(kc, stop)) for kc in kcs[1:]]
        await asyncio.sleep(3)
        cpu0, t0 = sum(map(cpu_seconds, pids)), time.perf_counter()
        rng = random.Random(0)
        times = []
        for k in range(moves):
            await asyncio.sleep(rng.uniform(0.2, 0.6))
            times.append(await move(kcs[0], model_id, k + 1))
        herd_cpu = (sum(map(cpu_seconds, pids)) - cpu0) / (time.perf_counter() - t0)
        stop.set()
        await asyncio.wait(loops, timeout=30)
        times.sort()
        return {
            "p50": statistics.median(times),
            "p95": times[int(0.95 * (len(times) - 1))],
            "max": times[-1],
            "herd_cpu": herd_cpu,
        }
    finally:
        for kc in kcs:
            kc.stop_channels()
        await asyncio.gather(*(km.shutdown_kernel(now=True) for km in kms), return_exceptions=True)
        parent = cgroup_base() / PARENT
        for i in range(herd + 1):
            d = parent / f"k{i}"
            if d.exists():
                for pid in (d / "cgroup.procs").read_text().split():  # leftovers
                    try:
                        os.kill(int(pid), 9)
                    except ProcessLookupError:
                        pass
                await asyncio.sleep(0.2)
                d.rmdir()


def write_specs(dest: Path) -> None:
    base = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    for name, argv, env in (
        ("off", base, {}),
        ("on", [*base, "--ext=kmlteach_hub_priority"], {"PYTHONPATH": str(EXT_DIR)}),
    ):
        (dest / name).mkdir()
        spec = {"argv": argv, "env": env, "display_name": name, "language": "python"}
        (dest / name / "kernel.json").write_text(json.dumps(spec))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--herd", type=int, default=6)
    ap.add_argument("--moves", type=int, default=60)
    ap.add_argument("--modes", default="off,on")
    args = ap.parse_args(argv)
    if args.herd < 1:
        raise ValueError(f"herd must be >= 1, got {args.herd}")
    if args.moves < 2:
        raise ValueError(f"moves must be >= 2, got {args.moves}")
    modes = args.modes.split(",")
    if not set(modes) <= {"off", "on"}:
        raise ValueError(f"modes must be a list of off,on, got {args.modes!r}")
    print(f"{os.cpu_count()} CPUs, load average before {os.getloadavg()[0]:.2f}; herd of {args.herd}")
    with tempfile.TemporaryDirectory() as tmp:
        write_specs(Path(tmp))
        try:
            for mode in modes:
                r = asyncio.run(run_mode(mode, args.herd, args.moves, Path(tmp)))
                print(
                    f"priority {mode:3}: widget round trip p50 {1000 * r['p50']:.0f} ms, "
                    f"p95 {1000 * r['p95']:.0f} ms, max {1000 * r['max']:.0f} ms; "
                    f"herd CPU {r['herd_cpu']:.2f} cores"
                )
        finally:
            parent = cgroup_base() / PARENT
            if parent.exists():
                parent.rmdir()
    print(f"load average after {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
