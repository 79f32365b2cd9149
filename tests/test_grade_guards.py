"""The guards of each exercise against the library's other functions (grade/cases/chNN.py's
GUARDS, cases.SHARED, inkernel/disarm.py).

While an exercise is graded, its probe's child disarms the library functions that compute
its answer (the guards) and every function of their modules they reach (their helpers, the
red team's way around a guard). A helper that another library function shares went down
with it: an honest 01.distance built on ``svm.geometric_margins`` scored 0 (its
``_points_and_w`` was a helper of the guarded ``signed_distance``), as did an honest
05.loss_augmented on the library's ``viterbi`` and a 07.precision_at_k on
``metrics.precision``. Here, statically, with the walk the child runs
(:meth:`Disarmer.helpers`): every function a chapter's notebook names (the tools a student
has seen, in that chapter or an earlier one) either works while each exercise is graded,
or that exercise's GUARDS line names it, so the student reads that it computes the answer
rather than a helper's name. (Widgets are not counted as tools: a notebook builds them in
its demo cells, never inside an exercise's function.)

Then graded in the sandbox: honest code on the library's tools keeps full marks, and the
nine red teams' answers through library code the guards left working (another module's
helper, a widget's own computation, a class built by hand: :data:`ANSWERS`) score 0.
"""

from __future__ import annotations

import ast
import importlib
import json
import pkgutil
import re
import types
from pathlib import Path

import pytest
from grade_answers import ANSWERS
from grade_submissions import dump, load, with_function

import kmlteach
from kmlteach.course.grade import cases
from kmlteach.course.grade.inkernel.disarm import Disarmer, guard_target

ROOT = Path(__file__).resolve().parent.parent
CHAPTERS = [f"{i:02d}" for i in range(10)]
# the grader, the references, and the interactive layer (not tools an exercise's code calls)
_NOT_LIBRARY = ("kmlteach.course", "kmlteach.exercises", "kmlteach.widgets", "kmlteach._render")


def _modules() -> dict[str, types.ModuleType]:
    out = {}
    for m in pkgutil.walk_packages(kmlteach.__path__, "kmlteach."):
        if not m.name.startswith(_NOT_LIBRARY):
            out[m.name] = importlib.import_module(m.name)
    return out


def _public(mods) -> dict[str, object]:
    """``{path: function}``: the library's public functions and public methods (and
    ``__call__``) of its classes, each under the module that defines it."""
    out = {}
    for name, mod in mods.items():
        for key, val in vars(mod).items():
            if key.startswith("_"):
                continue
            inner = getattr(val, "py_func", val)
            if isinstance(inner, types.FunctionType) and inner.__module__ == name:
                out[f"{name}.{key}"] = val
            elif isinstance(val, type) and val.__module__ == name:
                for attr, fn in vars(val).items():
                    if isinstance(fn, types.FunctionType) and (
                        not attr.startswith("_") or attr == "__call__"
                    ):
                        out[f"{name}.{key}.{attr}"] = fn
    return out


def _ids(f) -> set[int]:
    return {id(f), id(getattr(f, "py_func", f))}


def _reach(fn, seen: set[int]) -> set[int]:
    """Every ``kmlteach`` function ``fn`` may call through the names of its globals, in any
    module, and the methods of the package's classes it names (more than a call can reach:
    a branch not taken counts too)."""
    inner = getattr(fn, "py_func", fn)
    code, glob = getattr(inner, "__code__", None), getattr(inner, "__globals__", None)
    if code is None or glob is None:
        return seen
    todo = [code]
    while todo:
        c = todo.pop()
        todo += [k for k in c.co_consts if isinstance(k, types.CodeType)]
        for n in c.co_names:
            v = glob.get(n)
            if v is None or id(v) in seen or not callable(v):
                continue
            if isinstance(v, type):
                if (v.__module__ or "").startswith("kmlteach."):
                    seen.add(id(v))
                    for w in vars(v).values():
                        if isinstance(w, types.FunctionType) and id(w) not in seen:
                            seen.add(id(w))
                            _reach(w, seen)
                continue
            if not (getattr(getattr(v, "py_func", v), "__module__", "") or "").startswith("kmlteach."):
                continue
            seen |= _ids(v)
            _reach(v, seen)
    return seen


