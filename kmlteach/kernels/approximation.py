"""Kernel methods at scale: explicit features whose inner products approximate the Gaussian
kernel k(x, x') = exp(−||x − x'||²/(2σ)) (UML Example 16.2, the course's convention).

An exact kernel method on n points needs the n × n Gram matrix (n² kernel values, n² · 8 bytes:
3.2 GB at n = 20 000) and a solver that is O(n²) to O(n³). Both methods below replace it by an
n × m (or n × D) feature matrix Φ with Φ Φᵀ ≈ K, so that any *linear* method (SGD for the soft
SVM, ridge regression, PCA) runs on Φ in time linear in n:

* **Nyström** (Williams & Seeger 2001): draw m landmarks x_{j_1}, ..., x_{j_m} among the rows,
  C = K[:, J] (n × m) and W = K[J, J] = U Λ Uᵀ (m × m). Then

      Φ = C U Λ^{-1/2},   Φ Φᵀ = C W⁺ Cᵀ,

  the best approximation of K whose rows are spanned by the landmarks' kernel columns (K − Φ Φᵀ
  is the Schur complement of W in K: positive semi-definite, and it can only shrink when
  landmarks are added). With m = n every point is a landmark and Φ Φᵀ = K. Cost: n·m kernel
  values, an m × m eigendecomposition and an (n × m)(m × m) product.
* **Random Fourier features** (Rahimi & Recht 2007): by Bochner's theorem the Gaussian kernel is
  the characteristic function of ω ~ N(0, I/σ): k(x, x') = E_ω cos(ωᵀ(x − x')). With b ~ U[0, 2π),
  2 cos(ωᵀx + b) cos(ωᵀx' + b) = cos(ωᵀ(x − x')) + cos(ωᵀ(x + x') + 2b), whose second term has
  mean 0 over b, so D independent draws (ω_k, b_k) give

      z(x) = √(2/D) (cos(ω_1ᵀx + b_1), ..., cos(ω_Dᵀx + b_D)),   E[z(x)ᵀ z(x')] = k(x, x'),

  with variance (1 + k⁴/2 − k²)/D per entry: the error falls like 1/√D, whatever n.
  Cost: an (n × d)(d × D) product and n·D cosines, no kernel value at all.

Speed notes (``benchmarks/bench_ch02.py``): the n × m kernel block comes from the Gram tile kernel
of :func:`kmlteach.kernels.gram` (where scikit-learn's ``Nystroem`` computes it with
``rbf_kernel``), the landmark block W is a sub-block of C (not computed twice) and is decomposed
by ``eigh`` (scikit-learn: an SVD, several times slower, then an extra m × m × m product). For
random features the cosines are most of the time (NumPy's float64 ``cos`` is a libm call per
entry on this machine's NumPy, AVX2 and AVX-512 alike): they are computed by :func:`_cos_reduced`,
plain arithmetic that LLVM vectorises, fused with the shift by b and the scaling in one pass over
each tile of rows while it is in cache (scikit-learn makes four passes over the n × D matrix).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from kmlteach._jit import jit, num_threads, thread_map
from kmlteach._validation import check_int, check_positive, check_rng, check_X
from kmlteach.kernels.gram import gram_prechecked, kernel_params

__all__ = ["NystroemMap", "nystroem", "nystroem_map", "random_fourier_features"]

_MAX_ENTRIES = 2**28  # entries of an output matrix (2 GiB of float64): more is a mistake here


def _check_size(n: int, k: int, name: str) -> None:
    if n * k > _MAX_ENTRIES:
        raise ValueError(
            f"{name} = {k} is too large: the result would have {n} x {k} entries "
            f"({n * k * 8 / 2**30:.0f} GiB); use a smaller {name}"
        )


# ----------------------------------------------------------------------------- Nyström


@dataclass(frozen=True)
class NystroemMap:
    """The Nyström feature map fitted on a sample (see :func:`nystroem_map`).

    Attributes
    ----------
    landmarks : (m,) int64 array, the rows of the training X used as landmarks, in draw order.
    components : (m, d) array, those rows.
    eigenvalues : (m,) array, the eigenvalues of W = K[landmarks, landmarks], descending.
    normalization : (m, m) array U Λ^{-1/2}; the columns of eigenvalues at rounding level
        (λ ≤ m·ε·λ_max) are zero, so Φ Φᵀ = C W⁺ Cᵀ with the pseudo-inverse W⁺.
    sigma : float, the Gaussian width (UML convention).
    rank : int, the number of non-zero columns of ``normalization``.

    ``transform(Z)`` maps new points: Φ(Z) = K(Z, components) · normalization.
    """

    landmarks: np.ndarray
    components: np.ndarray
    eigenvalues: np.ndarray
    normalization: np.ndarray
    sigma: float
    rank: int

    def transform(self, Z) -> np.ndarray:
        """Features Φ(Z) (n_Z, m) of new points, with Φ(Z) Φ(X)ᵀ ≈ K(Z, X).

        ``transform(X)`` on the training X gives :func:`nystroem`'s result.
        """
        Za = check_X(Z, "Z", n_cols=self.components.shape[1])
        p = kernel_params("gaussian", sigma=self.sigma)
        C = gram_prechecked("gaussian", p, Za, self.components, False)
        return _features(C, self.normalization, self.rank)


def _features(C: np.ndarray, A: np.ndarray, r: int) -> np.ndarray:
    """Φ = C A, knowing that only the first r columns of A are non-zero."""
    m = A.shape[1]
    if r == m:
        return C @ A
    Phi = np.zeros((C.shape[0], m))
    if r:  # (a product into a strided slice of Phi does not go to BLAS: 3x slower)
        Phi[:, :r] = C @ np.ascontiguousarray(A[:, :r])
    return Phi


def _nystroem(X, m, sigma, seed):
    """(C, map): the kernel columns of the landmarks and the fitted :class:`NystroemMap`."""
    Xa = check_X(X, "X")
    n = Xa.shape[0]
    m = check_int(m, "m", minimum=1, maximum=n)
    _check_size(n, m, "m")
    p = kernel_params("gaussian", sigma=sigma)
    rng = check_rng(seed)
    J = rng.permutation(n)[:m]  # uniform without replacement; nested: the first m of one order
    L = Xa[J]
    C = gram_prechecked("gaussian", p, Xa, L, False)  # n × m, the tile kernel of gram()
    W = C[J]  # K[J, J]: a sub-block of C, not computed again
    lam, U = np.linalg.eigh(0.5 * (W + W.T))
    lam, U = lam[::-1], U[:, ::-1]
    r = int(np.count_nonzero(lam > m * np.finfo(float).eps * max(lam[0], 0.0)))
    # a sign per eigenvector (its largest entry positive): the same Φ from any LAPACK
    top = np.argmax(np.abs(U), axis=0)
    U = U * np.where(U[top, np.arange(m)] < 0, -1.0, 1.0)
    A = np.zeros((m, m))
    A[:, :r] = U[:, :r] / np.sqrt(lam[:r])
    fitted = NystroemMap(
        landmarks=J.astype(np.int64),
        components=L,
        eigenvalues=np.ascontiguousarray(lam),
        normalization=A,
        sigma=float(p["sigma"]),
        rank=r,
    )
    return C, fitted


def nystroem_map(X, m, *, sigma=1.0, seed=0) -> NystroemMap:
    """Fit the Nyström map of the Gaussian kernel on X (landmarks, eigendecomposition), to map
    training and test points alike with ``.transform``.

    Same arguments and landmarks as :func:`nystroem`; ``nystroem_map(X, m, ...).transform(X)``
    equals ``nystroem(X, m, ...)`` (bit for bit when m < n/8; otherwise to rounding, as
    :func:`nystroem` then writes the landmarks' rows as U Λ^{1/2} without the product).

    Examples
    --------
    >>> import numpy as np
    >>> from kmlteach.kernels import gram, nystroem_map
    >>> rng = np.random.default_rng(0)
    >>> X, X_test = rng.normal(size=(200, 2)), rng.normal(size=(50, 2))
    >>> K_test = gram("gaussian", X_test, X, sigma=1.0)  # the exact test-train block
    >>> for m in (20, 80):
    ...     f = nystroem_map(X, m, sigma=1.0, seed=0)
    ...     err = np.linalg.norm(f.transform(X_test) @ f.transform(X).T - K_test) / np.linalg.norm(K_test)
    ...     print(m, f"{err:.0e}")
    20 5e-02
    80 4e-03
    """
    return _nystroem(X, m, sigma, seed)[1]


def nystroem(X, m, *, sigma=1.0, seed=0) -> np.ndarray:
    """Nyström features Φ (n, m) of the Gaussian kernel, Φ Φᵀ ≈ ``gram("gaussian", X, sigma=sigma)``.

    m landmarks J are drawn uniformly without replacement from the rows of X (the first m of a
    random permutation made with ``seed``, so the landmarks for m are among those for any larger
    m). With C = K[:, J] and W = K[J, J] = U Λ Uᵀ,

        Φ = C U Λ^{-1/2}   and   Φ Φᵀ = C W⁺ Cᵀ

    (Williams & Seeger 2001; eigenvalues at rounding level are dropped: the pseudo-inverse W⁺).
    K − Φ Φᵀ is positive semi-definite and shrinks as landmarks are added; at the landmarks
    Φ Φᵀ is exact; m = n reproduces K to rounding. Column k of Φ belongs to the k-th largest
    eigenvalue of W.

    Parameters
    ----------
    X : array of shape (n, d)
    m : int, 1 <= m <= n
        Number of landmarks (columns of Φ).
    sigma : float > 0, default=1.0
        Gaussian width in the course's convention exp(−||x − x'||²/(2σ)) (γ = 1/(2σ)).
    seed : int or None, default=0
        Seeds the draw of the landmarks: the same seed gives the same Φ, bit for bit.

    Returns
    -------
    Phi : ndarray of shape (n, m), float64

    See Also
    --------
    nystroem_map : the fitted map, to compute features of test points with the same landmarks.
    random_fourier_features : features that need no landmark and no eigendecomposition.

    Examples
    --------
    >>> import numpy as np
    >>> from kmlteach.kernels import gram, nystroem
    >>> X = np.random.default_rng(0).normal(size=(300, 2))
    >>> K = gram("gaussian", X, sigma=1.0)
    >>> for m in (10, 40):
    ...     Phi = nystroem(X, m, sigma=1.0, seed=0)
    ...     print(m, Phi.shape, f"{np.linalg.norm(K - Phi @ Phi.T) / np.linalg.norm(K):.0e}")
    10 (300, 10) 1e-01
    40 (300, 40) 2e-02
    >>> Phi = nystroem(X, 300, sigma=1.0, seed=0)  # m = n: K itself, to rounding
    >>> bool(np.abs(K - Phi @ Phi.T).max() < 1e-12)
    True
    """
    C, f = _nystroem(X, m, sigma, seed)
    n, m, r = C.shape[0], f.normalization.shape[1], f.rank
    if 8 * m < n:
        return _features(C, f.normalization, r)
    # many landmarks: their rows are known without the product, C[J] A = W U Λ^{-1/2} = U Λ^{1/2}
    # (computed so, they are exact to rounding even for tiny λ); the product only for the others
    rest = np.ones(n, dtype=bool)
    rest[f.landmarks] = False
    Phi = np.zeros((n, m))
    Phi[rest, :r] = C[rest] @ np.ascontiguousarray(f.normalization[:, :r])
    Phi[f.landmarks, :r] = f.normalization[:, :r] * f.eigenvalues[:r]
    return Phi


# ----------------------------------------------------------------------------- random features

# cos(x) for |x| <= _COS_LIMIT: x = k·π/2 + r with |r| <= π/4 (k = round(2x/π) < 2^20, so each
# k·_PIO2_i is exact: π/2 in three parts of 33 bits, fdlibm's pio2_1, pio2_2, pio2_3), then
# fdlibm's polynomials for sin r and cos r on [-π/4, π/4] (error below one unit in the last place)
# and the quadrant k mod 4. Larger |x| (rare: ω'x beyond 10^6) go to math.cos.
_COS_LIMIT = 1.0e6
_INV_PIO2 = 6.36619772367581382433e-01
_SHIFT = 6755399441055744.0  # 1.5 · 2^52: y + _SHIFT - _SHIFT rounds y to an integer
_PIO2_1 = 1.57079632673412561417e00
_PIO2_2 = 6.07710050630396597660e-11
_PIO2_3 = 2.02226624871116645580e-21
_S1, _S2, _S3 = -1.66666666666666324348e-01, 8.33333333332248946124e-03, -1.98412698298579493134e-04
_S4, _S5, _S6 = 2.75573137070700676789e-06, -2.50507602534068634195e-08, 1.58969099521155010221e-10
_C1, _C2, _C3 = 4.16666666666666019037e-02, -1.38888888888741095749e-03, 2.48015872894767294178e-05
_C4, _C5, _C6 = -2.75573143513906633035e-07, 2.08757232129817482790e-09, -1.13596475577881948265e-11


@jit(warmup=lambda: (2.5,))
def _cos_reduced(x):
    """cos(x) for finite |x| <= 1e6 (within an ulp or so of the correctly rounded value);
    branch-free, so that loops calling it vectorise."""
    k = (x * _INV_PIO2 + _SHIFT) - _SHIFT
    r = ((x - k * _PIO2_1) - k * _PIO2_2) - k * _PIO2_3
    z = r * r
    s = r + r * z * (_S1 + z * (_S2 + z * (_S3 + z * (_S4 + z * (_S5 + z * _S6)))))
    hz = 0.5 * z
    w = 1.0 - hz
    c = w + (((1.0 - w) - hz) + z * z * (_C1 + z * (_C2 + z * (_C3 + z * (_C4 + z * (_C5 + z * _C6))))))
    q = k - 4.0 * np.floor(0.25 * k)  # k mod 4 in {0, 1, 2, 3}
    v = s if (q == 1.0 or q == 3.0) else c
    return -v if (q == 1.0 or q == 2.0) else v


def _tile_warmup():
    return np.zeros((2, 3)), np.ones((2, 2)), np.ones((2, 3)), np.ones(3), 0.5, 0, 2, True


@jit(nogil=True, warmup=_tile_warmup)
def _fourier_tile_kernel(Z, X, WT, b, scale, i0, i1, direct):
    """Rows i0..i1-1 of Z = scale · cos(X Wᵀ + b), in place. With ``direct`` the products
    x_iᵀω_j are summed here over the d coordinates (few columns: no BLAS call); otherwise Z
    already holds them. One pass per row while it is in cache: shift, cosine, scale."""
    D = Z.shape[1]
    d = X.shape[1]
    tmp = np.empty(D)
    for i in range(i0, i1):
        row = Z[i]
        if direct:
            row[:] = 0.0
            for k in range(d):
                xk = X[i, k]
                wk = WT[k]
                for j in range(D):
                    row[j] += xk * wk[j]
        n_big = 0
        for j in range(D):
            t = row[j] + b[j]
            n_big += abs(t) > _COS_LIMIT
            tmp[j] = _cos_reduced(t)
        if n_big:
            for j in range(D):
                t = row[j] + b[j]
                if abs(t) > _COS_LIMIT:
                    tmp[j] = math.cos(t)
        for j in range(D):
            row[j] = scale * tmp[j]


_DIRECT_COLUMNS = 16  # up to this many features ω'x is summed in the tile kernel (no BLAS)
_TILE_BYTES = 1 << 18


def _fourier_draws(d: int, D: int, sigma: float, seed):
    """ω (D, d) ~ N(0, I/σ) and b (D,) ~ U[0, 2π), from two independent streams of ``seed`` (so
    that the first D' draws do not depend on D: the features for D' are a prefix of those for D)."""
    rng = check_rng(seed)
    rw, rb = rng.spawn(2)
    omega = rw.standard_normal((D, d)) / math.sqrt(sigma)
    b = rb.uniform(0.0, 2.0 * math.pi, D)
    return omega, b


def random_fourier_features(X, D, *, sigma=1.0, seed=0) -> np.ndarray:
    """Random Fourier features Z (n, D) of the Gaussian kernel (Rahimi & Recht 2007):
    E[Z Zᵀ] = ``gram("gaussian", X, sigma=sigma)``.

    Draws ω_1, ..., ω_D ~ N(0, I/σ) (the Fourier transform of exp(−||δ||²/(2σ)) is this normal
    density: k(x, x') = E cos(ωᵀ(x − x'))) and b_1, ..., b_D ~ U[0, 2π), and returns

        z(x) = √(2/D) (cos(ω_1ᵀx + b_1), ..., cos(ω_Dᵀx + b_D)).

    Each entry of Z Zᵀ is an average of D independent terms with mean k(x, x') and variance
    1 + k⁴/2 − k², so its standard deviation is √((1 + k⁴/2 − k²)/D): 1/√D, whatever n.

    The draws depend only on ``seed``, d and D, never on X: calling the function on a test set
    with the same ``seed``, ``D`` and ``sigma`` gives the features of the same map. They come
    from two independent streams (ω and b), so the first D' columns of the result for D are
    √(D'/D) times the result for D' (a growing D only adds draws).

    Parameters
    ----------
    X : array of shape (n, d)
    D : int >= 1
        Number of random features.
    sigma : float > 0, default=1.0
        Gaussian width in the course's convention exp(−||x − x'||²/(2σ)) (γ = 1/(2σ), the
        ``gamma`` of scikit-learn's ``RBFSampler``).
    seed : int or None, default=0
        The same seed gives the same Z, bit for bit.

    Returns
    -------
    Z : ndarray of shape (n, D), float64

    See Also
    --------
    nystroem : data-dependent features, far more accurate for the same number of columns when
        the spectrum of K decays fast.

    Examples
    --------
    >>> import numpy as np
    >>> from kmlteach.kernels import gram, random_fourier_features
    >>> X, X_test = np.random.default_rng(0).normal(size=(200, 3)), np.zeros((1, 3))
    >>> K = gram("gaussian", X, sigma=2.0)
    >>> for D in (100, 10_000):
    ...     Z = random_fourier_features(X, D, sigma=2.0, seed=0)
    ...     print(D, f"{np.abs(Z @ Z.T - K).max():.2f}")
    100 0.33
    10000 0.03
    >>> Z_test = random_fourier_features(X_test, 10_000, sigma=2.0, seed=0)  # the same map
    >>> bool(np.abs(Z_test @ Z.T - gram("gaussian", X_test, X, sigma=2.0)).max() < 0.05)
    True
    """
    Xa = check_X(X, "X")
    n, d = Xa.shape
    D = check_int(D, "D", minimum=1)
    _check_size(n, D, "D")
    sigma = check_positive(sigma, "sigma")
    omega, b = _fourier_draws(d, D, sigma, seed)
    # |ω_jᵀx_i| <= ||ω_j|| ||x_i|| (Cauchy-Schwarz): no sum can overflow below this bound
    bound = math.sqrt(float(np.max(np.einsum("ij,ij->i", omega, omega)))) * math.sqrt(
        float(np.max(np.einsum("ij,ij->i", Xa, Xa)))
    )
    if not bound < 1e300:
        raise ValueError(
            f"sigma = {sigma:.3g} is too small for this X: the arguments ωᵀx of the cosines "
            "overflow (ω has standard deviation 1/√σ); use a larger sigma or rescale X"
        )
    WT = np.ascontiguousarray(omega.T)  # (d, D)
    direct = d <= _DIRECT_COLUMNS
    Z = np.empty((n, D)) if direct else Xa @ WT
    rows = max(1, min(n, _TILE_BYTES // (8 * D)))
    starts = range(0, n, rows)
    threads = min(num_threads(), len(starts))
    scale = math.sqrt(2.0 / D)

    def work(part):
        for i0 in starts[part::threads]:
            _fourier_tile_kernel(Z, Xa, WT, b, scale, i0, min(i0 + rows, n), direct)

    thread_map(work, range(threads))
    return Z
