"""A class on the course's hub: N students at once on this machine (``make bench``).

``python benchmarks/bench_hub.py [--n 10,20,40] [--moves 20] [--period 6] [--arrival 0] [--layers]``
starts the hub of ``deploy/hub/jupyterhub_config.py`` on 127.0.0.1 once per class size (as
root: its PAM mode with Unix users made for the run, every isolation layer on; per-user
cgroups, idle culler), and N simulated students each log in, start
their server, pull the student edition with the chapter's nbgitpuller link, open chapter
01, run its cells over the kernel websocket, then move the margin explorer's slider
``--moves`` times over ``moves * period`` seconds (ipywidgets ``update`` comm messages,
as JupyterLab sends them). Printed per class size: server start p50/p95 (link followed
-> server ready), kernel ready p50/p95 (session created -> first ``kernel_info_reply``;
the client waits for it as a browser does, with no time limit of its own below the step
limit), widget round trip p50/p95 (update sent -> redrawn figure received),
failures, peak memory of the whole hub and per student (PSS, which splits shared pages
fairly; RSS beside it), CPU seconds per student, and the load average before and after
(the machine may be shared). Targets: 0 failures and widget p95 <= 250 ms at N = 40 on
2 cores. Everything the run starts is stopped at the end of each class size.

``--layers`` runs each class size four times, the hub's isolation layers switched on one
after another (none; + internal_ssl; + bubblewrap; + Landlock, i.e. all on): the cost of
each per student (memory of the server and of bubblewrap's processes, server start,
widget round trip).

``--arrival S`` spreads the students' arrivals evenly over S seconds; the default, 0, has
every student follow the link in the same second (the worst case): then the widget moves
of the first students to finish compete with the others' start-up for the two cores,
which the "when every student is at the widget" split separates out.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "deploy" / "hub"))

from loadtest import LocalHub, run_class

MIB = 2**20
TARGET_N, TARGET_P95 = 40, 0.250


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def summary(r: dict) -> dict:
    """The report's numbers of one class (JSON-friendly)."""
    ms = lambda v: None if v is None else round(v * 1000, 1)
    mean = lambda v: statistics.fmean(v) if v else 0.0
    out = {
        "n": r["n"],
        "failures": len(r["failures"]),
        "failure_messages": r["failures"][:10],
        "server_start_p50_s": r["server_start_p50"],
        "server_start_p95_s": r["server_start_p95"],
        "kernel_ready_p50_s": r["kernel_ready_p50"],
        "kernel_ready_p95_s": r["kernel_ready_p95"],
        "widget_p50_ms": ms(r["widget_p50"]),
        "widget_p95_ms": ms(r["widget_p95"]),
        "quiet_moves": r["quiet_moves"],
        "quiet_widget_p50_ms": ms(r["quiet_widget_p50"]),
        "quiet_widget_p95_ms": ms(r["quiet_widget_p95"]),
        "moves": f"{r['moves_done']}/{r['moves_expected']}",
        "cell_errors": r["cell_errors"],
        "mem_total_pss_mib": round(r["mem_total_pss"] / MIB),
        "mem_total_rss_mib": round(r["mem_total_rss"] / MIB),
        "mem_student_pss_mib": round(mean(r["mem_student_pss"]) / MIB),
        "mem_student_rss_mib": round(mean(r["mem_student_rss"]) / MIB),
        "mem_server_pss_mib": round(mean(r["mem_server_pss"]) / MIB),
        "mem_server_rss_mib": round(mean(r["mem_server_rss"]) / MIB),
        "mem_sandbox_pss_mib": round(mean(r.get("mem_sandbox_pss", [])) / MIB, 1),
        "mem_sandbox_rss_mib": round(mean(r.get("mem_sandbox_rss", [])) / MIB, 1),
        "cpu_student_s": round(mean(r["cpu_student_s"]), 1),
        "cpu_student_pct_of_session": round(100 * mean(r["cpu_student_s"]) / r["wall_s"], 1)
        if r["wall_s"]
        else None,
        "wall_s": round(r["wall_s"], 1),
        "load_before": [round(x, 2) for x in r["load_before"]],
        "load_after": [round(x, 2) for x in r["load_after"]],
        "load_peak": round(r["load_peak"], 2),
        "driver_nice": r.get("driver_nice"),
        "arrival_s": r.get("arrival_s", 0.0),
    }
    if r["n"] >= TARGET_N:
        out["met"] = out["failures"] == 0 and r["widget_p95"] is not None and r["widget_p95"] <= TARGET_P95
    return out


