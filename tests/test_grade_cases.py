"""The hidden cases and guards of ``kmlteach/course/grade/cases`` (no kernel, except the
last test): well formed, different from the visible cases, and able to catch mistakes
that the visible cases let through."""

from __future__ import annotations

import copy
import importlib
import types

import numpy as np
import pytest
from grade_submissions import ROOT, dump, load

from kmlteach.course.grade.cases import _module, hidden_cases
from kmlteach.course.grade.codec import decode_result
from kmlteach.course.grade.plan import book_exercises, chapter_plan

CHAPTERS = sorted(c for c in book_exercises() if _module(c) is not None)


def _walk(v):
    yield v
    if isinstance(v, (list, tuple)):
        for e in v:
            yield from _walk(e)
    elif isinstance(v, dict):
        for e in v.values():
            yield from _walk(e)


def _same(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (
            isinstance(a, np.ndarray)
            and isinstance(b, np.ndarray)
            and a.shape == b.shape
            and bool(np.array_equal(a, b))
        )
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_hidden_cases_are_well_formed_and_differ_from_the_visible_ones(chapter):
    from kmlteach.exercises import get

    mod = _module(chapter)
    ids = {e["id"] for e in book_exercises()[chapter]}
    assert set(mod.CASES.generators) == ids, "every exercise of the chapter has hidden cases, no other"
    assert set(mod.CASES.guards) <= ids
    for ex_id in sorted(ids):
        ex = get(ex_id)
        visible = [(c.args, c.kwargs) for c in ex.all_cases()]
        cases = hidden_cases(ex_id)
        assert len(cases) >= 2, ex_id
        again = hidden_cases(ex_id)  # seeded: the same every time
        for h, h2 in zip(cases, again):
            assert h.kind and h.kind == h2.kind and _same(h.args, h2.args), (ex_id, h.kind)
            # numpy scalars would reach the kernel as a tag its decoder does not read
            assert not any(isinstance(v, np.generic) for v in _walk((h.args, h.kwargs))), (ex_id, h.kind)
            assert not any(_same((h.args, h.kwargs), (a, k)) for a, k in visible), (ex_id, h.kind)
            out = ex.reference(*copy.deepcopy(h.args), **copy.deepcopy(h.kwargs))
            assert not any(
                isinstance(v, (float, np.floating, np.ndarray)) and np.any(np.isnan(v)) for v in _walk(out)
            ), (ex_id, h.kind)  # allclose() says nan != nan


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_partial_credit_exactly_where_the_cases_are_independent(chapter):
    """docs/grading.md: an exercise awards partial credit when its cases are independent,
    each a call on inputs of its own whose answer says something by itself. Partial credit
    counts hidden cases only (a visible case's answer is public), so the rule looks at
    them: where a constant answer (the answer of one of its cases, +inf, 0, True, False)
    already passes more than a third of the hidden cases, they only discriminate together
    (a feasibility test's +inf, an empty overlap's 0, a tie's error): all or nothing."""
    from kmlteach.exercises import get

    def passes(hidden, ex, answer):
        n = 0
        for c in hidden:
            try:
                n += bool(ex.compare(c.expected, ex.prepare(answer)))
            except Exception:
                pass
        return n

    for e in chapter_plan(chapter).exercises:
        ex = get(e.id)
        hidden = [c for c in e.cases if not c.visible]
        constants = [c.expected for c in e.cases] + [float("inf"), 0.0, True, False]
        best = max(passes(hidden, ex, a) for a in constants)
        assert len(e.cases) > 1 and hidden
        assert e.partial == (3 * best <= len(hidden)), (e.id, best, len(hidden))


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_guards_name_library_functions(chapter):
    """Each guard names a function of the library (``module.function``, private ones too:
    the guards audit scored through ``_distance_gram`` and ``_path_score``) or a method of
    one of its classes (``module.Class.method``), resolved as the grader's kernel does."""
    from kmlteach.course.grade.inkernel.disarm import guard_target

    for _ex_id, paths in _module(chapter).CASES.guards.items():
        for path in paths:
            assert path.startswith("kmlteach.") and ".course." not in path, path
            fn = guard_target(path, importlib.import_module)
            # what neutralise() can disarm: a function or a Numba dispatcher of one (a
            # staticmethod, property or class would stay usable without a sign: red team 7)
            assert isinstance(getattr(fn, "py_func", fn), types.FunctionType), path


def _fails_only_hidden(ex_id: str, fn) -> list[str]:
    """The kinds of the hidden cases ``fn`` fails; asserts it passes every visible case.
    Arguments are decoded from what the grader sends to the kernel."""
    from kmlteach.exercises import get

    ex = get(ex_id)
    plan = next(e for e in chapter_plan(ex_id[:2]).exercises if e.id == ex_id)
    failed = []
    for c in plan.cases:
        args, kwargs = decode_result(c.encoded[0]), decode_result(c.encoded[1])
        ok = bool(ex.compare(c.expected, ex.prepare(fn(*args, **kwargs))))
        assert ok or not c.visible, (ex_id, c.label)
        if not ok:
            failed.append(c.label)
    return failed


def test_hidden_cases_catch_what_the_visible_ones_let_through():
    # plausible answers that the visible cases catch too (a test f < 1 without the label in
    # 09.norma_step, ≤ 1 in 02.kernel_sgd) are in test_exercises_plausible.py
    def nu_property(alpha, yf, rho, tol=1e-6):  # ignores the keyword tol
        return float(np.mean(yf < rho - 1e-6)), float(np.mean(alpha > 1e-6))

    def nu_dual(alpha, K, y, nu, tol=1e-8):  # ignores the keyword tol
        n = len(alpha)
        if (
            alpha.min() < -1e-8
            or alpha.max() > 1 + 1e-8
            or abs(alpha.sum() - n * nu) > 1e-8
            or abs(alpha @ y) > 1e-8
        ):
            return np.inf
        return 0.5 * (alpha * y) @ K @ (alpha * y)

    def oneclass_value(alpha, X, rho, sigma, Z):  # forgets ρ when Z = X's shape
        D2 = ((Z[:, None, :] - X[None, :, :]) ** 2).sum(-1)
        f = np.exp(-D2 / (2 * sigma)) @ alpha
        return f if Z.shape == X.shape else f - rho

    def best_alpha(w_correct, w_wrong, *rest, **kw):  # w_abstain only by position
        return 0.5 * np.log(w_correct / w_wrong), (rest[0] if rest else 0.0) + 2 * np.sqrt(
            w_correct * w_wrong
        )

    def training_bound(epsilons):  # clips ε to (0, ½]
        e = np.clip(np.asarray(epsilons), 1e-3, 0.5)
        return np.prod(2 * np.sqrt(e * (1 - e))), np.exp(-2 * np.sum((0.5 - e) ** 2))

    def hinge_subgradient(W, x, y, Delta):  # zero whenever the loss is 0
        s = W @ x
        yhat = int(np.argmax(Delta[:, y] + s - s[y]))
        G = np.zeros(W.shape)
        if Delta[yhat, y] + s[yhat] - s[y] > 0:
            G[yhat] += x
            G[y] -= x
        return G

    assert "tol by keyword" in _fails_only_hidden("09.nu_property", nu_property)
    assert "tol by keyword" in _fails_only_hidden("09.nu_dual", nu_dual)
    assert "Z = X: values at the training points" in _fails_only_hidden("09.oneclass_value", oneclass_value)
    assert _fails_only_hidden("04.hinge_subgradient", hinge_subgradient) == [
        "tie between a smaller label and the true one"
    ]
    assert _fails_only_hidden("08.best_alpha", best_alpha) == ["w_abstain by keyword"]
    assert {"ε > ½ in one round", "a perfect round (ε = 0)", "tiny ε"} <= set(
        _fails_only_hidden("08.training_bound", training_bound)
    )


def test_calling_a_guarded_function_scores_zero(tmp_path):
    """Chapter 09's guards reach the kernel: a one-class value computed with the library's
    ``gram`` scores 0 (and says why); the other exercises keep their points."""
    from kmlteach.course.grade import Limits, grade_folder

    nb = load(ROOT / "notebooks" / "09-theory.ipynb")
    for cell in nb["cells"]:
        src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if cell["cell_type"] == "code" and "def oneclass_value(" in src:
            cell["source"] = (
                "from kmlteach.kernels import gram\n\n\n"
                "def oneclass_value(alpha, X, rho, sigma, Z):\n"
                "    return gram('gaussian', Z, X, sigma=sigma) @ alpha - rho\n\n\n"
                "check('09.oneclass_value', oneclass_value)\n"
            )
            break
    else:
        raise AssertionError("no oneclass_value cell in notebooks/09-theory.ipynb")
    (tmp_path / "subs").mkdir()
    (tmp_path / "subs" / "gram.ipynb").write_bytes(dump(nb))
    results = grade_folder(tmp_path / "subs", tmp_path / "gb.csv", limits=Limits(timeout=30), progress=None)
    ex = {e.id: e for e in results[0].exercises}
    assert ex["09.oneclass_value"].points == 0 and "kmlteach.kernels.gram" in ex["09.oneclass_value"].message
    assert results[0].total == results[0].max_total - 2


# routes of the guards audit (redteam "guards", issue 24): each computed its exercise's
# answer with library code no guard named before — a method of a class, a private function
# of another module, a jitted callee of the guarded function
LIBRARY_ROUTES = {
    "04.kesler": (
        "04-multiclass",
        "def kesler_vectors(x, i, k):\n"
        "    from kmlteach.multiclass.psi import MultivectorPsi\n"
        "    x = np.asarray(x, float)\n"
        "    P = MultivectorPsi(k, x.shape[0]).all(x)\n"
        "    return np.delete(P[i] - P, i, axis=0)\n",
        "MultivectorPsi.all",
    ),
    "02.gram": (
        "02-kernels",
        "def gaussian_gram(X, Y, sigma):\n"
        "    from kmlteach.kernels.distance import _distance_gram\n"
        "    X, Y = np.ascontiguousarray(X, dtype=float), np.ascontiguousarray(Y, dtype=float)\n"
        "    return _distance_gram(X, Y, False, 2, 1.0 / (2.0 * sigma))\n",
        "_distance_gram",
    ),
    "08.split_gain": (
        "08-boosting",
        "def split_gain(y, left, criterion):\n"
        "    from kmlteach.ensembles.trees import _impurity\n"
        "    y, left = np.asarray(y, float), np.asarray(left, bool)\n"
        "    crit = {'gini': 0, 'entropy': 1, 'error': 2}[criterion]\n"
        "    def C(part):\n"
        "        c = np.array([np.sum(part < 0), np.sum(part > 0)], dtype=np.float64)\n"
        "        return float(_impurity(c, float(c.sum()), crit))\n"
        "    g = C(y)\n"
        "    for side in (left, ~left):\n"
        "        if side.any():\n"
        "            g -= side.sum() / len(y) * C(y[side])\n"
        "    return g\n",
        "_impurity",
    ),
}


def test_library_routes_of_the_guards_audit_score_zero(tmp_path):
    """The instructor notebook with one exercise computed through the library: that exercise
    scores 0 and names the guarded function; every other exercise keeps its points."""
    import re

    from kmlteach.course.grade import Limits, grade_folder

    (tmp_path / "subs").mkdir()
    for ex_id, (stem, source, _) in LIBRARY_ROUTES.items():
        nb = load(ROOT / "notebooks" / f"{stem}.ipynb")
        for cell in nb["cells"]:
            src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            m = re.search(r"check\(\s*[\"']" + re.escape(ex_id) + r"[\"']\s*,\s*(\w+)", src)
            if cell["cell_type"] == "code" and m and f"def {m.group(1)}(" in src:
                name = re.match(r"def (\w+)", source).group(1)
                cell["source"] = f"{source}\n\n{m.group(1)} = {name}\ncheck({ex_id!r}, {m.group(1)})\n"
                break
        else:
            raise AssertionError(f"no cell of {ex_id} in {stem}")
        (tmp_path / "subs" / f"{ex_id}.ipynb").write_bytes(dump(nb))
    results = grade_folder(
        tmp_path / "subs", tmp_path / "gb.csv", limits=Limits(timeout=30), progress=None, jobs=2
    )
    assert len(results) == len(LIBRARY_ROUTES)
    for r in results:
        ex_id = next(k for k in LIBRARY_ROUTES if k in str(r.submission))
        ex = {e.id: e for e in r.exercises}
        assert ex[ex_id].points == 0 and LIBRARY_ROUTES[ex_id][2] in ex[ex_id].message, (
            ex_id,
            ex[ex_id].message,
        )
        assert r.total == r.max_total - ex[ex_id].max_points, (ex_id, r.total, r.max_total)
