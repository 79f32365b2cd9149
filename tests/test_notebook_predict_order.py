"""Ask before telling (issue 25, point 2): a prediction widget comes before its answer.

A widget cell built with ``predict=True`` hides the result until the student has guessed.
The guess means nothing if the answer is already on screen, so in every chapter source
(``notebooks/src/NN-*.py``), for every prediction widget:

* no widget of the same family (a call of the same ``make_*`` builder, in any mode, shown
  live or as a static figure) comes earlier in the notebook; the normal-mode widget after
  it is the reveal;
* no static figure drawn by one of the plotting helpers that draw the widget's picture
  comes earlier on the same data. "Same data" errs on the strict side: a prediction widget
  on its builder's default data clashes with every earlier call of those helpers; one
  given its data explicitly clashes with a helper call that shares an argument with it
  (the same expression in the source).

The table below names, per builder with a ``predict`` argument, the parameters that set
its scenario and the helpers that draw the same picture; a test checks that it covers
every such builder, so a new prediction widget cannot slip past.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted((ROOT / "notebooks" / "src").glob("0[1-9]-*.py"))

# builder -> (the parameters that choose its data, the plotting helpers drawing its picture)
FAMILIES = {
    "make_margin_explorer": (("X", "y"), {"plot_svm"}),
    "make_boundary_explorer": ((), {"plot_decision_regions"}),
    "make_kpca_explorer": (("m", "seed", "dataset"), {"plot_embedding"}),
    "make_ova_failure": (("n", "seed"), {"plot_ova"}),
    "make_viterbi_trace": (("model", "data"), {"plot_viterbi_table"}),
    "make_ranking_explorer": (("y_true", "scores"), {"plot_ranked_list"}),
    "make_pr_explorer": (("y_score", "y_true"), {"plot_scores", "plot_pr_curve", "plot_roc_curve"}),
    "make_adaboost_stepper": (
        ("X", "y", "result"),
        {"plot_weighted_points", "plot_stump", "plot_adaboost_bounds"},
    ),
    "make_nu_explorer": (("X", "y", "path"), {"draw_nu", "set_nu"}),
}


def _builders_with_predict() -> dict:
    from kmlteach import widgets as pkg

    found = {}
    for info in pkgutil.iter_modules(pkg.__path__):
        if info.name.startswith("ch"):
            mod = importlib.import_module(f"{pkg.__name__}.{info.name}")
            for name, fn in inspect.getmembers(mod, inspect.isfunction):
                if name.startswith("make_") and "predict" in inspect.signature(fn).parameters:
                    found[name] = fn
    return found


def _name(call: ast.Call) -> str | None:
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None


def _calls(source: str):
    """Every call of a family builder or helper in a chapter source, in reading order:
    (line, name, call)."""
    helpers = set().union(*(h for _p, h in FAMILIES.values()))
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and (_name(node) in FAMILIES or _name(node) in helpers):
            out.append((node.lineno, node.col_offset, _name(node), node))
    return [(line, name, call) for line, _c, name, call in sorted(out, key=lambda t: t[:2])]


def _is_predict(call: ast.Call) -> bool:
    return any(
        k.arg == "predict" and isinstance(k.value, ast.Constant) and k.value.value is True
        for k in call.keywords
    )


def _scenario(call: ast.Call, params, signature) -> set[str]:
    """Source text of the arguments that choose the widget's data (empty: its defaults)."""
    names = [p for p in signature.parameters]
    given = {}
    for i, a in enumerate(call.args):
        if isinstance(a, ast.Starred):  # *data: the data, whatever it unpacks to
            given.update({p: ast.unparse(a.value) for p in names[i:] if p in params})
            break
        given[names[i]] = ast.unparse(a)
    given.update({k.arg: ast.unparse(k.value) for k in call.keywords if k.arg})
    return {v for p, v in given.items() if p in params}


def _arguments(call: ast.Call) -> set[str]:
    srcs = {ast.unparse(a.value if isinstance(a, ast.Starred) else a) for a in call.args}
    return srcs | {ast.unparse(k.value) for k in call.keywords if k.arg not in ("ax", "title")}


def violations(source: str, signatures: dict) -> list[str]:
    """What reveals a prediction widget's answer before it, in one chapter source."""
    calls = _calls(source)
    found = []
    for i, (line, name, call) in enumerate(calls):
        if name not in FAMILIES or not _is_predict(call):
            continue
        params, helpers = FAMILIES[name]
        scenario = _scenario(call, params, signatures[name])
        for before_line, before, earlier in calls[:i]:
            if before == name:
                found.append(
                    f"line {line}: {name}(predict=True) comes after the same widget (line {before_line})"
                )
            elif before in helpers and (not scenario or scenario & _arguments(earlier)):
                found.append(
                    f"line {line}: {name}(predict=True) comes after {before} on the same data (line {before_line})"
                )
    return found


@pytest.fixture(scope="module")
def signatures():
    return {name: inspect.signature(fn) for name, fn in _builders_with_predict().items()}


def test_the_table_covers_every_prediction_widget_and_names_real_helpers(signatures):
    assert set(FAMILIES) == set(signatures), "add the new prediction widget to FAMILIES"
    import kmlteach.plots as plots

    helpers_known = set()
    for info in pkgutil.walk_packages(plots.__path__, plots.__name__ + "."):
        helpers_known |= set(dir(importlib.import_module(info.name)))
    for name, (params, helpers) in FAMILIES.items():
        assert set(params) <= set(signatures[name].parameters), name
        assert helpers <= helpers_known, (name, helpers - helpers_known)


def test_every_chapter_has_a_prediction_widget():
    assert [p.name[:2] for p in SOURCES] == [f"{n:02d}" for n in range(1, 10)]
    for path in SOURCES:
        calls = _calls(path.read_text(encoding="utf-8"))
        assert any(_is_predict(c) for _l, n, c in calls if n in FAMILIES), (
            f"{path.name}: no prediction widget"
        )


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.stem)
def test_no_prediction_widget_comes_after_its_answer(path, signatures):
    found = violations(path.read_text(encoding="utf-8"), signatures)
    assert not found, f"{path.name}:\n" + "\n".join(found)


def test_the_rule_catches_a_widget_or_a_figure_shown_first(signatures):
    """Today's mistakes, in miniature: each is reported, and the fixed orders are not."""
    normal_first = "make_margin_explorer()\nmake_margin_explorer(predict=True)\n"
    assert len(violations(normal_first, signatures)) == 1
    static_first = "s = make_nu_explorer(X_nu, y_nu)\nshow(s)\nmake_nu_explorer(X_nu, y_nu, predict=True)\n"
    assert len(violations(static_first, signatures)) == 1
    figure_first = "plot_svm(X0, y0, w, b)\nmake_margin_explorer(predict=True)\n"
    assert len(violations(figure_first, signatures)) == 1
    same_data = "plot_scores(y_score, y_true)\nmake_pr_explorer(y_score, y_true, predict=True)\n"
    assert len(violations(same_data, signatures)) == 1
    other_data = "plot_scores(y_score, y_true)\nmake_pr_explorer(*example_scores(seed=4), predict=True)\n"
    assert violations(other_data, signatures) == []
    predict_first = "make_margin_explorer(predict=True)\nplot_svm(X0, y0, w, b)\nmake_margin_explorer()\n"
    assert violations(predict_first, signatures) == []
