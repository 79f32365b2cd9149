"""environment.yml (Binder/conda) and postBuild agree with pyproject.toml.

The pins themselves are resolved against PyPI by ``.ci/check_env_pins.py`` in CI (it
needs the network); here we only check, offline, that the two files name the same
runtime packages and that every conda pin lies inside pyproject's range.
"""

from __future__ import annotations

import importlib.util
import os
import re
import stat
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
ENV_FILE = ROOT / "environment.yml"
POSTBUILD = ROOT / "postBuild"


def _load_pins_module():
    spec = importlib.util.spec_from_file_location("check_env_pins", ROOT / ".ci" / "check_env_pins.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


PINS = _load_pins_module()


def _runtime_requirements() -> dict[str, Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = [Requirement(r) for r in project["dependencies"]]
    return {canonicalize_name(r.name): r for r in reqs}


def _conda_specs() -> list[str]:
    env = PINS.load_environment(ENV_FILE)
    deps = env.get("dependencies")
    assert isinstance(deps, list) and deps, "environment.yml has no dependencies list"
    return [d for d in deps if isinstance(d, str)]


_CONDA = re.compile(
    r"^(?:(?P<channel>[^:\s]+)::)?(?P<name>[A-Za-z0-9_.\-]+)\s*(?P<op>=|==)?\s*(?P<ver>\S+)?$"
)


def _parse(spec: str) -> dict:
    m = _CONDA.match(spec.strip())
    assert m, f"environment.yml: cannot read the dependency {spec!r}"
    return m.groupdict()


def _pins() -> dict[str, str | None]:
    out = {}
    for spec in _conda_specs():
        d = _parse(spec)
        out[canonicalize_name(d["name"])] = d["ver"]
    return out


def test_environment_file_parses_the_same_with_the_fallback_parser():
    import yaml

    text = ENV_FILE.read_text()
    assert PINS._parse_minimal(text) == yaml.safe_load(text)


def test_only_conda_forge():
    env = PINS.load_environment(ENV_FILE)
    assert env.get("channels") == ["conda-forge"], (
        f"channels must be exactly [conda-forge], got {env.get('channels')}"
    )
    for spec in _conda_specs():
        channel = _parse(spec)["channel"]
        assert channel in (None, "conda-forge"), f"{spec!r} pulls from channel {channel!r}"


def test_python_is_pinned_to_3_11():
    specs = [_parse(s) for s in _conda_specs()]
    python = [s for s in specs if s["name"] == "python"]
    assert python and python[0]["op"] == "=" and python[0]["ver"] == "3.11", (
        "environment.yml must pin python=3.11 (repo2docker defaults to 3.10)"
    )


def test_same_runtime_packages_as_pyproject():
    runtime = set(_runtime_requirements())
    conda = set(_pins()) - {"python", "pip"}
    assert conda == runtime, (
        f"environment.yml and pyproject.toml disagree: only in environment.yml {sorted(conda - runtime)}, "
        f"only in pyproject.toml {sorted(runtime - conda)}"
    )


def test_pins_are_major_minor_inside_pyproject_ranges():
    runtime = _runtime_requirements()
    pins = _pins()
    for name, req in runtime.items():
        spec = next(s for s in _conda_specs() if canonicalize_name(_parse(s)["name"]) == name)
        d = _parse(spec)
        assert d["op"] == "=" and d["ver"], f"{spec!r}: pin it as {name}=MAJOR.MINOR"
        assert re.fullmatch(r"\d+\.\d+", d["ver"]), f"{spec!r}: pin major.minor only (e.g. {name}=1.2)"
        pin = pins[name]
        # conda's `pkg=X.Y` means any X.Y.*: both ends of that range must satisfy pyproject.
        for candidate in (Version(pin), Version(pin + ".9999")):
            assert req.specifier.contains(candidate, prereleases=True), (
                f"environment.yml pins {name}={pin}, but {candidate} is outside pyproject's {req}"
            )


def test_numba_pin_is_compatible_with_numpy_pin():
    # numba 0.68 supports numpy < 2.6 (TOOLING_NOTES); keep the pair consistent.
    pins = _pins()
    if pins.get("numba") == "0.68":
        assert Version(pins["numpy"]) < Version("2.6")
    assert "llvmlite" not in pins, "pin numba only and let it pull the matching llvmlite"


def test_conda_to_pip_translation():
    assert PINS.conda_to_pip("numpy=2.4") == ("numpy", "numpy==2.4.*")
    assert PINS.conda_to_pip("conda-forge::numba=0.68") == ("numba", "numba==0.68.*")
    assert PINS.conda_to_pip("numba=0.68.1") == ("numba", "numba==0.68.1.*")
    assert PINS.conda_to_pip("scipy>=1.12") == ("scipy", "scipy>=1.12")
    assert PINS.conda_to_pip("pytorch=2.5") == ("pytorch", "torch==2.5.*")
    assert PINS.conda_to_pip("python=3.11") == ("python", None)
    assert PINS.conda_to_pip("pip") == ("pip", None)
    with pytest.raises(ValueError, match="conda spec"):
        PINS.conda_to_pip("numpy = = 2")
    reqs, python = PINS.requirements(PINS.load_environment(ENV_FILE))
    assert python == "3.11"
    assert {r.split("==")[0] for r in reqs} == set(_runtime_requirements())


def test_postbuild_installs_the_package_and_warms_the_cache():
    assert POSTBUILD.exists(), "postBuild is missing"
    lines = [
        ln.strip()
        for ln in POSTBUILD.read_text().splitlines()
        if ln.strip() and not ln.strip().startswith("#")
    ]
    assert "set -e" in lines, "postBuild must start with `set -e`"
    assert "pip install --no-deps -e ." in lines, "postBuild must run `pip install --no-deps -e .`"
    warm = [i for i, ln in enumerate(lines) if ln.startswith("python -m kmlteach warmup")]
    assert warm, "postBuild must run `python -m kmlteach warmup`"
    assert lines.index("set -e") < lines.index("pip install --no-deps -e .") < warm[0]
    assert POSTBUILD.read_text().startswith("#!"), "postBuild needs a shebang line"
    assert os.stat(POSTBUILD).st_mode & stat.S_IXUSR, "postBuild must be executable"


def test_no_binder_folder_shadows_the_root_files():
    # repo2docker reads only binder/ or .binder/ if one exists.
    for d in ("binder", ".binder"):
        assert not (ROOT / d).exists(), f"{d}/ exists: repo2docker would ignore environment.yml and postBuild"


def test_ci_script_is_valid_bash_and_runs_the_suite_and_the_pin_check():
    import subprocess

    run = ROOT / ".ci" / "run"
    text = run.read_text()
    assert text.startswith("#!/usr/bin/env bash") and "set -euo pipefail" in text
    assert os.stat(run).st_mode & stat.S_IXUSR, ".ci/run must be executable"
    assert os.stat(ROOT / ".ci" / "check_env_pins.py").st_mode & stat.S_IXUSR
    subprocess.run(["bash", "-n", str(run)], check=True)
    assert "make test" in text and ".ci/check_env_pins.py" in text
    assert "apt-get install -y -q --no-install-recommends" in text and "chromium" in text
    assert "export MPLBACKEND" not in text, "an exported MPLBACKEND drops figure outputs under nbval"


def test_course_lab_page_config_is_installed_with_the_package():
    """``pip install -e .`` (make lab, make test, Binder's postBuild) puts the course's
    JupyterLab page config in <prefix>/etc/jupyter/labconfig, where JupyterLab merges it
    with the user's: the busy tab icon is off (each flip was a request to the server,
    3-4 per click on a widget; tests/test_browser.py checks it in the browser). The explicit
    "not locked" (``lockedExtensions``) stops JupyterLab's 4.0 migration from rewriting the installed file
    to lock the plugin: a student can still turn the icon back on."""
    import json
    import sys

    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["data-files"]
    assert data["etc/jupyter/labconfig"] == ["jupyter/labconfig/page_config.json"]
    ours = json.loads((ROOT / "jupyter" / "labconfig" / "page_config.json").read_text())
    # faviconbusy: the busy tab icon; announcements: JupyterLab's news feed and update check
    # (a pop-up asking about news, and requests to jupyter.org, on a hub or Binder too)
    plugins = (
        "@jupyterlab/application-extension:faviconbusy",
        "@jupyterlab/apputils-extension:announcements",
    )
    assert ours == {
        "disabledExtensions": dict.fromkeys(plugins, True),
        "lockedExtensions": dict.fromkeys(plugins, False),
    }
    installed = Path(sys.prefix) / "etc" / "jupyter" / "labconfig" / "page_config.json"
    assert installed.is_file(), f"{installed} is missing: reinstall with `pip install -e .`"
    assert json.loads(installed.read_text()) == ours


def test_server_extension_sends_kernel_messages_without_nagle_delay(monkeypatch):
    """The JupyterLab server of ``make lab``/Binder/the browser tests loads the course's
    server extension, whose kernel websocket connection sets TCP_NODELAY before
    jupyter_server's own connect (kmlteach/course/lab_server.py: a widget's burst of small
    messages stalled up to the browser's 40 ms delayed ACK); a class someone configured is
    kept."""
    import json
    import logging
    import sys
    import types

    from jupyter_server.services.kernels.connection.channels import ZMQChannelsWebsocketConnection

    from kmlteach.course import lab_server
    from kmlteach.course.lab_server import NoDelayKernelWebsocketConnection

    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["data-files"]
    assert data["etc/jupyter/jupyter_server_config.d"] == ["jupyter/server_config/kmlteach.json"]
    ours = json.loads((ROOT / "jupyter" / "server_config" / "kmlteach.json").read_text())
    assert ours == {"ServerApp": {"jpserver_extensions": {"kmlteach.course.lab_server": True}}}
    assert lab_server._jupyter_server_extension_points() == [{"module": "kmlteach.course.lab_server"}]
    installed = Path(sys.prefix) / "etc" / "jupyter" / "jupyter_server_config.d" / "kmlteach.json"
    assert installed.is_file() and json.loads(installed.read_text()) == ours, (
        f"{installed}: reinstall with `pip install -e .`"
    )

    def server(cls):
        return types.SimpleNamespace(
            web_app=types.SimpleNamespace(settings={lab_server.KEY: cls}), log=logging.getLogger("test")
        )

    app = server(ZMQChannelsWebsocketConnection)
    lab_server._load_jupyter_server_extension(app)
    assert app.web_app.settings[lab_server.KEY] is NoDelayKernelWebsocketConnection
    custom = type("Custom", (ZMQChannelsWebsocketConnection,), {})
    app = server(custom)
    lab_server._load_jupyter_server_extension(app)
    assert app.web_app.settings[lab_server.KEY] is custom

    calls = []

    class Handler:
        def set_nodelay(self, value):
            calls.append(("nodelay", value))

    monkeypatch.setattr(
        ZMQChannelsWebsocketConnection, "connect", lambda self: calls.append("connect") or "future"
    )
    conn = NoDelayKernelWebsocketConnection.__new__(NoDelayKernelWebsocketConnection)
    monkeypatch.setattr(NoDelayKernelWebsocketConnection, "websocket_handler", Handler(), raising=False)
    assert conn.connect() == "future"
    assert calls == [("nodelay", True), "connect"]


def test_nbformat_and_jupyter_events_build_no_iri_parser():
    """pyproject's cap on jsonschema: importing nbformat and jupyter-events (every JupyterLab
    and hub user's server, every `python -m kmlteach` command) loads neither rfc3987_syntax
    nor Lark (jsonschema 4.24+ built 38 Lark parsers at import for its "iri" format
    checker), and no schema those servers and nbformat carry uses that format."""
    code = (
        "import sys, nbformat, jupyter_events.validators, jupyter_server.serverapp\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('rfc3987_syntax', 'lark')))"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip() == "[]", r.stdout
    iri = re.compile(r"""["']?format["']?\s*:\s*["']?iri""")
    found = []
    for pkg in (
        "nbformat",
        "jupyter_events",
        "jupyter_server",
        "jupyterlab_server",
        "jupyterlab",
        "jupyterhub",
    ):
        spec = importlib.util.find_spec(pkg)
        if spec is None or not spec.submodule_search_locations:
            continue
        for folder in spec.submodule_search_locations:
            for path in Path(folder).rglob("*"):
                if path.suffix in (".json", ".yaml", ".yml") and iri.search(path.read_text(errors="replace")):
                    found.append(str(path))
    assert not found, found
