"""Chapter 04: multiclass reductions, linear multiclass predictors, perceptrons, Kesler. — ``kmlteach.multiclass.estimators``."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import random_problem

from kmlteach import multiclass as M


def test_multiclass_svm_estimator():
    import warnings

    from sklearn.utils.estimator_checks import check_estimator

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = check_estimator(M.MulticlassSVM(), on_fail=None)  # no expected failure
    failed = {r["check_name"] for r in results if r["status"] not in ("passed", "skipped")}
    assert not failed, failed
    X, y = random_problem(6, m=60, d=2, k=3)
    labels = np.array(["a", "b", "c"])[y]
    est = M.MulticlassSVM(lam=0.01, T=5000, seed=1, fit_intercept=False).fit(X, labels)
    ref = M.multiclass_svm(X, labels, 0.01, T=5000, seed=1)
    np.testing.assert_array_equal(est.coef_, ref.W)
    np.testing.assert_array_equal(est.predict(X), ref.predict(X))
    est2 = M.MulticlassSVM(T=5000).fit(X, labels)
    assert est2.coef_.shape == (3, 2) and est2.intercept_.shape == (3,)
    with pytest.raises(ValueError, match="features"):
        est.predict(np.ones((2, 3)))
    with pytest.raises(ValueError, match="class"):
        M.MulticlassSVM().fit(X, np.zeros(60))
