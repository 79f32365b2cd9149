"""Hidden cases of chapter 02 (kernels). Seeds differ from the visible cases'."""

from __future__ import annotations

import numpy as np

from kmlteach.kernels import gram

from .model import ChapterCases
from .model import HiddenCase as H

# the library functions that compute each exercise's answer, blocked while it is graded
# (paths below kmlteach: module.function or module.Class.method; guards audit, issue 24)
GUARDS = """
02.poly_features      kernels.polynomial_features kernels.gram kernels.similarity kernels.evaluation.kernel_value kernel_methods.cross_validate_kernel_svm kernels.nystroem kernels.make_kernel kernels.exponential_taylor_gram online.NormaResult.decision_function kernels.polynomial_feature_names
02.gram               kernels.gram kernels.distance._distance_gram kernels.evaluation.kernel_value kernel_methods.estimators.KernelSVM.fit kernel_methods.cross_validate_kernel_svm kernel_methods.kernel_sgd_svm kernels.nystroem kernels.make_kernel kernels.exponential_taylor_gram online.NormaResult.decision_function kernels.similarity widgets.ch02.boundary.grid_scores
02.kernel_perceptron  kernel_methods.kernel_perceptron svm.perceptron multiclass.multiclass_perceptron multiclass.sgd._multiclass_sgd_kernel structured.learning._structured_learn_kernel multiclass.estimators.MulticlassSVM.fit online.norma
02.kernel_ridge       kernel_methods.kernel_ridge multiclass.least_squares_learner plots.ch08.ridge_classifier kernel_methods.kernel_dependency_estimation kernel_methods.kde_predict svm.min_norm._affine_min_norm svm.hard_svm svm.estimators.HardSVM.fit
02.class_mean         kernel_methods.class_mean_classifier kernels.rkhs_norm kernels.rkhs_inner kernels.gram_schmidt kernels.project kernels.deflate kernels.translate svm.nu_smo._exact_gradient svm.nu_smo._nu_smo_kernel svm.nu_svm svm.one_class_svm svm.dcd._dcd_gap svm.soft_svm svm.estimators.SoftSVM.fit svm.min_norm._wolfe_kernel svm.hard_svm svm.estimators.HardSVM.fit
02.kernel_sgd         kernel_methods.kernel_sgd_svm svm.sgd_soft_svm online.norma plots.ch09.norma.norma_history kernel_methods.estimators.KernelSVM.fit kernel_methods.cross_validate_kernel_svm multiclass.sgd._multiclass_sgd_kernel multiclass.multiclass_svm_sgd multiclass.multiclass_svm multiclass.estimators.MulticlassSVM.fit
"""
CASES = ChapterCases(GUARDS)


@CASES.hidden("02.poly_features")
def _poly(seed=201):
    r = np.random.default_rng(seed)
    return [
        H("d = 1", (r.normal(size=(4, 1)),)),
        H("duplicate points", (np.ones((3, 2)),)),
        H("d > m", (r.normal(size=(2, 7)),)),
        H("zero rows", (np.zeros((2, 3)),)),
    ]


@CASES.hidden("02.gram")
def _gram(seed=202):
    r = np.random.default_rng(seed)
    X = r.normal(size=(4, 3))
    return [
        H("X equal to Y", (X, X.copy(), 1.0)),
        H("tiny sigma", (r.normal(size=(2, 2)), r.normal(size=(3, 2)), 0.01)),
        H("large sigma", (r.normal(size=(3, 5)), r.normal(size=(2, 5)), 50.0)),
        H("d > m", (r.normal(size=(2, 9)), r.normal(size=(3, 9)), 2.0)),
    ]


def _separable(r, m):
    """Separable by a hyperplane through the origin (the linear kernel has no bias)."""
    u = np.array([0.3, 1.0]) / np.hypot(0.3, 1.0)
    X = r.normal(size=(m, 2))
    s = np.where(X @ u >= 0, 1.0, -1.0)
    X = X + np.outer(0.5 * s, u)
    s[0], s[1] = 1.0, -1.0
    X[0], X[1] = 3 * u, -3 * u
    return X, s


