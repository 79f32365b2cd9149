"""The Numba preset of kmlteach._jit: caching with a safe fallback, warm-up, check_env.

The fallback is tested for real: a copy of the package is imported in a subprocess
from a directory where Numba can find no writable cache location (each package's
``__pycache__`` is a regular *file*, so no directory can be created there even as
root; ``HOME`` and ``XDG_CACHE_HOME`` point at ``/dev/null`` so the per-user cache
fails too; ``NUMBA_CACHE_DIR`` is unset; ``chmod -R a-w`` for non-root runs). A first
test checks that this setting really makes a plain ``numba.njit(cache=True)`` fail.
"""

from __future__ import annotations

import importlib.metadata as md
import importlib.util
import os
import re
import shutil
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import kmlteach
from kmlteach import _jit

ROOT = Path(__file__).resolve().parent.parent
HAVE_SVM = importlib.util.find_spec("kmlteach.svm") is not None

PROBE_PLAIN = """
import numba


@numba.njit(cache=True)
def add(a, b):
    return a + b
"""

PROBE_JIT = """
import numpy as np

from kmlteach._jit import jit


@jit(warmup=lambda: (np.arange(3.0),))
def total(x):
    s = 0.0
    for v in x:
        s += v
    return s


@jit
def double(x):
    return 2.0 * x
"""


def _set_writable(path: Path, writable: bool) -> None:
    for p in [path, *path.rglob("*")]:
        if p.is_symlink():
            continue
        mode = p.stat().st_mode
        if writable:
            mode |= stat.S_IWUSR
        else:
            mode &= ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)
        os.chmod(p, mode)


@pytest.fixture(scope="module")
def readonly_copy(tmp_path_factory):
    """A copy of the package where no Numba cache location is writable; returns (root, env)."""
    base = tmp_path_factory.mktemp("jit_readonly")
    root = base / "site"
    shutil.copytree(
        ROOT / "kmlteach",
        root / "kmlteach",
        ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.nbi", "*.nbc"),
    )
    (root / "kmlteach" / "_probe_plain.py").write_text(PROBE_PLAIN)
    (root / "kmlteach" / "_probe_jit.py").write_text(PROBE_JIT)
    for pkg in [root / "kmlteach", *[p for p in (root / "kmlteach").rglob("*") if p.is_dir()]]:
        (pkg / "__pycache__").write_text("not a directory\n")
    tmpdir = base / "tmp"  # the only writable place; the fallback cache lands here
    tmpdir.mkdir()
    mpl = base / "mpl"
    mpl.mkdir()
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("NUMBA_", "PYTHON")) and k not in ("XDG_CACHE_HOME", "HOME")
    }
    env.update(
        HOME="/dev/null",
        XDG_CACHE_HOME="/dev/null",
        PYTHONDONTWRITEBYTECODE="1",
        PYTHONPATH=str(root),
        TMPDIR=str(tmpdir),
        MPLCONFIGDIR=str(mpl),
        MPLBACKEND="Agg",
        PYTHONHASHSEED="0",
    )
    _set_writable(root, False)
    yield root, env, tmpdir
    _set_writable(root, True)


