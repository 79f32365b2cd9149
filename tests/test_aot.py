"""Kernels compiled ahead of time (kmlteach._aot, issue 26: a hub's kernel without Numba's JIT).

The oracle is the JIT: every registered kernel, compiled ahead of time for a generic
x86-64 CPU (the build the nbval other-machine pass also runs every chapter with), returns
the same bits as the JIT-compiled kernel on its warm-up arguments and leaves its
arguments the same (several kernels write into them). The dispatch is tested against
Numba's own ``typeof``, and the manifest checks (edited sources, another CPU, other
versions) one by one.
"""

from __future__ import annotations

import json
import os
import pickle
import shutil
import subprocess
import sys
import types
import warnings

import numba
import numpy as np
import pytest
from aot_build import generic_build

from kmlteach import _aot

ROOT = _aot._PACKAGE.parent

VALUES = [
    np.zeros((3, 2)),
    np.zeros((3, 2), dtype=np.int64),
    np.zeros((3, 2), order="F"),
    np.zeros((4, 6))[:, ::2],
    np.zeros(5)[::2],
    np.zeros(4, dtype=np.uint64),
    np.zeros(3, dtype=bool),
    np.zeros(3, dtype=np.int32),
    1,
    -(2**62),
    1.5,
    True,
    np.float64(2.0),
    np.int64(3),
    np.int32(3),
    np.bool_(False),
]


@pytest.mark.parametrize("value", VALUES, ids=lambda v: type(v).__name__ + str(getattr(v, "dtype", "")))
def test_argument_types_are_named_as_numba_names_them(value):
    assert _aot._typekey(value) == _aot._numba_key(numba.typeof(value))
    if isinstance(value, np.ndarray):
        ro = value.copy(order="K")
        ro.flags.writeable = False
        assert _aot._typekey(ro) == _aot._numba_key(numba.typeof(ro)) != _aot._typekey(value)


def test_types_numba_does_not_compile_have_no_key():
    for value in (None, [1.0], (1, 2), "a", 2**64):
        assert _aot._typekey(value) is None


def _fake(calls):
    def compiled(G, c, n):
        calls.append(("compiled", c))
        G[:n] += c

    def py_func(G, c, n):
        calls.append(("python", c))
        G[:n] += c

    keys = [_aot._typekey(np.zeros(3)), ("float64",), ("int64",)]
    table = {
        "module": types.SimpleNamespace(k0_add=compiled),
        "manifest": {"kernels": {"m.add": [["k0_add", keys]]}},
    }
    return _aot.AotKernel("m.add", py_func, table)


def test_exact_types_call_the_compiled_function(monkeypatch):
    monkeypatch.setenv(_aot.ENV, "1")
    calls = []
    k = _fake(calls)
    G = np.zeros(3)
    k(G, 1.5, 2)
    k(G, 2, 3)  # a Python int where the kernel takes a float: converted, as Numba would
    assert calls == [("compiled", 1.5), ("compiled", 2.0)] and isinstance(calls[1][1], float)
    assert G.tolist() == [3.5, 3.5, 2.0]
    assert k.py_func.__name__ == k.__name__ == "py_func" and len(k.signatures) == 1


def test_other_types_run_the_python_function_in_place_never_a_converted_copy(monkeypatch):
    monkeypatch.setenv(_aot.ENV, "1")
    calls = []
    k = _fake(calls)
    G = np.zeros((3, 2))[:, 0]  # strided: the compiled function takes C-contiguous arrays
    with pytest.warns(RuntimeWarning, match="m.add has no compiled version.*plain Python"):
        k(G, 1.0, 3)
    assert calls == [("python", 1.0)] and G.tolist() == [1.0, 1.0, 1.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # one warning per kernel
        k(G, 1.0, 3)
    monkeypatch.setenv(_aot.ENV, "strict")
    with pytest.raises(TypeError, match="m.add was not compiled ahead of time"):
        k(np.zeros(3, dtype=np.int64), 1.0, 3)


def test_a_manifest_is_used_only_for_these_sources_this_cpu_and_these_versions():
    digest = _aot._sha(_aot._PACKAGE / "_jit.py")
    good = {"versions": _aot._versions(), "cpu_flags": _aot._cpu_flags()[:3], "sources": {"_jit.py": digest}}
    assert _aot._problem(good) is None
    assert "changed since the build" in _aot._problem({**good, "sources": {"_jit.py": "0" * 64}})
    assert "changed since the build" in _aot._problem({**good, "sources": {"gone.py": digest}})
    assert "which this one lacks" in _aot._problem({**good, "cpu_flags": ["avx1024_imaginary"]})
    assert "built for" in _aot._problem({**good, "versions": {**good["versions"], "numpy": "0.1"}})


def _run(env: dict, code: str) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if not k.startswith("KMLTEACH_AOT")}
    return subprocess.run([sys.executable, "-c", code], env={**full, **env}, capture_output=True, cwd=ROOT)