def _tools() -> dict[str, set[str]]:
    """``{chapter: names}``: every name in the code cells of the chapter's notebook."""
    out = {}
    for nb in sorted((ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb")):
        text = "\n".join(
            "".join(c["source"])
            for c in json.loads(nb.read_text(encoding="utf-8"))["cells"]
            if c["cell_type"] == "code"
        )
        out[nb.name[:2]] = set(re.findall(r"[A-Za-z_]\w*", text))
    return out


@pytest.fixture(scope="module")
def library():
    mods = _modules()
    public = _public(mods)
    return public, {p: _reach(f, set()) for p, f in public.items()}


def _neutralised(chapter: str, exercise: str) -> dict[int, str]:
    """``{id: path}`` of what the child disarms for ``exercise``: its guards and the walk."""
    guards, spared = cases.guards(chapter), cases.spared(chapter)
    d = Disarmer(guards, (), spared)
    spare = d.spare_ids(exercise)
    out = {}
    for path in [p for p, ids in guards.items() if exercise in ids]:
        fn = guard_target(path, importlib.import_module)
        assert fn is not None, f"{exercise}: the guard {path} names nothing"
        out.update(dict.fromkeys(_ids(fn), path))
        for hp, h in d.helpers(fn, {id(fn), *spare}):
            out.update(dict.fromkeys(_ids(h), hp))
    return out


def test_every_spared_path_names_a_function_no_guard_of_its_exercise():
    importlib.import_module("kmlteach.kernels")
    for chapter in CHAPTERS:
        guards, spared = cases.guards(chapter), cases.spared(chapter)
        for path, ids in spared.items():
            assert guard_target(path, importlib.import_module) is not None, f"{path} names nothing"
            both = set(ids) & set(guards.get(path, ()))
            assert not both, f"{path} is both spared and guarded for {sorted(both)}"


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_the_tools_a_chapter_shows_work_while_its_exercises_are_graded(library, chapter):
    public, reach = library
    tools = _tools()
    shown = set().union(*(names for ch, names in tools.items() if ch <= chapter))
    exercises = sorted({e for ids in cases.guards(chapter).values() for e in ids})
    assert exercises or chapter not in tools
    broken = []
    for exercise in exercises:
        gone = _neutralised(chapter, exercise)
        named = set().union(
            *(
                _ids(guard_target(p, importlib.import_module))
                for p, ids in cases.guards(chapter).items()
                if exercise in ids
            )
        )
        for path, fn in public.items():
            parts = path.split(".")
            name = parts[-2] if parts[-1] == "__call__" else parts[-1]
            if name not in shown or _ids(fn) & named:
                continue
            via = sorted({gone[i] for i in (reach[path] | _ids(fn)) if i in gone})
            if via:
                broken.append(f"{exercise}: {path.removeprefix('kmlteach.')} <- {', '.join(via[:3])}")
    assert not broken, (
        "library functions a notebook shows that fail while an exercise is graded (spare the "
        "helper in cases.SHARED or with !path, or name the function in the exercise's GUARDS):\n"
        + "\n".join(broken)
    )


def _replaced(notebook: str, exercise: str, name: str, source: str) -> bytes:
    """The instructor notebook ``notebooks/<notebook>.ipynb`` with the cell defining ``name``
    holding ``source`` and its check line."""
    return dump(with_function(load(ROOT / "notebooks" / f"{notebook}.ipynb"), exercise, source, name))


HONEST = {  # honest code built on a library function the exercise may use
    "05-viterbi_tool": (
        "05-structured",
        "loss_augmented",
        "05.loss_augmented",
        "import numpy as np\nfrom kmlteach.structured import viterbi\n\n"
        "def loss_augmented(unary, pairwise, y_true):\n"
        "    aug = np.asarray(unary, dtype=float) + 1.0\n"
        "    aug[np.arange(len(y_true)), y_true] -= 1.0\n"
        "    return viterbi(aug, pairwise).labels",
    ),
    "07-counts_tool": (
        "07-bipartite",
        "f_beta",
        "07.fbeta",
        "from kmlteach import metrics\n\n"
        "def f_beta(y_score, y_true, theta, beta):\n"
        "    a, b, c, _ = metrics.confusion_counts(y_score, y_true, theta)\n"
        "    return (1 + beta**2) * a / ((1 + beta**2) * a + b + beta**2 * c)",
    ),
    "07-precision_tool": (
        "07-bipartite",
        "precision_at_k",
        "07.precision_at_k",
        "import numpy as np\nfrom kmlteach import metrics\n\n"
        "def precision_at_k(y_score, y_true, k):\n"
        "    theta = np.sort(np.asarray(y_score, dtype=float))[::-1][k - 1]\n"
        "    return metrics.precision(y_score, y_true, theta)",
    ),
    "07-permutation_tool": (  # the ranking's own sort (red team 1 of 2026-12-07: 0/2 before)
        "07-bipartite",
        "best_labelling",
        "07.fixed_ab",
        "import numpy as np\nfrom kmlteach import ranking\n\n"
        "def best_labelling(y_score, y_true, a, b):\n"
        "    order = np.argsort(ranking.permutation(-np.asarray(y_score, dtype=float)))\n"
        "    pos = [i for i in order if y_true[i] > 0][:a]\n"
        "    neg = [i for i in order if y_true[i] < 0][:b]\n"
        "    v = -np.ones(len(y_true))\n"
        "    v[pos + neg] = 1.0\n"
        "    return v",
    ),
}


def _disarmed_names(exercise: str) -> set[str]:
    """The names of the functions a probe's child grading ``exercise`` neutralises (its
    guards and their helpers: ``Disarmer.targets``), every algorithm module imported."""
    from kmlteach._jit import import_algorithm_modules
    from kmlteach.course.grade import cases
    from kmlteach.course.grade.inkernel.disarm import Disarmer

    import_algorithm_modules()
    chapter = exercise.partition(".")[0]
    disarmer = Disarmer(cases.guards(chapter), (), cases.spared(chapter))
    return {path.rpartition(".")[2] for _, path, _ in disarmer.targets(exercise)}


def _packed(answers: dict) -> list[tuple[str, dict[str, tuple[str, str, str]]]]:
    """The answers put together, as few notebooks as can hold them: ``[(notebook stem,
    {exercise: (answer name, function name, source)})]``, one answer an exercise in each, and
    no two of them binding the same top-level name besides their functions (two helpers
    ``_qf`` would overwrite one another). A submission is graded on every exercise of its
    chapter anyway (91 answers in 37 submissions, 2026-12-07)."""
    packs: list = []
    for key, (nb, name, exercise, source) in answers.items():
        tree = ast.parse(source).body
        names = {n.name for n in tree if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n.name != name}
        names |= {
            t.id for n in tree if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)
        }
        for stem, members, taken in packs:
            if stem == nb and exercise not in members and not names & taken:
                members[exercise] = (key, name, source)
                taken |= names
                break
        else:
            packs.append((nb, {exercise: (key, name, source)}, names))
    return [(stem, members) for stem, members, _ in packs]


def test_honest_code_on_the_library_s_tools_is_graded_and_an_answer_named(tmp_path):
    """Graded in the sandbox: the three honest submissions of the red team's finding H1 and
    after (each 0 on its exercise before: a helper the guard's walk took down) keep full
    marks; a 01.distance through ``svm.geometric_margins``, which returns the distances
    themselves, scores 0 on that exercise and its feedback names the function called; the
    red team's answers through library code left working (:data:`ANSWERS`) score 0."""
    import csv

    from kmlteach.course.grade import Limits, grade_folder

    subs = tmp_path / "subs"
    subs.mkdir()
    for sub, (nb, name, exercise, source) in HONEST.items():
        (subs / f"{sub}.ipynb").write_bytes(_replaced(nb, exercise, name, source))
    graded = {}  # answer name -> (submission, exercise)
    for i, (nb, members) in enumerate(_packed(ANSWERS)):
        notebook = load(ROOT / "notebooks" / f"{nb}.ipynb")
        for exercise, (key, name, source) in members.items():
            notebook = with_function(notebook, exercise, source, name)
            graded[key] = (f"answers-{i:02d}-{nb}", exercise)
        (subs / f"answers-{i:02d}-{nb}.ipynb").write_bytes(dump(notebook))
    answer = (
        "import numpy as np\nfrom kmlteach import svm\n\n"
        "def distance(x, w, b):\n"
        "    return float(abs(svm.geometric_margins(np.atleast_2d(x), np.ones(1), w, b)[0]))"
    )
    (subs / "01-margins_answer.ipynb").write_bytes(_replaced("01-svm", "01.distance", "distance", answer))
    results = {
        r.submission: r
        for r in grade_folder(subs, tmp_path / "gb.csv", limits=Limits(timeout=30), jobs=2, progress=None)
    }
    with open(tmp_path / "gb.csv", newline="", encoding="utf-8") as fh:
        rows = {r["submission"]: r for r in csv.DictReader(fh)}
    for sub in HONEST:
        assert rows[sub]["status"] == "ok" and rows[sub]["total"] == rows[sub]["max_total"], (
            sub,
            [(e.id, e.points, e.message) for e in results[sub].exercises if e.points < e.max_points],
            results[sub].diagnostics,  # the instructor's record of what went wrong
        )
    r = results["01-margins_answer"]
    dist = next(e for e in r.exercises if e.id == "01.distance")
    assert dist.points == 0 and "geometric_margins" in dist.message and "answer" in dist.message, dist.message
    assert (
        float(rows["01-margins_answer"]["total"])
        == float(rows["01-margins_answer"]["max_total"]) - dist.max_points
    )
    assert len(graded) == len(ANSWERS)
    for key, (sub, exercise) in graded.items():  # each at full or partial points before
        (e,) = [e for e in results[sub].exercises if e.id == exercise]
        # refused when called (a guard named: "reference"; a helper the walk disarmed: its
        # ReferenceUnavailable), or when imported: a figure's or widget's module is never
        # loaded in the kernel and its file is refused to the child, so the cell defining
        # the function fails ("missing")
        # or, for a kernel that calls a disarmed one: compiled in the child (its cache files
        # refused, grade/plan.py's reference_files), it fails on that callee (red team 10)
        untyped = re.search(r"Untyped global name '(\w+)'", str(e.first_visible_failure))
        refused = (
            e.verdict == "reference"
            or (e.verdict == "error" and "ReferenceUnavailable" in str(e.first_visible_failure))
            or (e.verdict == "missing" and re.search(r"kmlteach\.(widgets|plots)\.", ANSWERS[key][3]))
            or (e.verdict == "error" and untyped and untyped.group(1) in _disarmed_names(exercise))
        )
        assert e.points == 0 and refused, (key, e.points, e.verdict, e.message, e.first_visible_failure)


def test_a_figure_s_or_widget_s_guard_loads_no_drawing_library_into_the_kernel():
    """``load_references`` imports the modules of a chapter's guards into the grading kernel
    (a child may not read their files), but not a figure's or a widget's module: no
    exercise's code draws, and importing one loaded matplotlib (0.6 s of CPU a kernel); the
    child is refused the file all the same."""
    import subprocess
    import sys

    code = (
        "import sys\nfrom kmlteach.course.grade.inkernel.disarm import load_references\n"
        "load_references({'kmlteach.plots.ch06.plot_ranked_list': ['06.ndcg'],\n"
        "                 'kmlteach.widgets.ch02.boundary.grid_scores': ['02.gram'],\n"
        "                 'kmlteach.ranking.ndcg_loss': ['06.ndcg']})\n"
        "print(sorted(m for m in ('matplotlib', 'ipywidgets', 'kmlteach.plots.ch06',\n"
        "      'kmlteach.widgets.ch02.boundary', 'kmlteach.ranking.losses') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[-2] == "['kmlteach.ranking.losses']", out.stdout


def test_a_guarded_method_s_walk_takes_the_sibling_methods_it_calls():
    """A method's helpers include the methods of its own class it calls through ``self``:
    guarding ``DecisionTree.predict`` alone left ``apply`` (which it calls) working, and a
    hand-built one-split tree's ``apply`` scored 08.stump_error 2/2 (red team 6)."""
    fn = guard_target("kmlteach.ensembles.trees.DecisionTree.predict", importlib.import_module)
    walked = [p for p, _ in Disarmer({}, ()).helpers(fn, {id(fn)})]
    assert walked == [
        "kmlteach.ensembles.trees.DecisionTree.apply",
        "kmlteach.ensembles.trees._tree_apply_kernel",
    ]
