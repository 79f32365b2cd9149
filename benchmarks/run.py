"""Side-by-side benchmarks: kmlteach against the reference libraries, in one run.

Usage: ``make bench`` or ``python benchmarks/run.py [--quick] [--only ch01,ch02]``.

Each ``benchmarks/bench_chNN.py`` defines ``run(quick: bool) -> list[dict]``; each
row has ``name``, ``ours`` and ``reference`` (seconds, best of a few repeats after a
warm-up call, so Numba compile time is excluded), ``ratio`` = reference / ours (> 1
means we are faster), ``target`` (text) and ``met`` (bool or None). Ratios, not
absolute times, are what we track: both sides run on the same machine in the same
process, interleaved (ours, reference, ours, ...: a burst of load from other users hits
both sides), best of N.

Every row is printed with the machine it ran on: the CPU model, the SIMD level NumPy
dispatches to (its vectorised ``exp``) and the one Numba compiles for, e.g.
``[AMD EPYC | NumPy AVX-512 | Numba AVX-512 znver4]``, and each chapter with the load
average. To see an AVX2 machine on an AVX-512 one::

    NPY_DISABLE_CPU_FEATURES="X86_V4 AVX512_ICL AVX512_SPR" NUMBA_CPU_NAME=haswell \
    NUMBA_CPU_FEATURES="$(python benchmarks/run.py --haswell-features)" OPENBLAS_CORETYPE=Haswell \
    NUMBA_CACHE_DIR=/tmp/numba-avx2 python benchmarks/run.py --only ch02,ch05

(NumPy's float64 ``exp`` then runs libm once per entry, as on a real AVX2 machine, and
OpenBLAS its Haswell kernels.)
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
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


SETTLE = 0.1  # s: longer than OpenBLAS's worker threads spin after a call (2^28 cycles)


def paired_best(fa, fb, repeat: int = 3, warmup: bool = True) -> tuple[float, float]:
    """Best wall-clock times of ``fa()`` and ``fb()`` over ``repeat`` interleaved runs.

    Each timed call starts after a pause of ``SETTLE`` seconds: OpenBLAS's worker threads
    keep spinning for up to ~0.1 s after a multithreaded call, and on two cores they took
    a core from whichever side ran next (measured: ``check_gram`` 3-5 ms alone, 20-30 ms
    right after scikit-learn's ``KernelPCA``). Without the pause a row measured partly
    the other side's leftover threads, always to the cost of the side that runs second.
    """
    if warmup:
        fa()
        fb()
    best_a = best_b = float("inf")
    for _ in range(repeat):
        time.sleep(SETTLE)
        best_a = min(best_a, best_time(fa, 1, warmup=False))
        time.sleep(SETTLE)
        best_b = min(best_b, best_time(fb, 1, warmup=False))
    return best_a, best_b


HASWELL_FEATURES = (
    "+64bit,+avx,+avx2,+bmi,+bmi2,+cmov,+cx16,+cx8,+f16c,+fma,+fsgsbase,+fxsr,"
    "+invpcid,+lzcnt,+mmx,+movbe,+pclmul,+popcnt,+rdrnd,+sahf,+sse,+sse2,+sse3,"
    "+sse4.1,+sse4.2,+ssse3,+xsave,+xsaveopt,-avx512f,-avx512dq,-avx512bw,"
    "-avx512vl,-avx512cd,-avx512vnni,-avx512ifma,-avx512vbmi,-avx512vbmi2,"
    "-avx512bitalg,-avx512vpopcntdq,-avx512bf16,-evex512"
)


def machine() -> str:
    """``CPU model | NumPy's SIMD level | Numba's SIMD level and target CPU``."""
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as fh:
            cpu = next(line.split(":", 1)[1].strip() for line in fh if line.startswith("model name"))
    except (OSError, StopIteration):
        import platform

        cpu = platform.processor() or cpu
    try:
        from numpy._core._multiarray_umath import __cpu_features__ as f
    except ImportError:  # NumPy < 2
        from numpy.core._multiarray_umath import __cpu_features__ as f
    npy = (
        "AVX-512"
        if f.get("X86_V4") or f.get("AVX512_SKX")
        else "AVX2"
        if f.get("X86_V3") or f.get("AVX2")
        else "SSE/other"
    )
    from kmlteach._jit import numba, vector_bytes

    nb = {64: "AVX-512", 32: "AVX2"}.get(vector_bytes(), "SSE/other")
    if numba is not None:
        import llvmlite.binding as ll

        nb += " " + (numba.config.CPU_NAME or ll.get_host_cpu_name())
    return f"{cpu} | NumPy {npy} | Numba {nb}"


def row(
    name: str, ours: float, reference: float, target: str, min_ratio: float | None, note: str = ""
) -> dict:
    ratio = reference / ours if ours > 0 else float("inf")
    return {
        "name": name,
        "ours": ours,
        "reference": reference,
        "ratio": ratio,
        "target": target,
        "met": None if min_ratio is None else ratio >= min_ratio,
        "note": note,
    }


def seeded_row(
    name: str,
    make,
    ours_fn,
    ref_fn,
    seeds,
    target: str,
    min_ratio: float | None,
    repeat: int = 5,
    note: str = "",
) -> dict:
    """A row over several random instances: ``make(seed)`` builds the data, each side is
    timed best of ``repeat`` after a warm-up; the row's ratio is the median ratio and the
    note gives min / median / max (the target is judged on the median)."""
    ratios, ours_t, ref_t = [], [], []
    for seed in seeds:
        data = make(seed)
        o, r = paired_best(lambda data=data: ours_fn(data), lambda data=data: ref_fn(data), repeat=repeat)
        ours_t.append(o)
        ref_t.append(r)
        ratios.append(r / o)
    ratios_sorted = sorted(ratios)
    med = ratios_sorted[len(ratios) // 2]
    out = row(
        name,
        sorted(ours_t)[len(seeds) // 2],
        sorted(ref_t)[len(seeds) // 2],
        target,
        min_ratio,
        note=(
            f"ratio min/median/max {ratios_sorted[0]:.2f}/{med:.2f}/"
            f"{ratios_sorted[-1]:.2f} over {len(seeds)} seeds" + (f"; {note}" if note else "")
        ),
    )
    out["ratio"] = med
    out["met"] = None if min_ratio is None else med >= min_ratio
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="smaller problems (smoke test)")
    ap.add_argument("--only", default="", help="comma-separated ids, e.g. ch01,ch05,widgets")
    ap.add_argument("--json", default="", help="also write the rows to this file")
    ap.add_argument(
        "--haswell-features",
        action="store_true",
        help="print a NUMBA_CPU_FEATURES value for an AVX2 (Haswell) target and exit",
    )
    args = ap.parse_args(argv)
    if args.haswell_features:
        print(HASWELL_FEATURES)
        return 0
    where = machine()
    print(f"machine: {where}; {os.cpu_count()} CPUs", flush=True)
    only = {s.strip() for s in args.only.split(",") if s.strip()}
    rows = []
    # per-chapter algorithm benchmarks, then the widgets' latency and start-up, then the grader
    # and the peak memory of a student's kernel per chapter, and the grader's sandbox layers
    for path in sorted(HERE.glob("bench_ch*.py")) + [
        HERE / "bench_widgets.py",
        HERE / "bench_grading.py",
        HERE / "bench_grade_layers.py",
        HERE / "bench_memory.py",
    ]:
        chapter = path.stem.removeprefix("bench_")
        if only and chapter not in only:
            continue
        spec = importlib.util.spec_from_file_location(path.stem, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        print(f"== {chapter} == (load average {os.getloadavg()[0]:.1f})", flush=True)
        for r in mod.run(quick=args.quick):
            r["chapter"] = chapter
            r["machine"] = where
            r["load"] = os.getloadavg()[0]
            rows.append(r)
            met = {True: "met", False: "MISSED", None: ""}[r["met"]]
            u = r.get("unit", "s")
            print(
                f"  {r['name']:<58s} ours {r['ours']:9.4f} {u}  ref {r['reference']:9.4f} {u}  "
                f"ratio {r['ratio']:6.2f}x  [{r['target']}] {met} {r['note']}  "
                f"[{where}; load {r['load']:.1f}]",
                flush=True,
            )
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
