"""Hidden cases of chapter 01 (margins and SVMs). Seeds differ from the visible cases'."""

from __future__ import annotations

import numpy as np

from .model import ChapterCases
from .model import HiddenCase as H

# the library functions that compute each exercise's answer, blocked while it is graded
# (paths below kmlteach: module.function or module.Class.method; guards audit, issue 24)
GUARDS = """
01.distance                svm.distance_to_hyperplane svm.signed_distance ranking.linear_scores svm.geometric_margins svm.geometric_margin svm.estimators._LinearBinary.decision_function svm.dcd._dcd_gap plots.ch08.RidgeClassifier.decision_function svm.soft_svm svm.estimators.SoftSVM.fit svm.min_norm._wolfe_kernel svm.hard_svm svm.estimators.HardSVM.fit
01.hinge                   losses.hinge losses.hinge_subgradient theory.soft_margin theory.novelty online.norma_loss svm.soft_svm_objective svm.hinge_objective svm.soft_svm svm.sgd_soft_svm theory.calibration._psi multiclass.generalized_hinge multiclass.generalized_hinge_subgradient theory.multiclass_soft_margin theory.squared_soft_margin svm.dcd._dcd_gap theory.epsilon_insensitive
01.sgd_step                svm.sgd_soft_svm losses.hinge_subgradient theory.soft_margin online.norma_loss svm.soft_svm_objective svm.hinge_objective svm.soft_svm multiclass.generalized_hinge multiclass.generalized_hinge_subgradient theory.novelty theory.multiclass_soft_margin theory.squared_soft_margin svm.dcd._dcd_gap losses.hinge theory.epsilon_insensitive
01.perceptron              svm.perceptron kernel_methods.kernel_perceptron multiclass.multiclass_perceptron multiclass.sgd._multiclass_sgd_kernel structured.learning._structured_learn_kernel svm.sgd._sgd_soft_svm_kernel svm.sgd_soft_svm online.norma
01.subgradient_perceptron  svm.subgradient_perceptron svm.functional_margins svm.geometric_margins svm.dcd._dcd_gap svm.soft_svm svm.estimators.SoftSVM.fit svm.min_norm._wolfe_kernel svm.hard_svm svm.estimators.HardSVM.fit
01.dual                    svm.hard_svm kernels.rkhs_norm kernel_methods.kernel_expansion svm.dcd._dcd_gap kernels.rkhs_inner kernels.translate kernels.center svm.nu_smo._exact_gradient svm.nu_smo._nu_smo_kernel kernel_methods.kernel_pca kernel_methods.estimators.KernelPCA.fit kernel_methods.kernel_dependency_estimation svm.soft_svm svm.estimators.SoftSVM.fit svm.smo._smo_kernel svm.min_norm._wolfe_kernel
"""
CASES = ChapterCases(GUARDS)


def _separable(r, m, d, gap=0.5):
    u = r.normal(size=d)
    u /= np.linalg.norm(u)
    X = r.normal(size=(m, d))
    s = X @ u
    X = X + np.outer(np.where(s >= 0, gap, -gap), u)
    y = np.where(X @ u >= 0, 1.0, -1.0)
    return X, y


@CASES.hidden("01.distance")
def _distance(seed=101):
    r = np.random.default_rng(seed)
    out = [
        H("point on the hyperplane", (np.array([2.0, 1.0]), np.array([1.0, -2.0]), 0.0)),
        H("d = 1", (np.array([-3.0]), np.array([2.0]), 1.0)),
        H("negative offset b", (np.array([1.0, 1.0, 1.0]), np.array([0.0, 0.0, 2.0]), -7.0)),
        H("unnormalised w (large norm)", (np.array([1.0, 2.0]), np.array([300.0, -400.0]), 50.0)),
    ]
    for _ in range(3):
        d = int(r.integers(8, 20))
        out.append(H("d > 5", (r.normal(size=d), r.normal(size=d), float(r.normal() * 2))))
    return out


