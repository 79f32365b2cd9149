"""Tests for kmlteach.kernel_methods. Oracles: the same algorithms run on explicit
features (Lemma 16.3 and its analogues), scikit-learn's KernelPCA, closed forms."""

import warnings

import numpy as np
import pytest
from sklearn.decomposition import KernelPCA as SKKernelPCA
from sklearn.utils.estimator_checks import check_estimator

from kmlteach import kernel_methods as km
from kmlteach import kernels as kk
from kmlteach.svm import perceptron, sgd_soft_svm

RNG = np.random.default_rng(0)
X = RNG.normal(size=(25, 2))
y = np.where(X[:, 0] ** 2 + 0.5 * X[:, 1] > 0.6, 1.0, -1.0)


def sgd_explicit(Phi, y, lam, T, seed):
    """UML §15.5 written out on explicit features (the oracle for Lemma 16.3)."""
    idx = np.random.default_rng(seed).integers(0, Phi.shape[0], size=T)
    theta = np.zeros(Phi.shape[1])
    total = np.zeros(Phi.shape[1])
    w = theta
    for t in range(1, T + 1):
        w = theta / (lam * t)
        total += w
        i = idx[t - 1]
        if y[i] * (w @ Phi[i]) < 1:
            theta = theta + y[i] * Phi[i]
    return total / T, w


def perceptron_explicit(Phi, y, max_updates=10_000):
    w = np.zeros(Phi.shape[1])
    for n in range(max_updates + 1):
        bad = np.flatnonzero(y * (Phi @ w) <= 0)
        if bad.size == 0:
            return w, n
        w = w + y[bad[0]] * Phi[bad[0]]
    return w, max_updates


# ----------------------------------------------------------------------------- Lemma 16.3

@pytest.mark.parametrize("degree, lam, T, seed", [(2, 0.1, 400, 0), (3, 0.01, 1500, 7), (1, 1.0, 50, 3)])
def test_kernel_sgd_equals_sgd_on_features(degree, lam, T, seed):
    Phi = kk.polynomial_features(X, degree)
    K = kk.gram("polynomial", X, degree=degree, c=1)
    res = km.kernel_sgd_svm(K, y, lam, T, seed)
    w_bar, w_last = sgd_explicit(Phi, y, lam, T, seed)
    assert np.allclose(Phi.T @ res.alpha, w_bar, rtol=1e-10, atol=1e-10)
    assert np.allclose(Phi.T @ res.alpha_last, w_last, rtol=1e-10, atol=1e-10)
    assert np.array_equal(res.indices, np.random.default_rng(seed).integers(0, 25, size=T))
    assert np.all(res.beta * y >= 0)  # beta_i only ever moves by y_i
    assert res.n_updates == int(np.sum(np.abs(res.beta)))


def test_kernel_sgd_equals_chapter01_sgd_soft_svm():
    Phi = kk.polynomial_features(X, 2)
    K = kk.gram("polynomial", X, degree=2)
    for seed in (0, 1, 2):
        ref = sgd_soft_svm(Phi, y, 0.05, 600, seed)
        res = km.kernel_sgd_svm(K, y, 0.05, 600, seed)
        assert np.allclose(Phi.T @ res.alpha, ref.w, rtol=1e-10, atol=1e-10)
        assert np.allclose(Phi.T @ res.alpha_last, ref.w_last, rtol=1e-10, atol=1e-10)


def test_kernel_sgd_different_seeds_differ_and_same_seed_repeats():
    K = kk.gram("gaussian", X, sigma=0.5)
    a = km.kernel_sgd_svm(K, y, 0.1, 300, 1).alpha
    assert np.array_equal(a, km.kernel_sgd_svm(K, y, 0.1, 300, 1).alpha)
    assert not np.array_equal(a, km.kernel_sgd_svm(K, y, 0.1, 300, 2).alpha)


def test_kernel_sgd_gaussian_fits_the_training_set():
    K = kk.gram("gaussian", X, sigma=0.3)
    res = km.kernel_sgd_svm(K, y, 0.001, 5000, 0)
    assert np.mean(np.sign(K @ res.alpha) == y) >= 0.95


# ----------------------------------------------------------------------------- other methods

