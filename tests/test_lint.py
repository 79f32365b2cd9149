"""ruff over the whole tree: zero lint findings and every file formatted.

The rules and their exceptions (each with its reason) are in ``pyproject.toml``
(``[tool.ruff]``, ``[tool.ruff.lint]``); ruff comes with the ``test`` extra. A failure
shows ruff's own report: fix the code, or run ``ruff format`` / ``ruff check --fix``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _ruff(*args: str) -> subprocess.CompletedProcess:
    try:
        import ruff  # noqa: F401  (only to give a clear message when the extra is missing)
    except ImportError:  # pragma: no cover - the test extra installs ruff
        pytest.fail("ruff is not installed: pip install -e '.[test]'")
    return subprocess.run(
        [sys.executable, "-m", "ruff", *args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )


def test_ruff_check_finds_nothing():
    out = _ruff("check", "--no-cache", "--output-format", "concise", ".")
    assert out.returncode == 0, f"ruff check:\n{out.stdout}{out.stderr}"


def test_ruff_format_leaves_every_file_as_it_is():
    out = _ruff("format", "--no-cache", "--check", "--output-format", "concise", ".")
    assert out.returncode == 0, f"ruff format --check (run `ruff format` to fix):\n{out.stdout}{out.stderr}"


def test_ruff_reads_the_projects_rules():
    # a ruff that silently ignored pyproject.toml would pass the two tests above on its defaults
    out = _ruff("check", "--show-settings", "pyproject.toml")
    assert out.returncode == 0, out.stderr
    assert "linter.line_length = 110" in out.stdout
    enabled = out.stdout.split("linter.rules.enabled = [", 1)[1].split("]", 1)[0]
    for code in ("E711", "W291", "F821", "B023", "I001", "UP035"):  # one of each family
        assert f"({code})" in enabled, code
    for code in ("E501", "E741", "E731", "B905"):  # ignored, each with its reason
        assert f"({code})" not in enabled, code
