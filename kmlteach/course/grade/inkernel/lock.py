"""What keeps a probe's child from reaching back into the fork server, and the child's own
file rules (runs inside the kernel; see ``__init__``).

Red team 2 (issue 24) made the kernel run a child's code twice: (1) the child, a fork of
the kernel, knows the kernel's message key and found its ZeroMQ socket files in its
working folder, so it queued a signed ``execute_request`` that the kernel ran after the
probe; (2) it wrote ``ipywidgets.py`` into its working folder, which was ``''`` on the
kernel's ``sys.path``, and the kernel imported it when it loaded a module the child had
used. So:

* :func:`lockdown`, in the kernel once: no entry of ``sys.path`` inside a folder a
  sandboxed process may write (its working folder, ``/tmp``, ``/dev/shm``, ``''``); the
  kernel answers only ``execute_request`` and ``kernel_info_request`` on its shell
  channel (no comms, completion, inspection or history) and only shutdown and interrupt
  on its control channel (no debugger). The grader also deletes the socket files and the
  connection file once it is connected (``SandboxKernel.seal``): ZeroMQ keeps the
  connections it has, and nobody can make a new one.
* :func:`close_inherited`, first thing in each child: every file descriptor it inherited
  from the kernel closed except its pipe to the kernel, so it holds none of the kernel's
  sockets; its standard streams point at ``/dev/null``; what the student's code displays
  (figures, widgets, comms) is sent nowhere, and the child's copy of the message key is
  erased.
* :func:`confine_writes`: under bubblewrap, the child's own Landlock ruleset, stacked on the
  kernel's, from the same file-access policy (``isolation/policy.py``: its ``read`` and
  ``listable`` paths, writing only its ``child_write`` folders) minus the files of the
  references of the exercise it grades; without bubblewrap, a Landlock domain of its own
  that only scopes signals (ABI >= 6: it cannot signal its kernel); then, in every mode, a
  seccomp filter against memory outside every folder and against pinning another process
  to a CPU (stacked on the kernel's, which every child inherits: no io_uring, no System V
  IPC, no other process's limits). Red team 2 (G1b, G1c, G4, G6): without bubblewrap the
  child had no filter of its own, and the kernel's allowed those.
"""


def lockdown(cfg):
    import os
    import sys

    def inside(p, roots):
        real = os.path.realpath(p)
        return any(real == r or real.startswith(r.rstrip("/") + "/") for r in roots)

    policy = cfg["policy"]
    writable = [os.path.realpath(p) for p in policy["write"]] + [os.path.realpath(os.getcwd())]
    # a read path inside a writable one (a checkout or venv under /tmp) is bound read-only,
    # in a read-only folder of its own under bwrap (the site folder that holds it included)
    read_only = [os.path.realpath(p) for p in [*policy["read"], *policy.get("read_only_roots", ())]]
    # never the working folder (or another writable one but /tmp itself), whatever holds it
    strict = [w for w in writable if w != "/tmp"]
    sys.path[:] = [
        p
        for p in sys.path
        if p and not inside(p, strict) and (inside(p, read_only) or not inside(p, writable))
    ]
    sys.path_importer_cache.clear()
    kernel = getattr(getattr(sys.modules.get("IPython"), "get_ipython", lambda: None)(), "kernel", None)
    for attr, allowed in (
        ("shell_handlers", {"execute_request", "kernel_info_request"}),
        ("control_handlers", {"shutdown_request", "interrupt_request", "kernel_info_request"}),
    ):
        handlers = getattr(kernel, attr, None)
        if isinstance(handlers, dict):
            for name in [n for n in handlers if n not in allowed]:
                del handlers[name]


def close_inherited(keep, confine=None):
    import os
    import sys

    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.closerange(3, keep)
    os.closerange(keep + 1, 1 << 20)  # close_range(2): as cheap as the descriptors open
    sys.stdout = sys.stderr = open(os.devnull, "w", encoding="utf-8")
    ip = getattr(sys.modules.get("IPython"), "get_ipython", lambda: None)()
    session = getattr(getattr(ip, "kernel", None), "session", None)
    if session is not None:  # display(), widgets, comms: sent nowhere, not on a closed socket
        session.send = lambda *a, **k: None
        session.key = b""
    if confine is not None and not confine():
        os._exit(3)  # Landlock or seccomp refused: never run the student's code unconfined


