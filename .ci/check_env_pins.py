#!/usr/bin/env python3
"""Check that environment.yml's pins resolve together (on PyPI, as a proxy for conda-forge).

No conda/mamba is available in CI, so we translate each conda spec to a pip requirement
(``pkg=X.Y`` -> ``pkg==X.Y.*``, conda names mapped to PyPI names where they differ),
and ask pip to resolve them for ``python=X.Y`` without installing anything:

    pip install --dry-run --ignore-installed --report - ...

Exit status 0 when they resolve; otherwise 1 with pip's explanation. Usage::

    python .ci/check_env_pins.py [environment.yml]
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# conda-forge name -> PyPI name, where they differ (only what we might plausibly use).
CONDA_TO_PYPI = {
    "pytorch": "torch",
    "matplotlib-base": "matplotlib",
    "py-xgboost": "xgboost",
    "pyyaml": "PyYAML",
    "pytables": "tables",
    "msgpack-python": "msgpack",
    "python-graphviz": "graphviz",
}
# Packages that are part of the interpreter/conda itself, not resolvable on PyPI.
NOT_ON_PYPI = {"python", "pip", "setuptools", "wheel", "conda", "mamba", "nodejs"}

_SPEC = re.compile(r"^\s*([A-Za-z0-9_.\-]+)\s*(?:(==|=|>=|<=|>|<|!=)\s*([^\s#]+))?\s*$")


def load_environment(path: Path) -> dict:
    """Parse environment.yml with PyYAML if available, else with a small line parser."""
    text = path.read_text(encoding="utf-8")
    try:
        import yaml  # type: ignore
    except ImportError:  # pragma: no cover - PyYAML is normally present
        return _parse_minimal(text)
    data = yaml.safe_load(text)
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a mapping at top level")
    return data


def _parse_minimal(text: str) -> dict:
    """Enough YAML for environment.yml: top-level keys with '- item' lists (one nested pip list)."""
    data: dict = {}
    key = None
    pip_list: list | None = None
    pip_indent = 0
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].rstrip()
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        stripped = line.strip()
        if indent == 0 and stripped.endswith(":"):
            key = stripped[:-1]
            data[key] = []
            pip_list = None
        elif indent == 0 and ":" in stripped:
            k, v = stripped.split(":", 1)
            data[k.strip()] = v.strip()
            key = None
        elif stripped.startswith("- ") and key is not None:
            item = stripped[2:].strip()
            if pip_list is not None and indent > pip_indent:
                pip_list.append(item)
            elif item.rstrip(":") == "pip" and item.endswith(":"):
                pip_list = []
                pip_indent = indent
                data[key].append({"pip": pip_list})
            else:
                pip_list = None
                data[key].append(item)
    return data


def conda_to_pip(spec: str) -> tuple[str, str | None]:
    """``'numpy=2.4'`` -> ``('numpy', 'numpy==2.4.*')``; ``(name, None)`` for non-PyPI packages."""
    spec = spec.split("::")[-1]  # drop a channel prefix such as conda-forge::
    m = _SPEC.match(spec)
    if not m:
        raise ValueError(f"cannot read the conda spec {spec!r}")
    name, op, version = m.groups()
    name = name.lower()
    if name in NOT_ON_PYPI:
        return name, None
    pypi = CONDA_TO_PYPI.get(name, name)
    if op is None:
        return name, pypi
    if op == "=":
        # conda's `=` is a prefix match: 2.4 means 2.4.*, 2.4.1 means 2.4.1.*
        version = version.rstrip("*").rstrip(".")
        return name, f"{pypi}=={version}.*"
    return name, f"{pypi}{op}{version}"


def requirements(env: dict) -> tuple[list[str], str | None]:
    """PyPI requirements and the python version (``'3.11'``) named by the environment."""
    reqs: list[str] = []
    python = None
    for dep in env.get("dependencies") or []:
        if isinstance(dep, dict):
            reqs.extend(str(r) for r in dep.get("pip") or [])
            continue
        name, req = conda_to_pip(str(dep))
        if name == "python":
            m = _SPEC.match(str(dep).split("::")[-1])
            python = m.group(3) if m else None
        elif req is not None:
            reqs.append(req)
    return reqs, python


def main(argv: list[str]) -> int:
    path = Path(argv[1]) if len(argv) > 1 else ROOT / "environment.yml"
    env = load_environment(path)
    channels = env.get("channels") or []
    if list(channels) != ["conda-forge"]:
        print(f"FAIL: {path.name} must use only the conda-forge channel, got {channels}")
        return 1
    reqs, python = requirements(env)
    if not reqs:
        print(f"FAIL: {path.name} names no packages")
        return 1
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "install",
        "--dry-run",
        "--ignore-installed",
        "--quiet",
        "--report",
        "-",
        "--disable-pip-version-check",
    ]
    if python:
        # resolve wheels for the pinned interpreter even if CI runs another one
        cmd += ["--python-version", python.rstrip(".*"), "--only-binary=:all:"]
    cmd += reqs
    print(f"Resolving {path.name} pins on PyPI (python {python or 'current'}): {' '.join(reqs)}")
    proc = subprocess.run(cmd, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if proc.returncode != 0:
        print(
            f"FAIL: the pins of {path.name} do not resolve together on PyPI "
            f"(pip exit {proc.returncode}). pip said:"
        )
        lines = [ln for ln in proc.stderr.splitlines() if "is ignored: it is neither" not in ln]
        print("\n".join(lines[-40:]))
        return 1
    try:
        report = json.loads(proc.stdout)
    except json.JSONDecodeError:
        print("FAIL: pip returned no JSON report:\n" + proc.stdout[-2000:])
        return 1
    resolved = {i["metadata"]["name"].lower(): i["metadata"]["version"] for i in report.get("install", [])}
    wanted = [re.split(r"[=<>!]", r, maxsplit=1)[0].lower() for r in reqs]
    shown = ", ".join(f"{n} {resolved.get(n, '?')}" for n in wanted)
    extra = ", ".join(f"{n} {resolved[n]}" for n in ("llvmlite",) if n in resolved)
    print(f"OK: {len(resolved)} packages resolve: {shown}" + (f" (+ {extra})" if extra else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
