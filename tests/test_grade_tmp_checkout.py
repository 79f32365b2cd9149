"""A grader whose Python, course package or site folder lies under /tmp (a clean clone
there: ``git clone . /tmp/x && make test``) grades as anywhere else, and the sandbox's own
writable /tmp cannot add a file beside what it binds there.

Seen: every grade refused ('bwrap: execvp /tmp/x/.venv/bin/python: No such file': read
paths under /tmp were dropped), then ``import numba`` failing in the kernel (its site
folder was under the writable /tmp, so the kernel's lock-down took it off ``sys.path``).
Now each top folder of /tmp that holds read paths is a tmpfs of its own in the sandbox,
read-only once the read paths are bound into it (:func:`policy.tmp_roots`).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from kmlteach.course.grade.isolation.bwrap import bwrap_argv, bwrap_problem
from kmlteach.course.grade.isolation.policy import Policy, interpreter, system_libraries, tmp_roots

BWRAP = pytest.mark.skipif(bwrap_problem() is not None, reason=f"{bwrap_problem()}")


def test_tmp_roots_are_the_top_folders_under_tmp():
    assert tmp_roots(["/usr/lib", "/tmp/a/b/c", "/tmp/a/d", "/tmp/e", "/tmp"]) == ("/tmp/a", "/tmp/e")


@BWRAP
def test_read_paths_under_tmp_are_bound_read_only_and_nothing_else_of_tmp_is_seen():
    host = Path(tempfile.mkdtemp(prefix="kml-tmp-read-", dir="/tmp"))
    other = Path(tempfile.mkdtemp(prefix="kml-tmp-other-", dir="/tmp"))
    try:
        host.chmod(0o755)
        (host / "site" / "pkg").mkdir(parents=True)
        (host / "site" / "pkg" / "data.txt").write_text("bound\n")
        (other / "secret.txt").write_text("host tmp\n")
        read = (*interpreter(), *system_libraries(), str(host / "site" / "pkg"))
        policy = Policy(read=read, write=("/tmp",))
        assert str(host) in policy.read_only_roots
        code = "\n".join(
            [
                "import os",
                f"print(open('{host}/site/pkg/data.txt').read().strip())",
                f"print(os.path.exists('{other}'), os.path.exists('{host}/secret.txt'))",
                "for p in ('site/evil.py', 'site/pkg/evil.py', 'evil.py'):",
                "    try:",
                f"        open('{host}/' + p, 'w').write('x')",
                "        print('wrote', p)",
                "    except OSError as e:",
                "        print('refused', p, e.errno)",
                "open('/tmp/mine.txt', 'w').write('x'); print('own /tmp writable')",
            ]
        )
        argv = bwrap_argv(policy, None, userns=True) + [
            "--",
            os.path.abspath(sys.executable),
            "-I",
            "-S",
            "-c",
            code,
        ]
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=60)
        lines = proc.stdout.splitlines()
        assert lines[:2] == ["bound", "False False"], (proc.stdout, proc.stderr)
        assert all(line.startswith("refused ") for line in lines[2:5]), lines
        assert lines[5] == "own /tmp writable", lines
        assert not (host / "site" / "evil.py").exists() and not (host / "evil.py").exists()
    finally:
        shutil.rmtree(host, ignore_errors=True)
        shutil.rmtree(other, ignore_errors=True)


def test_the_kernel_keeps_a_site_folder_of_a_read_only_root_on_sys_path(monkeypatch, tmp_path):
    """inkernel/lock.lockdown: a site folder inside a read-only root stays on sys.path; the
    working folder and other writable folders never do, whatever holds them."""
    from kmlteach.course.grade.inkernel import lock

    monkeypatch.chdir(tmp_path)
    site, work = "/tmp/ci/.venv/lib/python3.11/site-packages", "/tmp/ci/work"
    monkeypatch.setattr(sys, "path", [site, work, str(tmp_path), "/tmp/elsewhere", "", "/usr/lib/python3"])
    policy = {
        "read": [site + "/numba"],
        "write": ["/tmp", work],
        "read_only_roots": ["/tmp/ci"],
    }
    lock.lockdown({"policy": policy})
    assert sys.path == [site, "/usr/lib/python3"]
