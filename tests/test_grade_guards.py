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
seven red teams' answers through library code the guards left working (another module's
helper, a widget's own computation, a class built by hand: :data:`ANSWERS`) score 0.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import re
import types
from pathlib import Path

import pytest
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


# red team 6: any function giving the quadratic form aᵀKa answers 03.mean_distance, 09.nu_dual
# and 09.rademacher alike; two such, as the student's own helper _qf(a, K)
_QF_TRANSLATE = (  # kernels.translate: a zero point's squared norm, once translated by Σ a_i ψ(x_i)
    "import numpy as np\n"
    "from kmlteach.kernels.rkhs import translate\n"
    "\n"
    "def _qf(a, K):\n"
    "    # aᵀKa: translate a zero point (k(z, .) = 0) by sum_i a_i psi(x_i): its square norm\n"
    "    m = len(a)\n"
    "    Kz = np.zeros((m + 1, m + 1)); Kz[:m, :m] = K\n"
    "    return float(translate(Kz, np.r_[a, 0.0])[m, m])\n"
    "\n"
)
_QF_GRADIENT = (  # svm.nu_smo._exact_gradient: Qα with signed weights
    "import numpy as np\n"
    "from kmlteach.svm.nu_smo import _exact_gradient\n"
    "\n"
    "def _qf(a, K):\n"
    "    a = np.asarray(a, float); s = np.where(a < 0, -1.0, 1.0)\n"
    "    G = np.zeros(len(a)); _exact_gradient(np.ascontiguousarray(K, dtype=float), s, np.abs(a), G)\n"
    "    return float(np.abs(a) @ G)\n"
    "\n"
)

