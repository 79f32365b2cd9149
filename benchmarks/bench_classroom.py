"""The hand-in cycle for a class on the course's hub: submit, collect, grade, return.

``python benchmarks/bench_classroom.py [--n 40] [--jobs 2]`` (as root) starts the hub of
``deploy/hub/jupyterhub_config.py`` in its PAM mode with the classroom service
(``deploy/hub/classroom_class.py``), logs N students in, each with a hub token of their
own, and times, for chapter 01:

* **submit** — the N students hand in at the same second (the deadline), through the hub's
  proxy, as ``submit("01")`` does: a third the instructor's solved notebook, a third the
  released one, a third the released one with the first exercise solved;
* **collect** — ``python -m kmlteach collect 01 --due ...``;
* **grade** — ``python -m kmlteach grade ... --jobs J --feedback ... --lms canvas ...``;
* **return** — ``python -m kmlteach return 01 ...``, then every student's ``feedback/01``
  at once.

Printed: wall-clock seconds of each step, per-request p50/p95 where students wait, the CPU
model and the load average before and after (the machine may be shared).
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import json
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HUB = ROOT / "deploy" / "hub"
sys.path.insert(0, str(HUB))


def _request(url: str, token: str, method: str = "GET", data: bytes | None = None) -> tuple[int, dict]:
    req = urllib.request.Request(url, data=data, method=method, headers={"Authorization": f"token {token}"})
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(req, timeout=120) as r:
            return r.status, json.loads(r.read() or b"{}")
    except urllib.error.HTTPError as exc:
        return exc.code, {}


def _all_at_once(calls) -> tuple[float, list[float], list[int]]:
    """Run ``calls`` (functions returning a status) in threads at once: wall time, each one's seconds, statuses."""
    took, codes = [0.0] * len(calls), [0] * len(calls)

    def one(i, f):
        t = time.perf_counter()
        codes[i] = f()
        took[i] = time.perf_counter() - t

    threads = [threading.Thread(target=one, args=(i, f)) for i, f in enumerate(calls)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.perf_counter() - t0, took, codes


def _pct(values, q):
    v = sorted(values)
    return v[min(len(v) - 1, int(q * len(v)))]


def _notebooks(edition: Path) -> list[bytes]:
    """Solved (the instructor's), released, and released with its first exercise solved."""
    solved = json.loads((ROOT / "notebooks" / "01-svm.ipynb").read_text(encoding="utf-8"))
    released = json.loads((edition / "notebooks" / "01-svm.ipynb").read_text(encoding="utf-8"))
    partial = json.loads(json.dumps(released))
    src = {c.get("id"): c for c in solved["cells"]}
    for cell in partial["cells"]:  # the first exercise cell the release stubbed: the solution's
        if (
            cell["cell_type"] == "code"
            and "NotImplementedError" in "".join(cell["source"])
            and cell.get("id") in src
        ):
            cell["source"] = src[cell["id"]]["source"]
            break
    return [json.dumps(nb).encode() for nb in (solved, released, partial)]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=40, help="students (default 40)")
    ap.add_argument("--jobs", type=int, default=2, help="grade --jobs (default 2)")
    args = ap.parse_args(argv)
    if os.geteuid() != 0:
        print("run as root: the hub's PAM mode makes a Unix user per student")
        return 2
    import importlib

    from classroom_class import PREFIX, hub_with_instructor, log_in_with_tokens, remove_service_user

    Student = importlib.import_module("student").Student
    cpu = next(
        (line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")),
        platform.processor(),
    )
    load0 = os.getloadavg()
    hub, service_user = hub_with_instructor(report=lambda msg: print(msg, flush=True))
    rows = []
    try:
        hub.users.add(args.n + 1)
        names = [hub.student_name(i) for i in range(1, args.n + 1)]
        students = [Student(hub.url, n, hub.password, hub.repo_url, "notebooks/01-svm.ipynb") for n in names]
        loop = asyncio.new_event_loop()
        tokens = loop.run_until_complete(log_in_with_tokens(students))
        loop.close()
        api = f"{hub.url}{PREFIX}api/"
        nbs = _notebooks(Path(hub.env["KMLTEACH_HUB_ENV"]) / "edition")
        wall, took, codes = _all_at_once(
            [
                lambda t=t, i=i: _request(api + "submissions/01", t, "POST", nbs[i % 3])[0]
                for i, t in enumerate(tokens)
            ]
        )
        assert codes == [201] * args.n, codes
        rows.append(
            (
                "submit (all at once, through the proxy)",
                wall,
                f"p50 {_pct(took, 0.5) * 1000:.0f} ms, p95 {_pct(took, 0.95) * 1000:.0f} ms",
            )
        )
        due = time.strftime("%Y-%m-%dT%H:%M:%S")
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            ex = hub.tmp / "exchange"

            def cli(*a):
                t = time.perf_counter()
                r = subprocess.run(
                    [sys.executable, "-m", "kmlteach", *a], capture_output=True, text=True, cwd=ROOT
                )
                if r.returncode:
                    raise RuntimeError(r.stderr[-2000:])
                return time.perf_counter() - t, r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ""

            t, said = cli("collect", "01", "--exchange", str(ex), "--out", str(tmp / "subs"), "--due", due)
            rows.append(("collect", t, said))
            t, _ = cli(
                "grade",
                str(tmp / "subs"),
                "--out",
                str(tmp / "gradebook.csv"),
                "--feedback",
                str(tmp / "fb"),
                "--jobs",
                str(args.jobs),
                "--lms",
                "canvas",
                str(tmp / "canvas.csv"),
            )
            book = list(csv.DictReader(open(tmp / "gradebook.csv")))
            totals = sorted(float(r["total"]) for r in book)
            rows.append(
                (
                    f"grade (--jobs {args.jobs})",
                    t,
                    f"{len(book)} rows, totals {totals[0]:g}..{totals[-1]:g} of {book[0]['max_total']}, {t / len(book):.1f} s each",
                )
            )
            t, said = cli("return", "01", "--feedback", str(tmp / "fb"), "--exchange", str(ex))
            rows.append(("return", t, said))
            wall, took, codes = _all_at_once(
                [lambda t=t: _request(api + "feedback/01", t)[0] for t in tokens]
            )
            assert codes == [200] * args.n, codes
            rows.append(
                (
                    "feedback (all at once)",
                    wall,
                    f"p50 {_pct(took, 0.5) * 1000:.0f} ms, p95 {_pct(took, 0.95) * 1000:.0f} ms",
                )
            )
    finally:
        hub.stop()
        hub.cleanup()
        remove_service_user(service_user)
    load1 = os.getloadavg()
    print(
        f"\nclass of {args.n}, chapter 01; {cpu}, {os.cpu_count()} cores; load average {load0[0]:.1f} before, {load1[0]:.1f} after"
    )
    print("| step | seconds | notes |\n|---|---|---|")
    for name, t, note in rows:
        print(f"| {name} | {t:.1f} | {note} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
