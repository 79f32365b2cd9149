"""Tests of kmlteach.svm against oracles. — ``kmlteach.svm.margins``."""

import numpy as np
import pytest

from kmlteach import svm

X_OK = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0], [-1.0, 0.5]])


Y_OK = np.array([1.0, -1.0, 1.0, -1.0])


W_OK = np.array([1.0, 1.0])


def test_distance_claim_15_1_by_projection_and_sampling():
    rng = np.random.default_rng(0)
    for _ in range(20):
        d = int(rng.integers(1, 5))
        w, b = rng.normal(size=d), float(rng.normal())
        x = rng.normal(size=(1, d)) * 3
        dist = svm.distance_to_hyperplane(x, w, b)[0]
        # the projection v = x - (<w,x>+b) w/||w||^2 lies on the hyperplane, at that distance
        v = x[0] - (x[0] @ w + b) * w / (w @ w)
        assert abs(v @ w + b) < 1e-10
        assert np.linalg.norm(x[0] - v) == pytest.approx(dist, rel=1e-12)
        # and no other point of the hyperplane is closer
        P = rng.normal(size=(500, d)) * 5
        P = P - ((P @ w + b) / (w @ w))[:, None] * w
        assert np.all(np.linalg.norm(P - x[0], axis=1) >= dist - 1e-12)


def test_distance_known_values_and_conventions():
    assert svm.signed_distance([3.0, 4.0], [0.0, 2.0], 2.0) == pytest.approx(5.0)
    assert svm.signed_distance([3.0, -4.0], [0.0, 2.0], 2.0) == pytest.approx(-3.0)
    assert svm.distance_to_hyperplane([3.0, -4.0], [0.0, 2.0], 2.0) == pytest.approx(3.0)
    X = np.array([[1.0, 1.0], [-2.0, 0.0]])
    # invariant under rescaling (w, b) -> (c w, c b), c > 0
    np.testing.assert_allclose(
        svm.signed_distance(X, [1.0, 2.0], 0.5), svm.signed_distance(X, [3.0, 6.0], 1.5), rtol=1e-14
    )


def test_margins_of_a_sample():
    X = np.array([[2.0, 0.0], [0.5, 1.0], [-1.0, 0.0], [-3.0, 2.0]])
    y = np.array([1.0, 1.0, -1.0, -1.0])
    w, b = np.array([2.0, 0.0]), 0.0
    np.testing.assert_allclose(svm.functional_margins(X, y, w, b), [4.0, 1.0, 2.0, 6.0])
    np.testing.assert_allclose(svm.geometric_margins(X, y, w, b), [2.0, 0.5, 1.0, 3.0])
    assert svm.geometric_margin(X, y, w, b) == pytest.approx(0.5)
    np.testing.assert_array_equal(svm.support_vectors(X, y, w, b), [1])
    # a misclassified point gives a negative margin
    assert svm.geometric_margin(X, -y, w, b) == pytest.approx(-3.0)
    assert svm.soft_svm_objective(w, X, y, 0.5) == pytest.approx(0.25 * 4 + 0.0)
    assert svm.hinge_objective(w, X, y, 0.5, 1.0) == svm.soft_svm_objective(w, X, y, 0.5, 1.0)


