"""A dedicated unprivileged uid per running kernel, for a root grader.

Slots are claimed with ``flock`` on ``/run/kmlteach-grade-slots/<n>``, so parallel jobs,
several grading runs and Dask workers on one machine never share a uid. Whether such a uid
can run the interpreter is asked where the kernel will run: inside bubblewrap's view
(:func:`runs_in_sandbox`: the folders above the bound interpreter are bwrap's own, so an
interpreter below ``/root`` works there) or on the host (:func:`runs_on_host`).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import stat
import subprocess
import sys
import tempfile

from .reaping import kill_uid

__all__ = ["uid_slot", "runs_in_sandbox", "runs_on_host", "UID_BASE"]

UID_BASE = 1_900_000_000
_SLOTS = 256
_PROBE_UID = UID_BASE + _SLOTS  # never a kernel's
_IMPORTS = "import numpy, ipykernel, kmlteach"


SLOTS_FOLDER = "/run/kmlteach-grade-slots"  # root's (a uid is dedicated by a root grader only)


def _slots_folder() -> str:
    """One folder for every grading process of the machine, whatever its ``TMPDIR``: two runs
    that claimed slots in different folders took the same uid, and each killed the other's
    kernels as that uid's leftovers. Under ``/run`` (``/tmp`` without it), made by root, 0700,
    and refused if anyone else made it first."""
    base = SLOTS_FOLDER if os.path.isdir(os.path.dirname(SLOTS_FOLDER)) else "/tmp/kmlteach-grade-slots"
    with contextlib.suppress(FileExistsError):
        os.mkdir(base, 0o700)
    st = os.lstat(base)
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid() or st.st_mode & 0o077:
        raise RuntimeError(f"{base} is not a folder of this user's alone: remove it and grade again")
    return base


@contextlib.contextmanager
def uid_slot(enabled: bool):
    """A uid no other running grading job uses (``None`` when not ``enabled``)."""
    if not enabled:
        yield None
        return
    base = _slots_folder()
    for n in range(_SLOTS):
        fd = os.open(os.path.join(base, str(n)), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue
        try:
            uid = UID_BASE + n
            kill_uid(uid)  # leftovers of a crashed earlier run
            yield uid
        finally:
            os.close(fd)
        return
    raise RuntimeError("no free grading uid slot")


def _env() -> dict:
    return {k: v for k, v in os.environ.items() if k in ("PATH", "PYTHONPATH")}


def runs_on_host() -> bool:
    """Can an unprivileged uid run this Python with NumPy, ipykernel and kmlteach on the host?
    Not when the interpreter lives in a private home directory (``/root/.pyenv``)."""
    try:
        r = subprocess.run(
            [sys.executable, "-c", _IMPORTS],
            user=_PROBE_UID,
            group=_PROBE_UID,
            extra_groups=[],
            cwd="/",
            capture_output=True,
            timeout=60,
            env=_env(),
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return r.returncode == 0


def runs_in_sandbox() -> bool:
    """Can an unprivileged uid run this Python with NumPy, ipykernel and kmlteach inside
    bubblewrap's view of a kernel (no user namespace; the uid taken on the host)?"""
    from .bwrap import bwrap_argv
    from .policy import kernel_policy

    scratch = tempfile.mkdtemp(prefix="kmlteach-grade-probe-")
    try:
        os.chmod(scratch, 0o755)
        argv = bwrap_argv(kernel_policy(scratch, bwrap=True), scratch, userns=False)
        become = (
            f"import os, sys; os.setgroups([]); os.setgid({_PROBE_UID}); os.setuid({_PROBE_UID}); "
            f"os.execv(sys.executable, [sys.executable, '-c', {_IMPORTS!r}])"
        )
        old = os.umask(0o022)
        try:
            r = subprocess.run(
                [*argv, "--", sys.executable, "-I", "-S", "-c", become],
                cwd="/",
                capture_output=True,
                timeout=60,
                env={**_env(), "HOME": scratch, "MPLCONFIGDIR": scratch},
            )
        finally:
            os.umask(old)
    except (OSError, subprocess.SubprocessError):
        return False
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return r.returncode == 0
