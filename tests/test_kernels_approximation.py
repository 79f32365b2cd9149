"""Kernel approximations (kmlteach.kernels.approximation): Nyström and random Fourier features.

Oracles: the Nyström formula C W⁺ Cᵀ with NumPy's pseudo-inverse (itself checked against
scikit-learn's ``Nystroem``) and theorems (m = n gives K; the residual K − Φ Φᵀ is PSD and
shrinks as landmarks are added); for random features the formula √(2/D) cos(Xωᵀ + b) with
NumPy's cos, scikit-learn's ``RBFSampler.transform`` on the same draws, and E[Z Zᵀ] = K by
Monte-Carlo with a tolerance from Bernstein's inequality.
"""

import math

import numpy as np
import pytest

from kmlteach import kernels as kk
from kmlteach.kernels import approximation as ka

EPS = np.finfo(float).eps


def _data(n=120, d=3, seed=0):
    return np.random.default_rng(seed).normal(size=(n, d))


def _nystroem_oracle(X, J, sigma):
    """C W⁺ Cᵀ for landmarks J, with NumPy's pinv (rcond at rounding level)."""
    C = kk.gram("gaussian", X, X[J], sigma=sigma)
    W = kk.gram("gaussian", X[J], sigma=sigma)
    return C @ np.linalg.pinv(W, rcond=len(J) * EPS, hermitian=True) @ C.T


# ----------------------------------------------------------------------------- Nyström


@pytest.mark.parametrize(
    "X,sigma",
    [
        (_data(150, 3), 2.0),  # smooth kernel: numerically low rank
        (_data(100, 5), 0.05),  # K close to the identity: full rank
        (np.repeat(_data(40, 2), 3, axis=0), 1.0),  # every row three times: W singular
    ],
)
def test_m_equal_n_reproduces_K_to_rounding(X, sigma):
    n = X.shape[0]
    K = kk.gram("gaussian", X, sigma=sigma)
    Phi = kk.nystroem(X, n, sigma=sigma, seed=0)
    assert Phi.shape == (n, n) and Phi.dtype == np.float64
    # the dropped eigenvalues are below n·ε·λ_max, and λ_max <= n: the error is at rounding level
    assert np.max(np.abs(Phi @ Phi.T - K)) <= 50 * n * EPS * np.linalg.norm(K, 2)


def test_features_equal_the_formula_with_the_pseudo_inverse():
    X, sigma = _data(200, 4), 1.5
    for m in (1, 7, 60):
        f = kk.nystroem_map(X, m, sigma=sigma, seed=3)
        Phi = kk.nystroem(X, m, sigma=sigma, seed=3)
        assert Phi.shape == (200, m) and f.landmarks.dtype == np.int64 and 0 <= f.landmarks.min()
        assert len(set(f.landmarks.tolist())) == m and np.array_equal(f.components, X[f.landmarks])
        np.testing.assert_allclose(Phi @ Phi.T, _nystroem_oracle(X, f.landmarks, sigma), atol=1e-10)
        # at the landmarks the approximation is exact: C W⁺ W = C (K is PSD)
        np.testing.assert_allclose(
            (Phi @ Phi.T)[:, f.landmarks], kk.gram("gaussian", X, X[f.landmarks], sigma=sigma), atol=1e-10
        )


def test_the_oracle_formula_equals_scikit_learns_nystroem():
    approx = pytest.importorskip("sklearn.kernel_approximation")
    X, sigma = _data(150, 3, seed=1), 0.8
    ny = approx.Nystroem(gamma=1 / (2 * sigma), n_components=30, random_state=0).fit(X)
    F = ny.transform(X)
    np.testing.assert_allclose(F @ F.T, _nystroem_oracle(X, ny.component_indices_, sigma), atol=1e-8)


