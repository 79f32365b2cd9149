"""Where the widgets' code lives (issue 37, point 3: widgets as packages).

* a chapter's widgets are one module ``widgets/chNN.py`` or one package ``widgets/chNN/``
  with ordinary imports: no stub that re-publishes a private ``_chNN`` package;
* a widget module's picture is drawn by the module of the same name in ``plots`` (when the
  chapter's plots are a package): ``widgets/ch05/viterbi.py`` draws with
  ``plots/ch05/viterbi.py``;
* one naming scheme for the draw-then-update helpers: ``draw_<name>(ax, ...)`` returns the
  artists, ``set_<name>(artists, ...)`` moves them, ``plot_<name>`` is the static figure;
* the Viterbi table's colour bar is drawn in one place.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import pytest

pytest.importorskip("ipywidgets")

ROOT = Path(__file__).resolve().parent.parent
WIDGETS = ROOT / "kmlteach" / "widgets"
PLOTS = ROOT / "kmlteach" / "plots"


def _chapters(base: Path) -> list[str]:
    return sorted(
        {p.stem for p in base.iterdir() if p.name.startswith("ch") and (p.suffix == ".py" or p.is_dir())}
    )


def test_a_chapter_is_a_module_or_a_package_never_a_stub():
    for base in (WIDGETS, PLOTS):
        assert not [p.name for p in base.iterdir() if p.name.startswith("_ch")], (
            f"private chapter packages in {base}"
        )
        for ch in _chapters(base):
            both = (base / f"{ch}.py").exists() and (base / ch).is_dir()
            assert not both, f"{base.name}/{ch}.py beside {base.name}/{ch}/"
        assert not [p.name for p in base.glob("ch*_*.py")], f"a chapter split by file name in {base}"
    src = (WIDGETS / "_base.py").read_text(encoding="utf-8")
    assert "def republish" not in src and "def set_public_home" not in src


def test_builders_live_in_their_chapter_and_keep_their_public_paths():
    from kmlteach.widgets._catalog import builders

    found = [name for name, _f in builders()]
    assert len(found) >= 30
    for ch in _chapters(WIDGETS):
        mod = importlib.import_module(f"kmlteach.widgets.{ch}")
        for name, fn in inspect.getmembers(mod, inspect.isfunction):
            if name.startswith("make_"):
                assert fn.__module__ == mod.__name__ or fn.__module__.startswith(mod.__name__ + "."), (
                    ch,
                    name,
                    fn.__module__,
                )
    # the paths the notebooks import keep working
    from kmlteach.plots.ch09 import rademacher_data  # noqa: F401  (was plots.ch09_theory)
    from kmlteach.widgets.ch04 import CLASS2_CENTRE, make_ova_failure  # noqa: F401
    from kmlteach.widgets.ch05 import make_viterbi_trace, train_pair  # noqa: F401
    from kmlteach.widgets.ch09 import make_norma_stream, perceptron_bound  # noqa: F401


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {"." * n.level + (n.module or "") for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}


def test_a_widget_module_draws_with_the_plots_module_of_its_name():
    pairs = 0
    for pkg in (p for p in WIDGETS.iterdir() if p.is_dir() and p.name.startswith("ch")):
        plots = PLOTS / pkg.name
        if not plots.is_dir():
            continue
        for mod in pkg.glob("*.py"):
            if mod.name == "__init__.py":
                continue
            uses = {m.split(".")[-1] for m in _imports(mod) if m.startswith(f"...plots.{pkg.name}.")}
            if (plots / mod.name).exists():
                assert mod.stem in uses, (
                    f"widgets/{pkg.name}/{mod.name} does not draw with plots/{pkg.name}/{mod.name}"
                )
                pairs += 1
    assert pairs >= 5  # ch04 kesler and reductions, ch05 viterbi, ch09 svm, norma, theory


def _plot_functions():
    for path in sorted(PLOTS.rglob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
                yield path.relative_to(PLOTS), node.name


def test_one_naming_scheme_for_draw_then_update_helpers():
    names = {}
    for path, name in _plot_functions():
        names.setdefault(name, path)
        assert not name.startswith("update_"), f"plots/{path}: {name} (call it set_<name>)"
        assert not name.endswith(("_panel", "_artists")), f"plots/{path}: {name} (call it draw_<name>)"
        assert not (name.endswith("_axes") and name != "label_axes"), f"plots/{path}: {name} (draw_<name>)"
    draws = {n[5:] for n in names if n.startswith("draw_")}
    sets = {n[4:] for n in names if n.startswith("set_")}
    assert len(draws) >= 9
    assert draws == sets, f"draw_ without set_: {draws - sets}; set_ without draw_: {sets - draws}"


def test_the_viterbi_colour_bar_label_is_written_once():
    hits = [
        p.relative_to(ROOT)
        for p in (ROOT / "kmlteach").rglob("*.py")
        if "max over s of M" in p.read_text(encoding="utf-8")
    ]
    assert hits == [Path("kmlteach/plots/ch05/viterbi.py")]
    text = (PLOTS / "ch05" / "viterbi.py").read_text(encoding="utf-8")
    assert text.count("max over s of M") == 1 and text.count(".colorbar(") == 1
