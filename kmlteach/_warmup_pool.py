"""Warm-up in several processes (split from :mod:`kmlteach._jit`, which it serves)."""

from __future__ import annotations

import time

__all__ = ["warmup_parallel"]


def warmup_parallel(queue: list[list[str]], jobs: int, verbose: bool, cache: str) -> dict[str, float]:
    """``jobs`` compiling processes fed from one ``queue`` of module groups (kernel names),
    heaviest first: a process that finishes takes the next group, so one long kernel (the
    SMO solvers, tree growing, structured SGD: 10-15 s each) does not leave the other cores
    idle. ``cache`` is where the kernels are cached (printed with ``verbose``)."""
    import json
    import selectors
    import subprocess
    import sys

    t0 = time.perf_counter()
    queue = list(queue)
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _WORKER_SCRIPT],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        for _ in range(min(jobs, len(queue)))
    ]
    sel = selectors.DefaultSelector()
    times: dict[str, float] = {}

    def feed(p: subprocess.Popen) -> None:
        if queue:
            p.stdin.write(json.dumps(queue.pop(0)) + "\n")
            p.stdin.flush()
        else:
            p.stdin.close()
            sel.unregister(p.stdout)

    try:
        for p in procs:
            sel.register(p.stdout, selectors.EVENT_READ, p)
            feed(p)
        while sel.get_map():
            for key, _ in sel.select():
                p = key.data
                line = p.stdout.readline()
                if not line:
                    raise RuntimeError(
                        f"a warm-up process failed (exit {p.wait()}); "
                        "run `python -m kmlteach warmup --jobs 1` to see which kernel"
                    )
                times.update(json.loads(line))
                feed(p)
    finally:
        for p in procs:
            if p.poll() is None and not p.stdin.closed:
                p.stdin.close()
            p.wait()
    if verbose:
        for name in sorted(times):
            print(f"  {name:<60s} {times[name]:7.2f} s")
        print(
            f"{len(times)} kernels ready in {time.perf_counter() - t0:.1f} s with {len(procs)} "
            f"processes (cache: {cache})"
        )
    return times


_WORKER_SCRIPT = (
    "import json, sys\n"
    "from kmlteach._jit import _warm\n"
    "for line in sys.stdin:\n"
    "    print(json.dumps(_warm(set(json.loads(line)), False)), flush=True)\n"
)