def test_error_falls_as_landmarks_are_added():
    """The landmarks for m are the first m of one permutation, so they are nested; the residual
    K − C W⁺ Cᵀ (a Schur complement) is PSD and shrinks in the PSD order when landmarks are added:
    its trace and its Frobenius norm fall with m."""
    X, sigma = _data(300, 3, seed=2), 1.0
    K = kk.gram("gaussian", X, sigma=sigma)
    traces, norms, prev = [], [], None
    for m in (2, 5, 10, 20, 40, 80, 160):
        f = kk.nystroem_map(X, m, sigma=sigma, seed=7)
        if prev is not None:
            assert np.array_equal(f.landmarks[: prev.size], prev)
        prev = f.landmarks
        Phi = kk.nystroem(X, m, sigma=sigma, seed=7)
        R = K - Phi @ Phi.T
        assert np.linalg.eigvalsh(R).min() >= -1e-10
        traces.append(np.trace(R))
        norms.append(np.linalg.norm(R))
    assert all(a > b for a, b in zip(traces, traces[1:])) and all(a > b for a, b in zip(norms, norms[1:]))
    assert norms[-1] < 0.05 * norms[0]


def test_columns_follow_the_eigenvalues_of_the_landmark_block():
    X = _data(100, 2)
    f = kk.nystroem_map(X, 25, sigma=1.0, seed=0)
    Phi = f.transform(X)
    lam = f.eigenvalues
    assert np.all(np.diff(lam) <= 0) and f.rank <= 25
    W = kk.gram("gaussian", X[f.landmarks], sigma=1.0)
    np.testing.assert_allclose(lam, np.linalg.eigvalsh(W)[::-1], atol=1e-12)
    # at the landmarks, column k is the k-th eigenvector times √λ_k
    PL = Phi[f.landmarks][:, : f.rank]
    np.testing.assert_allclose(PL.T @ PL, np.diag(lam[: f.rank]), atol=1e-9)
    assert np.all(Phi[:, f.rank :] == 0.0)


def test_same_seed_same_bits_and_the_map_transforms_test_points():
    X, Xt = _data(80, 3, 0), _data(20, 3, 1)
    a, b = kk.nystroem(X, 15, sigma=0.7, seed=11), kk.nystroem(X, 15, sigma=0.7, seed=11)
    assert np.array_equal(a, b) and not np.allclose(a, kk.nystroem(X, 15, sigma=0.7, seed=12))
    f = kk.nystroem_map(X, 15, sigma=0.7, seed=11)
    np.testing.assert_allclose(f.transform(X), a, atol=1e-12)  # m >= n/8: landmark rows as U Λ^(1/2)
    few = kk.nystroem_map(X, 9, sigma=0.7, seed=11)  # m < n/8: one product, the same bits
    assert np.array_equal(few.transform(X), kk.nystroem(X, 9, sigma=0.7, seed=11))
    Kt = kk.gram("gaussian", Xt, X, sigma=0.7)
    full = kk.nystroem_map(X, 80, sigma=0.7, seed=0)
    np.testing.assert_allclose(full.transform(Xt) @ full.transform(X).T, Kt, atol=1e-8)


def test_nystroem_rejects_bad_input_naming_the_argument():
    X = _data(10, 2)
    for kwargs, name in [
        (dict(m=0), "m"),
        (dict(m=11), "m"),
        (dict(m=2.5), "m"),
        (dict(m=3, sigma=0.0), "sigma"),
        (dict(m=3, sigma=-1.0), "sigma"),
        (dict(m=3, sigma=np.nan), "sigma"),
        (dict(m=3, seed=-1), "seed"),
        (dict(m=3, seed=1.5), "seed"),
    ]:
        with pytest.raises((ValueError, TypeError), match=name):
            kk.nystroem(X, **kwargs)
    with pytest.raises(ValueError, match="X"):
        kk.nystroem(np.array([[np.nan, 1.0]]), 1)
    with pytest.raises(ValueError, match="Z"):
        kk.nystroem_map(X, 3).transform(np.ones((2, 3)))
    with pytest.raises(ValueError, match="m"):
        kk.nystroem(np.ones((2**15, 1)), 2**14)  # 4 GiB: refused, not a MemoryError