def launcher_names(cfg):
    """The names of the grader's ``isolation/launcher.py``, from its text in ``cfg``: the
    child's Landlock and seccomp rules (:func:`confine_writes`) and the kernel's reaper's
    ``stop_and_kill`` (``reaping.py``), the same code that confined the kernel."""
    ns = {"__name__": "kmlteach_grade_launcher"}
    exec(compile(cfg["launcher_source"], "<kmlteach launcher>", "exec"), ns)
    return ns


def library_cache():
    """Numba's cache of the library's compiled kernels, the warm-up's (each module's
    ``__pycache__``, read-only in the sandbox), found by the kernel's dispatchers and so by
    every probe's child: load only, never saved to. Called in the kernel before it imports
    the library's modules (a dispatcher picks its cache folder when it is made), and only
    where each child has its own file rules (bwrap and Landlock): a child may not read the
    cache files of a kernel that is, or calls, a function its exercise re-implements (a
    cached caller holds its callee's machine code; ``grade/plan.py``'s
    ``reference_files``). Without
    it Numba looked in the kernel's own empty folder (``NUMBA_CACHE_DIR``, which a child
    may not write), and every child compiled each library kernel it called again: 5 s of
    an honest chapter-05 answer's 30 s on an idle 2-core machine, through
    ``structured.viterbi`` (and late, with nothing wrong, under make test: CI of
    2026-12-07). A child grading an exercise still may not read the cache files of what
    it re-implements (:func:`confine_writes`); without bwrap no child has such rules, and
    each compiles the library's kernels it calls, as before."""
    import os

    try:
        from numba.core import caching

        import kmlteach
    except Exception:
        return None
    roots = [os.path.realpath(p) for p in kmlteach.__path__]

    class LibraryCache(caching.InTreeCacheLocator):
        @classmethod
        def from_function(cls, py_func, py_file):
            real = os.path.realpath(py_file)
            if not any(real.startswith(r + os.sep) for r in roots) or not os.path.isfile(real):
                return None
            self = cls(py_func, py_file)
            return self if os.path.isdir(self.get_cache_path()) else None

    # (numba 0.68's CacheImpl, _CacheImpl before): anything else, and every child compiles
    impl, cache = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl", None), caching.Cache
    if not isinstance(getattr(impl, "_locator_classes", None), list):
        return None
    impl._locator_classes = [LibraryCache, *impl._locator_classes]

    def save_overload(self, sig, data, _save=cache.save_overload):
        if not isinstance(getattr(self._impl, "locator", None), LibraryCache):
            _save(self, sig, data)

    cache.save_overload = save_overload
    return LibraryCache