def test_strict_mode_without_a_build_fails_at_import(tmp_path):
    r = _run({"KMLTEACH_AOT": "strict", "KMLTEACH_AOT_DIR": str(tmp_path)}, "import kmlteach.svm")
    assert r.returncode != 0 and b"KMLTEACH_AOT=strict: no ahead-of-time build to use: not built" in r.stderr
    r = _run(
        {"KMLTEACH_AOT": "1", "KMLTEACH_AOT_DIR": str(tmp_path)},
        "import kmlteach.svm, sys; print('numba' in sys.modules)",
    )
    assert r.returncode == 0 and r.stdout.strip() == b"True"  # no build: the JIT, as without the variable


_RESULTS = """
import pickle, sys
from kmlteach import _jit
_jit.import_algorithm_modules()
out = {}
for name, (fn, example) in sorted(_jit.registered().items()):
    if example is not None:
        args = example()
        out[name] = (fn(*args), args)
out["numba imported"] = "numba" in sys.modules or "llvmlite" in sys.modules
sys.stdout.buffer.write(pickle.dumps(out))
"""


def _same(a, b) -> bool:
    if isinstance(a, tuple):
        return type(a) is type(b) and len(a) == len(b) and all(map(_same, a, b))
    x, y = np.asarray(a), np.asarray(b)
    return x.dtype == y.dtype and x.shape == y.shape and np.array_equal(x, y, equal_nan=x.dtype.kind in "fc")


def test_every_kernel_compiled_ahead_of_time_returns_the_jits_bits():
    folder = generic_build()
    manifest = json.loads((folder / f"{_aot.MODULE}.json").read_text())
    jit = _run({}, _RESULTS)
    aot = _run({"KMLTEACH_AOT": "strict", "KMLTEACH_AOT_DIR": str(folder)}, _RESULTS)
    assert jit.returncode == 0 and aot.returncode == 0, aot.stderr.decode()[-2000:]
    jit, aot = pickle.loads(jit.stdout), pickle.loads(aot.stdout)
    assert jit.pop("numba imported") and not aot.pop("numba imported")
    assert set(jit) == set(aot) == set(manifest["kernels"]) and len(jit) > 50
    differ = [name for name in jit if not _same(jit[name], aot[name])]
    assert differ == []


def test_the_cli_says_what_a_kernel_would_use(tmp_path):
    r = _run(
        {"KMLTEACH_AOT_DIR": str(tmp_path)},
        "from kmlteach.__main__ import main; main(['warmup', '--status'])",
    )
    assert r.returncode == 0 and r.stdout.decode().startswith(
        "KMLTEACH_AOT=1: not built: run `python -m kmlteach warmup --aot`"
    )


_LOADED = "import warnings, sys; warnings.simplefilter('always'); import kmlteach.svm; print('numba' in sys.modules)"


def _planted(tmp_path, build, name="build"):
    """A copy of the generic build in ``tmp_path / name`` (folder 0755, files 0644)."""
    folder = tmp_path / name
    folder.mkdir(mode=0o755)
    for f in build.glob(f"{_aot.MODULE}*"):
        (folder / f.name).write_bytes(f.read_bytes())
        (folder / f.name).chmod(0o644)
    folder.chmod(0o755)
    return folder


