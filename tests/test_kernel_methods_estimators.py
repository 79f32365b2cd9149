"""Tests for kmlteach.kernel_methods. Oracles: the same algorithms run on explicit — ``kmlteach.kernel_methods.estimators``."""

import warnings

import numpy as np
import pytest
from sklearn.utils.estimator_checks import check_estimator

from kmlteach import kernel_methods as km
from kmlteach import kernels as kk

RNG = np.random.default_rng(0)


X = RNG.normal(size=(25, 2))


y = np.where(X[:, 0] ** 2 + 0.5 * X[:, 1] > 0.6, 1.0, -1.0)


@pytest.mark.parametrize("est", [km.KernelSVM(), km.KernelPCA()], ids=["KernelSVM", "KernelPCA"])
def test_check_estimator(est):
    # no expected failure: scikit-learn's own input checks run first (complex, object,
    # a column-vector y ravelled with a DataConversionWarning), then the course's gate
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = check_estimator(est, on_fail=None)
    failed = {r["check_name"] for r in results if r["status"] != "passed" and r["status"] != "skipped"}
    assert not failed, failed


def test_kernel_svm_any_two_labels_and_matches_function():
    labels = np.where(y > 0, "yes", "no")
    est = km.KernelSVM(kernel="gaussian", sigma=0.3, lam=0.001, T=3000, seed=1).fit(X, labels)
    K = kk.gram("gaussian", X, sigma=0.3)
    res = km.kernel_sgd_svm(K, np.where(labels == "yes", 1.0, -1.0), 0.001, 3000, 1)
    assert np.allclose(est.alpha_, res.alpha)
    assert list(est.classes_) == ["no", "yes"]
    assert np.mean(est.predict(X) == labels) >= 0.95
    assert np.allclose(est.decision_function(X[:3]), K[:3] @ res.alpha)
    est2 = km.KernelSVM(kernel="gaussian", gamma=1 / 0.6, lam=0.001, T=3000, seed=1).fit(X, labels)
    assert np.allclose(est2.alpha_, est.alpha_)
    for kernel, params in [
        ("polynomial", {"degree": 3}),
        ("bspline", {"order": 1}),
        ("exponential", {}),
        ("linear", {}),
    ]:
        km.KernelSVM(kernel=kernel, **params).fit(X, y).predict(X)


def test_kernel_pca_estimator_matches_function():
    est = km.KernelPCA(n_components=2, kernel="polynomial", degree=2)
    E = est.fit_transform(X)
    res = km.kernel_pca(kk.gram("polynomial", X, degree=2), 2)
    assert np.allclose(E, res.embedding)
    assert np.allclose(est.transform(X), E, atol=1e-9)


def test_estimators_reject_bad_input():
    with pytest.raises(ValueError, match="kernel"):
        km.KernelSVM(kernel="rbf").fit(X, y)
    with pytest.raises(ValueError, match="sigma"):
        km.KernelSVM(sigma=-1.0).fit(X, y)
    with pytest.raises(ValueError, match="y"):
        km.KernelSVM().fit(X, np.arange(25) % 3)
    with pytest.raises(ValueError, match="y"):
        km.KernelSVM().fit(X, np.ones(25))
    with pytest.raises(ValueError, match="X"):
        km.KernelSVM().fit(np.ones(25), y)
    with pytest.raises(ValueError, match="X"):
        km.KernelSVM().fit(X, y).predict(np.ones((2, 3)))
    with pytest.raises(ValueError, match="n_components"):
        km.KernelPCA(n_components=30).fit(X)
    with pytest.raises(ValueError, match="order"):
        km.KernelPCA(kernel="bspline", order=2).fit(X)


@pytest.mark.parametrize("d", [1, 2, 16, 17])  # 17 columns: the Gram matrix goes through BLAS
def test_kernel_svm_gaussian_rows_on_demand_give_kernel_sgd_svm_bits(d):
    # oracle: the function on the whole Gram matrix. The Gaussian estimator computes only
    # the rows SGD updates (kmlteach.kernels.distance.gaussian_row_data), bit for bit.
    from kmlteach.kernels.distance import gaussian_direct_kernel, gaussian_row_data

    rng = np.random.default_rng(d)
    Xd = rng.normal(size=(150, d)) * 2.0 + 40.0  # far from the origin: the centring matters
    yd = np.where(Xd[:, 0] + 0.5 * rng.normal(size=150) > 40.0, 1, -1)
    for sigma in (0.05, 1.0, 30.0):
        K = kk.gram("gaussian", Xd, sigma=sigma)
        rows = gaussian_row_data(Xd, 1 / (2 * sigma))
        assert (rows is None) == (d > 16)
        if rows is not None:
            out = np.empty((1, 150))
            for i in range(150):
                gaussian_direct_kernel(out, rows[0][i : i + 1], rows[1], 1 / (2 * sigma), False, 0, 1)
                assert np.array_equal(out[0], K[i])
        for T, seed in ((150, 0), (3000, 4)):
            est = km.KernelSVM(lam=1e-3, T=T, seed=seed, sigma=sigma).fit(Xd, yd)
            assert np.array_equal(est.alpha_, km.kernel_sgd_svm(K, yd, 1e-3, T, seed).alpha)
