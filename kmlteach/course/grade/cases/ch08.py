"""Hidden cases of chapter 08 (boosting and ensembles). Seeds differ from the visible cases'.

Arguments are plain Python scalars and NumPy arrays (never NumPy scalars: the kernel
side's decoder reads only what ``codec.encode`` writes for them).
"""

from __future__ import annotations

import numpy as np

from .model import ChapterCases
from .model import HiddenCase as H

# the library functions that compute each exercise's answer, blocked while it is graded
# (paths below kmlteach: module.function or module.Class.method; guards audit, issue 24)
GUARDS = """
08.stump_error     ensembles.decision_stump ensembles.adaboost ensembles.stumps.Stump.predict ensembles.adaboost.AdaBoostResult.decision_function ensembles.trees.DecisionTree.predict ensembles.trees.DecisionTree.apply ensembles.decision_tree ensembles.random_forest ensembles.prune multiclass.learners.Stump.predict multiclass.learners.stump_learner
08.adaboost_round  ensembles.adaboost ensembles.adaboost.AdaBoostResult.decision_function theory.conditional_risk theory.calibration._golden_min theory.calibration.calibration plots.ch08.bound_curves theory.multiclass_logistic
08.training_bound  ensembles.adaboost plots.ch08.bound_curves ensembles.adaboost.AdaBoostResult.decision_function theory.conditional_risk theory.calibration._golden_min theory.calibration.calibration
08.oob_error       ensembles.bagging ensembles.random_forest
08.split_gain      ensembles.decision_tree ensembles.trees._impurity ensembles.random_forest theory.conditional_risk theory.calibration._golden_min theory.calibration.calibration theory.soft_margin theory.squared_soft_margin theory.logistic
08.best_alpha      ensembles.adaboost ensembles.adaboost.AdaBoostResult.decision_function plots.ch08.bound_curves theory.conditional_risk theory.calibration._golden_min theory.calibration.calibration
"""
CASES = ChapterCases(GUARDS)


def _labels(r, m):
    y = np.where(r.random(m) < 0.5, 1.0, -1.0)
    y[0], y[-1] = 1.0, -1.0
    return y


def _dist(r, m, zeros=0):
    w = r.random(m) + 0.05
    w[:zeros] = 0.0
    return w / w.sum()


@CASES.hidden("08.stump_error")
def _stump(seed=801):
    r = np.random.default_rng(seed)
    Xt = r.integers(0, 3, size=(12, 2)).astype(float)  # many values equal to θ = 1
    Xd = np.round(r.normal(size=(6, 2)), 1)
    Xd, yd = np.vstack([Xd, Xd]), np.r_[_labels(r, 6), -_labels(r, 6)]
    Xw = np.round(r.normal(size=(4, 10)), 2)  # d > m
    Xl = np.round(r.normal(size=(200, 3)), 2)
    X1 = np.round(r.normal(size=(9, 2)), 2)
    return [
        H("one point", (np.array([[0.3, -1.0]]), np.array([-1.0]), np.array([1.0]), 1, -1.0, 1.0)),
        H("ties: many points equal to θ", (Xt, _labels(r, 12), _dist(r, 12), 0, 1.0, -1.0)),
        H("θ = +inf: a constant stump", (X1, _labels(r, 9), _dist(r, 9), 1, float("inf"), -1.0)),
        H("θ below every value", (X1, _labels(r, 9), _dist(r, 9), 0, -100.0, 1.0)),
        H("duplicate points with opposite labels", (Xd, yd, _dist(r, 12), 1, float(Xd[3, 1]), 1.0)),
        H("zero weights on some points", (X1, _labels(r, 9), _dist(r, 9, zeros=4), 0, float(X1[2, 0]), -1.0)),
        H("d > m", (Xw, np.array([1.0, -1.0, -1.0, 1.0]), _dist(r, 4), 7, float(Xw[1, 7]), 1.0)),
        H("larger sample, m = 200", (Xl, _labels(r, 200), _dist(r, 200), 2, float(Xl[17, 2]), -1.0)),
    ]


@CASES.hidden("08.adaboost_round")
def _round(seed=802):
    r = np.random.default_rng(seed)

    def flip(y, idx):
        h = y.copy()
        h[idx] *= -1
        return h

    y4 = np.array([1.0, -1.0, 1.0, -1.0])
    yn = np.array([1.0, 1.0, -1.0])
    Dn = np.array([0.5 - 1e-6, 0.5 + 1e-6 / 2, 1e-6 / 2])  # ε = 0.5 − 1e-6
    ys = _labels(r, 8)
    Ds = np.r_[1e-6, np.full(7, (1 - 1e-6) / 7)]  # ε = 1e-6
    yz = _labels(r, 10)
    yl = _labels(r, 300)
    return [
        H("ε = ½ exactly: α = 0, D unchanged", (np.full(4, 0.25), y4, flip(y4, [0, 1]))),
        H("ε near ½", (Dn, yn, flip(yn, [0]))),
        H("ε > ½: α < 0", (np.full(4, 0.25), y4, flip(y4, [0, 1, 3]))),
        H("tiny ε = 1e-6", (Ds, ys, flip(ys, [0]))),
        H("zero weights on some points", (_dist(r, 10, zeros=3), yz, flip(yz, [1, 5, 8]))),
        H("larger sample, m = 300", (_dist(r, 300), yl, flip(yl, r.choice(300, 70, replace=False)))),
    ]


