"""Hidden cases of chapter 03 (kernels in the RKHS and for structured data)."""

from __future__ import annotations

import numpy as np

from kmlteach.kernels import gram

from .model import ChapterCases
from .model import HiddenCase as H

# the library functions that compute each exercise's answer, blocked while it is graded
# (paths below kmlteach: module.function or module.Class.method; guards audit, issue 24)
GUARDS = """
03.center         kernels.center kernels.translate kernel_methods.estimators.KernelPCA.fit kernel_methods.kernel_dependency_estimation kernel_methods.kernel_pca kernel_methods.kernel_pca_transform kernel_methods.estimators.KernelPCA.transform kernel_methods.kde_predict
03.ngram          structured_kernels.ngram_kernel plots.ch03.ngram_table structured_kernels.convolution_kernel plots.ch03.plot_ngram_counts structured_kernels.ngram_features
03.diffusion      structured_kernels.diffusion_kernel structured_kernels.diffusion_kernel_limit
03.kpca           kernel_methods.kernel_pca kernels.center kernel_methods.estimators.KernelPCA.fit kernel_methods.kernel_dependency_estimation kernel_methods.kernel_pca_transform kernel_methods.estimators.KernelPCA.transform kernel_methods.kde_predict
03.fisher         structured_kernels.fisher_kernel structured_kernels.fisher_score structured_kernels.fisher_information theory.logistic
03.mean_distance  kernels.rkhs_norm kernels.rkhs_inner kernel_methods.class_mean_classifier kernels.gram_schmidt kernels.project kernels.deflate kernels.translate svm.nu_smo._exact_gradient svm.nu_svm svm.one_class_svm kernels.center kernel_methods.kernel_pca kernel_methods.estimators.KernelPCA.fit kernel_methods.kernel_dependency_estimation svm.nu_smo._nu_smo_kernel svm.dcd._dcd_gap svm.soft_svm svm.estimators.SoftSVM.fit svm.min_norm._wolfe_kernel svm.hard_svm svm.estimators.HardSVM.fit
"""
CASES = ChapterCases(GUARDS)


@CASES.hidden("03.center")
def _center(seed=301):
    r = np.random.default_rng(seed)
    X = r.normal(size=(5, 3))
    return [
        H("m = 1", (np.array([[4.0]]),)),
        H("duplicate points", (gram("linear", np.vstack([X, X[:2]])),)),
        H("d > m", (gram("linear", r.normal(size=(3, 8))),)),
        H("already centred", (gram("linear", X - X.mean(0)),)),
    ]


@CASES.hidden("03.ngram")
def _ngram(seed=None):
    out = [
        H("no common n-gram", ("abc", "xyz", 1)),
        H("both empty", ("", "", 2)),
        H("repeated letters", ("aaaaaa", "aaa", 2)),
        H("n = length", ("kernel", "kernel", 6)),
        H("long strings", ("the quick brown fox jumps over the lazy dog" * 3, "brown dogs jump", 3)),
    ]
    if seed is not None:  # a student's own cases (grade --secret): random strings too
        r = np.random.default_rng(seed)
        words = ["".join(r.choice(list("abcde"), size=int(r.integers(8, 30)))) for _ in range(2)]
        out.append(H("random strings", (words[0], words[1], int(r.integers(1, 4)))))
    return out


@CASES.hidden("03.diffusion")
def _diffusion(seed=303):
    r = np.random.default_rng(seed)
    star = np.zeros((5, 5))
    star[0, 1:] = star[1:, 0] = 1.0
    A = np.triu((r.random((7, 7)) < 0.4).astype(float), 1)
    return [
        H("one node", (np.zeros((1, 1)), 1.0)),
        H("star graph", (star, 0.3)),
        H("small β", (star, 0.01)),
        H("random graph", (A + A.T, 1.5)),
    ]


@CASES.hidden("03.kpca")
def _kpca(seed=304):
    r = np.random.default_rng(seed)
    return [
        H("p = 1, polynomial kernel", (gram("polynomial", r.normal(size=(7, 2)), degree=2), 1)),
        H("d > m", (gram("linear", r.normal(size=(5, 9))), 2)),
        H("larger sample", (gram("gaussian", r.normal(size=(25, 3)), sigma=1.5), 3)),
    ]


@CASES.hidden("03.fisher")
def _fisher(seed=305):
    r = np.random.default_rng(seed)
    return [
        H("θ = 0", ((r.random((4, 3)) < 0.5).astype(float), np.zeros(3))),
        H("identical rows", (np.ones((3, 2)), np.array([0.5, -1.0]))),
        H("large |θ|", ((r.random((5, 2)) < 0.5).astype(float), np.array([6.0, -6.0]))),
    ]


@CASES.hidden("03.mean_distance")
def _mean_distance(seed=306):
    r = np.random.default_rng(seed)
    X = r.normal(size=(7, 2))
    Xs = r.normal(size=(5, 3))
    return [
        H("|A| = 1", (gram("gaussian", X, sigma=1.0), np.arange(7) == 4)),
        H("|B| = 1", (gram("gaussian", X, sigma=0.3), np.arange(7) != 0)),
        H("interleaved mask", (gram("polynomial", X, degree=2), np.arange(7) % 2 == 0)),
        H(
            "the same sample twice: distance 0",
            (gram("gaussian", np.vstack([Xs, Xs]), sigma=1.0), np.arange(10) < 5),
        ),
        H(
            "linear kernel, d > m",
            (gram("linear", r.normal(size=(6, 11))), np.array([True, False, False, True, True, False])),
        ),
        H(
            "larger sample, m = 120",
            (gram("gaussian", r.normal(size=(120, 2)), sigma=1.5), r.random(120) < 0.3),
        ),
    ]
