"""Part of the grading kernel's preamble (sent with :mod:`._kernel_side` as cell text, not
imported): what keeps a probe's child from reaching back into the fork server.

Red team 2 (issue 24) made the kernel run a child's code twice: (1) the child, a fork of
the kernel, knows the kernel's message key and found its ZeroMQ socket files in its
working folder, so it queued a signed ``execute_request`` that the kernel ran after the
probe; (2) it wrote ``ipywidgets.py`` into its working folder, which was ``''`` on the
kernel's ``sys.path``, and the kernel imported it when it loaded a module the child had
used. So:

* ``_lockdown(cfg)``, in the kernel once: no entry of ``sys.path`` inside a folder a
  sandboxed process may write (its working folder, ``/tmp``, ``/dev/shm``, ``''``); the
  kernel answers only ``execute_request`` and ``kernel_info_request`` on its shell
  channel (no comms, completion, inspection or history) and only shutdown and interrupt
  on its control channel (no debugger). The grader also deletes the socket files and the
  connection file once it is connected (``SandboxKernel.__aenter__``): ZeroMQ keeps the
  connections it has, and nobody can make a new one.
* ``_close_inherited(keep)``, first thing in each child: every file descriptor it
  inherited from the kernel closed except ``keep`` (its pipe to the kernel), so it holds
  none of the kernel's sockets; its standard streams point at ``/dev/null``; what the
  student's code displays (figures, widgets, comms) is sent nowhere, and the child's copy
  of the message key is erased.
"""


def _lockdown(cfg):
    import os
    import sys

    def inside(p, roots):
        real = os.path.realpath(p)
        return any(real == r or real.startswith(r.rstrip("/") + "/") for r in roots)

    writable = [os.path.realpath(p) for p in cfg.get("write_roots") or ()] + [os.path.realpath(os.getcwd())]
    # a read root inside a writable one (a checkout or venv under /tmp) is bound read-only
    read_only = [os.path.realpath(p) for p in cfg.get("read_roots") or ()]
    sys.path[:] = [p for p in sys.path if p and (inside(p, read_only) or not inside(p, writable))]
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


def _close_inherited(keep, confine=None):
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
    if confine is not None and not confine().startswith("landlock: ABI"):
        os._exit(3)  # Landlock is there but refused: never run the student's code unconfined


def _confine_writes(cfg):
    """``confine()`` for a probe's child, or None: where the kernel runs in bwrap, the child
    may write only in a folder of the sandbox's own ``/tmp`` and in ``/dev/shm`` (sized tmpfs:
    ``sandbox.TMP_BYTES``, ``SHM_BYTES``) and ``/dev/null``, through a Landlock ruleset
    stacked on the kernel's (the launcher's ``apply_landlock``, whose source the grader
    sends in ``cfg``). Not its working folder, which is the host's disk: red team 2 wrote
    2.6 GB there in 64 MB files. It then works in that folder (cwd, ``TMPDIR``, ``HOME``,
    matplotlib's cache), so an honest notebook that saves a file still can."""
    import os

    if "/tmp" not in (cfg.get("write_roots") or ()) or not cfg.get("launcher_source"):
        return None
    ns = {"__name__": "kmlteach_grade_launcher"}
    exec(compile(cfg["launcher_source"], "<kmlteach launcher>", "exec"), ns)
    apply = ns["apply_landlock"]
    if ns["landlock_abi"]() < 1:  # an older Linux: bwrap alone (the README says what that leaves)
        return None
    # a folder of /tmp, not /tmp: the working folder is bound below /tmp when the host's
    # temporary folder is /tmp, and a Landlock rule holds for everything beneath its folder
    import kmlteach

    work = "/tmp/kmlteach-work"
    # the kernel's own read roots (its Landlock domain allows no more; "/" could not even be
    # listed to leave the reference files out) and the folders holding the package
    refs = _reference_files(cfg)
    rules = {
        "read_roots": list(cfg.get("read_roots") or ()),
        "protected": [],
        "write_roots": [work, "/dev/shm"],
        "list_roots": [os.path.dirname(os.path.realpath(p)) for p in kmlteach.__path__],
    }

    def confine(exercise=None):
        """``exercise``: the one this probe grades; only its references' files are denied (a
        subprocess that imports another part of the library still can; red team 5)."""
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
        rules["protected"] = refs.get(exercise) or sorted({f for fs in refs.values() for f in fs})
        note = apply(rules)
        _deny_memory_channels()
        try:  # the kernel's Numba cache folder is read-only here: a library function first
            # compiled in the child is compiled, not saved (it raised PermissionError; red team 5)
            from numba.core import caching

            def save_overload(self, sig, data, _save=caching.Cache.save_overload):
                try:
                    _save(self, sig, data)
                except OSError:
                    pass

            caching.Cache.save_overload = save_overload
        except Exception:
            pass
        return note

    return confine