@pytest.mark.parametrize("degree", [2, 3])
def test_kernel_perceptron_equals_perceptron_on_features(degree):
    Phi = kk.polynomial_features(X, degree)
    K = kk.gram("polynomial", X, degree=degree)
    res = km.kernel_perceptron(K, y)
    w, n = perceptron_explicit(Phi, y)
    assert res.converged and res.n_updates == n
    assert np.allclose(Phi.T @ res.alpha, w, atol=1e-9)
    assert np.all(y * (K @ res.alpha) > 0)
    ref = perceptron(Phi, y)  # chapter 01's perceptron on explicit features
    assert ref.n_updates == res.n_updates
    assert np.allclose(Phi.T @ res.alpha, ref.w, atol=1e-9)


def test_kernel_perceptron_stops_at_max_updates():
    Xl = np.array([[0.0], [1.0], [2.0]])
    res = km.kernel_perceptron(kk.gram("linear", Xl), [1.0, -1.0, 1.0], max_updates=7)
    assert not res.converged and res.n_updates == 7


def test_kernel_ridge_equals_ridge_in_feature_space():
    Phi = kk.polynomial_features(X, 3)
    K = kk.gram("polynomial", X, degree=3)
    t = np.sin(X[:, 0]) + X[:, 1] ** 2
    lam, m = 0.05, X.shape[0]
    res = km.kernel_ridge(K, t, lam)
    w = np.linalg.solve(lam * m * np.eye(Phi.shape[1]) + Phi.T @ Phi, Phi.T @ t)
    assert np.allclose(Phi.T @ res.alpha, w, rtol=1e-8, atol=1e-9)
    obj = 0.5 * lam * w @ w + np.sum((Phi @ w - t) ** 2) / (2 * m)
    assert res.objective == pytest.approx(obj, rel=1e-9)
    Z = RNG.normal(size=(6, 2))
    pred = km.kernel_expansion(kk.gram("polynomial", Z, X, degree=3), res.alpha)
    assert np.allclose(pred, kk.polynomial_features(Z, 3) @ w, rtol=1e-8, atol=1e-9)
    # UML (16.8) with its lambda: minimiser is ours with lam = 2 lam_UML (gradient is zero)
    lam_uml = lam / 2
    grad = 2 * lam_uml * w + Phi.T @ (Phi @ w - t) / m
    assert np.allclose(grad, 0, atol=1e-9)


def test_class_mean_classifier_equals_explicit_means():
    Phi = kk.polynomial_features(X, 2)
    K = kk.gram("polynomial", X, degree=2)
    res = km.class_mean_classifier(K, y)
    cp, cm = Phi[y > 0].mean(0), Phi[y < 0].mean(0)
    w, b = cp - cm, 0.5 * (cm @ cm - cp @ cp)
    assert np.allclose(Phi.T @ res.alpha, w)
    assert res.b == pytest.approx(b)
    Z = RNG.normal(size=(40, 2))
    PZ = kk.polynomial_features(Z, 2)
    Kz = kk.gram("polynomial", Z, X, degree=2)
    assert np.allclose(res.decision_function(Kz), PZ @ w + b)
    nearest = np.where(np.linalg.norm(PZ - cp, axis=1) <= np.linalg.norm(PZ - cm, axis=1), 1.0, -1.0)
    assert np.array_equal(res.predict(Kz), nearest)  # UML ex. 16.6: closer to c_+


def test_kernel_expansion():
    assert np.allclose(km.kernel_expansion([[1.0, 2.0], [0.0, 1.0]], [1.0, -1.0], b=0.5), [-0.5, -0.5])


# ----------------------------------------------------------------------------- kernel PCA

def test_kernel_pca_matches_sklearn_and_reproduces_centred_gram():
    K = kk.gram("gaussian", X, sigma=0.8)
    res = km.kernel_pca(K, 4)
    sk = SKKernelPCA(4, kernel="precomputed", eigen_solver="dense").fit(K)
    ref = sk.transform(K)
    signs = np.sign(np.sum(res.embedding * ref, axis=0))
    assert np.allclose(res.embedding, ref * signs, atol=1e-8)
    assert np.allclose(res.eigenvalues, sk.eigenvalues_, rtol=1e-10)
    assert np.all(np.diff(res.eigenvalues) <= 0)
    Kc = kk.center(K)
    assert np.allclose(np.diag(res.alphas.T @ Kc @ res.alphas), 1.0)  # unit-norm axes
    Z = RNG.normal(size=(5, 2))
    Kz = kk.gram("gaussian", Z, X, sigma=0.8)
    assert np.allclose(km.kernel_pca_transform(res, Kz), sk.transform(Kz) * signs, atol=1e-8)
    full = km.kernel_pca(K, K.shape[0])  # HSS1 (1.32)
    assert np.allclose(full.embedding @ full.embedding.T, Kc, atol=1e-9)