def test_a_build_is_loaded_only_from_a_folder_nobody_else_can_write(tmp_path):
    """Issue 35: a build planted in a folder another user controls (anyone may create
    /tmp/kmlteach-numba-<uid> of someone else, or leave a folder or its module writable)
    is never loaded: one warning, then the JIT. The same copy in a private folder is used."""
    build = generic_build()
    good = _planted(tmp_path, build, "good")
    r = _run({"KMLTEACH_AOT": "1", "KMLTEACH_AOT_DIR": str(good)}, _LOADED)
    assert r.returncode == 0 and r.stdout.strip() == b"False" and b"ignored" not in r.stderr, r.stderr
    so_name = next(good.glob(f"{_aot.MODULE}*.so")).name
    json_name = f"{_aot.MODULE}.json"
    cases = {  # what is spoilt in a fresh copy -> the warning's reason
        ".": (0o777, "the folder is writable by others (mode 0o777)"),
        so_name: (0o666, f"{so_name} is owned by uid {os.getuid()} with mode 0o666"),
        json_name: (0o646, f"{json_name} is owned by uid {os.getuid()} with mode 0o646"),
    }
    for i, (name, (mode, message)) in enumerate(cases.items()):
        folder = _planted(tmp_path, build, f"spoilt{i}")
        (folder / name).chmod(mode)
        r = _run({"KMLTEACH_AOT": "1", "KMLTEACH_AOT_DIR": str(folder)}, _LOADED)
        warned = [ln for ln in r.stderr.decode().splitlines() if "ignored the build" in ln]
        assert r.returncode == 0 and r.stdout.strip() == b"True", r.stderr  # the JIT
        assert len(warned) == 1 and message in warned[0] and str(folder) in warned[0], (message, r.stderr)
    link = tmp_path / "link"
    link.symlink_to(_planted(tmp_path, build, "target"))
    r = _run({"KMLTEACH_AOT": "1", "KMLTEACH_AOT_DIR": str(link)}, _LOADED)
    assert r.stdout.strip() == b"True" and b"is not a folder (a symlink" in r.stderr
    r = _run({"KMLTEACH_AOT_DIR": str(link)}, "from kmlteach._aot import status; print(status())")
    assert r.stdout.decode().startswith(f"ignored the build in {link}: the folder is not a folder")


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to give a folder to another user")
def test_a_build_in_another_users_folder_is_not_loaded(tmp_path):
    build = generic_build()
    tmp_path.chmod(0o755)
    folder = _planted(tmp_path, build)
    for p in (folder, *folder.iterdir()):
        os.chown(p, 65534, 65534)  # nobody's, as a classmate's planted /tmp/kmlteach-numba-<your uid>
    r = _run({"KMLTEACH_AOT": "1", "KMLTEACH_AOT_DIR": str(folder)}, _LOADED)
    assert r.stdout.strip() == b"True" and b"the folder is owned by uid 65534" in r.stderr, r.stderr
    # and _jit's private cache folder refuses it too (the same check, the user alone as owner)
    from kmlteach import _jit

    assert (
        _aot.folder_problem(folder, (0,))
        == "is owned by uid 65534, not by this user, root or the package's owner"
    )
    assert _jit._private_temp_dir() != str(folder)


def test_a_cached_build_is_taken_only_for_these_sources_and_this_numba(tmp_path, monkeypatch):
    """tests/aot_build.py keeps a build in the user's cache for the next clone: a cached
    build whose manifest names another source digest or another Numba is passed over, the
    intact one is taken (and the venv's folder then passes kmlteach._aot's own checks)."""
    import aot_build

    build = generic_build()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    aot_build._to_cache.__wrapped__(build)  # (the once-a-process cache already kept it in ~/.cache)
    (entry,) = aot_build.cache_dir().iterdir()
    manifest = json.loads((entry / f"{_aot.MODULE}.json").read_text())
    target = tmp_path / "venv-folder"
    target.mkdir()

    def spoilt(name, change):
        bad = aot_build.cache_dir() / name
        shutil.copytree(entry, bad)
        m = json.loads(json.dumps(manifest))
        change(m)
        (bad / f"{_aot.MODULE}.json").write_text(json.dumps(m))
        return bad

    spoilt("other-source", lambda m: m["sources"].update({"_jit.py": "0" * 64}))
    spoilt("other-numba", lambda m: m.update(numba="0.0.1"))
    os.utime(entry, (1, 1))  # the intact build is the oldest: the spoilt ones are tried first
    assert aot_build._from_cache(target)
    assert json.loads((target / f"{_aot.MODULE}.json").read_text()) == manifest
    shutil.rmtree(entry)
    assert not aot_build._from_cache(target)  # the spoilt ones alone: neither is taken
    assert not aot_build._usable(target)