@CASES.hidden("01.hinge")
def _hinge(seed=102):
    r = np.random.default_rng(seed)
    out = [
        H("margin exactly 1 (no loss)", (np.array([0.5, 0.0]), np.array([2.0, 7.0]), 1.0)),
        H("w = 0", (np.zeros(3), np.array([1.0, -2.0, 0.5]), -1.0)),
        H("misclassified, y = -1", (np.array([1.0, 2.0]), np.array([1.0, 1.0]), -1.0)),
        H("inside the margin", (np.array([0.25, 0.25]), np.array([1.0, 1.0]), 1.0)),
    ]
    for _ in range(4):
        d = int(r.integers(6, 15))
        w, x = r.normal(size=d), r.normal(size=d)
        if abs(abs(float(w @ x)) - 1) < 1e-3:
            x = 1.5 * x
        out.append(H("d > 5", (w, x, float(r.choice([-1.0, 1.0])))))
    return out


@CASES.hidden("01.sgd_step")
def _sgd(seed=103):
    r = np.random.default_rng(seed)
    out = [
        H("t = 1, θ = 0", (np.zeros(3), 1, 0.5, np.array([1.0, 2.0, -1.0]), -1.0)),
        H("margin above 1: no update", (np.array([10.0, 0.0]), 1, 1.0, np.array([1.0, 0.0]), 1.0)),
        H("large t", (np.array([3.0, -4.0]), 1000, 0.01, np.array([0.5, 0.5]), 1.0)),
        H("margin exactly 1: no update", (np.array([0.0, 6.0]), 3, 2.0, np.array([1.0, 1.0]), 1.0)),
    ]
    for _ in range(4):
        d = int(r.integers(5, 12))
        theta, x = r.normal(size=d) * 2, r.normal(size=d)
        t, lam = int(r.integers(1, 200)), float(r.choice([0.001, 0.05, 2.0]))
        if abs(abs(float(theta @ x) / (lam * t)) - 1) < 1e-3:
            x = 1.5 * x
        out.append(H("d > 4", (theta, t, lam, x, float(r.choice([-1.0, 1.0])))))
    return out


# the kernel perceptron on X Xᵀ makes the same updates (red team 5: X.T @ alpha scored 2.4/3)
@CASES.hidden("01.perceptron")
def _perceptron(seed=104):
    r = np.random.default_rng(seed)
    X, y = _separable(r, 12, 3)
    Xd, yd = np.vstack([X, X[:4]]), np.concatenate([y, y[:4]])
    out = [H("one point", (np.array([[1.0, -1.0]]), np.array([-1.0]))), H("duplicate points", (Xd, yd))]
    for m, d in ((5, 12), (8, 20)):
        out.append(H("d > m", _separable(r, m, d)))
    out.append(H("larger sample, m = 60", _separable(r, 60, 4, gap=0.8)))
    return out


@CASES.hidden("01.subgradient_perceptron")
def _subgradient(seed=105):
    r = np.random.default_rng(seed)
    X = np.array([[1.0, 1.0], [2.0, 0.0], [1.0, 1.0]])
    y = np.array([1.0, 1.0, 1.0])
    out = [
        H("ties between maximisers", (np.array([1.0, 0.0]), X, y)),
        H("w = 0", (np.zeros(3), r.normal(size=(5, 3)), np.array([1.0, -1, 1, -1, 1]))),
    ]
    for m, d in ((4, 9), (6, 15)):
        Xs, ys = _separable(r, m, d)
        out.append(H("d > m", (r.normal(size=d), Xs, ys)))
    Xs, ys = _separable(r, 40, 3)
    out.append(H("larger sample, m = 40", (r.normal(size=3), Xs, ys)))
    return out


@CASES.hidden("01.dual")
def _dual(seed=106):
    r = np.random.default_rng(seed)
    Xd = r.normal(size=(3, 2))
    X, y = _separable(r, 200, 4)
    return [
        H("α = 0: w = 0, D = 0", (r.normal(size=(5, 3)), np.array([1.0, -1, 1, -1, -1]), np.zeros(5))),
        H("one point", (np.array([[0.5, -2.0, 1.0, 3.0]]), np.array([-1.0]), np.array([0.7]))),
        H("d > m", (r.normal(size=(3, 10)), np.array([1.0, 1.0, -1.0]), r.uniform(0, 2, size=3))),
        H(
            "duplicate points with opposite labels",
            (np.vstack([Xd, Xd]), np.r_[np.ones(3), -np.ones(3)], np.r_[0.4, 1.0, 2.0, 0.4, 1.0, 2.0]),
        ),
        H("large α", (r.normal(size=(6, 3)), np.array([1.0, -1, -1, 1, 1, -1]), r.uniform(50, 200, size=6))),
        H("larger sample, m = 200", (X, y, r.uniform(0, 0.1, size=200))),
    ]
