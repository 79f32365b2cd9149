"""Hidden cases of chapter 04 (multiclass)."""

from __future__ import annotations

import numpy as np

from .model import ChapterCases
from .model import HiddenCase as H

# the library functions that compute each exercise's answer, blocked while it is graded
# (paths below kmlteach: module.function or module.Class.method; guards audit, issue 24)
GUARDS = """
04.multivector_psi        multiclass.multivector_psi multiclass.psi.MultivectorPsi.__call__ multiclass.psi.MultivectorPsi.all multiclass.estimators.MulticlassSVM.fit multiclass.multiclass_svm multiclass.generalized_hinge multiclass.multiclass_perceptron multiclass.kesler_perceptron multiclass.conservative_perceptron multiclass.collins_perceptron multiclass.multiclass_svm_sgd structured.psi multiclass.kesler_embed structured.learning._structured_learn_kernel
04.generalized_hinge      multiclass.generalized_hinge theory.multiclass_soft_margin structured.taxonomy_hinge multiclass.estimators.MulticlassSVM.fit multiclass.multiclass_svm multiclass.multiclass_svm_sgd multiclass.psi._augmented_argmax structured.loss_augmented_viterbi !structured.viterbi.viterbi !structured.viterbi._viterbi_fill structured.learning._structured_learn_kernel
04.multiclass_perceptron  multiclass.multiclass_perceptron multiclass.kesler_perceptron multiclass.conservative_perceptron multiclass.collins_perceptron multiclass.sgd._multiclass_sgd_kernel multiclass.multiclass_svm_sgd multiclass.multiclass_svm multiclass.estimators.MulticlassSVM.fit structured.learning._structured_learn_kernel
04.one_vs_all             multiclass.one_vs_all multiclass.reductions.OneVsAll.decision_function multiclass.reductions.OneVsAll.decide !multiclass.reductions._binary_scores multiclass.ecoc.ecoc !multiclass.ecoc.ecoc_code
04.kesler                 multiclass.kesler_embed multiclass.multivector_psi multiclass.psi.MultivectorPsi.__call__ multiclass.psi.MultivectorPsi.all multiclass.estimators.MulticlassSVM.fit multiclass.multiclass_svm multiclass.generalized_hinge multiclass.multiclass_perceptron multiclass.kesler_perceptron multiclass.conservative_perceptron multiclass.collins_perceptron multiclass.multiclass_svm_sgd structured.psi structured.learning._structured_learn_kernel
04.hinge_subgradient      multiclass.generalized_hinge_subgradient theory.multiclass_soft_margin multiclass.estimators.MulticlassSVM.fit multiclass.multiclass_svm multiclass.generalized_hinge multiclass.multiclass_svm_sgd multiclass.psi._augmented_argmax structured.loss_augmented_viterbi !structured.viterbi.viterbi !structured.viterbi._viterbi_fill structured.learning._structured_learn_kernel
"""
CASES = ChapterCases(GUARDS)


def _lstsq_fit(X, t):
    return np.linalg.lstsq(X, t, rcond=None)[0]


def _mean_fit(X, t):
    """Another binary learner: the difference of the class means."""
    return X[t > 0].mean(axis=0) - X[t < 0].mean(axis=0)


def _zero_one(k):
    return 1.0 - np.eye(k)


def _random_costs(r, k):
    """A non-symmetric Δ: costs drawn from [0.5, 2), zero on the diagonal."""
    D = r.uniform(0.5, 2.0, size=(k, k))
    np.fill_diagonal(D, 0.0)
    return D


@CASES.hidden("04.multivector_psi")
def _psi(seed=401):
    r = np.random.default_rng(seed)
    return [
        H("k = 2, one feature", (np.array([-2.0]), 0, 2)),
        H("many classes", (r.normal(size=3), 7, 9)),
        H("first block", (r.normal(size=4), 0, 5)),
    ]


@CASES.hidden("04.generalized_hinge")
def _ghinge(seed=402):
    r = np.random.default_rng(seed)
    D = _random_costs(r, 4)
    return [
        H("two classes", (r.normal(size=(2, 3)), r.normal(size=3), 1, _zero_one(2))),
        H("non-symmetric Δ", (r.normal(size=(4, 2)), r.normal(size=2), 2, D)),
        H("ties between competitors", (np.zeros((3, 2)), np.ones(2), 1, _zero_one(3))),
    ]


@CASES.hidden("04.multiclass_perceptron")
def _perceptron(seed=403):
    r = np.random.default_rng(seed)
    out = []
    while len(out) < 3:
        k, m = 3 + len(out), 10 + 5 * len(out)
        Wt = r.normal(size=(k, 3))
        X = r.normal(size=(m, 3)) * 2
        y = np.argmax(X @ Wt.T, axis=1)
        if len(np.unique(y)) == k:
            out.append(H(f"{k} classes in 3 dimensions", (X, y, k)))
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]])
    out.append(H("duplicate points", (X, np.array([0, 1, 0]), 2)))
    return out


@CASES.hidden("04.one_vs_all")
def _ova(seed=404):
    r = np.random.default_rng(seed)
    k = 5
    C = r.normal(scale=4, size=(k, 2))
    y = np.arange(40) % k
    X = np.c_[C[y] + r.normal(size=(40, 2)), np.ones(40)]
    Xn = np.c_[r.normal(scale=4, size=(12, 2)), np.ones(12)]
    return [
        H("five classes", (X, y, Xn, k, _lstsq_fit)),
        H("another binary learner", (X, y, Xn, k, _mean_fit)),
    ]


# kesler_embed's rows are the answer (red team 5: 1/1 with nothing implemented)
@CASES.hidden("04.kesler")
def _kesler(seed=405):
    r = np.random.default_rng(seed)
    return [H("k = 2, last label", (r.normal(size=3), 1, 2)), H("many classes", (r.normal(size=2), 4, 7))]


def _worst(W, x, D):
    """The case (W, x, y, D) with y the worst-scored label, so that ŷ ≠ y."""
    return W, x, int(np.argmin(W @ x)), D


@CASES.hidden("04.hinge_subgradient")
def _subgradient(seed=406):
    r = np.random.default_rng(seed)
    D6 = _random_costs(r, 6)
    return [
        H(
            "ŷ = y: zero subgradient",
            (np.array([[0.0, 0.0], [4.0, 1.0], [0.0, -1.0]]), np.array([1.0, 0.5]), 1, _zero_one(3)),
        ),
        H("two classes", _worst(r.normal(size=(2, 4)), r.normal(size=4), _zero_one(2))),
        H("ties between competitors: smallest index", (np.zeros((4, 3)), np.ones(3), 2, _zero_one(4))),
        H(
            "tie between a smaller label and the true one",
            (np.array([[0.0, 0.0], [1.0, 0.0], [-5.0, 0.0]]), np.array([1.0, 0.0]), 1, _zero_one(3)),
        ),
        H("non-symmetric Δ, k = 6", _worst(r.normal(size=(6, 3)), r.normal(size=3), D6)),
        H(
            "W = 0, non-symmetric Δ: the costs alone pick ŷ",
            (
                np.zeros((3, 2)),
                np.array([1.0, 2.0]),
                0,
                np.array([[0.0, 1.0, 3.0], [2.0, 0.0, 1.0], [0.5, 2.0, 0.0]]),
            ),
        ),
        H("d = 1", _worst(r.normal(size=(3, 1)), np.array([-1.5]), _zero_one(3))),
        H("many classes, k = 10, d = 20", (r.normal(size=(10, 20)), r.normal(size=20), 7, _zero_one(10))),
    ]