@CASES.hidden("08.training_bound")
def _bound(seed=803):
    r = np.random.default_rng(seed)
    return [
        H("one round", (np.array([0.1]),)),
        H("ε near ½", (np.array([0.4999, 0.49999, 0.45]),)),
        H("a perfect round (ε = 0)", (np.array([0.3, 0.0, 0.2]),)),
        H("ε > ½ in one round", (np.array([0.2, 0.6, 0.35]),)),
        H("tiny ε", (np.array([1e-8, 1e-4]),)),
        H("many rounds, T = 500", (np.round(r.uniform(0.45, 0.499, size=500), 4),)),
    ]


@CASES.hidden("08.oob_error")
def _oob(seed=804):
    r = np.random.default_rng(seed)

    def ens(B, m, p=0.7):
        y = _labels(r, m)
        return np.where(r.random((B, m)) < p, y, -y), r.integers(0, m, size=(B, m)), y

    P1, S1, y1 = ens(1, 10)
    S1[0] = np.r_[np.zeros(9, np.int64), 1]  # points 2..9 are OOB
    yt = np.array([1.0, -1.0, 1.0, 1.0])
    Pt = np.array(
        [[1.0, 1.0, -1.0, 1.0], [-1.0, -1.0, 1.0, -1.0], [1.0, -1.0, 1.0, 1.0], [-1.0, 1.0, 1.0, -1.0]]
    )
    St = np.array([[3, 3, 3, 3], [3, 3, 3, 3], [0, 0, 1, 2], [0, 1, 0, 1]])
    P2, S2, y2 = ens(3, 2)
    S2[:] = [[0, 0], [1, 1], [0, 0]]
    Pd, Sd, yd = ens(6, 7)
    Sd[:] = np.arange(6)[:, None] % 3  # each sample: one point repeated
    return [
        H("one member, one bootstrap point repeated", (P1, S1, y1)),
        H("ties in the OOB votes", (Pt, St, yt)),
        H("m = 2", (P2, S2, y2)),
        H("duplicate indices in every sample", (Pd, Sd, yd)),
        H("larger ensemble, B = 200, m = 50", ens(200, 50, 0.6)),
    ]


@CASES.hidden("08.split_gain")
def _gain(seed=805):
    r = np.random.default_rng(seed)
    yp = np.ones(6)
    ye = np.array([1.0, 1.0, 1.0, 1.0, -1.0, -1.0, 1.0, 1.0])  # 6+/2− into 4+/2− and 2+/0−
    Le = np.array([True, True, True, True, True, True, False, False])
    yl = _labels(r, 200)
    Ll = (yl > 0) ^ (r.random(200) < 0.25)  # an informative, noisy split
    out = [
        H("a pure node: gain 0", (yp, np.array([True, False, True, False, False, True]), "entropy")),
        H("one point", (np.array([-1.0]), np.array([True]), "gini")),
        H("every point on the left", (_labels(r, 7), np.ones(7, bool), "entropy")),
        H(
            "pure children",
            (np.array([1.0, -1.0, -1.0, 1.0, -1.0]), np.array([True, False, False, True, False]), "error"),
        ),
        H("the error gain is 0, the entropy gain is not", (ye, Le, "error")),
        H("the entropy gain of the same split", (ye, Le, "entropy")),
    ]
    for crit in ("error", "entropy", "gini"):
        out.append(H("larger node, m = 200", (yl, Ll, crit)))
    return out


@CASES.hidden("08.best_alpha")
def _alpha(seed=806):
    r = np.random.default_rng(seed)
    w = r.dirichlet([1.0, 1.0])
    return [
        H("ε near ½", (0.5 + 1e-9, 0.5 - 1e-9)),
        H("tiny ε", (1 - 1e-9, 1e-9)),
        H("w_abstain by keyword", (0.25, 0.15), {"w_abstain": 0.6}),
        H("almost everything abstains, α < 0", (0.01, 0.02, 0.97)),
        H("unnormalised weights", (3.0, 1.0, 2.0)),
        H("no abstention, random ε", (float(w[0]), float(w[1]))),
    ]
