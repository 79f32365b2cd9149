"""Cost of each layer of the grader's sandbox, per submission (issue 24, point 7).

The same honest chapter-01 submissions are graded one at a time (``--jobs 1``) with the
layers switched on one after the other: none (resource limits only), + Landlock,
+ cgroup (pids and memory), + bubblewrap (PID/IPC/net/mount/UTS namespaces, ``ipc``
transport). A row per configuration: ``ours`` = seconds per submission with it,
``reference`` = seconds per submission with no layer (ratio < 1: that much slower), the
note the added cost over the previous row. Layers this machine lacks are reported as such.
As root, the bare rows run kernels as root on purpose (``unsafe_root``): measurement only.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

LAYERS = [
    ("no layer", {}),
    ("+ landlock", {"landlock": True}),
    ("+ cgroup", {"landlock": True, "cgroup": True}),
    ("+ bwrap (all layers)", {"landlock": True, "cgroup": True, "bwrap": True}),
]


def run(quick: bool = False) -> list[dict]:
    from grade_submissions import honest_variants
    from run import row

    from kmlteach.course.grade import Limits, grade_folder
    from kmlteach.course.grade.isolation.bwrap import bwrap_problem
    from kmlteach.course.grade.isolation.cgroup import cgroup_problem
    from kmlteach.course.grade.isolation.mode import detect
    from kmlteach.course.grade.isolation.policy import libraries

    n = 2 if quick else 6
    data = honest_variants()["honest"][0]
    rows, base, prev = [], None, None
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        for name, on in LAYERS:
            limits = Limits(
                timeout=30,
                landlock=on.get("landlock", False),
                cgroup=on.get("cgroup", False),
                bwrap=on.get("bwrap", False),
            )
            subs = tmp / name.replace(" ", "_").replace("+", "p").replace("(", "").replace(")", "")
            subs.mkdir()
            for i in range(n):
                (subs / f"s{i}.ipynb").write_bytes(data)
            detect(limits)  # the run's one-off probes (bwrap, the uid's interpreter) are not per submission
            libraries()
            t0 = time.perf_counter()
            res = grade_folder(
                subs, tmp / f"{subs.name}.csv", limits=limits, jobs=1, progress=None, unsafe_root=True
            )
            per = (time.perf_counter() - t0) / n
            assert all(r.total == 13 for r in res), [(r.submission, r.status, r.message) for r in res]
            base = per if base is None else base
            note = "" if prev is None else f"{per - prev:+.2f} s per submission over the previous row"
            if on.get("cgroup") and cgroup_problem():
                note += f" ({cgroup_problem()})"
            if on.get("bwrap") and bwrap_problem():
                note += f" (bwrap: {bwrap_problem()})"
            rows.append(row(f"grade ch01, {name}", per, base, "cost per submission", None, note.strip()))
            prev = per
    return rows