@pytest.mark.parametrize(
    "call, exc, name",
    [
        (lambda: svm.perceptron(X_OK, Y_OK, max_updates=0), ValueError, "max_updates"),
        (lambda: svm.perceptron(X_OK, Y_OK, max_updates=2.5), TypeError, "max_updates"),
        (lambda: svm.subgradient_perceptron(X_OK, Y_OK, eta=0), ValueError, "eta"),
        (lambda: svm.subgradient_perceptron(X_OK, Y_OK, eta="1"), TypeError, "eta"),
        (lambda: svm.subgradient_perceptron(X_OK, Y_OK, max_iter=-1), ValueError, "max_iter"),
        (lambda: svm.hard_svm(X_OK, Y_OK, homogeneous="yes"), TypeError, "homogeneous"),
        (lambda: svm.soft_svm(X_OK, Y_OK, 0.0), ValueError, "lam"),
        (lambda: svm.soft_svm(X_OK, Y_OK, -1.0), ValueError, "lam"),
        (lambda: svm.soft_svm(X_OK, Y_OK, np.nan), ValueError, "lam"),
        (lambda: svm.soft_svm(X_OK, Y_OK, None), TypeError, "lam"),
        (lambda: svm.soft_svm(X_OK, Y_OK, 0.1, homogeneous=1), TypeError, "homogeneous"),
        (lambda: svm.soft_svm(X_OK, Y_OK, 0.1, seed=-1), ValueError, "seed"),
        (lambda: svm.soft_svm(X_OK, Y_OK, 0.1, tol=0), ValueError, "tol"),
        (lambda: svm.sgd_soft_svm(X_OK, Y_OK, 0.0, 10, 0), ValueError, "lam"),
        (lambda: svm.sgd_soft_svm(X_OK, Y_OK, 0.1, 0, 0), ValueError, "T"),
        (lambda: svm.sgd_soft_svm(X_OK, Y_OK, 0.1, 1.5, 0), TypeError, "T"),
        (lambda: svm.sgd_soft_svm(X_OK, Y_OK, 0.1, 10, "a"), TypeError, "seed"),
        (lambda: svm.sgd_soft_svm(X_OK, Y_OK, 0.1, 10, -3), ValueError, "seed"),
        (lambda: svm.sgd_soft_svm(X_OK, Y_OK, 0.1, 10, 0, checkpoints=[0]), ValueError, "checkpoints"),
        (lambda: svm.sgd_soft_svm(X_OK, Y_OK, 0.1, 10, 0, checkpoints=[11]), ValueError, "checkpoints"),
        (lambda: svm.sgd_soft_svm(X_OK, Y_OK, 0.1, 10, 0, checkpoints=[2.5]), ValueError, "checkpoints"),
        (lambda: svm.sgd_indices(0, 10, 0), ValueError, "m"),
        (lambda: svm.sgd_indices(5, 0, 0), ValueError, "T"),
        (lambda: svm.sgd_indices(5, 10, 1.5), TypeError, "seed"),
        (lambda: svm.signed_distance(X_OK, [0.0, 0.0]), ValueError, "w"),
        (lambda: svm.signed_distance(X_OK, [1.0, 2.0, 3.0]), ValueError, "w"),
        (lambda: svm.signed_distance(X_OK, [1.0, np.nan]), ValueError, "w"),
        (lambda: svm.signed_distance(X_OK, W_OK, "b"), TypeError, "b"),
        (lambda: svm.signed_distance(X_OK, W_OK, np.inf), ValueError, "b"),
        (lambda: svm.signed_distance(None, W_OK), TypeError, "X"),
        (lambda: svm.signed_distance([[np.nan, 1.0]], W_OK), ValueError, "X"),
        (lambda: svm.distance_to_hyperplane(X_OK, None), TypeError, "w"),
        (lambda: svm.distance_to_hyperplane(np.zeros((0, 2)), W_OK), ValueError, "X"),
        (lambda: svm.functional_margins(X_OK, Y_OK[:3], W_OK), ValueError, "y"),
        (lambda: svm.functional_margins(X_OK, [2, 1, 1, 1], W_OK), ValueError, "y"),
        (lambda: svm.functional_margins(X_OK, Y_OK, [1.0]), ValueError, "w"),
        (lambda: svm.geometric_margins(X_OK, Y_OK, [0.0, 0.0]), ValueError, "w"),
        (lambda: svm.geometric_margins("X", Y_OK, W_OK), TypeError, "X"),
        (lambda: svm.geometric_margin(X_OK, None, W_OK), TypeError, "y"),
        (lambda: svm.geometric_margin(X_OK, Y_OK, W_OK, b=[1.0]), TypeError, "b"),
        (lambda: svm.support_vectors(X_OK, Y_OK, W_OK, rtol=0), ValueError, "rtol"),
        (lambda: svm.support_vectors(X_OK, Y_OK, [np.inf, 1.0]), ValueError, "w"),
        (lambda: svm.soft_svm_objective(W_OK, X_OK, Y_OK, 0.0), ValueError, "lam"),
        (lambda: svm.soft_svm_objective([1.0], X_OK, Y_OK, 0.1), ValueError, "w"),
        (lambda: svm.soft_svm_objective(W_OK, X_OK, [1, 2, 3, 4], 0.1), ValueError, "y"),
        (lambda: svm.hinge_objective(W_OK, np.ones((4, 3)), Y_OK, 0.1), ValueError, "w"),
        (lambda: svm.SoftSVM(lam=-1).fit(X_OK, Y_OK), ValueError, "lam"),
        (lambda: svm.SoftSVM().fit(X_OK, [1, 2, 3, 1]), ValueError, "class"),
        (lambda: svm.SoftSVM().fit(X_OK, [0.5, 1.5, 0.5, 1.5]), ValueError, "label"),
        (lambda: svm.HardSVM().fit(X_OK, None), ValueError, "y"),
        (lambda: svm.HardSVM().fit([[1.0, np.inf]] * 4, Y_OK), ValueError, "X"),
        (lambda: svm.HardSVM().predict(X_OK), Exception, "fitted"),
    ],
)
def test_bad_parameters_name_the_argument(call, exc, name):
    with pytest.raises(exc, match=name):
        call()
