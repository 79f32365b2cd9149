"""The students' environment on the course's own JupyterHub: ``python -m kmlteach hub-env DIR``.

A student's server and kernels must run the student edition, never the instructor's
checkout: its venv imports the answer key (``kmlteach.exercises.solution``, the grader's
hidden cases, ``notebooks/src``, ``docs/midterm.md``: issue 35). This command builds, in
``DIR`` (e.g. ``/opt/kmlteach-hub``, outside the checkout, which the hub's machine keeps
0700):

* ``DIR/edition/`` — the student edition (:func:`kmlteach.course.edition.publish`, or a
  copy of ``--edition``): what students may read, notebooks included;
* ``DIR/venv/`` — a venv of its own on an interpreter every user can run (the running
  one's base when its whole prefix is world-readable, else ``/usr/bin/python3.X``),
  holding the edition installed as a package (not editable), the single-user server
  (``jupyterhub`` at the hub's own version), ``nbgitpuller``, and this environment's
  versions of NumPy, Numba, IPython, Jupyter (:data:`PINNED`, ``DIR/constraints.txt``)
  where that interpreter can take them; without
  ``debugpy`` (its debugger listens on a TCP port without authentication);
* the hub's own pieces in the venv's ``site-packages``: ``kmlteach_hub_priority`` (cells
  at idle CPU priority), ``kmlteach_hub_path`` (the notebook's folder after the installed
  packages on ``sys.path``), ``kmlteach_hub_pull`` (nbgitpuller pulls only the course's
  repository) and ``kmlteach_hub_guard`` (the server non-dumpable, no TCP port bound by a
  kernel or by the server once it listens), from ``deploy/hub/``; the ``python3``
  kernelspec that loads the first two, launched by the last (``-P``: the folder is not put
  first; ``debugger`` off);
* the kernels compiled ahead of time (``KMLTEACH_AOT=1``, :mod:`kmlteach._aot`) in the
  package's ``__pycache__``: built here (``--aot build``, needs a C compiler and the
  interpreter's headers), copied from a matching build (``--aot FOLDER``), or none;
* ``DIR/hub-env.json`` — what was built, written last.

Everything is then made world-readable and, run as root, root-owned (students read it,
nobody but root writes it), and checked by importing it as ``nobody``.
``deploy/hub/jupyterhub_config.py`` runs every server from it (``KMLTEACH_HUB_ENV``).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import shutil
import stat
import subprocess
import sys
import time
from pathlib import Path

__all__ = ["HubEnvError", "build", "describe", "MARKER", "HUB_MODULES", "add_command"]

MARKER = "hub-env.json"
ROOT = Path(__file__).resolve().parents[2]
HUB_DIR = ROOT / "deploy" / "hub"
# the hub's modules installed into the students' venv (deploy/hub/...)
HUB_MODULES = {
    "kmlteach_hub_priority": "kernel/kmlteach_hub_priority.py",
    "kmlteach_hub_path": "kernel/kmlteach_hub_path.py",
    "kmlteach_hub_pull": "server/kmlteach_hub_pull.py",
    "kmlteach_hub_guard": "server/kmlteach_hub_guard.py",
}
KERNEL_EXTENSIONS = ("kmlteach_hub_priority", "kmlteach_hub_path")
NOBODY = 65534


class HubEnvError(Exception):
    """The environment cannot be built as asked (one-line message)."""


def _run(cmd: list[str], what: str, **kw) -> str:
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        tail = (r.stderr or r.stdout).strip().splitlines()[-12:]
        raise HubEnvError(f"{what} failed ({' '.join(map(str, cmd[:4]))} ...):\n" + "\n".join(tail))
    return r.stdout


def _others_can_read(path: Path) -> bool:
    """Whether a user of no group of ours can reach ``path`` (every folder above it
    searchable by others) and read it."""
    path = path.resolve()
    for p in reversed(path.parents):
        if not os.stat(p).st_mode & stat.S_IXOTH:
            return False
    return bool(os.stat(path).st_mode & stat.S_IROTH)


def _interpreter(python: str | None) -> str:
    """An interpreter of this Python's version that every user can run, with its library."""
    want = f"{sys.version_info[0]}.{sys.version_info[1]}"
    if python:
        candidates = [python]
    else:
        base = getattr(sys, "_base_executable", sys.executable)
        candidates = [base, f"/usr/bin/python{want}", f"/usr/local/bin/python{want}"]
    tried = []
    probe = "import sys, sysconfig; print(sys.version_info[0], sys.version_info[1]); print(sysconfig.get_paths()['stdlib'])"
    for exe in candidates:
        exe_path = Path(shutil.which(exe) or exe)
        if not exe_path.is_file():
            tried.append(f"{exe}: not found")
            continue
        try:
            out = subprocess.run([str(exe_path), "-c", probe], capture_output=True, text=True, timeout=60)
        except OSError as e:
            tried.append(f"{exe}: {e}")
            continue
        lines = out.stdout.split("\n")
        if out.returncode != 0 or len(lines) < 2:
            tried.append(f"{exe}: does not run")
            continue
        version, stdlib = ".".join(lines[0].split()), Path(lines[1])
        if version != want:
            tried.append(f"{exe}: Python {version}, not {want}")
        elif not (_others_can_read(exe_path) and _others_can_read(stdlib)):
            tried.append(f"{exe}: its prefix is not readable by other users")
        else:
            return str(exe_path.resolve())
    raise HubEnvError(
        f"no Python {want} that every student can run ({'; '.join(tried)}): install one "
        f"(Debian: apt-get install python{want}) or give --python"
    )