def test_kernel_pca_lanczos_path_matches_dense_sklearn():
    # m > 200 and fewer than 10 components: the ARPACK path (as scikit-learn's "auto")
    Xl = np.random.default_rng(3).normal(size=(260, 2))
    K = kk.gram("gaussian", Xl, sigma=0.5)
    res = km.kernel_pca(K, 3)
    ref = SKKernelPCA(3, kernel="precomputed", eigen_solver="dense").fit_transform(K)
    assert np.allclose(np.abs(res.embedding), np.abs(ref), atol=1e-8)
    assert np.array_equal(res.embedding, km.kernel_pca(K, 3).embedding)  # deterministic


@pytest.mark.parametrize("m", [30, 300])  # dense and Lanczos paths
def test_kernel_pca_of_a_constant_kernel_is_all_zero(m):
    res = km.kernel_pca(np.ones((m, m)), 2)  # centring removes everything
    assert np.allclose(res.eigenvalues, 0) and np.all(res.alphas == 0) and np.all(res.embedding == 0)


def test_kernel_pca_rank_deficient_linear_kernel_is_ordinary_pca():
    K = kk.gram("linear", X)
    res = km.kernel_pca(K, 3)  # rank 2 after centring
    Xc = X - X.mean(0)
    s = np.linalg.svd(Xc, compute_uv=False)
    assert np.allclose(res.eigenvalues[:2], s ** 2)
    assert abs(res.eigenvalues[2]) < 1e-9
    assert np.all(res.alphas[:, 2] == 0) and np.allclose(res.embedding[:, 2], 0)
    assert np.allclose(res.embedding[:, :2] @ res.embedding[:, :2].T, Xc @ Xc.T)


def test_kernel_dependency_estimation_against_explicit_outputs():
    Yout = np.c_[np.sin(X[:, 0]), X[:, 1] ** 2, X[:, 0] * X[:, 1]]
    Kx, Ky = kk.gram("gaussian", X, sigma=1.0), kk.gram("linear", Yout)
    model = km.kernel_dependency_estimation(Kx, Ky, lam=0.01)
    cands = np.r_[Yout, RNG.normal(size=(10, 3))]
    Z = X[:8] + 0.01
    pred = km.kde_predict(model, kk.gram("gaussian", Z, X, sigma=1.0), kk.gram("linear", cands, Yout),
                          np.sum(cands ** 2, 1))
    mu = Yout.mean(0)
    _, S, Vt = np.linalg.svd(Yout - mu, full_matrices=False)
    coef = np.linalg.solve(Kx + 0.01 * 25 * np.eye(25), (Yout - mu) @ Vt.T)
    Tz = kk.gram("gaussian", Z, X, sigma=1.0) @ coef
    recon = mu + Tz @ Vt
    D = np.sum((cands[None] - recon[:, None]) ** 2, axis=2)
    assert np.allclose(pred.distances, D, atol=1e-8)
    assert np.array_equal(pred.index, np.argmin(D, axis=1))
    assert np.mean(pred.index == np.arange(8)) >= 0.75  # mostly decodes the right output


# ----------------------------------------------------------------------------- estimators

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
    for kernel, params in [("polynomial", {"degree": 3}), ("bspline", {"order": 1}), ("exponential", {}),
                           ("linear", {})]:
        km.KernelSVM(kernel=kernel, **params).fit(X, y).predict(X)


def test_kernel_pca_estimator_matches_function():
    est = km.KernelPCA(n_components=2, kernel="polynomial", degree=2)
    E = est.fit_transform(X)
    res = km.kernel_pca(kk.gram("polynomial", X, degree=2), 2)
    assert np.allclose(E, res.embedding)
    assert np.allclose(est.transform(X), E, atol=1e-9)


# ----------------------------------------------------------------------------- bad input

