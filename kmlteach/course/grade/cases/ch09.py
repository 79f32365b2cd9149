"""Hidden cases of chapter 09 (NORMA, ν-SVM, one-class SVM, Rademacher averages).

Seeds differ from the visible cases'. Arguments are plain Python scalars and NumPy
arrays (never NumPy scalars: the kernel side's decoder reads only what
``codec.encode`` writes for them).
"""

from __future__ import annotations

import numpy as np

from .model import ChapterCases
from .model import HiddenCase as H

# the library functions that compute each exercise's answer, blocked while it is graded
# (paths below kmlteach: module.function or module.Class.method; guards audit, issue 24)
GUARDS = """
09.norma_step      online.norma online.norma_loss theory.soft_margin losses.hinge_subgradient theory.multiclass_soft_margin multiclass.generalized_hinge multiclass.generalized_hinge_subgradient multiclass.estimators.MulticlassSVM.fit multiclass.multiclass_svm theory.multiclass_logistic multiclass.multiclass_svm_sgd theory.novelty svm.margins._objective_kernel theory.squared_soft_margin losses.hinge svm.dcd._dcd_gap svm.soft_svm svm.estimators.SoftSVM.fit svm.sgd_soft_svm theory.epsilon_insensitive
09.nu_property     svm.nu_svm svm.one_class_svm
09.oneclass_value  svm.one_class_svm kernels.gram kernels.distance._distance_gram kernels.evaluation.kernel_value kernel_methods.estimators.KernelSVM.fit kernel_methods.cross_validate_kernel_svm kernel_methods.kernel_sgd_svm kernels.nystroem kernels.make_kernel kernels.exponential_taylor_gram online.NormaResult.decision_function online.norma svm.nu_svm kernels.approximation.NystroemMap.transform kernels.similarity widgets.ch02.boundary.grid_scores
09.rademacher      theory.rademacher_linear theory.rademacher_kernel kernels.rkhs_norm kernels.rkhs_inner kernels.gram_schmidt kernels.project kernels.deflate kernels.translate svm.nu_smo._exact_gradient svm.nu_svm svm.one_class_svm svm.nu_smo._nu_smo_kernel svm.dcd._dcd_gap kernels.center kernel_methods.kernel_pca kernel_methods.estimators.KernelPCA.fit kernel_methods.kernel_dependency_estimation svm.soft_svm svm.estimators.SoftSVM.fit
09.nu_dual         svm.nu_svm svm.one_class_svm svm.nu_smo._exact_gradient kernels.rkhs_inner kernels.rkhs_norm kernels.gram_schmidt kernels.project kernels.deflate kernels.translate svm.nu_smo._nu_smo_kernel svm.dcd._dcd_gap kernels.center kernel_methods.kernel_pca kernel_methods.estimators.KernelPCA.fit kernel_methods.kernel_dependency_estimation svm.soft_svm svm.estimators.SoftSVM.fit
"""
CASES = ChapterCases(GUARDS)


def _gauss(A, B, sigma):
    d2 = ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1)
    return np.exp(-d2 / (2 * sigma))


@CASES.hidden("09.norma_step")
def _norma(seed=901):
    r = np.random.default_rng(seed)
    t = 200
    return [
        H(
            "y f = 1 exactly with y = −1: no update",
            (np.array([-0.5, -0.5]), np.array([1.0, 1.0]), -1.0, 0.1, 0.5),
        ),
        H(
            "y f just below 1: an update",
            (np.array([0.5, 0.5 - 2.0**-20]), np.array([1.0, 1.0]), 1.0, 0.1, 0.5),
        ),
        H(
            "ηλ = 1: the old coefficients vanish",
            (np.array([0.3, -0.7, 1.1]), np.array([0.2, 0.9, 0.4]), -1.0, 2.0, 0.5),
        ),
        H("λ = 0: no shrinking", (np.array([0.4, -0.1]), np.array([0.5, 1.0]), 1.0, 0.0, 0.25)),
        H("a misclassified point, y = −1", (np.array([1.0, 2.0]), np.array([0.9, 0.8]), -1.0, 0.01, 1.0)),
        H(
            "long expansion, t = 200",
            (np.round(r.normal(size=t) * 0.1, 4), np.round(r.random(t), 4), 1.0, 0.02, 0.1),
        ),
    ]


