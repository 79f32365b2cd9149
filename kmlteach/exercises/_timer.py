"""Run a student's function with a wall-clock budget, in the notebook's own process.

On the main thread of a Unix process (a Jupyter kernel runs cells there) the budget is a
``SIGALRM`` interval timer (``signal.setitimer``) whose handler raises
:class:`CheckTimeout` in the running Python code; a timer that was already armed (e.g.
pytest-timeout's) is restored afterwards. Elsewhere (Windows, another thread) the call
runs in a helper thread and :class:`CheckTimeout` is injected into it with
``PyThreadState_SetAsyncExc``. Either way the exception can only land between Python
bytecodes: a loop inside compiled code (a Numba kernel, one huge NumPy call) finishes
its current call first, and code that catches ``BaseException`` can swallow it (the
timer is re-armed every 0.2 s after the deadline, so a loop that swallows it once is hit
again). This is a convenience for students, not a sandbox.
"""

from __future__ import annotations

import ctypes
import signal
import threading
import time
from collections.abc import Callable
from typing import Any

__all__ = ["CheckTimeout", "call_with_budget"]

_REARM = 0.2


class CheckTimeout(BaseException):
    """Raised into a student's function that ran past its budget (not an ``Exception``,
    so ``except Exception`` in the student's code does not swallow it)."""


def _raise_timeout(signum, frame):
    raise CheckTimeout


def _can_use_alarm() -> bool:
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


def call_with_budget(fn: Callable[[], Any], seconds: float) -> Any:
    """``fn()``, or :class:`CheckTimeout` once it has run ``seconds`` of wall-clock time."""
    if seconds is None or seconds <= 0:
        return fn()
    if _can_use_alarm():
        return _with_alarm(fn, seconds)
    return _with_thread(fn, seconds)


def _with_alarm(fn, seconds):
    start = time.monotonic()
    old_handler = signal.signal(signal.SIGALRM, _raise_timeout)
    old_delay, old_interval = signal.setitimer(signal.ITIMER_REAL, seconds, _REARM)
    try:
        return fn()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old_handler)
        if old_delay > 0:  # give an outer timer back what is left of it
            left = max(old_delay - (time.monotonic() - start), 1e-3)
            signal.setitimer(signal.ITIMER_REAL, left, old_interval)


def _with_thread(fn, seconds):
    box: dict[str, Any] = {}

    def run():
        try:
            box["value"] = fn()
        except BaseException as exc:  # handed to the caller's thread below
            box["error"] = exc

    worker = threading.Thread(target=run, daemon=True, name="kmlteach-check")
    worker.start()
    worker.join(seconds)
    for _ in range(10):  # ~2 s of grace; a thread stuck in compiled code is left behind
        if not worker.is_alive():
            break
        ctypes.pythonapi.PyThreadState_SetAsyncExc(
            ctypes.c_ulong(worker.ident), ctypes.py_object(CheckTimeout)
        )
        worker.join(_REARM)
    else:
        raise CheckTimeout
    if "error" in box:
        raise box["error"]
    return box.get("value")