# ----------------------------------------------------------------------------- random features


def _draws(d, D, sigma, seed):
    """The draws the docstring documents: two streams spawned from default_rng(seed)."""
    rw, rb = np.random.default_rng(seed).spawn(2)
    return rw.standard_normal((D, d)) / np.sqrt(sigma), rb.uniform(0.0, 2.0 * np.pi, D)


@pytest.mark.parametrize("d", [3, 40])  # the tile kernel's own sums, and BLAS's
def test_features_equal_the_formula_with_numpys_cos(d):
    X, D, sigma = _data(70, d, 4), 300, 1.7
    Z = kk.random_fourier_features(X, D, sigma=sigma, seed=5)
    omega, b = _draws(d, D, sigma, 5)
    assert Z.shape == (70, D) and Z.dtype == np.float64
    np.testing.assert_allclose(Z, np.sqrt(2.0 / D) * np.cos(X @ omega.T + b), rtol=0, atol=1e-14)


@pytest.mark.parametrize("d", [3, 40])
def test_equal_to_rbfsampler_on_the_same_draws(d, monkeypatch):
    approx = pytest.importorskip("sklearn.kernel_approximation")
    X, D, sigma = _data(60, d, 5), 256, 0.9
    rs = approx.RBFSampler(gamma=1 / (2 * sigma), n_components=D, random_state=0).fit(X)
    monkeypatch.setattr(ka, "_fourier_draws", lambda *a: (rs.random_weights_.T.copy(), rs.random_offset_))
    np.testing.assert_allclose(
        kk.random_fourier_features(X, D, sigma=sigma), rs.transform(X), rtol=0, atol=1e-14
    )


def test_expectation_of_Z_Zt_is_K():
    """Entry (i, j) of Z Zᵀ averages D terms t_k = 2 cos(ω_kᵀx_i + b_k) cos(ω_kᵀx_j + b_k) =
    cos(ω_kᵀ(x_i − x_j)) + cos(ω_kᵀ(x_i + x_j) + 2b_k), independent, with mean K_ij, variance
    v_ij = 1 + K_ij⁴/2 − K_ij² (E cos²(ωᵀδ) = (1 + K⁴)/2, E cos²(· + 2b) = 1/2, no covariance
    over b) and |t_k − K_ij| <= 3. Averaged over S seeds, N = S·D terms; Bernstein's inequality
    P(|mean − K| >= ε) <= 2 exp(−N ε² / (2 v + 2·3·ε/3)) with the failure probability 1e-9
    shared over the entries gives ε. The test fails a wrong convention (ω ~ N(0, I/(2σ)) gives
    K^(1/2), a missing √2 gives K/2): those differ from K by more than 2ε here, so their mean
    would lie more than ε away from K."""
    X = np.array([[0.0, 0.0], [0.9, 0.0], [0.45, 0.78], [0.45, 0.26]])  # a triangle and its centre
    sigma, D, S = 0.8, 2000, 100
    K = kk.gram("gaussian", X, sigma=sigma)
    mean = sum(z @ z.T for z in (kk.random_fourier_features(X, D, sigma=sigma, seed=s) for s in range(S))) / S
    N = S * D
    v = 1.0 + K**4 / 2 - K**2
    log_term = math.log(2 * K.size / 1e-9)
    eps = (2 * log_term + np.sqrt(4 * log_term**2 + 8 * N * v * log_term)) / (
        2 * N
    )  # root of N ε² = L (2v + 2ε)
    assert np.all(np.abs(mean - K) <= eps), np.max(np.abs(mean - K) / eps)
    off = ~np.eye(4, dtype=bool)
    assert np.min(np.abs(np.sqrt(K) - K)[off]) > 2 * eps.max() and np.min((K / 2)[off]) > 2 * eps.max()


