"""Hidden cases of chapter 00 (the warm-up exercise)."""

from __future__ import annotations

import numpy as np

from .model import ChapterCases
from .model import HiddenCase as H

# the library functions that compute each exercise's answer, blocked while it is graded
# (paths below kmlteach: module.function or module.Class.method; guards audit, issue 24)
GUARDS = """
00.margins  svm.functional_margins ranking.linear_scores svm.geometric_margins svm.geometric_margin svm.signed_distance svm.distance_to_hyperplane svm.soft_svm_objective svm.hinge_objective svm.dcd._dcd_gap svm.estimators._LinearBinary.decision_function plots.ch08.RidgeClassifier.decision_function svm.smo._smo_kernel svm.min_norm._wolfe_kernel
"""
CASES = ChapterCases(GUARDS)


@CASES.hidden("00.margins")
def _margins(seed=100):
    r = np.random.default_rng(seed)
    out = [
        H("one point", (np.array([[2.0, -1.0]]), np.array([-1.0]), np.array([1.0, 1.0]))),
        H("w = 0", (r.normal(size=(4, 3)), np.array([1.0, -1, 1, -1]), np.zeros(3))),
        H("all labels -1", (r.normal(size=(5, 2)), -np.ones(5), r.normal(size=2))),
    ]
    for m, d in ((3, 10), (40, 4)):
        out.append(
            H(
                "d > m" if d > m else "larger sample",
                (r.normal(size=(m, d)), r.choice([-1.0, 1.0], size=m), r.normal(size=d)),
            )
        )
    return out
