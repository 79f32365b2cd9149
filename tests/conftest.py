"""Test-session settings for tests/ (the environment of nbval's kernels is set in the
repository's root conftest.py, which applies to notebooks/ as well)."""

import json
import os
import resource
from pathlib import Path

import pytest
from hypothesis import settings

# Hypothesis: no per-example deadline (a first call may compile a Numba kernel, and CI
# shares 2 cores), and derandomized examples in CI so that a submission's result does
# not depend on the draw. Locally the default random exploration keeps finding new cases.
settings.register_profile("kmlteach", deadline=None)
settings.register_profile("ci", deadline=None, derandomize=True, print_blob=True)
settings.load_profile("ci" if os.environ.get("CI") else "kmlteach")


# -- parallel scheduling (make test: pytest-xdist --dist loadfile --no-loadscope-reorder) ---
# Each test file is one unit of work, run on one worker, so a notebook keeps its nbval
# kernel and a module's fixtures (JupyterLab server, site build) are built once. Units
# start longest first (tests/durations.json: seconds per file on 2 cores, rewritten by
# `make test PYTEST_ARGS=--store-durations`; an unknown file counts 0.05 s per test): the
# longest-processing-time-first rule. (xdist's default orders files by *test count*, which
# put the few-but-long browser and site files last.) Cutting long fixture-free files into
# smaller units with --dist loadgroup does not work with pytest 9.2 + xdist 3.8: xdist
# groups by rewriting item._nodeid, which pytest 9.2 no longer reads.
_DURATIONS = Path(__file__).with_name("durations.json")


def work_unit(nodeid: str) -> str:
    """The unit of work of a test: its file."""
    return nodeid.partition("::")[0]


def pytest_addoption(parser):
    parser.addoption(
        "--store-durations",
        action="store_true",
        help="write the seconds each work unit took to tests/durations.json",
    )


_SPENT: dict[str, float] = {}
# KMLTEACH_TEST_TIMELINE=FILE: each worker appends "worker unit first-start last-stop cpu"
# per unit (Unix times), to see how the units packed onto the workers (an idle tail, a unit
# that started late) and what each unit cost: cpu is the CPU seconds of the worker and of
# the children it waited for (kernels, servers, Chromium through Playwright's driver) while
# the unit's tests ran; a child still running when a test ends is counted later or not at
# all (a module's server fixture: at the unit's last test, when it is stopped)
_SPAN: dict[str, list[float]] = {}
_CPU: dict[str, float] = {}


def _cpu_seconds() -> float:
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    if not os.environ.get("KMLTEACH_TEST_TIMELINE"):
        return (yield)
    t0 = _cpu_seconds()
    try:
        return (yield)
    finally:
        unit = work_unit(item.nodeid)
        _CPU[unit] = _CPU.get(unit, 0.0) + _cpu_seconds() - t0


def pytest_runtest_logreport(report):
    unit = work_unit(report.nodeid)
    _SPENT[unit] = _SPENT.get(unit, 0.0) + report.duration
    span = _SPAN.setdefault(unit, [report.start, report.stop])
    span[0], span[1] = min(span[0], report.start), max(span[1], report.stop)


def pytest_sessionfinish(session):
    timeline = os.environ.get("KMLTEACH_TEST_TIMELINE")
    if timeline and hasattr(session.config, "workerinput"):
        worker = session.config.workerinput.get("workerid", "?")
        with open(timeline, "a", encoding="utf-8") as fh:
            fh.writelines(
                f"{worker} {u} {a:.1f} {b:.1f} {_CPU.get(u, 0.0):.1f}\n" for u, (a, b) in _SPAN.items()
            )
    if session.config.getoption("store_durations") and _SPENT and not hasattr(session.config, "workerinput"):
        _DURATIONS.write_text(
            json.dumps({u: round(s, 1) for u, s in sorted(_SPENT.items())}, indent=0) + "\n"
        )


def pytest_collection_modifyitems(config, items):
    if not hasattr(config, "workerinput"):  # only on xdist's workers, which collect
        return
    known = json.loads(_DURATIONS.read_text()) if _DURATIONS.exists() else {}
    units: dict[str, list] = {}
    for item in items:
        units.setdefault(work_unit(item.nodeid), []).append(item)
    cost = {u: known.get(u, 0.05 * len(its)) for u, its in units.items()}
    items[:] = [it for u in sorted(units, key=lambda u: -cost[u]) for it in units[u]]