ANSWERS = {  # red team of 2026-12-07: the answer through library code left working, 0 now
    "05-learn_kernel": (  # the structured learner's kernel augments and decodes (mode 1)
        "05-structured",
        "loss_augmented",
        "05.loss_augmented",
        "import numpy as np\nfrom kmlteach.structured.learning import _structured_learn_kernel\n\n"
        "def loss_augmented(unary, pairwise, y_true):\n"
        "    U = np.asarray(unary, dtype=float); r, q = U.shape\n"
        "    Wu = np.ascontiguousarray(U.T).copy(); Wp = np.array(pairwise, dtype=float)\n"
        "    before = Wu.copy(); y = np.asarray(y_true, dtype=np.int64)\n"
        "    _structured_learn_kernel(np.eye(r), y, np.array([0, r], dtype=np.int64), np.array([0], dtype=np.int64),\n"
        "                             float(r), q, 1, Wu, Wp, np.zeros((q, r)), np.zeros((q, q)))\n"
        "    d, out = Wu - before, y.copy()\n"
        "    for t in range(r):\n"
        "        neg = np.flatnonzero(d[:, t] < 0)\n"
        "        if neg.size:\n"
        "            out[t] = neg[0]\n"
        "    return out",
    ),
    "04-augmented_argmax": (  # another module's loss-augmented argmax (multiclass.psi)
        "04-multiclass",
        "hinge_subgradient",
        "04.hinge_subgradient",
        "import numpy as np\nfrom kmlteach.multiclass.psi import _augmented_argmax\n\n"
        "def hinge_subgradient(W, x, y, Delta):\n"
        "    s = np.asarray(W @ x, dtype=float)\n"
        "    yh = int(_augmented_argmax(np.ascontiguousarray(Delta, dtype=float), s, int(y)))\n"
        "    G = np.zeros(np.shape(W)); G[yh] += x; G[y] -= x\n"
        "    return G",
    ),
    "07-reliability_counts": (  # two bins of a reliability curve count a, b, c, d
        "07-bipartite",
        "confusion_counts",
        "07.confusion",
        "import numpy as np\nfrom kmlteach import metrics as MM\n\n"
        "def confusion_counts(y_score, y_true, theta):\n"
        "    pr = (np.asarray(y_score) >= theta).astype(float)\n"
        "    pt, pp, n = MM.reliability_curve(np.r_[pr, 0.0, 1.0], np.r_[y_true, -1.0, -1.0], n_bins=2)\n"
        "    n = n - 1\n"
        "    pos = np.rint(pt * (n + 1)).astype(int)\n"
        "    c, a = int(pos[0]), int(pos[1])\n"
        "    return a, int(n[1] - a), c, int(n[0] - c)",
    ),
    # red team 2 of 2026-12-07
    "02-widget_scores": (  # a widget's own Gaussian scores, one coordinate at a time
        "02-kernels",
        "gaussian_gram",
        "02.gram",
        "import numpy as np\nfrom kmlteach.widgets.ch02.boundary import grid_scores\n\n"
        "def gaussian_gram(X, Y, sigma):\n"
        "    X, Y = np.atleast_2d(np.asarray(X, float)), np.atleast_2d(np.asarray(Y, float))\n"
        "    n, m = len(X), len(Y)\n"
        "    K = np.ones((n, m))\n"
        "    for k in range(X.shape[1]):\n"
        "        g = np.r_[X[:, k], 0.0]\n"
        "        Xs = np.column_stack([Y[:, k], np.zeros(m)])\n"
        "        for j in range(m):\n"
        "            a = np.zeros(m); a[j] = 1.0\n"
        '            K[:, j] *= grid_scores("gaussian", {"sigma": sigma}, g, Xs, a)[n, :n]\n'
        "    return K",
    ),
    "03-gram_schmidt_norm": (  # the RKHS norm read back from Gram-Schmidt
        "03-kernels-rkhs",
        "mean_distance",
        "03.mean_distance",
        "import numpy as np\nfrom kmlteach.kernels.rkhs import gram_schmidt\n\n"
        "def mean_distance(K, mask):\n"
        "    K, m = np.asarray(K, float), np.asarray(mask, bool)\n"
        "    a = np.where(m, 1.0 / m.sum(), -1.0 / (~m).sum())\n"
        "    q = gram_schmidt(K, a[:, None])\n"
        "    j = int(np.argmax(np.abs(q[:, 0]))) if q.size else 0\n"
        "    return float((a[j] / q[j, 0]) ** 2) if q.size and q[j, 0] != 0 else 0.0",
    ),
    "09-smo_gradient": (  # Q alpha from the nu-SMO solver's module
        "09-theory",
        "nu_dual",
        "09.nu_dual",
        "import numpy as np\nfrom kmlteach.svm.nu_smo import _exact_gradient\n\n"
        "def nu_dual(alpha, K, y, nu, tol=1e-8):\n"
        "    a, y, K = np.asarray(alpha, float), np.asarray(y, float), np.ascontiguousarray(K, dtype=float)\n"
        "    n = len(a)\n"
        "    if not (np.all(a >= -tol) and np.all(a <= 1 + tol) and abs(a.sum() - n * nu) <= tol\n"
        "            and abs(a @ y) <= tol):\n"
        "        return np.inf\n"
        "    G = np.zeros(n); _exact_gradient(K, y, a, G)\n"
        "    return float(0.5 * a @ G)",
    ),
    # red team 3 of 2026-12-07
    "00-geometric_times_norm": (  # geometric margins times the norm of w
        "00-welcome",
        "margins",
        "00.margins",
        "import numpy as np\nfrom kmlteach.svm import geometric_margins\n\n"
        "def margins(X, y, w):\n"
        "    w = np.asarray(w, dtype=float)\n"
        "    n = float(np.linalg.norm(w))\n"
        "    if n == 0.0:\n"
        "        return np.zeros(len(y))\n"
        "    return geometric_margins(X, y, w) * n",
    ),
    "03-kpca_transform": (  # kernel PCA's transform on a hand-built result centres K
        "03-kernels-rkhs",
        "center_gram",
        "03.center",
        "import numpy as np\nfrom kmlteach.kernel_methods import KernelPCAResult, kernel_pca_transform\n\n"
        "def center_gram(K):\n"
        "    K = np.asarray(K, dtype=float)\n"
        "    m = K.shape[0]\n"
        "    col = K.mean(axis=0)\n"
        "    res = KernelPCAResult(np.ones(m), np.eye(m), np.eye(m), col, float(col.mean()))\n"
        "    return kernel_pca_transform(res, K)",
    ),
    "08-one_split_tree": (  # a hand-built one-split tree predicts as the stump
        "08-boosting",
        "stump_error",
        "08.stump_error",
        "import numpy as np\nfrom kmlteach.ensembles.trees import DecisionTree\n\n"
        "def stump_error(X, y, D, feature, threshold, sign):\n"
        "    X = np.asarray(X, dtype=float)\n"
        "    tree = DecisionTree(\n"
        "        classes=np.array([-float(sign), float(sign)]),\n"
        "        feature=np.array([int(feature), -1, -1], dtype=np.int64),\n"
        "        threshold=np.array([float(threshold), 0.0, 0.0]),\n"
        "        left=np.array([1, -1, -1], dtype=np.int64), right=np.array([2, -1, -1], dtype=np.int64),\n"
        "        value=np.array([0, 1, 0], dtype=np.int64), counts=np.zeros((3, 2)), impurity=np.zeros(3),\n"
        '        node_depth=np.array([0, 1, 1], dtype=np.int64), criterion="gini", n_features=X.shape[1])\n'
        "    return float(np.sum(np.asarray(D, dtype=float)[tree.predict(X) != np.asarray(y, dtype=float)]))",
    ),
    # red team 4 of 2026-12-07: a later chapter's generalisation answers an earlier exercise
    "04-chain_psi": (  # a chain of one letter: its feature map is the multivector one
        "04-multiclass",
        "psi",
        "04.multivector_psi",
        "import numpy as np\nfrom kmlteach.structured import psi as _chain_psi\n\n"
        "def psi(x, y, k):\n"
        "    x = np.asarray(x, dtype=float)\n"
        "    return _chain_psi(x[None, :], [int(y)], k)[: k * x.size]",
    ),
    "04-loss_augmented_viterbi": (  # one position: the loss-augmented argmax
        "04-multiclass",
        "ghinge",
        "04.generalized_hinge",
        "import numpy as np\nfrom kmlteach.structured import loss_augmented_viterbi as _lav\n\n"
        "def ghinge(W, x, y, Delta):\n"
        "    s = np.asarray(W, dtype=float) @ np.asarray(x, dtype=float)\n"
        "    k = s.size\n"
        "    res = _lav(s[None, :], np.zeros((k, k)), [int(y)], delta=np.asarray(Delta, dtype=float))\n"
        "    return float(res.score - s[int(y)])",
    ),
    "01-two_class_hinge": (  # the multiclass hinge with k = 2 and W = [-w/2, w/2]
        "01-svm",
        "hinge_and_subgradient",
        "01.hinge",
        "import numpy as np\nfrom kmlteach.multiclass import generalized_hinge, generalized_hinge_subgradient\n\n"
        "def hinge_and_subgradient(w, x, y):\n"
        "    w = np.asarray(w, dtype=float); x = np.asarray(x, dtype=float)\n"
        "    W = np.vstack([-w / 2, w / 2]); c = [1 if y > 0 else 0]\n"
        "    loss = float(np.ravel(generalized_hinge(W, x[None, :], c))[0])\n"
        "    if loss <= 0:\n"
        "        return 0.0, np.zeros_like(x)\n"
        "    G = np.asarray(generalized_hinge_subgradient(W, x[None, :], c)).reshape(2, -1)\n"
        "    return loss, (G[1] - G[0]) / 2",
    ),
    "04-one_vs_all_class": (  # the library's one-vs-all model around the student's learners
        "04-multiclass",
        "ova_predict",
        "04.one_vs_all",
        "import numpy as np\nfrom kmlteach.multiclass.reductions import OneVsAll\n\n"
        "def ova_predict(X, y, X_new, k, fit_binary):\n"
        "    X = np.asarray(X, dtype=float); y = np.asarray(y)\n"
        "    ests = [(lambda w: (lambda Z: Z @ w))(np.asarray(fit_binary(X, np.where(y == i, 1.0, -1.0)),\n"
        "             dtype=float)) for i in range(k)]\n"
        "    return OneVsAll(np.arange(k), ests, X.shape[1]).predict(X_new)",
    ),
    # red team 5 of 2026-12-07
    "05-viterbi_masked": (  # Viterbi's best score over a table that allows only y
        "05-structured",
        "score",
        "05.chain_score",
        "import numpy as np\nfrom kmlteach.structured import viterbi, unary_scores\n\n"
        "def score(x, y, W_unary, W_pair):\n"
        "    U = np.array(unary_scores(x, W_unary), dtype=float)\n"
        "    y = np.asarray(y)\n"
        "    mask = np.full(U.shape, -1e15)\n"
        "    mask[np.arange(len(y)), y] = 0.0\n"
        "    return float(viterbi(np.where(mask == 0.0, U, mask), W_pair).score)",
    ),
    "08-calibration_impurity": (  # the minimum conditional risk is each impurity, scaled
        "08-boosting",
        "split_gain",
        "08.split_gain",
        "import numpy as np\nfrom kmlteach.theory.calibration import conditional_risk, _golden_min\n\n"
        '_LOSS = {"error": ("soft_margin", 0.5), "gini": ("squared_soft_margin", 0.5),\n'
        '         "entropy": ("logistic", 1 / np.log(2.0))}\n\n'
        "def _imp(a, criterion):\n"
        "    loss, c = _LOSS[criterion]\n"
        "    H = _golden_min(lambda f: conditional_risk(loss, np.array([float(a)]), f),\n"
        "                    np.array([-50.0]), np.array([50.0]))\n"
        "    return c * float(H[0])\n\n"
        "def split_gain(y, left, criterion):\n"
        "    y = np.asarray(y, dtype=float); left = np.asarray(left, dtype=bool)\n"
        "    gain = _imp(np.mean(y > 0), criterion)\n"
        "    for side in (left, ~left):\n"
        "        if side.any():\n"
        "            gain -= side.sum() / len(y) * _imp(np.mean(y[side] > 0), criterion)\n"
        "    return float(gain)",
    ),
    "09-multiclass_margin": (  # the multiclass soft margin with k = 2 gives the derivative
        "09-theory",
        "norma_step",
        "09.norma_step",
        "import numpy as np\nfrom kmlteach.theory import multiclass_soft_margin\n\n"
        "def norma_step(coef, k_row, y_t, lam, eta):\n"
        "    coef = np.asarray(coef, dtype=float)\n"
        "    f = float(coef @ np.asarray(k_row, dtype=float))\n"
        "    ev = multiclass_soft_margin(np.array([[0.0, f]]), [1 if y_t > 0 else 0])\n"
        "    return np.r_[(1 - eta * lam) * coef, -eta * float(ev[1][0, 1])]",
    ),
    "09-rkhs_inner": (  # an RKHS inner product is alpha' Q alpha
        "09-theory",
        "nu_dual",
        "09.nu_dual",
        "import numpy as np\nfrom kmlteach.kernels.rkhs import rkhs_inner\n\n"
        "def nu_dual(alpha, K, y, nu, tol=1e-8):\n"
        "    a, y = np.asarray(alpha, float), np.asarray(y, float)\n"
        "    n = len(a)\n"
        "    if not (np.all(a >= -tol) and np.all(a <= 1 + tol) and abs(a.sum() - n * nu) <= tol\n"
        "            and abs(a @ y) <= tol):\n"
        "        return np.inf\n"
        "    v = a * y\n"
        "    return 0.5 * rkhs_inner(v, v, K)",
    ),
    "03-translate_mean_distance": (  # red team 6: kernels.translate: aᵀKa, a zero point's squared norm once translated
        "03-kernels-rkhs",
        "mean_distance",
        "03.mean_distance",
        _QF_TRANSLATE + "def mean_distance(K, mask):\n"
        "    K, m = np.asarray(K, float), np.asarray(mask, bool)\n"
        "    a = np.where(m, 1.0 / max(m.sum(), 1), -1.0 / max((~m).sum(), 1))\n"
        "    return _qf(a, K)",
    ),
    "03-center_traces": (  # the between-class part of the centred traces (found after red team 6)
        "03-kernels-rkhs",
        "mean_distance",
        "03.mean_distance",
        "import numpy as np\nfrom kmlteach.kernels import center\n\n"
        "def mean_distance(K, mask):\n"
        "    K, m = np.asarray(K, float), np.asarray(mask, bool)\n"
        "    p, q = m.sum(), (~m).sum(); n = p + q\n"
        "    t = lambda M: float(np.trace(center(M)))\n"
        "    return n / (p * q) * (t(K) - t(K[np.ix_(m, m)]) - t(K[np.ix_(~m, ~m)]))",
    ),
    "03-exact_gradient_mean_distance": (  # red team 6: svm.nu_smo._exact_gradient: Qα with signed weights gives aᵀKa
        "03-kernels-rkhs",
        "mean_distance",
        "03.mean_distance",
        _QF_GRADIENT + "def mean_distance(K, mask):\n"
        "    K, m = np.asarray(K, float), np.asarray(mask, bool)\n"
        "    a = np.where(m, 1.0 / max(m.sum(), 1), -1.0 / max((~m).sum(), 1))\n"
        "    return _qf(a, K)",
    ),
    "09-translate_nu_dual": (  # red team 6: kernels.translate: the dual's quadratic form
        "09-theory",
        "nu_dual",
        "09.nu_dual",
        _QF_TRANSLATE + "def nu_dual(alpha, K, y, nu, tol=1e-8):\n"
        "    a, y, K = np.asarray(alpha, float), np.asarray(y, float), np.asarray(K, float)\n"
        "    n = len(a)\n"
        "    if not (np.all(a >= -tol) and np.all(a <= 1 + tol) and abs(a.sum() - n * nu) <= tol\n"
        "            and abs(a @ y) <= tol):\n"
        "        return np.inf\n"
        "    return 0.5 * _qf(a * y, K)",
    ),
    "09-translate_rademacher": (  # red team 6: kernels.translate: the norms of Σ σ_i x_i / n
        "09-theory",
        "rademacher",
        "09.rademacher",
        _QF_TRANSLATE + "def rademacher(X, sigmas):\n"
        "    X = np.asarray(X, float); n = X.shape[0]; K = X @ X.T\n"
        "    est = np.mean([np.sqrt(max(_qf(np.asarray(s, float) / n, K), 0.0)) for s in np.atleast_2d(sigmas)])\n"
        "    return float(est), float(np.sqrt(max(_qf(np.ones(1), np.array([[np.trace(K)]])), 0.0)) / n)",
    ),
    "08-one_split_tree_apply": (  # red team 6: a hand-built one-split DecisionTree's apply
        "08-boosting",
        "stump_error",
        "08.stump_error",
        "import numpy as np\n"
        "from kmlteach.ensembles.trees import DecisionTree\n"
        "\n"
        "def stump_error(X, y, D, feature, threshold, sign):\n"
        "    X = np.asarray(X, dtype=float)\n"
        "    tree = DecisionTree(\n"
        "        classes=np.array([-1.0, 1.0]),\n"
        "        feature=np.array([int(feature), -1, -1], dtype=np.int64),\n"
        "        threshold=np.array([float(threshold), 0.0, 0.0]),\n"
        "        left=np.array([1, -1, -1], dtype=np.int64), right=np.array([2, -1, -1], dtype=np.int64),\n"
        "        value=np.array([0, 1, 0], dtype=np.int64), counts=np.zeros((3, 2)), impurity=np.zeros(3),\n"
        '        node_depth=np.array([0, 1, 1], dtype=np.int64), criterion="gini", n_features=X.shape[1])\n'
        "    pred = np.array([float(sign), float(sign), -float(sign)])[tree.apply(X)]\n"
        "    return float(np.sum(np.asarray(D, dtype=float)[pred != np.asarray(y, dtype=float)]))",
    ),
    "00-objective_per_row": (  # red team 6: svm.margins' objective kernel, a row at a time
        "00-welcome",
        "margins",
        "00.margins",
        "import numpy as np\n"
        "from kmlteach.svm.margins import _objective_kernel\n"
        "\n"
        "def margins(X, y, w):\n"
        "    X = np.asarray(X, float); y = np.asarray(y, float); w = np.ascontiguousarray(w, dtype=float)\n"
        "    out = np.empty(len(y))\n"
        "    for i in range(len(y)):\n"
        "        # hinge of one row with b = -M y_i: 1 - y_i<w,x_i> + M > 0, so the objective is linear\n"
        "        M = 1e6\n"
        "        h = _objective_kernel(w, -M * y[i], np.ascontiguousarray(X[i:i+1]), y[i:i+1].copy(), 0.0)\n"
        "        out[i] = 1.0 + M - h\n"
        "    return out",
    ),
    "06-ranked_plot_ndcg": (  # red team 6: plot_ranked_list's bars, ideal order and discount line
        "06-ranking",
        "ndcg_loss",
        "06.ndcg",
        "import numpy as np\n"
        "from kmlteach.plots.ch06 import plot_ranked_list\n"
        "\n"
        "def ndcg_loss(y_pred, y_true, k):\n"
        "    ax = plot_ranked_list(y_pred, y_true)\n"
        "    rel = np.array([b.get_height() for b in ax.patches[:len(y_true)]])\n"
        "    ideal = ax.lines[0].get_ydata(); D = ax.lines[1].get_ydata() / max(1.0, ideal.max())\n"
        "    D = np.where(np.arange(len(D)) < k, D, 0.0)\n"
        "    return 1 - (rel @ D) / (ideal @ D)",
    ),
    "06-ranked_data_ndcg": (  # red team 6: ranked_list_data's predicted and ideal orders
        "06-ranking",
        "ndcg_loss",
        "06.ndcg",
        "import numpy as np\n"
        "from kmlteach.plots.ch06 import ranked_list_data\n"
        "\n"
        "def ndcg_loss(y_pred, y_true, k):\n"
        "    _, rel, ideal = ranked_list_data(y_pred, y_true)\n"
        "    D = 1 / np.log2(np.arange(2, k + 2))\n"
        "    return 1 - (rel[:k] @ D) / (ideal[:k] @ D)",
    ),
    "02-kernel_sgd_multiclass": (  # red team 7: the §15.5 multiclass SGD kernel on two classes, ᾱ carried by tiny identity columns
        "02-kernels",
        "kernel_sgd_alpha",
        "02.kernel_sgd",
        "import numpy as np\n"
        "from kmlteach.multiclass.sgd import _multiclass_sgd_kernel\n"
        "\n"
        "def kernel_sgd_alpha(K, y, lam, idx):\n"
        "    K, y = np.asarray(K, float), np.asarray(y, float)\n"
        "    m = len(y); c = 1e-100\n"
        "    ev, U = np.linalg.eigh(K)\n"
        "    F = U * np.sqrt(np.maximum(ev, 0.0))\n"
        "    X = np.ascontiguousarray(np.hstack([F, c * np.eye(m)]))\n"
        "    yi = (y > 0).astype(np.int64)\n"
        "    D = np.array([[0.0, 1.0 - 1e-12], [1.0 - 1e-12, 0.0]])\n"
        "    S, _ = _multiclass_sgd_kernel(X, yi, D, np.asarray(idx, dtype=np.int64), 1.0, 2.0 * lam)\n"
        "    return (S[1] - S[0])[F.shape[1]:] / c",
    ),
    "04-mc_perceptron_sgdkernel": (  # red team 7: the same kernel with λ = 0, η = 1 and a tiny Δ: the perceptron scanned in order
        "04-multiclass",
        "batch_multiclass_perceptron",
        "04.multiclass_perceptron",
        "import numpy as np\n"
        "from kmlteach.multiclass.sgd import _multiclass_sgd_kernel\n"
        "\n"
        "def batch_multiclass_perceptron(X, y, k):\n"
        "    X = np.ascontiguousarray(X, dtype=float); y = np.asarray(y, dtype=np.int64)\n"
        "    D = 1e-300 * (1.0 - np.eye(k))\n"
        "    idx = np.tile(np.arange(len(y), dtype=np.int64), 5000)\n"
        "    _, W = _multiclass_sgd_kernel(X, y, D, idx, 1.0, 0.0)\n"
        "    return W",
    ),
    "01-perceptron_sgdkernel": (  # red team 7: the same kernel on two classes (a cyclic sweep: 2.4/3 before)
        "01-svm",
        "batch_perceptron",
        "01.perceptron",
        "import numpy as np\n"
        "from kmlteach.multiclass.sgd import _multiclass_sgd_kernel\n"
        "\n"
        "def batch_perceptron(X, y):\n"
        "    X, y = np.ascontiguousarray(X, dtype=float), np.asarray(y, float)\n"
        "    m = len(y)\n"
        "    D = np.array([[0.0, 1e-300], [1e-300, 0.0]])\n"
        "    idx = np.tile(np.arange(m, dtype=np.int64), 2000)\n"
        "    _, W = _multiclass_sgd_kernel(X, (y > 0).astype(np.int64), D, idx, 1.0, 0.0)\n"
        "    return (W[1] - W[0]) / 2",
    ),
    "02-kperceptron_sgdkernel": (  # red team 7: the same on a factor of K (2.25/3 before)
        "02-kernels",
        "kernel_perceptron",
        "02.kernel_perceptron",
        "import numpy as np\n"
        "from kmlteach.multiclass.sgd import _multiclass_sgd_kernel\n"
        "\n"
        "def kernel_perceptron(K, y):\n"
        "    K, y = np.asarray(K, float), np.asarray(y, float)\n"
        "    m = len(y); c = 1e-100\n"
        "    ev, U = np.linalg.eigh(K)\n"
        "    X = np.ascontiguousarray(np.hstack([U * np.sqrt(np.maximum(ev, 0.0)), c * np.eye(m)]))\n"
        "    D = np.array([[0.0, 1e-300], [1e-300, 0.0]])\n"
        "    idx = np.tile(np.arange(m, dtype=np.int64), 2000)\n"
        "    _, W = _multiclass_sgd_kernel(X, (y > 0).astype(np.int64), D, idx, 1.0, 0.0)\n"
        "    return (W[1] - W[0])[m:] / (2 * c)",
    ),
    "02-class_mean_translate": (  # red team 7: kernels.translate by −(μ₊ + μ₋)/2
        "02-kernels",
        "class_mean_scores",
        "02.class_mean",
        "import numpy as np\n"
        "from kmlteach.kernels.rkhs import translate\n"
        "\n"
        "def class_mean_scores(K_test, K, y):\n"
        "    K_test, K, y = np.asarray(K_test, float), np.asarray(K, float), np.asarray(y, float)\n"
        "    pos, neg = y > 0, y < 0\n"
        "    w = np.where(pos, 1.0 / pos.sum(), -1.0 / neg.sum())\n"
        "    c = -0.5 * np.where(pos, 1.0 / pos.sum(), 1.0 / neg.sum())\n"
        "    # <psi(z) - c, psi(x_j) - c> summed with the weights w (sum w = 0): f(z) = <psi(z) - c, mu+ - mu->\n"
        "    return translate(K, c, K_test) @ w",
    ),
    "02-class_mean_nusmo": (  # red team 7: svm.nu_smo._nu_smo_kernel with max_iter = 0 returns Qα₀
        "02-kernels",
        "class_mean_scores",
        "02.class_mean",
        "import numpy as np\n"
        "from kmlteach.svm.nu_smo import _nu_smo_kernel, _work_size\n"
        "\n"
        "def _qf(a, K):\n"
        "    # a'Ka: the nu-SMO kernel with no step allowed returns its gradient Q alpha at alpha0\n"
        "    a = np.asarray(a, float); K = np.asarray(K, float); n = len(a)\n"
        "    s = np.where(a < 0, -1.0, 1.0); o = np.argsort(s < 0, kind='stable')\n"
        "    Ko = np.ascontiguousarray(K[np.ix_(o, o)])\n"
        "    al, G, _, _ = _nu_smo_kernel(Ko, np.zeros(_work_size(n), dtype=np.float32), np.diag(Ko).copy(),\n"
        "                                 s[o], (s[o] < 0).astype(np.int64), np.abs(a)[o], 1e-8, 0)\n"
        "    return float(al @ G)\n"
        "\n"
        "def class_mean_scores(K_test, K, y):\n"
        "    K_test, K, y = np.asarray(K_test, float), np.asarray(K, float), np.asarray(y, float)\n"
        "    pos, neg = y > 0, y < 0\n"
        "    b = 0.5 * (_qf(neg / neg.sum(), K) - _qf(pos / pos.sum(), K))\n"
        "    return K_test[:, pos].mean(1) - K_test[:, neg].mean(1) + b",
    ),
    "02-ridge_kde": (  # red team 7: kernel dependency estimation solves (K + λmI) coef = E
        "02-kernels",
        "kernel_ridge",
        "02.kernel_ridge",
        "import numpy as np\n"
        "from kmlteach.kernel_methods import kernel_dependency_estimation\n"
        "\n"
        "def kernel_ridge(K, y, lam):\n"
        "    K, y = np.asarray(K, float), np.asarray(y, float)\n"
        "    m = len(y)\n"
        "    Kx = np.zeros((m + 1, m + 1)); Kx[:m, :m] = K; Kx[m, m] = 1.0\n"
        "    v = np.r_[y, -y.sum()]\n"
        "    if not np.any(v):\n"
        "        return np.zeros(m)\n"
        "    r = kernel_dependency_estimation(Kx, np.outer(v, v), lam * m / (m + 1), 1)\n"
        "    s = np.sign(r.pca.embedding[:, 0] @ v)\n"
        "    return s * r.coef[:m, 0]",
    ),
    "09-norma_novelty": (  # red team 7: theory.novelty's gradient is the hinge's derivative
        "09-theory",
        "norma_step",
        "09.norma_step",
        "import numpy as np\n"
        "from kmlteach.theory import novelty\n"
        "\n"
        "def norma_step(coef, k_row, y_t, lam, eta):\n"
        "    coef = np.asarray(coef, float)\n"
        "    f = float(coef @ np.asarray(k_row, float))\n"
        "    der = y_t * float(novelty([y_t * f]).gradient[0])\n"
        "    return np.r_[(1 - eta * lam) * coef, -eta * der]",
    ),
    "01-sgd_novelty": (  # red team 7: theory.novelty's gradient: the test y⟨w, x⟩ < 1
        "01-svm",
        "sgd_step",
        "01.sgd_step",
        "import numpy as np\n"
        "from kmlteach.theory import novelty\n"
        "\n"
        "def sgd_step(theta, t, lam, x, y):\n"
        "    theta = np.asarray(theta, float); x = np.asarray(x, float)\n"
        "    w = theta / (lam * t)\n"
        "    g = float(novelty([y * float(w @ x)]).gradient[0])\n"
        "    return w, theta - g * y * x",
    ),
    "03-fisher_logistic": (  # red team 7: theory.logistic's gradient is −sigmoid(θ)
        "03-kernels-rkhs",
        "fisher_bernoulli",
        "03.fisher",
        "import numpy as np\n"
        "from kmlteach.theory import logistic\n"
        "\n"
        "def fisher_bernoulli(X, theta):\n"
        "    X = np.asarray(X, float); theta = np.atleast_1d(np.asarray(theta, float))\n"
        "    p = -logistic(-theta, np.ones_like(theta)).gradient\n"
        "    U = p[None, :] - X\n"
        "    return U @ U.T",
    ),
    "08-round_conditional_risk": (  # red team 7: the minimum conditional risk gives Z (2/3 before)
        "08-boosting",
        "adaboost_round",
        "08.adaboost_round",
        "import numpy as np\n"
        "from kmlteach.theory.calibration import conditional_risk, _golden_min\n"
        "\n"
        "def adaboost_round(D, y, h):\n"
        "    D, y, h = (np.asarray(v, float) for v in (D, y, h))\n"
        "    eps = float(np.sum(D[h != y]))\n"
        "    seen = []\n"
        "    def risk(f):\n"
        "        v = conditional_risk('exponential', np.array([1.0 - eps]), f); seen.append((v[0], f[0])); return v\n"
        "    Z = float(_golden_min(risk, np.array([-40.0]), np.array([40.0]))[0])\n"
        "    alpha = min(seen)[1]\n"
        "    w = D * np.exp(-alpha * y * h)\n"
        "    return w / w.sum(), eps, float(alpha), Z",
    ),
}


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
    for sub, (nb, name, exercise, source) in {**HONEST, **ANSWERS}.items():
        (subs / f"{sub}.ipynb").write_bytes(_replaced(nb, exercise, name, source))
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
        )
    r = results["01-margins_answer"]
    dist = next(e for e in r.exercises if e.id == "01.distance")
    assert dist.points == 0 and "geometric_margins" in dist.message and "answer" in dist.message, dist.message
    assert (
        float(rows["01-margins_answer"]["total"])
        == float(rows["01-margins_answer"]["max_total"]) - dist.max_points
    )
    for sub, (_nb, _name, exercise, _source) in ANSWERS.items():  # each at full points before
        (e,) = [e for e in results[sub].exercises if e.id == exercise]
        # refused when called, or (a widget's module: never loaded in the kernel, its file
        # refused to the child) when imported
        assert e.points == 0 and e.verdict in ("reference", "missing", "error"), (sub, e.points, e.message)


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