@CASES.hidden("02.kernel_perceptron")
def _perceptron(seed=203):
    r = np.random.default_rng(seed)
    out = [H("two points", (np.array([[2.0, 0.5], [0.5, 1.0]]), np.array([-1.0, 1.0])))]
    X, y = _separable(r, 10)
    Xd, yd = np.vstack([X, X[:3]]), np.concatenate([y, y[:3]])
    out.append(H("duplicate points", (gram("linear", Xd), yd)))
    X, y = _separable(r, 25)
    out.append(H("polynomial kernel", (gram("polynomial", X, degree=2), y)))
    # point 1 is fixed twice and the first sweep does not separate (a sweep or α_i = y_i differ)
    X = np.array([[3.0, -3.0], [0.0, 2.0], [-3.0, -1.0], [0.0, -1.0]])
    out.append(H("a point fixed twice", (gram("linear", X), np.array([1.0, 1.0, -1.0, -1.0]))))
    return out


@CASES.hidden("02.kernel_ridge")
def _ridge(seed=204):
    r = np.random.default_rng(seed)
    X = r.normal(size=(5, 2))
    return [
        H("large lambda", (gram("gaussian", X, sigma=1.0), r.normal(size=5), 100.0)),
        H("m = 1", (np.array([[2.0]]), np.array([3.0]), 0.5)),
        H("d > m (linear kernel)", (gram("linear", r.normal(size=(4, 8))), r.normal(size=4), 0.05)),
    ]


@CASES.hidden("02.class_mean")
def _class_mean(seed=205):
    r = np.random.default_rng(seed)
    X, Z = r.normal(size=(9, 3)), r.normal(size=(4, 3))
    y = np.array([1.0, -1, -1, -1, -1, -1, -1, -1, 1])
    return [
        H("unbalanced classes", (gram("linear", Z, X), gram("linear", X), y)),
        H(
            "test points equal to training points",
            (gram("gaussian", X[:3], X, sigma=1.0), gram("gaussian", X, sigma=1.0), y),
        ),
        H(
            "one point per class",
            (np.array([[0.2, 0.7]]), np.array([[1.0, 0.3], [0.3, 1.0]]), np.array([-1.0, 1.0])),
        ),
    ]


@CASES.hidden("02.kernel_sgd")
def _kernel_sgd(seed=206):
    r = np.random.default_rng(seed)

    def lab(m):
        y = np.where(r.random(m) < 0.5, 1.0, -1.0)
        y[0], y[-1] = 1.0, -1.0
        return y

    X = r.normal(size=(5, 2))
    Xd = r.normal(size=(4, 2))
    Xl = r.normal(size=(40, 3))
    return [
        H("T = 1: ᾱ = 0", (gram("gaussian", X, sigma=1.0), lab(5), 0.3, np.array([2]))),
        H(
            "y K α = 1 exactly with y = +1: no update",
            (np.array([[2.0]]), np.array([1.0]), 1.0, np.array([0, 0, 0])),
        ),
        H(
            "y K α = 1 exactly with y = −1: no update",
            (np.array([[2.0]]), np.array([-1.0]), 1.0, np.array([0, 0, 0, 0])),
        ),
        H("the same index every step", (gram("gaussian", X, sigma=0.5), lab(5), 0.2, np.full(15, 3))),
        H(
            "large λ: every step updates",
            (gram("gaussian", X, sigma=1.0), lab(5), 100.0, r.integers(0, 5, size=20)),
        ),
        H(
            "linear kernel, d > m",
            (gram("linear", r.normal(size=(4, 8))), lab(4), 0.05, r.integers(0, 4, size=30)),
        ),
        H(
            "duplicate points",
            (
                gram("gaussian", np.vstack([Xd, Xd]), sigma=1.0),
                np.r_[lab(4), lab(4)],
                0.1,
                r.integers(0, 8, size=50),
            ),
        ),
        H(
            "larger sample, m = 40, T = 400",
            (gram("gaussian", Xl, sigma=2.0), lab(40), 0.01, r.integers(0, 40, size=400)),
        ),
    ]
