"""Hidden cases of chapter 05 (structured prediction)."""

from __future__ import annotations

import numpy as np

from .model import ChapterCases
from .model import HiddenCase as H

# the library functions that compute each exercise's answer, blocked while it is graded
# (paths below kmlteach: module.function or module.Class.method; guards audit, issue 24)
GUARDS = """
05.chain_score         structured.chain_score structured.viterbi._path_score structured.psi structured.brute_force_argmax structured.viterbi structured.loss_augmented_viterbi structured.structured_perceptron structured.structured_sgd structured.ChainModel.predict structured.predict structured.letter_error widgets.ch05.viterbi.max_marginals widgets.ch05.viterbi.pair_gap structured_kernels.graphs._shortest_paths_kernel structured_kernels.shortest_paths structured_kernels.shortest_path_kernel
05.viterbi             structured.viterbi structured.hmm_viterbi structured.brute_force_argmax structured.ChainModel.predict structured.structured_sgd structured.structured_perceptron structured.predict structured.letter_error structured.loss_augmented_viterbi widgets.ch05.viterbi.max_marginals widgets.ch05.viterbi.pair_gap structured_kernels.graphs._shortest_paths_kernel structured_kernels.shortest_paths structured_kernels.shortest_path_kernel
05.loss_augmented      structured.loss_augmented_viterbi structured.hmm_viterbi structured.brute_force_argmax !structured.viterbi.viterbi !structured.viterbi._viterbi_fill structured.structured_sgd structured.structured_perceptron structured.learning._structured_learn_kernel widgets.ch05.viterbi.max_marginals widgets.ch05.viterbi.pair_gap structured_kernels.graphs._shortest_paths_kernel structured_kernels.shortest_paths structured_kernels.shortest_path_kernel
05.score_coefficients  structured.psi structured.chain_score multiclass.multivector_psi structured.structured_perceptron structured.structured_sgd structured.learning._structured_learn_kernel multiclass.kesler_embed multiclass.generalized_hinge_subgradient multiclass.sgd._multiclass_sgd_kernel multiclass.estimators.MulticlassSVM.fit multiclass.generalized_hinge multiclass.multiclass_svm_sgd multiclass.multiclass_svm
"""
CASES = ChapterCases(GUARDS)


@CASES.hidden("05.chain_score")
def _score(seed=501):
    r = np.random.default_rng(seed)
    return [
        H(
            "one label",
            (r.random((4, 3)), np.zeros(4, dtype=np.int64), r.normal(size=(1, 3)), r.normal(size=(1, 1))),
        ),
        H(
            "long sequence",
            (r.random((30, 5)), r.integers(0, 4, 30), r.normal(size=(4, 5)), r.normal(size=(4, 4))),
        ),
    ]


@CASES.hidden("05.viterbi")
def _viterbi(seed=502):
    r = np.random.default_rng(seed)
    return [
        H("one position", (r.normal(size=(1, 4)), r.normal(size=(4, 4)))),
        H("one label", (r.normal(size=(5, 1)), r.normal(size=(1, 1)))),
        H("long sequence", (r.normal(size=(40, 6)), r.normal(size=(6, 6)))),
        H(
            "strong transitions",
            (r.normal(size=(6, 3)) * 0.1, np.array([[5.0, -5, -5], [-5, -5, 5], [5, -5, -5]])),
        ),
    ]


@CASES.hidden("05.loss_augmented")
def _loss_aug(seed=503):
    r = np.random.default_rng(seed)
    return [
        H("one position", (r.normal(size=(1, 3)), r.normal(size=(3, 3)), np.array([2]))),
        H("long sequence", (r.normal(size=(25, 4)), r.normal(size=(4, 4)), r.integers(0, 4, 25))),
        H("large scores: loss irrelevant", (10 * np.eye(3), np.zeros((3, 3)), np.array([2, 1, 0]))),
    ]


@CASES.hidden("05.score_coefficients")
def _coef(seed=504):
    r = np.random.default_rng(seed)
    return [
        H("unused labels: zero rows", (r.random((6, 3)), np.array([0, 2, 2, 0, 2, 0]), 6)),
        H("a repeated bigram", (r.random((8, 2)), np.array([1, 0, 1, 0, 1, 0, 1, 0]), 2)),
        H("q = 1", (r.random((4, 2)), np.zeros(4, dtype=np.int64), 1)),
        H("one feature, long sequence", (r.random((50, 1)), r.integers(0, 5, 50), 5)),
        H("two letters, the last label", (np.array([[1.0, -2.0], [0.5, 3.0]]), np.array([3, 3]), 4)),
    ]
