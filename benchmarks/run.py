"""Side-by-side benchmarks: kmlteach against the reference libraries, in one run.

Usage: ``make bench`` or ``python benchmarks/run.py [--quick] [--only ch01,ch02]``.

Each ``benchmarks/bench_chNN.py`` defines ``run(quick: bool) -> list[dict]``; each
row has ``name``, ``ours`` and ``reference`` (seconds, best of a few repeats after a
warm-up call, so Numba compile time is excluded), ``ratio`` = reference / ours (> 1
means we are faster), ``target`` (text) and ``met`` (bool or None). Ratios, not
absolute times, are what we track: both sides run on the same machine in the same
process.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))


def best_time(fn, repeat: int = 3, warmup: bool = True) -> float:
    """Best wall-clock time of ``fn()`` over ``repeat`` runs (after one warm-up call)."""
    if warmup:
        fn()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def row(name: str, ours: float, reference: float, target: str, min_ratio: float | None,
        note: str = "") -> dict:
    ratio = reference / ours if ours > 0 else float("inf")
    return {"name": name, "ours": ours, "reference": reference, "ratio": ratio,
            "target": target, "met": None if min_ratio is None else ratio >= min_ratio,
            "note": note}


def seeded_row(name: str, make, ours_fn, ref_fn, seeds, target: str, min_ratio: float | None,
               repeat: int = 5, note: str = "") -> dict:
    """A row over several random instances: ``make(seed)`` builds the data, each side is
    timed best of ``repeat`` after a warm-up; the row's ratio is the median ratio and the
    note gives min / median / max (the target is judged on the median)."""
    ratios, ours_t, ref_t = [], [], []
    for seed in seeds:
        data = make(seed)
        o = best_time(lambda: ours_fn(data), repeat=repeat)
        r = best_time(lambda: ref_fn(data), repeat=repeat)
        ours_t.append(o)
        ref_t.append(r)
        ratios.append(r / o)
    ratios_sorted = sorted(ratios)
    med = ratios_sorted[len(ratios) // 2]
    out = row(name, sorted(ours_t)[len(seeds) // 2], sorted(ref_t)[len(seeds) // 2], target,
              min_ratio, note=(f"ratio min/median/max {ratios_sorted[0]:.2f}/{med:.2f}/"
                               f"{ratios_sorted[-1]:.2f} over {len(seeds)} seeds" + (f"; {note}" if note else "")))
    out["ratio"] = med
    out["met"] = None if min_ratio is None else med >= min_ratio
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="smaller problems (smoke test)")
    ap.add_argument("--only", default="", help="comma-separated ids, e.g. ch01,ch05,widgets")
    ap.add_argument("--json", default="", help="also write the rows to this file")
    args = ap.parse_args(argv)
    only = {s.strip() for s in args.only.split(",") if s.strip()}
    rows = []
    # per-chapter algorithm benchmarks, then the widgets' latency and start-up, then the grader
    for path in sorted(HERE.glob("bench_ch*.py")) + [HERE / "bench_widgets.py", HERE / "bench_grading.py",
                                                     HERE / "bench_grade_layers.py"]:
        chapter = path.stem.removeprefix("bench_")
        if only and chapter not in only:
            continue
        spec = importlib.util.spec_from_file_location(path.stem, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        print(f"== {chapter} ==", flush=True)
        for r in mod.run(quick=args.quick):
            r["chapter"] = chapter
            rows.append(r)
            met = {True: "met", False: "MISSED", None: ""}[r["met"]]
            print(f"  {r['name']:<58s} ours {r['ours']:9.4f} s  ref {r['reference']:9.4f} s  "
                  f"ratio {r['ratio']:6.2f}x  [{r['target']}] {met} {r['note']}", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