def _balanced(n_pos, n_neg, d, r, shift=0.8):
    y = np.r_[np.ones(n_pos), -np.ones(n_neg)]
    return r.normal(size=(n_pos + n_neg, d)) + shift * y[:, None], y


def _nu_solution(X, y, nu, kernel, **params):
    from kmlteach.kernels import gram
    from kmlteach.svm import nu_svm

    s = nu_svm(X, y, nu, kernel=kernel, **params)
    yf = y * (gram(kernel, X, **params) @ (s.alpha * y) + s.b)
    return s.alpha, yf, float(s.rho)


@CASES.hidden("09.nu_property")
def _nu_prop(seed=902):
    r = np.random.default_rng(seed)
    Xu, yu = _balanced(6, 18, 2, r)  # ν_max = 2·6/24 = 0.5
    Xb, yb = _balanced(8, 8, 2, r)
    Xd, yd = _balanced(7, 7, 2, r, shift=0.5)
    Xd, yd = np.vstack([Xd, Xd[:5]]), np.r_[yd, yd[:5]]
    Xw, yw = _balanced(6, 6, 30, r)  # d > n
    a, yf, rho = _nu_solution(Xu, yu, 0.5, "gaussian", sigma=1.0)
    out = [H("ν at its feasibility limit 2 min(n₊, n₋)/n", (a, yf, rho))]
    a, yf, rho = _nu_solution(Xb, yb, 1.0, "gaussian", sigma=0.5)
    out.append(H("ν = 1: every α_i = 1", (a, yf, rho)))
    a, yf, rho = _nu_solution(Xd, yd, 0.3, "gaussian", sigma=1.0)
    out.append(H("duplicate points", (a, yf, rho)))
    a, yf, rho = _nu_solution(Xw, yw, 0.25, "linear")
    out.append(H("d > n, linear kernel", (a, yf, rho)))
    out.append(
        H(
            "tol by keyword",
            (np.array([0.0, 0.3, 1.0, 1.0, 0.7]), np.array([1.3, 1.0, 0.995, 0.5, 1.004]), 1.0),
            {"tol": 1e-2},
        )
    )
    out.append(H("no support vector, no margin error", (np.zeros(4), np.array([2.0, 1.5, 3.0, 1.0]), 1.0)))
    out.append(
        H(
            "α_i at round-off level: not support vectors",
            (np.array([3e-8, 0.6, 1.0, 2e-9, 1.0]), np.array([1.4, 1.0, 0.2, 1.1, -0.3]), 1.0),
        )
    )
    return out


@CASES.hidden("09.oneclass_value")
def _oneclass(seed=903):
    r = np.random.default_rng(seed)
    X = np.round(r.normal(size=(8, 2)), 2)
    Xd = np.vstack([X[:4], X[:4]])
    Xw = np.round(r.normal(size=(3, 12)), 2)  # d > n
    out = [
        H("Z = X: values at the training points", (np.round(r.random(8), 3), X, 0.4, 0.5, X.copy())),
        H("duplicate points", (np.round(r.random(8), 3), Xd, 0.3, 1.0, np.round(r.normal(size=(5, 2)), 2))),
        H("d > n", (np.array([1.0, 0.5, 0.25]), Xw, 0.1, 4.0, np.round(r.normal(size=(4, 12)), 2))),
        H(
            "d = 1, one query point",
            (np.array([0.2, 0.8]), np.array([[0.0], [1.0]]), 0.5, 0.3, np.array([[0.4]])),
        ),
        H(
            "small σ: every kernel value underflows, f = −ρ",
            (np.ones(3), np.zeros((3, 2)), 0.7, 1e-4, np.array([[5.0, 5.0], [-3.0, 4.0]])),
        ),
        H("large σ: every kernel value ≈ 1", (np.round(r.random(8), 3), X, 1.5, 1e4, X[:3] + 0.5)),
    ]
    from kmlteach.svm import one_class_svm

    Xs = np.round(r.normal(size=(20, 2)), 2)
    s = one_class_svm(Xs, 0.2, sigma=0.5)
    out.append(
        H(
            "a one-class SVM solution, ν = 0.2",
            (s.alpha, Xs, float(s.rho), 0.5, np.round(r.normal(size=(6, 2)) * 2, 2)),
        )
    )
    return out


