"""What a probe's child leaves behind, ended inside the kernel (runs inside it; see
``__init__``): every process below the kernel (a child subreaper) stopped, killed and
reaped, and the child's folders emptied, so that nothing one probe started or wrote
outlives it or serves a later probe. The grader's side of reaping: ``isolation/reaping.py``."""


def reaper(launcher):
    """``(reap, bury)``. ``reap()``: kills and reaps every process below the kernel.
    ``bury(keep)``: reaps the kernel's children that have ended, all but ``keep``, while a
    probe runs. ``launcher``: the names of the grader's ``isolation/launcher.py`` (its text
    comes in the kernel's configuration), whose ``reap_trees`` stops each tree before it
    kills it."""
    import os

    me = os.getpid()
    children, reap_trees = launcher["children"], launcher["reap_trees"]
    _waitpid, _nohang = os.waitpid, os.WNOHANG

    def bury(keep=None):
        """The kernel's children that still run, once those that have ended are reaped (all
        but ``keep``, the probe's child, whose status :meth:`ForkServer.receive` reads). A
        process that forks and exits in a loop (a "hopper") hands each parent that exits
        to the kernel, a subreaper, as a zombie: red team of 2026-12-07, as an ordinary user
        without bwrap, where no cgroup counts them, three exec'd hoppers left 16 750
        processes of the user in 4 s (the machine's pid_max was 32 768). Called every 50 ms
        while a probe runs and at each walk of :func:`reap`."""
        running = []
        for pid in children(me):
            if pid != keep:
                try:
                    if _waitpid(pid, _nohang)[0] == pid:
                        continue
                except ChildProcessError:
                    continue
            running.append(pid)
        return running

    def reap():
        """Every process a probe's child left (orphans reparent to the kernel, a subreaper)
        stopped, killed and reaped, until none is left: a daemon started while one exercise
        is graded, where another's references are intact, never serves a later probe
        (hostile case daemon_oracle)."""
        reap_trees(bury, 60.0)  # the grader ends the kernel long before, if it must

    return reap, bury


def inode_guard(reap, cfg, limit=20000):
    """``(reap, too_many_files)``: ``--size`` caps a tmpfs's bytes, not its files, and each
    empty file costs the host ~1.3 kB of kernel memory outside every cgroup when the grader
    is an ordinary user (red team 3: 400 000 files in 4 s, 540 MB). ``too_many_files()``
    (checked by the kernel while it waits for a child, every 50 ms) says when the sandbox's
    ``/tmp`` and ``/dev/shm`` hold ``limit`` more files than at the start: the child is then
    stopped as if late, and the returned ``reap`` also empties the child's folder."""
    import os
    import shutil

    roots = [p for p in ("/tmp", "/dev/shm") if p in cfg["policy"]["write"]]

    def used():
        n = 0
        for p in roots:
            try:
                st = os.statvfs(p)
                n += st.f_files - st.f_ffree
            except OSError:
                pass
        return n

    base = used()

    def too_many_files():
        return bool(roots) and used() - base > limit

    def unlock(q):
        """Owner rights on ``q`` and every folder below it (the child may have taken its own away:
        red team 7 kept a relay through the clearing in a folder of mode 0o000)."""
        os.chmod(q, 0o700)
        for name in os.listdir(q):
            sub = os.path.join(q, name)
            if os.path.isdir(sub) and not os.path.islink(sub):
                unlock(sub)

    def reap_and_clear():
        """Reap, then empty the child's folders (in the sandbox: its own ``/tmp`` and ``/dev/shm``),
        so that the next probe's child finds nothing an earlier one wrote (red team 6 relayed a
        reference's source from a probe that could read it to one that could not: 2.4/3);
        ``"files"`` if there were too many, ``"stuck"`` if something could not be removed (every
        later probe could read it: the submission is stopped), else ``False``."""
        reap()
        many = too_many_files()
        if not roots:
            return False
        left = []
        for p in cfg["policy"]["child_write"]:
            for name in os.listdir(p) if os.path.isdir(p) else ():
                q = os.path.join(p, name)
                try:
                    if os.path.isdir(q) and not os.path.islink(q):
                        unlock(q)
                        shutil.rmtree(q)
                    else:
                        os.unlink(q)
                except OSError:
                    left.append(q)
        return "stuck" if left else "files" if many else False

    return reap_and_clear, too_many_files