def test_error_falls_like_one_over_root_D():
    X, sigma = _data(40, 3, 6), 1.0
    K = kk.gram("gaussian", X, sigma=sigma)
    Ds = (64, 256, 1024, 4096)
    err = [
        np.mean(
            [
                np.sqrt(np.mean((z @ z.T - K) ** 2))
                for z in (kk.random_fourier_features(X, D, sigma=sigma, seed=s) for s in range(8))
            ]
        )
        for D in Ds
    ]
    assert all(a > b for a, b in zip(err, err[1:]))
    slope = np.polyfit(np.log(Ds), np.log(err), 1)[0]
    assert -0.65 < slope < -0.35, slope


def test_same_seed_same_bits_prefixes_and_test_points():
    X, Xt = _data(50, 3, 7), _data(10, 3, 8)
    a = kk.random_fourier_features(X, 500, sigma=2.0, seed=9)
    assert np.array_equal(a, kk.random_fourier_features(X, 500, sigma=2.0, seed=9))
    assert not np.allclose(a, kk.random_fourier_features(X, 500, sigma=2.0, seed=10))
    # the features for D' are a prefix of those for D (rescaled)
    np.testing.assert_allclose(
        a[:, :100] * np.sqrt(5.0), kk.random_fourier_features(X, 100, sigma=2.0, seed=9), rtol=1e-14
    )
    # the map depends on the seed, not on X: test points get the same map
    both = kk.random_fourier_features(np.vstack([X, Xt]), 500, sigma=2.0, seed=9)
    assert np.array_equal(both[50:], kk.random_fourier_features(Xt, 500, sigma=2.0, seed=9))


def test_the_vectorised_cosine_is_accurate_and_large_arguments_are_exact():
    x = np.r_[np.linspace(-30, 30, 60001), np.random.default_rng(0).uniform(-1e6, 1e6, 50000)]
    x = np.r_[x, np.pi / 2 * np.arange(-1000, 1000), 1e-300, -0.0]
    Z = x[None, :].copy()
    ka._fourier_tile_kernel(Z, np.zeros((1, 1)), np.zeros((1, x.size)), np.zeros(x.size), 1.0, 0, 1, False)
    assert np.max(np.abs(Z[0] - np.cos(x))) <= 2 * EPS
    big = np.array([2e6, -3.5e7, 1e15, 7e200])  # beyond the reduction's range: math.cos
    Zb = big[None, :].copy()
    ka._fourier_tile_kernel(Zb, np.zeros((1, 1)), np.zeros((1, 4)), np.zeros(4), 1.0, 0, 1, False)
    assert np.array_equal(Zb[0], np.cos(big))


def test_random_features_reject_bad_input_naming_the_argument():
    X = _data(10, 2)
    for kwargs, name in [
        (dict(D=0), "D"),
        (dict(D=2.5), "D"),
        (dict(D=2**31), "D"),
        (dict(D=4, sigma=0.0), "sigma"),
        (dict(D=4, sigma=np.inf), "sigma"),
        (dict(D=4, seed=-2), "seed"),
        (dict(D=4, seed="a"), "seed"),
    ]:
        with pytest.raises((ValueError, TypeError), match=name):
            kk.random_fourier_features(X, **kwargs)
    with pytest.raises(ValueError, match="D"):
        kk.random_fourier_features(X, 2**28)  # 20 GiB
    with pytest.raises(ValueError, match="sigma"):
        kk.random_fourier_features(1e145 * X, 4, sigma=1e-310)  # ωᵀx would overflow
    with pytest.raises(ValueError, match="X"):
        kk.random_fourier_features(np.array([[1.0, np.inf]]), 4)


def test_the_docstring_examples_are_true():
    import doctest

    assert doctest.testmod(ka).failed == 0
