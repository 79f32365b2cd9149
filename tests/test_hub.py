"""The class hub of deploy/hub: its configuration files, its links, and a class of three.

``test_a_class_of_three`` is the short version of ``benchmarks/bench_hub.py``: the hub
of ``deploy/hub/jupyterhub_config.py`` on 127.0.0.1 (as root: its PAM mode with three
Unix users made for the test, each server in its sandbox, from the students' environment
of ``python -m kmlteach hub-env``; otherwise its test mode), three simulated students who
log in, start their server, pull the student edition with
the chapter's nbgitpuller link, run chapter 01's cells over the kernel websocket and move
the margin explorer's slider with ipywidgets ``update`` messages. It checks that every
step worked for every student, that each server and kernel ran inside its cgroup with
the limits of ``sizing.py`` (where cgroups can be written), that the idle culler ran, and
that nothing the hub started is left afterwards. Speed is reported, never asserted.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
import tomllib
import urllib.parse
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HUB = ROOT / "deploy" / "hub"
sys.path.insert(0, str(HUB))

import links  # noqa: E402  (deploy/hub is put on sys.path first)
import sizing  # noqa: E402  (deploy/hub is put on sys.path first)


def test_values_yaml_and_readme_follow_the_sizing_table():
    values = (HUB / "values.yaml").read_text()
    assert (
        sizing.current(HUB / "values.yaml", sizing.VALUES_START, sizing.VALUES_END) == sizing.values_block()
    ), "values.yaml is stale: run `python deploy/hub/sizing.py --write`"
    readme = (HUB / "README.md").read_text()
    assert "## Teaching a class on a hub" in readme
    assert f"{sizing.TABLE_START}\n{sizing.table()}\n{sizing.TABLE_END}" in readme, (
        "deploy/hub/README.md's sizing table is stale: run `python deploy/hub/sizing.py --write`"
    )
    # the numbers follow from the measured kernel and server
    assert sizing.LIMITS["mem_guarantee"] == f"{sizing.SERVER_MIB + sizing.KERNEL_PRIVATE_MIB}M"
    assert 0 < sizing.KERNEL_PRIVATE_MIB <= sizing.KERNEL_MIB == sizing.KERNEL_PRIVATE_MIB + sizing.SHARED_MIB
    assert sizing.LIMITS["mem_limit"] == f"{sizing.SERVER_MIB + sizing.KERNELS_AT_LIMIT * sizing.KERNEL_MIB}M"
    assert f"guarantee: {sizing.GUARANTEE_MIB}M" in values and f"limit: {sizing.LIMIT_MIB}M" in values
    assert "cull:\n  enabled: true" in values and "defaultUrl: /lab" in values


def test_every_student_gets_the_kernel_environment():
    """The threads and glibc settings of sizing.kernel_environment reach a student's kernels
    on both hubs (values.yaml extraEnv, jupyterhub_config's Spawner.environment) and on
    Binder (start)."""
    import yaml

    want = sizing.kernel_environment()
    assert set(sizing.MALLOC_ENV) <= set(want) and want["NUMBA_NUM_THREADS"] == str(int(sizing.CPU_LIMIT))
    extra = yaml.safe_load((HUB / "values.yaml").read_text())["singleuser"]["extraEnv"]
    assert {k: extra.get(k) for k in want} == want
    config = (HUB / "jupyterhub_config.py").read_text()
    assert "c.Spawner.environment = {\n    **kernel_environment()," in config
    start = (ROOT / "start").read_text()
    for k, v in {**sizing.MALLOC_ENV, "KMLTEACH_AOT": "1"}.items():
        assert f'export {k}="${{{k}:-{v}}}"' in start
    assert "warmup --aot --cpu generic" in (ROOT / "postBuild").read_text()


def test_the_kubernetes_hub_keeps_pods_apart_and_pulls_only_the_course():
    """values.yaml: the chart's singleuser network policy on (pods reach neither each other
    nor private addresses), nbgitpuller's guard mounted and enabled, the allowed repository
    the one of book.toml."""
    import yaml

    single = yaml.safe_load((HUB / "values.yaml").read_text())["singleuser"]
    policy = single["networkPolicy"]
    assert policy["enabled"] is True and policy["egressAllowRules"]["privateIPs"] is False
    assert policy["allowedIngressPorts"] == [] and policy["egressAllowRules"]["cloudMetadataServer"] is False
    files = single["extraFiles"]
    assert files["pull-guard"]["mountPath"].endswith("/site-packages/kmlteach_hub_pull.py")
    assert files["pull-guard-config"]["data"]["ServerApp"]["jpserver_extensions"] == {
        "kmlteach_hub_pull": True
    }
    assert (
        "--set-file singleuser.extraFiles.pull-guard.stringData=deploy/hub/server/kmlteach_hub_pull.py"
        in (HUB / "values.yaml").read_text()
    )
    assert single["extraEnv"]["KMLTEACH_HUB_PULL_REPOS"] == links.course_links()["student_repo_url"]


def test_the_pull_guard_accepts_only_the_course_and_plain_folders():
    sys.path.insert(0, str(HUB / "server"))
    import kmlteach_hub_pull as guard

    allowed = guard.allowed_repositories("https://github.com/kmlteach/kmlteach-student, file:///srv/x.git")
    assert allowed == {"https://github.com/kmlteach/kmlteach-student", "file:///srv/x"}
    ok = ["https://github.com/kmlteach/kmlteach-student", "https://GitHub.com/kmlteach/kmlteach-student.git/"]
    for repo in ok:
        assert guard.refusal(repo, None, allowed) is None
        assert guard.refusal(repo, "kmlteach-student", allowed) is None
        assert guard.refusal(repo, "course/kmlteach-student", allowed) is None
    for repo in (
        "https://github.com/evil/kmlteach-student",
        "https://github.com/kmlteach/kmlteach-student-x",
        "",
        None,
    ):
        assert "pulls only the course's repository" in guard.refusal(repo, None, allowed)
    for target in ("/tmp/x", "../x", ".ipython/profile_default/startup", "a/.git/hooks", "a/../../b"):
        assert "targetpath" in guard.refusal(ok[0], target, allowed), target
    assert guard.allowed_repositories("") == set() and guard.refusal(ok[0], None, set()) is not None


def test_the_subdomain_setting_comes_from_the_environment(tmp_path, monkeypatch):
    """``KMLTEACH_HUB_SUBDOMAIN_HOST`` gives every server an origin of its own and the hub
    ``__Host-`` cookies (deploy/hub/README.md, "Isolation"); unset, neither is set."""
    from traitlets.config.loader import PyFileConfigLoader

    env = tmp_path / "env"
    (env / "venv" / "bin").mkdir(parents=True)
    (env / "venv" / "bin" / "jupyterhub-singleuser").touch()
    (env / "venv" / "bin" / "python").symlink_to(sys.executable)
    (env / "edition").mkdir()
    (env / "edition" / "book.toml").write_text('[book]\nstudent_repository = "https://example.org/x"\n')
    (env / "hub-env.json").write_text("{}")
    env.chmod(0o755)
    monkeypatch.setenv("KMLTEACH_HUB_ENV", str(env))
    monkeypatch.setenv("KMLTEACH_HUB_STATE", str(tmp_path / "state"))
    monkeypatch.setenv("KMLTEACH_HUB_CLASSROOM", "0")  # (its exchange folder: not this test's)
    monkeypatch.delenv("KMLTEACH_HUB_SUBDOMAIN_HOST", raising=False)
    plain = PyFileConfigLoader("jupyterhub_config.py", str(HUB)).load_config()
    assert "subdomain_host" not in plain.JupyterHub and "cookie_host_prefix_enabled" not in plain.JupyterHub
    assert plain.CgroupLimits.nofile_limit == 1024
    assert "--ServerApp.terminals_enabled=False" in plain.Spawner.args
    assert "'kmlteach_hub_guard': True" in plain.Spawner.args[-2]
    monkeypatch.setenv("KMLTEACH_HUB_SUBDOMAIN_HOST", "https://hub.example.org/")
    sub = PyFileConfigLoader("jupyterhub_config.py", str(HUB)).load_config()
    assert sub.JupyterHub.subdomain_host == "https://hub.example.org"
    assert sub.JupyterHub.cookie_host_prefix_enabled is True
    # and the Kubernetes hub: subdomains, a certificate for them
    import yaml

    values = yaml.safe_load((HUB / "values.yaml").read_text())
    jh = values["hub"]["config"]["JupyterHub"]
    assert jh["subdomain_host"].startswith("https://") and jh["cookie_host_prefix_enabled"] is True
    host = jh["subdomain_host"].removeprefix("https://")
    assert set(values["proxy"]["https"]["hosts"]) == {host, f"*.{host}"}


def test_students_per_node():
    n64 = sizing.students_per_node(64)
    assert n64 == ((64 - sizing.NODE_RESERVE_GIB) * 1024 - sizing.SHARED_MIB) // sizing.GUARANTEE_MIB
    assert sizing.students_per_node(128) > n64 > sizing.students_per_node(16) > 0
    for bad in (0, sizing.NODE_RESERVE_GIB, 32.0, "64", -1):
        with pytest.raises(ValueError, match="node_gib"):
            sizing.students_per_node(bad)


def test_chapter_links_come_from_book_toml():
    book = tomllib.loads((ROOT / "book.toml").read_text())
    conf = links.course_links()
    meta = book["book"]
    assert conf == {
        "hub_url": meta["jupyterhub"].rstrip("/"),
        "student_repo_url": meta["student_repository"].rstrip("/"),
        "branch": meta["branch"],
    }
    ready = [c for c in book["chapters"] if c["status"] == "ready"]
    table = links.markdown_table(conf["hub_url"], conf["student_repo_url"], conf["branch"])
    assert "urlpath=lab/tree/kmlteach-student/notebooks/01-svm.ipynb" in table.replace("%2F", "/")
    assert len(table.splitlines()) == 2 + len(ready)
    url = links.chapter_link(
        "https://hub.example.org/", "https://github.com/org/course-student.git", "01-svm.ipynb", branch="main"
    )
    parts = urllib.parse.urlsplit(url)
    assert (parts.scheme, parts.netloc, parts.path) == (
        "https",
        "hub.example.org",
        "/hub/user-redirect/git-pull",
    )
    q = dict(urllib.parse.parse_qsl(parts.query))
    assert q == {
        "repo": "https://github.com/org/course-student.git",
        "targetpath": "course-student",
        "urlpath": "lab/tree/course-student/notebooks/01-svm.ipynb",
        "branch": "main",
    }
    for kw in ({"hub_url": ""}, {"repo_url": None}, {"notebook": 1}):
        args = {"hub_url": "https://h", "repo_url": "https://r/x", "notebook": "a.ipynb", **kw}
        with pytest.raises(ValueError, match=next(iter(kw))):
            links.chapter_link(**args)


def test_links_reject_a_book_without_urls(tmp_path):
    bad = tmp_path / "book.toml"
    bad.write_text('[book]\ntitle = "x"\njupyterhub = "hub.example.edu"\n')
    with pytest.raises(ValueError, match="jupyterhub"):
        links.course_links(bad)


@pytest.mark.skipif(
    shutil.which("node") is None, reason="Node.js is absent (configurable-http-proxy needs it)"
)
def test_a_class_of_three():
    import psutil
    from aot_build import generic_build
    from loadtest import LocalHub, run_class

    generic_build()  # the students' environment copies it instead of compiling its own
    n, moves = 3, 5
    hub = LocalHub()
    seen: set[int] = set()
    with hub:
        culler = [p for p in hub.processes() if "jupyterhub_idle_culler" in " ".join(p.cmdline())]
        services = {
            p.pid: _cpu_cgroup(p.pid) for p in hub.processes() if p.pid == hub.proc.pid or p in culler
        }
        services.update(
            {
                p.pid: _cpu_cgroup(p.pid)
                for p in hub.processes()
                if "configurable-http-proxy" in " ".join(p.cmdline())
            }
        )
        r = asyncio.run(run_class(hub, n, moves=moves, move_period=0.5, timeout=600))
        seen = {p.pid for p in hub.processes()}
        log = hub.log_tail(30)
    students = r.pop("students")
    print({k: v for k, v in r.items() if k != "confinement"})
    assert not r["failures"], f"{r['failures']}\n--- hub log ---\n{log}"
    assert culler, "the idle culler service is not running"
    nb_cells = sum(
        1
        for c in json.loads((ROOT / "notebooks" / "01-svm.ipynb").read_text())["cells"]
        if c["cell_type"] == "code" and "".join(c["source"]).strip()
    )
    for s in students:
        assert s.cells_run == nb_cells and s.cell_errors == 0, (s.name, s.cells_run, s.cell_errors)
        assert len(s.round_trips) == moves and all(t > 0 for t in s.round_trips), s.round_trips
        assert s.timings["server_start"] > 0 and s.timings["pull"] > 0
    assert r["moves_done"] == n * moves and r["cell_errors"] == 0
    assert len(r["mem_student_pss"]) == n and all(m > 50 * 2**20 for m in r["mem_student_pss"])
    assert r["mem_total_pss"] > sum(r["mem_student_pss"]) * 0.99
    assert len(r["cpu_student_s"]) == n and all(c > 0 for c in r["cpu_student_s"])
    from limits_spawner import cgroup_layout

    if cgroup_layout() is not None:  # root or a delegated cgroup: the limits are enforced
        # the hub, the proxy and the culler run in the services' cgroup, above the class
        assert len(services) == 3 and {cg.rsplit("/", 1)[-1] for cg in services.values()} == {
            "kmlteach-hub-services"
        }, services
        assert set(r["confinement"]) == {s.name for s in students}
        for user, conf in r["confinement"].items():
            assert conf["memory_limit"] == sizing.LIMIT_MIB * 2**20, (user, conf)
            assert conf["cpu_limit"] == pytest.approx(sizing.CPU_LIMIT), (user, conf)
            assert conf["pids_limit"] in (sizing.PIDS_LIMIT, None), (user, conf)  # None: no pids controller
            assert conf["all_in"], f"{user}: a process of this student ran outside its cgroup"
    # nothing the hub started is left (servers, kernels, proxy, culler)
    left = [
        pid for pid in seen if psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    ]
    assert not left, f"processes left after the hub stopped: {left}"
    assert not hub.tmp.exists()


def _cpu_cgroup(pid: int) -> str:
    for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
        _, ctrls, path = line.split(":", 2)
        if "cpu" in ctrls.split(",") or ctrls == "":
            return path
    return ""