def fmt(s: dict) -> str:
    f = lambda v, d=1: "-" if v is None else f"{v:.{d}f}"
    met = {True: " met", False: " MISSED"}.get(s.get("met"), "")
    arrive = "all at once" if not s["arrival_s"] else f"arriving over {s['arrival_s']:g} s"
    return (
        f"  N={s['n']:<3d} ({arrive}) start p50/p95 {f(s['server_start_p50_s'])}/{f(s['server_start_p95_s'])} s  "
        f"kernel ready p50/p95 {f(s['kernel_ready_p50_s'])}/{f(s['kernel_ready_p95_s'])} s  "
        f"widget p50/p95 {f(s['widget_p50_ms'], 0)}/{f(s['widget_p95_ms'], 0)} ms "
        f"(when every student is at the widget: {f(s['quiet_widget_p50_ms'], 0)}/"
        f"{f(s['quiet_widget_p95_ms'], 0)} ms, {s['quiet_moves']} moves)  "
        f"failures {s['failures']} (moves {s['moves']}, cell errors {s['cell_errors']})  "
        f"memory total {s['mem_total_pss_mib']} MiB PSS ({s['mem_total_rss_mib']} RSS), "
        f"per student {s['mem_student_pss_mib']} PSS ({s['mem_student_rss_mib']} RSS; server alone "
        f"{s['mem_server_pss_mib']} PSS, {s['mem_server_rss_mib']} RSS; bubblewrap "
        f"{s['mem_sandbox_pss_mib']} PSS, {s['mem_sandbox_rss_mib']} RSS)  "
        f"CPU/student {s['cpu_student_s']} s ({s['cpu_student_pct_of_session']} % of a core over "
        f"{s['wall_s']} s)  load {s['load_before'][0]} -> {s['load_after'][0]} (peak {s['load_peak']}); "
        f"simulated browsers at nice {s['driver_nice']}{met}"
    )


# The isolation layers of the hub (deploy/hub/README.md, "Isolation"), switched on one after
# another for --layers: what each costs a student (memory, server start, widget round trip).
LAYERS = [
    ("none", {"KMLTEACH_HUB_INTERNAL_SSL": "0", "KMLTEACH_HUB_SANDBOX": "0", "KMLTEACH_HUB_LANDLOCK": "0"}),
    ("+ internal_ssl", {"KMLTEACH_HUB_SANDBOX": "0", "KMLTEACH_HUB_LANDLOCK": "0"}),
    ("+ bubblewrap", {"KMLTEACH_HUB_LANDLOCK": "0"}),
    ("+ Landlock (all on)", {}),
]


def measure(n: int, moves: int, period: float, arrival: float = 0.0, isolation: dict | None = None) -> dict:
    with LocalHub(isolation=isolation) as hub:
        r = asyncio.run(run_class(hub, n, moves=moves, move_period=period, arrival=arrival))
        s = summary(r)
        if s["failures"]:  # the hub's lines about each failed student, to find the cause
            log = hub.log_tail(100000).splitlines()
            names = {m.split(":", 1)[0] for m in s["failure_messages"]}
            s["hub_log"] = {u: [ln for ln in log if u in ln][-15:] for u in names}
            # kernels' own errors do not name the student: every error line, last 15
            s["hub_log"]["errors (any student)"] = [
                ln for ln in log if any(k in ln for k in ("Traceback", "Error", "rror:", "in use", "died"))
            ][-15:]
    return s


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", default="10,20,40", help="class sizes, comma-separated")
    ap.add_argument("--moves", type=int, default=20)
    ap.add_argument("--period", type=float, default=6.0, help="seconds between two moves")
    ap.add_argument(
        "--arrival",
        type=float,
        default=0.0,
        help="seconds over which the students arrive (0: all in the same second, the worst case)",
    )
    ap.add_argument("--json", default="", help="also write the rows to this file")
    ap.add_argument(
        "--layers",
        action="store_true",
        help="each class size once per set of isolation layers (none, + internal_ssl, + bubblewrap, + Landlock)",
    )
    args = ap.parse_args(argv)
    sizes = [int(x) for x in args.n.split(",") if x.strip()]
    print(
        f"== hub: {cpu_model()}, {os.cpu_count()} CPUs, {args.moves} moves every {args.period:g} s ==",
        flush=True,
    )
    rows = []
    runs = [(n, name, iso) for n in sizes for name, iso in (LAYERS if args.layers else [("all on", {})])]
    for n, name, iso in runs:
        s = measure(n, args.moves, args.period, args.arrival, iso)
        s["layers"] = name
        rows.append(s)
        print(f"  [{name}]", fmt(s), flush=True)
        for m in s["failure_messages"]:
            print(f"    failed: {m}", flush=True)
        for user, lines in s.get("hub_log", {}).items():
            print(f"    hub log, {user}:", *(f"      {ln}" for ln in lines), sep="\n", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