@CASES.hidden("09.rademacher")
def _rad(seed=904):
    r = np.random.default_rng(seed)

    def signs(k, n):
        return np.where(r.random((k, n)) < 0.5, -1.0, 1.0)

    Xd = np.round(r.normal(size=(4, 3)), 2)
    Xz = np.round(r.normal(size=(5, 2)), 2)
    Xz[2] = 0.0
    return [
        H("one draw", (np.round(r.normal(size=(6, 3)), 2), signs(1, 6))),
        H("n = 1", (np.array([[3.0, -4.0]]), np.array([[1.0], [-1.0], [1.0]]))),
        H("d > n", (np.round(r.normal(size=(3, 20)), 2), signs(10, 3))),
        H("duplicate points", (np.vstack([Xd, Xd]), signs(16, 8))),
        H("a zero row", (Xz, signs(8, 5))),
        H("every sign +1", (np.round(r.normal(size=(5, 2)), 2), np.ones((3, 5)))),
        H("larger sample, n = 100, 500 draws", (np.round(r.normal(size=(100, 4)), 2), signs(500, 100))),
    ]


def _split_alpha(r, y, total_per_class):
    """α > 0 with Σ_{y_i = c} α_i = total_per_class for both classes (each α_i < 1 here)."""
    a = r.random(len(y)) + 1.0
    for c in (1.0, -1.0):
        if np.any(y == c):
            a[y == c] *= total_per_class / a[y == c].sum()
    return a


@CASES.hidden("09.nu_dual")
def _dual(seed=905):
    r = np.random.default_rng(seed)
    yb = np.r_[np.ones(3), -np.ones(3)]
    Xb = r.normal(size=(6, 2))
    Kb = _gauss(Xb, Xb, 1.0)
    out = [
        H("ν = 1 at its feasibility limit: every α_i = 1", (np.ones(6), Kb, yb, 1.0)),
        H("ν above 1: infeasible", (np.ones(6), Kb, yb, 1.2)),
        H("α = 0 with ν = 0", (np.zeros(6), Kb, yb, 0.0)),
    ]
    yu = np.r_[np.ones(2), -np.ones(6)]  # ν_max = 2·2/8 = 0.5
    Xu = r.normal(size=(8, 2))
    au = np.r_[np.ones(2), _split_alpha(r, -np.ones(6), 2.0)]
    out.append(H("ν at its limit 2 min(n₊, n₋)/n, unbalanced classes", (au, _gauss(Xu, Xu, 0.5), yu, 0.5)))
    Xd = r.normal(size=(5, 2))
    Xd = np.vstack([Xd, Xd[:3]])
    yd = np.r_[np.ones(4), -np.ones(4)]
    ad = _split_alpha(r, yd, 1.5)
    out.append(H("duplicate points (a singular K)", (ad, _gauss(Xd, Xd, 1.0), yd, float(ad.sum()) / 8)))
    Xw = r.normal(size=(6, 15))  # d > n, linear kernel
    aw = _split_alpha(r, yb, 1.2)
    out.append(H("d > n, linear kernel", (aw, Xw @ Xw.T, yb, float(aw.sum()) / 6)))
    an = aw.copy()
    an[0], an[1] = -0.05, an[1] + an[0] + 0.05  # sums kept, one α_i < 0
    out.append(H("a negative α_i: infeasible", (an, Xw @ Xw.T, yb, float(aw.sum()) / 6)))
    ai = aw.copy()
    ai[0] += 1e-11  # inside the default tol
    out.append(H("violation far inside tol: feasible", (ai, Xw @ Xw.T, yb, float(aw.sum()) / 6)))
    at = aw.copy()
    at[0] += 1e-4
    out.append(H("tol by keyword", (at, Xw @ Xw.T, yb, float(aw.sum()) / 6), {"tol": 1e-3}))
    out.append(H("the same α with the default tol: infeasible", (at, Xw @ Xw.T, yb, float(aw.sum()) / 6)))
    out.append(H("Σα above nν, the rest feasible: infeasible", (np.full(6, 0.5), Kb, yb, 0.25)))
    ab = _split_alpha(r, yb, 0.9)
    out.append(H("a small ν: feasible", (ab, Kb, yb, float(ab.sum()) / 6)))
    return out