def confine_writes(cfg, ns):
    """``confine()`` for a probe's child (``ns``: :func:`launcher_names`): where the kernel
    runs in bwrap, the child may write only in ``policy["child_write"]`` (a folder of the
    sandbox's own ``/tmp``, ``/dev/shm``: sized tmpfs, ``isolation/bwrap.py``), through a
    Landlock ruleset stacked on the kernel's (the launcher's ``apply_landlock``). Not its
    working folder, which is the host's disk: red team 2 wrote 2.6 GB there in 64 MB files.
    It then works in that folder (cwd, ``TMPDIR``, ``HOME``, matplotlib's cache), so an
    honest notebook that saves a file still can.
    Without bubblewrap (no ``child_write``) or Landlock (an older Linux: bwrap alone,
    docs/security.md says what that leaves), ``confine()`` applies the seccomp filter and,
    where Landlock scopes signals (ABI >= 6), a domain of the child's own that keeps it
    and what it starts from signalling its kernel (``apply_scope``; with bubblewrap the
    child's full ruleset scopes them). ``confine()`` is true when everything was applied."""
    import os

    policy = cfg["policy"]
    apply_landlock, apply_seccomp = ns["apply_landlock"], ns["apply_seccomp"]
    # memfds, another process's CPU affinity, SIGCONT, and the kernel's own process group (this
    # runs in the kernel: its group; each child starts one of its own, inkernel/server.py)
    refused = ns["child_rules"](os.getpgrp())
    if not policy["child_write"] or ns["landlock_abi"]() < 1:
        apply_scope = ns["apply_scope"]

        def confine_calls(exercise=None):
            if apply_scope() not in ("landlock: scoped", "landlock: no signal scoping"):
                return False  # Landlock refused what it offers: never run unconfined
            return apply_seccomp(refused)

        return confine_calls
    # a folder of /tmp, not /tmp: the working folder is bound below /tmp when the host's
    # temporary folder is /tmp, and a Landlock rule holds for everything beneath its folder
    work = policy["child_write"][0]
    refs = cfg.get("refs") or {}  # grade/plan.py's reference_files, from the grader
    rules = {**policy, "write": list(policy["child_write"])}
    # what each child may read, made here once per set of denied files (real paths already;
    # the policy's ~230 roots resolved once): made in every child, it was ~10 ms of CPU a
    # probe (2026-12-06)
    roots = [os.path.realpath(r) for r in policy["read"] if os.path.exists(r)]
    every = sorted({f for fs in refs.values() for f in fs})
    grants = {tuple(deny): ns["read_grants"](roots, deny, resolved=True) for deny in [*refs.values(), every]}

    def confine(exercise=None):
        """``exercise``: the one this probe grades; only its references' files are denied (a
        subprocess that imports another part of the library still can; red team 5)."""
        import sys
        import tempfile

        os.makedirs(os.path.join(work, ".cache"), exist_ok=True)
        os.chdir(work)
        for var, sub in (
            ("HOME", ""),
            ("TMPDIR", ""),
            ("MPLCONFIGDIR", ".mpl"),
            ("XDG_CACHE_HOME", ".cache"),  # IPython's, where numba caches a cell's cache=True
        ):
            os.environ[var] = os.path.join(work, sub).rstrip("/")
        tempfile.tempdir = work
        # not numba's CACHE_DIR: changed here, every library kernel a child loads missed its
        # cache (an honest chapter-01 submission took 5.2 s instead of 2.6)
        rules["deny"] = refs.get(exercise) or every
        if not apply_landlock(rules, grants=grants[tuple(rules["deny"])]).startswith("landlock: ABI"):
            return False
        # memfd_create and memfd_secret fail with EPERM (System V IPC and io_uring already do,
        # by the kernel's filter): their memory is in no folder, outside the sized tmpfs mounts
        # and, for an ordinary user's grader, outside every cgroup (red team 4 wrote 3.5 GB in
        # memfds under a 3000 MB address-space limit; red team 6 1.5 GB in secret memory
        # under a 1 GB limit); sched_setaffinity on another process too (launcher's _AFFINITY)
        if not apply_seccomp(refused):
            return False
        # the kernel's Numba cache folder is read-only here: a library function first compiled
        # in the child is compiled, not saved (it raised PermissionError; red team 5). Only
        # functions the kernel made have that folder: without Numba in the kernel there are
        # none (the child's own choose a folder it may write), and importing it here would
        # cost each child 0.2 s of CPU
        caching = sys.modules.get("numba.core.caching")
        if caching is not None:

            def save_overload(self, sig, data, _save=caching.Cache.save_overload):
                try:
                    _save(self, sig, data)
                except OSError:
                    pass

            # a cache file refused to this child (a kernel that is, or calls, a function its
            # exercise re-implements: grade/plan.py's reference_files) is a miss: the kernel
            # is compiled, and fails to compile where it calls a disarmed one, as it did
            # before the warm-up's cache was read (a PermissionError from inside Numba else)
            def load_overload(self, sig, target_context, _load=caching.Cache.load_overload):
                try:
                    return _load(self, sig, target_context)
                except OSError:
                    return None

            caching.Cache.save_overload = save_overload
            caching.Cache.load_overload = load_overload
        return True

    return confine