def _uv() -> list[str] | None:
    try:
        r = subprocess.run([sys.executable, "-m", "uv", "--version"], capture_output=True, timeout=60)
    except OSError:
        return None
    return [sys.executable, "-m", "uv"] if r.returncode == 0 else None


# What the students' venv takes at this environment's version when it can: the libraries
# the course was tested with and that the kernels compiled ahead of time depend on.
PINNED = (
    "numpy",
    "numba",
    "llvmlite",
    "matplotlib",
    "ipywidgets",
    "ipykernel",
    "ipython",
    "jupyterlab",
    "jupyter_server",
    "jupyter_client",
    "pyzmq",
    "tornado",
    "traitlets",
)


def _constraints() -> str:
    """``name==version`` of :data:`PINNED` as installed here."""
    lines = []
    for name in PINNED:
        try:
            lines.append(f"{name}=={importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            continue
    return "\n".join(lines) + "\n"


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        raise HubEnvError(f"{dist} is not installed here: pip install -e '.[hub]' first") from None


def _site_packages(venv: Path) -> Path:
    found = sorted(venv.glob("lib/python3*/site-packages"))
    if len(found) != 1:
        raise HubEnvError(f"no site-packages in {venv}")
    return found[0]


def kernelspec(venv: Path) -> dict:
    """The ``python3`` kernelspec of the students' venv: ``-P`` (the notebook's folder is
    not put first on ``sys.path``: a folder named ``kmlteach`` beside a notebook cannot
    shadow the package; ``kmlteach_hub_path`` puts it after the installed packages), ``-s``
    (no user site), ``kmlteach_hub_guard`` as the launcher (a Landlock layer binding no TCP
    port before anything of the student's runs, then ipykernel), the hub's kernel
    extensions, and no debugger."""
    argv = [str(venv / "bin" / "python"), "-P", "-s", "-m", "kmlteach_hub_guard", "-f", "{connection_file}"]
    return {
        "argv": argv + [f"--ext={e}" for e in KERNEL_EXTENSIONS],
        "display_name": "Python 3 (ipykernel)",
        "language": "python",
        "metadata": {"debugger": False},
        "kernel_protocol_version": "5.5",
    }


def _tree_sha(folder: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(folder.rglob("*")):
        if p.is_file() and ".git" not in p.parts:
            h.update(p.relative_to(folder).as_posix().encode() + b"\0" + p.read_bytes())
    return h.hexdigest()


def _share(top: Path) -> None:
    """World-readable, writable only by its owner (root, when run as root)."""
    root = os.geteuid() == 0
    for dirpath, dirnames, filenames in os.walk(top):
        for name in [*dirnames, *filenames, None]:
            p = Path(dirpath) if name is None else Path(dirpath) / name
            st = os.lstat(p)
            if stat.S_ISLNK(st.st_mode):
                continue
            if root and (st.st_uid, st.st_gid) != (0, 0):
                os.lchown(p, 0, 0)
            mode = st.st_mode & 0o7777 & ~0o7022
            mode |= 0o755 if stat.S_ISDIR(st.st_mode) else 0o444 | (0o111 if st.st_mode & 0o100 else 0)
            if mode != st.st_mode & 0o7777:
                os.chmod(p, mode)


def _as_nobody() -> None:
    os.setgroups([])
    os.setgid(NOBODY)
    os.setuid(NOBODY)


_CHECK = """
import importlib.util, json, sys
import kmlteach, jupyterhub, nbgitpuller, ipykernel
from kmlteach._aot import status
print(json.dumps({
    "kmlteach": kmlteach.__file__,
    "missing": [m for m in ("kmlteach.course.grade", "kmlteach.course.release", "debugpy")
                if importlib.util.find_spec(m) is not None],
    "hub_modules": [m for m in sys.argv[1:] if importlib.util.find_spec(m) is None],
    "aot": status(),
}))
"""


def _check(venv: Path, site: Path) -> dict:
    """Import the environment as ``nobody`` (as root; as this user otherwise) from ``/``."""
    env = {"PATH": "/usr/bin:/bin", "HOME": "/nonexistent", "LANG": "C.UTF-8"}
    kw = {"preexec_fn": _as_nobody} if os.geteuid() == 0 else {}
    out = _run(
        [str(venv / "bin" / "python"), "-P", "-c", _CHECK, *HUB_MODULES],
        "importing the environment as another user",
        env=env,
        cwd="/",
        timeout=300,
        **kw,
    )
    got = json.loads(out.strip().splitlines()[-1])
    if not got["kmlteach"].startswith(str(site)):
        raise HubEnvError(f"the environment imports kmlteach from {got['kmlteach']}, not its own")
    if got["missing"]:
        raise HubEnvError(f"the environment holds what students must not have: {got['missing']}")
    if got["hub_modules"]:
        raise HubEnvError(f"the hub's modules are not importable: {got['hub_modules']}")
    return got


def _aot(venv: Path, site: Path, aot, cpu: str, report) -> None:
    py = str(venv / "bin" / "python")
    target = site / "kmlteach" / "__pycache__"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KMLTEACH_AOT", "PYTHON", "VIRTUAL_ENV"))}
    if aot not in ("build", None, "none"):
        src = Path(aot)
        files = sorted(src.glob("kmlteach_aot*"))
        if not files:
            raise HubEnvError(f"--aot {src}: no kmlteach_aot build there")
        target.mkdir(exist_ok=True)
        for f in files:
            shutil.copyfile(f, target / f.name)
        check = "from kmlteach._aot import _find; f = _find(); print(f[2]); raise SystemExit(f[0] is None)"
        r = subprocess.run([py, "-c", check], capture_output=True, text=True, env=env, cwd="/")
        if r.returncode == 0:
            report(f"kernels compiled ahead of time: copied from {src}")
            return
        for f in files:
            (target / f.name).unlink()
        report(f"the build in {src} does not match this environment ({r.stdout.strip()}): building one")
    elif aot in (None, "none"):
        return
    report("compiling the kernels ahead of time (about a minute of CPU)")
    _run(
        [py, "-c", f"from kmlteach._aot import build; build(cpu={cpu!r}, verbose=False)"],
        "the ahead-of-time build (it needs a C compiler and the interpreter's headers, e.g. "
        "apt-get install gcc python3-dev; or --aot none)",
        env=env,
        cwd=str(venv.parent),
    )


def build(
    out,
    *,
    edition=None,
    python: str | None = None,
    aot="build",
    cpu: str = "host",
    report=print,
) -> Path:
    """Build the students' environment in ``out`` (see the module doc); returns ``out``.

    ``edition``: a folder written by ``publish-student`` (default: publish one);
    ``python``: the interpreter (default: see :func:`_interpreter`); ``aot``: ``"build"``,
    ``"none"`` or a folder holding a build to copy when it matches (else built)."""
    if cpu not in ("host", "generic"):
        raise HubEnvError(f"cpu must be 'host' or 'generic', got {cpu!r}")
    out = Path(out).absolute()
    if out == ROOT or ROOT in out.parents or out in ROOT.parents:
        raise HubEnvError(
            f"refusing to build in {str(out)!r}: the students' environment lives outside the "
            "instructor's checkout (which the hub's machine keeps unreadable to students)"
        )
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not (out / MARKER).is_file())):
        raise HubEnvError(f"refusing to build in {str(out)!r}: not empty and not a hub environment")
    if not (HUB_DIR / "jupyterhub_config.py").is_file():
        raise HubEnvError(f"{HUB_DIR} is missing: run this from the instructor's checkout")
    if edition is not None and not (Path(edition) / ".kmlteach-edition.json").is_file():
        raise HubEnvError(f"--edition {str(edition)!r} is not a student edition (publish-student writes one)")
    versions = {d: _version(d) for d in ("jupyterhub", "nbgitpuller")}
    exe = _interpreter(python)
    t0 = time.monotonic()
    out.mkdir(parents=True, exist_ok=True)
    out.chmod(0o755)
    for old in (MARKER, "venv", "edition", "constraints.txt"):
        p = out / old
        if p.is_dir() and not p.is_symlink():
            shutil.rmtree(p)
        elif p.exists() or p.is_symlink():
            p.unlink()
    if edition is None:
        from .edition import publish

        publish(out / "edition", report=lambda msg: None)
    else:
        src = Path(edition)
        shutil.copytree(src, out / "edition", ignore=shutil.ignore_patterns(".git"), symlinks=False)
    report(f"student edition: {out / 'edition'}")
    venv = out / "venv"
    (out / "constraints.txt").write_text(_constraints())
    reqs = [str(out / "edition"), *(f"{d}=={v}" for d, v in versions.items()), "setuptools"]
    uv = _uv()
    py = str(venv / "bin" / "python")
    if uv:
        _run([*uv, "venv", "-q", "--python", exe, str(venv)], "creating the venv")
        install = [*uv, "pip", "install", "-q", "--python", py, "--link-mode", "copy", "--compile-bytecode"]
        uninstall = [*uv, "pip", "uninstall", "-q", "--python", py, "debugpy"]
    else:
        _run([exe, "-m", "venv", str(venv)], "creating the venv (Debian: apt-get install python3-venv)")
        install = [py, "-m", "pip", "install", "-q"]
        uninstall = [py, "-m", "pip", "uninstall", "-q", "-y", "debugpy"]
    try:
        _run([*install, "-c", str(out / "constraints.txt"), *reqs], "installing the student edition")
    except HubEnvError as exc:  # e.g. a version this interpreter's Python is too old for
        report(
            f"this environment's versions do not resolve there ({str(exc).splitlines()[-1].strip()}): unpinned"
        )
        (out / "constraints.txt").write_text("")
        _run([*install, *reqs], "installing the student edition")
    _run(uninstall, "removing debugpy")
    report(f"venv: {venv} (Python {'.'.join(map(str, sys.version_info[:2]))}, {exe})")
    site = _site_packages(venv)
    for name, rel in HUB_MODULES.items():
        shutil.copyfile(HUB_DIR / rel, site / f"{name}.py")
    _run(
        [
            str(venv / "bin" / "python"),
            "-m",
            "compileall",
            "-q",
            *(str(site / f"{n}.py") for n in HUB_MODULES),
        ],
        "compiling the hub's modules",
    )
    # The servers' Jupyter configuration folder is this one (JUPYTER_CONFIG_DIR, read-only in
    # the sandbox: deploy/hub/limits_spawner.py). Its "migrated" marker tells jupyter_core
    # not to copy an IPython 3 profile from the student's ~/.ipython into it at each start.
    (venv / "etc" / "jupyter").mkdir(parents=True, exist_ok=True)
    (venv / "etc" / "jupyter" / "migrated").write_text("not migrated: the students' environment\n")
    spec = venv / "share" / "jupyter" / "kernels" / "python3"
    spec.mkdir(parents=True, exist_ok=True)
    (spec / "kernel.json").write_text(json.dumps(kernelspec(venv), indent=1) + "\n")
    _aot(venv, site, aot, cpu, report)
    _share(out)
    got = _check(venv, site)
    report(
        f"checked as {'nobody' if os.geteuid() == 0 else 'this user'}: kmlteach from {got['kmlteach']}; {got['aot']}"
    )
    marker = {
        "python": exe,
        "python_version": ".".join(map(str, sys.version_info[:3])),
        **versions,
        "edition_sha256": _tree_sha(out / "edition"),
        "aot": got["aot"],
        "built": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "seconds": round(time.monotonic() - t0, 1),
    }
    (out / MARKER).write_text(json.dumps(marker, indent=1) + "\n")
    _share(out / MARKER)
    return out