def _deny_memory_channels():
    """A seccomp filter on the probe's child (after Landlock, which set no_new_privs):
    ``memfd_create``, ``memfd_secret``, System V ``shmget``/``msgget``/``semget`` and
    ``io_uring_setup``/``_enter``/``_register`` fail with EPERM. Their memory is in no folder,
    outside the sized tmpfs mounts and, for an ordinary user's grader, outside every cgroup
    (red team 4 wrote 3.5 GB in memfds under a 3000 MB address-space limit; red team 5 21 GB
    in SysV segments; red team 6 1.5 GB in secret memory under a 1 GB limit); io_uring, which
    no probe needs, is a large surface. x86-64 (and x32), arm64."""
    import ctypes

    ld, jeq, ret = 0x20, 0x15, 0x06  # BPF_LD|W|ABS, BPF_JMP|JEQ|K, BPF_RET|K
    deny, allow = 0x00050000 | 1, 0x7FFF0000  # SECCOMP_RET_ERRNO | EPERM, SECCOMP_RET_ALLOW
    # memfd_create, shmget, msgget, semget, memfd_secret, io_uring_setup, _enter, _register:
    # x86-64 (and x32: 0x40000000 | nr), arm64 (the last four share their numbers)
    numbers = {0xC000003E: [319, 29, 68, 64], 0xC00000B7: [279, 194, 186, 190]}
    for nrs in numbers.values():
        nrs += [447, 425, 426, 427]
    numbers[0xC000003E] += [0x40000000 | n for n in numbers[0xC000003E]]
    prog = [(ld, 0, 0, 4)]  # the architecture
    for arch, nrs in numbers.items():
        # A == arch: load the number and test each; else skip this block
        prog += [(jeq, 0, len(nrs) + 2, arch), (ld, 0, 0, 0)]
        prog += [(jeq, 0xFF, 0, nr) for nr in nrs]  # jt patched below: to the deny
        prog += [(ret, 0, 0, allow)]
    prog += [(ret, 0, 0, allow), (ret, 0, 0, deny)]
    for i, (code, jt, jf, k) in enumerate(prog):
        if jt == 0xFF:
            prog[i] = (code, len(prog) - 1 - (i + 1), jf, k)

    class Filter(ctypes.Structure):
        _fields_ = [
            ("code", ctypes.c_ushort),
            ("jt", ctypes.c_ubyte),
            ("jf", ctypes.c_ubyte),
            ("k", ctypes.c_uint),
        ]

    class Prog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(Filter))]

    table = (Filter * len(prog))(*[Filter(*row) for row in prog])
    fprog = Prog(len(prog), table)
    ctypes.CDLL(None, use_errno=True).prctl(22, 2, ctypes.byref(fprog), 0, 0)  # PR_SET_SECCOMP, FILTER


def _guard_target(path, module):
    """The function a guard names: ``package.module.function`` or, for a method of a
    class, ``package.module.Class.method`` (``module(name)`` gives the module object)."""
    head, _, attr = path.rpartition(".")
    try:
        owner = module(head)
    except (KeyError, ImportError):
        modname, _, cls = head.rpartition(".")
        owner = module(modname).__dict__[cls]
    return owner.__dict__.get(attr)


def _reference_files(cfg):
    """``{exercise: files}``: the source, bytecode and Numba cache files of the modules
    that define the functions each exercise re-implements (``cfg["guards"]``), imported
    here first, in the kernel: a probe's child cannot read them, so no copy of a reference is loaded again from its
    file or in a new interpreter (red team 4: ``spec_from_file_location`` on
    ``svm/margins.py``, or ``subprocess.run([sys.executable, ...])``, scored 3.4 points
    with nothing implemented). The child never needs them: it is a fork of this kernel."""
    import contextlib
    import glob
    import importlib
    import os
    import sys

    files = {}
    for path, ids in (cfg.get("guards") or {}).items():
        modname = path.rpartition(".")[0]
        with contextlib.suppress(Exception):
            obj = _guard_target(path, importlib.import_module)
            home = sys.modules.get(getattr(getattr(obj, "py_func", obj), "__module__", modname))
            modname = modname if modname in sys.modules else home.__name__  # Class.method
            for name in {modname, getattr(home, "__name__", modname)}:
                f = getattr(sys.modules.get(name), "__file__", None)
                if f and not f.endswith("__init__.py"):
                    stem = os.path.splitext(os.path.basename(f))[0]
                    # the source, its bytecode and Numba's cache files of its functions
                    cached = os.path.join(os.path.dirname(f), "__pycache__", glob.escape(stem) + ".*")
                    for ex in ids:
                        files.setdefault(ex, set()).add(os.path.realpath(f))
                        files[ex].update(os.path.realpath(p) for p in glob.glob(cached))
    return {ex: sorted(fs) for ex, fs in files.items()}


def _inode_guard(reap, cfg, limit=20000):
    """``(reap, too_many_files)``: ``--size`` caps a tmpfs's bytes, not its files, and each
    empty file costs the host ~1.3 kB of kernel memory outside every cgroup when the grader
    is an ordinary user (red team 3: 400 000 files in 4 s, 540 MB). ``too_many_files()``
    (checked by the kernel while it waits for a child, every 50 ms) says when the sandbox's
    ``/tmp`` and ``/dev/shm`` hold ``limit`` more files than at the start: the child is then
    stopped as if late, and the returned ``reap`` also empties the child's folder."""
    import os
    import shutil

    roots = [p for p in ("/tmp", "/dev/shm") if p in (cfg.get("write_roots") or ())]

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
        for p in ("/tmp/kmlteach-work", "/dev/shm"):
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
