"""Test-session settings for tests/ (the environment of nbval's kernels is set in the
repository's root conftest.py, which applies to notebooks/ as well)."""

import json
import os
import re
from pathlib import Path

import pytest
from hypothesis import settings

# Hypothesis: no per-example deadline (a first call may compile a Numba kernel, and CI
# shares 2 cores), and derandomized examples in CI so that a submission's result does
# not depend on the draw. Locally the default random exploration keeps finding new cases.
settings.register_profile("kmlteach", deadline=None)
settings.register_profile("ci", deadline=None, derandomize=True, print_blob=True)
settings.load_profile("ci" if os.environ.get("CI") else "kmlteach")


# -- parallel scheduling (make test: pytest-xdist --dist loadgroup --no-loadscope-reorder) --
# Each test file is one unit of work, run on one worker, so a notebook keeps its nbval
# kernel and a module's fixtures (JupyterLab server, site build) are built once — except
# the files below, whose tests share no expensive fixture and are cut into smaller units
# so that neither core waits for the other at the end. Units start longest first
# (tests/durations.json: seconds per unit on 2 cores, rewritten by
# `make test PYTEST_ARGS=--store-durations`; an unknown unit counts 0.05 s per test):
# the longest-processing-time-first rule.
_DURATIONS = Path(__file__).with_name("durations.json")


def _chapter_of(test: str) -> str:
    """``ch02`` for a test parametrized with a ``ch02...`` id (one unit per chapter)."""
    m = re.search(r"\[(ch\d+|welcome)", test)
    return m.group(1) if m else "other"


SPLIT = {
    "tests/test_widgets_blit.py": _chapter_of,
    "tests/test_runtime_only.py": lambda test: test,
}


def work_unit(nodeid: str) -> str:
    """The unit of work of a test: its file, or a part of it for the files in SPLIT."""
    if nodeid.rfind("@") > nodeid.rfind("]"):      # xdist's "@group" suffix
        nodeid = nodeid.rsplit("@", 1)[0]
    path, _, test = nodeid.partition("::")
    cut = SPLIT.get(path)
    return f"{path}:{cut(test)}" if cut else path


def pytest_addoption(parser):
    parser.addoption("--store-durations", action="store_true",
                     help="write the seconds each work unit took to tests/durations.json")


_SPENT: dict[str, float] = {}


def pytest_runtest_logreport(report):
    unit = work_unit(report.nodeid)
    _SPENT[unit] = _SPENT.get(unit, 0.0) + report.duration


def pytest_sessionfinish(session):
    if session.config.getoption("store_durations") and _SPENT and \
            not hasattr(session.config, "workerinput"):
        _DURATIONS.write_text(json.dumps({u: round(s, 1) for u, s in sorted(_SPENT.items())},
                                         indent=0) + "\n")


@pytest.hookimpl(tryfirst=True)   # before xdist appends the group to the node ids
def pytest_collection_modifyitems(config, items):
    if config.getvalue("dist") != "loadgroup":
        return
    known = json.loads(_DURATIONS.read_text()) if _DURATIONS.exists() else {}
    units: dict[str, list] = {}
    for item in items:
        units.setdefault(work_unit(item.nodeid), []).append(item)
    cost = {u: known.get(u, 0.05 * len(its)) for u, its in units.items()}
    items[:] = [it for u in sorted(units, key=lambda u: -cost[u]) for it in units[u]]
    for item in items:
        item.add_marker(pytest.mark.xdist_group(work_unit(item.nodeid)))