def describe(out) -> dict | None:
    """The marker of a complete environment in ``out``, or None."""
    try:
        return json.loads((Path(out) / MARKER).read_text())
    except (OSError, ValueError):
        return None


def add_command(sub) -> None:
    """``hub-env`` in the CLI's subparsers ``sub``."""
    p = sub.add_parser(
        "hub-env",
        help="build the students' environment for the course's JupyterHub: the student edition "
        "in a venv of its own (see deploy/hub/README.md)",
    )
    p.add_argument("out", type=Path, metavar="DIR", help="where to build it (e.g. /opt/kmlteach-hub)")
    p.add_argument(
        "--edition", type=Path, default=None, help="an edition from publish-student (default: write one)"
    )
    p.add_argument(
        "--python",
        default=None,
        help="an interpreter every user can run (default: this one's, or /usr/bin's)",
    )
    p.add_argument(
        "--aot",
        default="build",
        help="kernels compiled ahead of time: 'build' (default), 'none', or a folder holding a build",
    )
    p.add_argument(
        "--cpu", choices=("host", "generic"), default="host", help="the build's CPU (default host)"
    )
    p.set_defaults(fn=_cmd)


def _cmd(args) -> int:
    try:
        build(args.out, edition=args.edition, python=args.python, aot=args.aot, cpu=args.cpu)
    except HubEnvError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"built {args.out}: point the hub at it with KMLTEACH_HUB_ENV={args.out}")
    return 0