def _run(code: str, env: dict, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def _assert_clean(proc: subprocess.CompletedProcess) -> None:
    assert proc.returncode == 0, f"exit {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    assert "Traceback" not in proc.stderr, proc.stderr
    assert "cannot cache" not in proc.stderr and "NumbaWarning" not in proc.stderr, proc.stderr


def test_setting_defeats_plain_numba_caching(readonly_copy):
    """Without this, the fallback tests below would prove nothing."""
    root, env, _ = readonly_copy
    proc = _run("import kmlteach._probe_plain", env, cwd=root.parent)
    assert proc.returncode != 0
    assert "no locator available" in proc.stderr, proc.stderr
    assert "_probe_plain.py" in proc.stderr


def _fallback_script(root: Path, tmpdir: Path, with_svm: bool) -> str:
    return f"""
        import os, numpy as np
        import kmlteach
        assert kmlteach.__file__.startswith({str(root)!r}), kmlteach.__file__
        from kmlteach import _jit
        from kmlteach._probe_jit import total, double
        assert total(np.arange(5.0)) == 10.0
        assert double(1.5) == 3.0
        loc = _jit.cache_location()
        assert loc.startswith({str(tmpdir)!r}), loc
        assert os.environ["NUMBA_CACHE_DIR"] == loc
        print("hits", sum(total.stats.cache_hits.values()))
        print("cache", loc)
        if {with_svm!r}:
            from kmlteach.svm import sgd_soft_svm
            X = np.array([[2.0, 1.0], [1.0, 2.0], [2.0, 2.5], [-1.0, -2.0], [-2.0, -1.0], [-2.5, -2.0]])
            y = np.array([1.0, 1.0, 1.0, -1.0, -1.0, -1.0])
            res = sgd_soft_svm(X, y, 0.1, 50, 0)
            w = np.asarray(res.w)
            assert w.shape == (2,) and np.all(np.isfinite(w)), w
            assert np.all(np.sign(X @ w) == y), w
            print("svm ok")
        info = kmlteach.check_env(verbose=False)
        assert info["numba_cache"] == loc, info
    """


def test_import_and_kernels_work_without_writable_cache(readonly_copy):
    root, env, tmpdir = readonly_copy
    first = _run(_fallback_script(root, tmpdir, HAVE_SVM), env, cwd=root.parent)
    _assert_clean(first)
    if HAVE_SVM:
        assert "svm ok" in first.stdout
    cache = first.stdout.split("cache ", 1)[1].split()[0]
    assert any(Path(cache).rglob("*.nbi")), f"nothing was cached in {cache}"
    # a second process (a kernel restart) finds the same per-user cache and loads from it
    second = _run(_fallback_script(root, tmpdir, False), env, cwd=root.parent)
    _assert_clean(second)
    assert "hits 1" in second.stdout, second.stdout
    assert f"cache {cache}" in second.stdout


def test_compiles_uncached_when_even_the_temp_dir_fails(readonly_copy):
    root, env, _ = readonly_copy
    code = """
        import tempfile
        tempfile.tempdir = "/dev/null/no-such-dir"   # every temporary directory fails
        import numpy as np
        from kmlteach import _jit
        from kmlteach._probe_jit import total
        assert total(np.arange(4.0)) == 6.0
        print(_jit.cache_location())
    """
    proc = _run(code, env, cwd=root.parent)
    _assert_clean(proc)
    assert proc.stdout.startswith("disabled"), proc.stdout


def test_unsafe_shared_temp_dir_is_not_reused(tmp_path, monkeypatch):
    """Someone else's (or a world-writable) kmlteach-numba-<uid> must not become our cache."""
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    uid = os.getuid()
    squatted = tmp_path / f"kmlteach-numba-{uid}"
    squatted.mkdir(mode=0o777)
    os.chmod(squatted, 0o777)
    got = _jit._private_temp_dir()
    assert Path(got) != squatted and Path(got).parent == tmp_path
    squatted.rmdir()
    target = tmp_path / "elsewhere"
    target.mkdir()
    squatted.symlink_to(target)
    got = _jit._private_temp_dir()
    assert Path(got) not in (squatted, target)
    squatted.unlink()
    assert Path(_jit._private_temp_dir()) == squatted  # created fresh, private
    assert stat.S_IMODE(squatted.stat().st_mode) & 0o077 == 0


def test_warmup_cli_prints_one_line_per_kernel(readonly_copy):
    root, env, tmpdir = readonly_copy
    code = """
        from kmlteach import _jit
        _jit.ALGORITHM_MODULES = ("kmlteach._probe_jit",)
        from kmlteach.__main__ import main
        raise SystemExit(main(["warmup", "--jobs", "1"]))
    """
    proc = _run(code, env, cwd=root.parent)
    _assert_clean(proc)
    lines = proc.stdout.splitlines()
    # one line per registered kernel (the probe's, and the ground floor's that the CLI's
    # imports register: kmlteach._linalg, kmlteach._validation), then the total
    kernel = re.compile(r"\s+(kmlteach\.[\w.]+)\s+(\d+\.\d\d s|\(no example arguments\))")
    body = [kernel.fullmatch(line) for line in lines[:-1]]
    assert body and all(body), lines
    names = [m.group(1) for m in body]
    assert len(set(names)) == len(names) and names == sorted(names), names
    assert body[names.index("kmlteach._probe_jit.double")].group(2) == "(no example arguments)", lines
    assert body[names.index("kmlteach._probe_jit.total")].group(2).endswith(" s"), lines
    timed = sum(m.group(2).endswith(" s") for m in body)
    assert re.fullmatch(
        rf"{timed} kernels ready in \d+\.\d s \(cache: {re.escape(str(tmpdir))}.*\)", lines[-1]
    ), lines


def test_python_m_kmlteach_warmup():
    """The real command (CI and Binder's postBuild run it): every line is a kernel or the total."""
    env = dict(os.environ, PYTHONHASHSEED="0", MPLBACKEND="Agg")
    proc = subprocess.run(
        [sys.executable, "-m", "kmlteach", "warmup"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        stdin=subprocess.DEVNULL,
    )
    _assert_clean(proc)
    lines = proc.stdout.splitlines()
    kernel = re.compile(r"\s+kmlteach\.[\w.]+\s+(\d+\.\d\d s|\(no example arguments\))")
    assert all(kernel.fullmatch(ln) for ln in lines[:-1]), lines
    m = re.fullmatch(r"(\d+) kernels ready in \d+\.\d s \(cache: .+\)", lines[-1])
    assert m, lines[-1]
    timed = sum(1 for ln in lines[:-1] if ln.endswith(" s"))
    assert int(m.group(1)) == timed
    if _jit.import_algorithm_modules():
        assert timed >= 1, "algorithm modules exist but no kernel has warm-up arguments"


def test_check_env_reports_versions_cache_and_widgets():
    info = kmlteach.check_env(verbose=False)
    for pkg in ("numpy", "numba", "matplotlib", "ipywidgets", "jupyterlab"):
        assert info[pkg] == md.version(pkg)
    assert info["python"] == ".".join(map(str, sys.version_info[:3]))
    assert info["kmlteach"] == kmlteach.__version__
    assert isinstance(info["numba_cache"], str) and info["numba_cache"]
    assert info["widgets"] is True
    assert Path(info["widget_extension"]).is_dir()


def test_check_env_cli_smoke():
    proc = subprocess.run(
        [sys.executable, "-m", "kmlteach", "check-env"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    _assert_clean(proc)
    out = proc.stdout
    assert re.search(r"^numba\s+\d+\.\d+", out, re.M), out
    assert re.search(r"^numba cache\s+\S", out, re.M), out
    assert re.search(r"^widgets\s+yes", out, re.M), out


def test_preset_options_and_registry(monkeypatch):
    monkeypatch.setattr(_jit, "_REGISTRY", {})
    monkeypatch.setattr(_jit, "ALGORITHM_MODULES", ())

    @_jit.jit
    def bare(x):
        return x + 1.0

    @_jit.jit(warmup=lambda: (np.ones((3, 2)),))
    def gram(X):
        n = X.shape[0]
        K = np.empty((n, n))
        for i in range(n):
            for j in range(n):
                K[i, j] = X[i, 0] * X[j, 0] + X[i, 1] * X[j, 1]
        return K

    @_jit.jit(parallel=True, warmup=lambda: (np.ones((3, 2)),))
    def gram_par(X):
        n = X.shape[0]
        K = np.empty((n, n))
        for i in _jit.prange(n):
            for j in range(n):
                K[i, j] = X[i, 0] * X[j, 0] + X[i, 1] * X[j, 1]
        return K

    X = np.arange(8.0).reshape(4, 2)
    assert bare(1.0) == 2.0
    np.testing.assert_array_equal(gram(X), X @ X.T)
    np.testing.assert_array_equal(gram_par(X), X @ X.T)
    for fn in (bare, gram, gram_par):
        assert fn.targetoptions.get("fastmath", False) is False
        assert fn.targetoptions.get("nopython", True) is True
        assert type(fn._cache).__name__ == "FunctionCache", "cache=True expected"
    assert gram_par.targetoptions.get("parallel") is True
    assert not gram.targetoptions.get("parallel", False)
    reg = {k.rsplit(".", 1)[-1]: v for k, v in _jit.registered().items()}
    assert set(reg) == {"bare", "gram", "gram_par"}
    assert reg["bare"][1] is None and reg["gram"][0] is gram
    times = _jit.warmup(verbose=False)
    assert {k.rsplit(".", 1)[-1] for k in times} == {"gram", "gram_par"}
    assert all(t >= 0 for t in times.values())


def test_module_groups_keep_modules_whole_heaviest_first():
    names = (
        [f"kmlteach.a.k{i}" for i in range(5)]
        + [f"kmlteach.b.k{i}" for i in range(3)]
        + ["kmlteach.c.big", "kmlteach.c.k1", "kmlteach.d.k0"]
    )
    weight = {"kmlteach.c.big": 100.0}
    got = _jit.module_groups(names, lambda n: weight.get(n, 1.0))
    assert sorted(sum(got, [])) == sorted(names)
    assert [{n.rsplit(".", 1)[0] for n in g} for g in got] == [
        {"kmlteach.c"},
        {"kmlteach.a"},
        {"kmlteach.b"},
        {"kmlteach.d"},
    ]


def test_default_weight_is_the_kernels_source_length():
    _jit.import_algorithm_modules()
    reg = _jit.registered()
    big = "kmlteach.svm.smo._smo_kernel"
    assert big in reg
    assert _jit._source_lines(big) > 100 > _jit._source_lines("kmlteach.svm.smo._swap_rows")


@pytest.mark.parametrize("jobs", [0, -2, 1.5, "2", True])
def test_warmup_rejects_a_bad_number_of_jobs(jobs):
    with pytest.raises(ValueError, match="jobs"):
        kmlteach.warmup(verbose=False, jobs=jobs)


def test_parallel_warmup_compiles_every_kernel_in_subprocesses():
    """The path `make test` and CI take on a cold cache (here the cache is warm, so each
    process only loads): every kernel with example arguments is timed exactly once."""
    _jit.import_algorithm_modules()
    want = {n for n, (_, ex) in _jit.registered().items() if ex is not None}
    from kmlteach._warmup_pool import warmup_parallel

    queue = _jit.module_groups(list(want))
    got = warmup_parallel(queue, 2, False, _jit.cache_location())
    assert set(got) == want and all(t >= 0 for t in got.values())
    assert _jit._all_cached()