K0 = kk.gram("gaussian", X)


@pytest.mark.parametrize("fn", [
    lambda K, yy: km.kernel_sgd_svm(K, yy, 0.1, 10, 0),
    lambda K, yy: km.kernel_perceptron(K, yy),
    lambda K, yy: km.class_mean_classifier(K, yy),
])
def test_binary_methods_reject_bad_input(fn):
    with pytest.raises(ValueError, match="K"):
        fn(np.ones((3, 4)), [1, -1, 1])
    with pytest.raises(ValueError, match="K"):
        fn([[1.0, 2.0], [0.0, 1.0]], [1, -1])
    with pytest.raises(ValueError, match="K"):
        fn([[np.nan, 0], [0, 1]], [1, -1])
    with pytest.raises(TypeError, match="K"):
        fn("K", [1, -1])
    with pytest.raises(ValueError, match="y"):
        fn(K0, np.ones(25))
    with pytest.raises(ValueError, match="y"):
        fn(K0, np.where(y > 0, 1, 0))
    with pytest.raises(ValueError, match="y"):
        fn(K0, y[:5])
    with pytest.raises(ValueError, match="K"):
        fn(np.zeros((0, 0)), [])


def test_parameters_are_validated():
    with pytest.raises(ValueError, match="lam"):
        km.kernel_sgd_svm(K0, y, 0.0, 10, 0)
    with pytest.raises(ValueError, match="T"):
        km.kernel_sgd_svm(K0, y, 0.1, 0, 0)
    with pytest.raises(TypeError, match="T"):
        km.kernel_sgd_svm(K0, y, 0.1, 2.5, 0)
    with pytest.raises((TypeError, ValueError), match="seed"):
        km.kernel_sgd_svm(K0, y, 0.1, 10, -1)
    with pytest.raises(ValueError, match="max_updates"):
        km.kernel_perceptron(K0, y, max_updates=-1)
    with pytest.raises(ValueError, match="lam"):
        km.kernel_ridge(K0, y, -1.0)
    with pytest.raises(ValueError, match="y"):
        km.kernel_ridge(K0, [np.nan] * 25, 1.0)
    with pytest.raises(ValueError, match="K"):
        km.kernel_ridge(np.ones((2, 3)), [1.0, 2.0], 1.0)
    with pytest.raises(ValueError, match="K_test"):
        km.kernel_expansion(np.ones((2, 3)), np.ones(4))
    with pytest.raises(ValueError, match="alpha"):
        km.kernel_expansion(np.ones((2, 3)), [np.inf, 0, 0])
    with pytest.raises(TypeError, match="b"):
        km.kernel_expansion(np.ones((2, 3)), np.ones(3), b="0")
    with pytest.raises(ValueError, match="n_components"):
        km.kernel_pca(K0, 26)
    with pytest.raises(ValueError, match="n_components"):
        km.kernel_pca(K0, 0)
    with pytest.raises(ValueError, match="K"):
        km.kernel_pca(np.ones((2, 3)), 1)
    res = km.kernel_pca(K0, 2)
    with pytest.raises(ValueError, match="K_test"):
        km.kernel_pca_transform(res, np.ones((2, 3)))
    with pytest.raises(TypeError, match="result"):
        km.kernel_pca_transform("res", np.ones((2, 25)))
    with pytest.raises(ValueError, match="K_y"):
        km.kernel_dependency_estimation(K0, np.eye(3), 0.1)
    with pytest.raises(ValueError, match="lam"):
        km.kernel_dependency_estimation(K0, K0, 0)
    model = km.kernel_dependency_estimation(K0, K0, 0.1, n_components=3)
    with pytest.raises(ValueError, match="K_y_cand"):
        km.kde_predict(model, np.ones((1, 25)), np.ones((2, 3)), np.ones(2))
    with pytest.raises(ValueError, match="k_y_cand_diag"):
        km.kde_predict(model, np.ones((1, 25)), np.ones((2, 25)), np.ones(3))
    with pytest.raises(ValueError, match="K_x_test"):
        km.kde_predict(model, np.ones((1, 2)), np.ones((2, 25)), np.ones(2))
    with pytest.raises(TypeError, match="model"):
        km.kde_predict(None, np.ones((1, 25)), np.ones((2, 25)), np.ones(2))


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
