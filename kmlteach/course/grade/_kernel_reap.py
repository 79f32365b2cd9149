"""Part of the grading kernel's preamble (sent with :mod:`._kernel_side` as cell text, not
imported): ``_reaper()`` returns ``reap``, which kills and reaps every process below the
kernel (a child subreaper), so nothing a probe's child started outlives the probe."""


def _reaper():
    import contextlib
    import os

    me = str(os.getpid()).encode()
    _kill, _waitpid = os.kill, os.waitpid

    def reap():
        """Every process a probe's child left (orphans reparent to the kernel, a subreaper)
        killed and reaped, level by level until none is left: a daemon started while one
        exercise is graded, where another's references are intact, never serves a later
        probe (hostile case daemon_oracle)."""
        for _ in range(10000):
            kids = []
            for name in os.listdir("/proc"):
                if name.isdigit():
                    try:
                        with open(f"/proc/{name}/stat", "rb") as fh:
                            st = fh.read()
                    except OSError:
                        continue
                    if st[st.rfind(b")") + 2 :].split()[1:2] == [me]:
                        kids.append(int(name))
            if not kids:
                return
            for pid in kids:
                with contextlib.suppress(OSError):
                    _kill(pid, 9)
            for pid in kids:
                with contextlib.suppress(OSError):
                    _waitpid(pid, 0)

    return reap
