"""Tests of kmlteach.svm against oracles. — ``kmlteach.svm.estimators``."""

import numpy as np
import pytest
from helpers import homogeneous_separable, soft_data

from kmlteach import svm
from kmlteach.datasets import separable

HARD_EXPECTED_FAILURES = {
    name: (
        "scikit-learn's common test data are not linearly separable; HardSVM.fit then "
        "raises ValueError('not linearly separable') by design"
    )
    for name in [
        "check_fit_score_takes_y",
        "check_n_features_in_after_fitting",
        "check_estimators_dtypes",
        "check_dtype_object",
        "check_estimators_nan_inf",
        "check_classifier_data_not_an_array",
        "check_classifiers_train",
        "check_supervised_y_2d",
        "check_fit_idempotent",
        "check_fit_check_is_fitted",
        "check_n_features_in",
    ]
}


X_OK = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0], [-1.0, 0.5]])


Y_OK = np.array([1.0, -1.0, 1.0, -1.0])


BAD_X = [
    (None, TypeError),
    ("abc", TypeError),
    (np.array([1.0, 2.0, 3.0, 4.0]), ValueError),
    (np.zeros((0, 2)), ValueError),
    (np.array([[np.nan, 1.0]] * 4), ValueError),
    (np.ones((4, 2), dtype=complex), TypeError),
    ([[1.0, 2.0], [3.0]], ValueError),
]


BAD_Y = [
    (None, TypeError),
    (np.array([1.0, 1.0, 1.0, 1.0]), ValueError),
    (np.array([0.0, 1.0, 0.0, 1.0]), ValueError),
    (np.array([1.0, -1.0, 2.0, -1.0]), ValueError),
    (np.array([1.0, -1.0, np.nan, 1.0]), ValueError),
    (np.array([1.0, -1.0]), ValueError),
    (np.ones((4, 1)), ValueError),
]


XY_FUNCS = {
    "perceptron": lambda X, y: svm.perceptron(X, y),
    "subgradient_perceptron": lambda X, y: svm.subgradient_perceptron(X, y),
    "hard_svm": lambda X, y: svm.hard_svm(X, y),
    "soft_svm": lambda X, y: svm.soft_svm(X, y, 0.1),
    "sgd_soft_svm": lambda X, y: svm.sgd_soft_svm(X, y, 0.1, 10, 0),
}


@pytest.mark.parametrize(
    "est, expected",
    [
        (svm.SoftSVM(), {}),  # no expected failure at all
        (svm.HardSVM(), HARD_EXPECTED_FAILURES),  # only scikit-learn's non-separable test data
    ],
)
def test_estimators_pass_check_estimator(est, expected):
    import warnings

    from sklearn.utils.estimator_checks import check_estimator

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = check_estimator(est, on_fail=None, expected_failed_checks=expected)
    failed = {r["check_name"] for r in results if r["status"] == "failed"}
    xfailed = {r["check_name"] for r in results if r["status"] == "xfail"}
    assert not failed, failed
    assert xfailed <= set(expected)
    if not expected:
        assert not xfailed


def test_estimators_map_any_two_labels():
    X, y = separable(30, 2, 0.5, seed=1)
    labels = np.where(y > 0, "spam", "ham")
    hs = svm.HardSVM().fit(X, labels)
    np.testing.assert_array_equal(hs.classes_, ["ham", "spam"])
    r = svm.hard_svm(X, y)
    np.testing.assert_allclose(hs.coef_[0], r.w, rtol=1e-12)
    assert hs.intercept_[0] == pytest.approx(r.b)
    np.testing.assert_array_equal(hs.predict(X), labels)
    np.testing.assert_allclose(hs.decision_function(X), X @ r.w + r.b)
    ss = svm.SoftSVM(lam=0.01).fit(X, labels)
    ref = svm.soft_svm(X, y, 0.01, homogeneous=False)
    np.testing.assert_allclose(ss.coef_[0], ref.w, rtol=1e-10)
    assert ss.score(X, labels) == 1.0
    with pytest.raises(ValueError, match="class"):
        svm.SoftSVM().fit(X, np.ones(30))
    with pytest.raises(ValueError, match="not linearly separable"):
        svm.HardSVM().fit([[0.0], [1.0], [2.0]], [0, 1, 0])
    with pytest.raises(ValueError, match="features"):
        hs.predict(np.ones((2, 3)))


@pytest.mark.parametrize("fname", sorted(XY_FUNCS))
@pytest.mark.parametrize("bad, exc", BAD_X)
def test_bad_X(fname, bad, exc):
    with pytest.raises(exc, match="X"):
        XY_FUNCS[fname](bad, Y_OK)


@pytest.mark.parametrize("fname", sorted(XY_FUNCS))
def test_X_and_y_of_different_lengths(fname):
    with pytest.raises(ValueError, match="y must have length 3"):
        XY_FUNCS[fname](np.ones((3, 2)), Y_OK)


@pytest.mark.parametrize("fname", sorted(XY_FUNCS))
@pytest.mark.parametrize("bad, exc", BAD_Y)
def test_bad_y(fname, bad, exc):
    with pytest.raises(exc, match="y"):
        XY_FUNCS[fname](X_OK, bad)


def test_estimator_options_follow_the_functions():
    X, y = soft_data(21, m=50, d=3)
    est = svm.SoftSVM(lam=0.05, homogeneous=True).fit(X, y)
    ref = svm.soft_svm(X, y, 0.05)
    np.testing.assert_allclose(est.coef_[0], ref.w, rtol=1e-10)
    assert est.intercept_[0] == 0.0 and est.objective_ == pytest.approx(ref.objective)
    Xh, yh = homogeneous_separable(30, 3, 0.2, 5)
    hs = svm.HardSVM(homogeneous=True).fit(Xh, yh)
    r = svm.hard_svm(Xh, yh, homogeneous=True)
    np.testing.assert_allclose(hs.coef_[0], r.w, rtol=1e-12)
    assert hs.intercept_[0] == 0.0 and hs.margin_ == pytest.approx(r.margin)
    np.testing.assert_array_equal(hs.support_, r.support)
