"""Operations in the RKHS through kernel values only (HSS1 §1.3.1), and Gram-matrix checks.

Translation (1.29), centring, distances, inner products and norms of kernel
expansions, projection (1.30), deflation (1.31) and Gram–Schmidt. Re-exported by
:mod:`kmlteach.kernels`; import them from there.
"""

from __future__ import annotations

import math

import numpy as np

from kmlteach._validation import as_matrix, as_vector, check_finite_output, check_positive, check_square

__all__ = [
    "translate",
    "center",
    "rkhs_distances",
    "rkhs_inner",
    "rkhs_norm",
    "project",
    "deflate",
    "gram_schmidt",
]


def translate(K, alpha, K_test=None) -> np.ndarray:
    """Gram matrix after translating every feature vector by ``Gamma = sum_i alpha_i Phi(x_i)``.

    HSS1 (1.29): ``<Phi(x) + Gamma, Phi(x') + Gamma> = k(x, x') + sum_i alpha_i k(x_i, x)
    + sum_i alpha_i k(x_i, x') + sum_ij alpha_i alpha_j k(x_i, x_j)``.

    Parameters
    ----------
    K : (m, m) Gram matrix of the points x_1..x_m that define Gamma.
    alpha : (m,) coefficients of Gamma.
    K_test : (n, m), default=None
        ``k(z_a, x_j)`` for further points z; then the result is the (n, m) matrix of
        ``<Phi(z_a) + Gamma, Phi(x_j) + Gamma>``. Without it, the (m, m) matrix on the x's.
    """
    Ka = check_square(K, "K")
    a = as_vector(alpha, "alpha", length=Ka.shape[0], of="one per row of K")
    Ka_ = Ka @ a
    aKa = float(a @ Ka_)
    if K_test is None:
        out = Ka + Ka_[:, None] + Ka_[None, :] + aKa
    else:
        Kt = as_matrix(K_test, "K_test", n_cols=Ka.shape[0])
        out = Kt + (Kt @ a)[:, None] + Ka_[None, :] + aKa
    check_finite_output("K, alpha or K_test", out)
    return out


def center(K, K_test=None) -> np.ndarray:
    """Centre a Gram matrix in feature space (HSS1 §1.3.1.2): translation by minus the mean.

    ``K~ = K - 1_m K - K 1_m + 1_m K 1_m`` with ``1_m`` the (m, m) matrix of entries 1/m.
    With ``K_test`` (n, m) = ``k(z_a, x_j)`` it returns the centred test-vs-train matrix
    ``K_test - 1' K - K_test 1_m + 1' K 1_m`` (``1'`` the (n, m) matrix of 1/m), i.e. the
    inner products of ``Phi(z_a) - mean`` with ``Phi(x_j) - mean``. Both equal
    :func:`translate` with ``alpha = -1/m``.
    """
    Ka = check_square(K, "K")
    if K_test is None:
        return center_train(Ka, symmetric=bool(np.array_equal(Ka, Ka.T)))
    Kt = as_matrix(K_test, "K_test", n_cols=Ka.shape[0])
    col = Ka.mean(axis=0)
    return Kt - col[None, :] - Kt.mean(axis=1)[:, None] + float(col.mean())


def center_train(Ka: np.ndarray, symmetric: bool) -> np.ndarray:
    """K - 1K - K1 + 1K1 for a checked square matrix (exactly symmetric if K is).

    Shared inside the library (kernel PCA), not published: not in ``__all__``."""
    col = Ka.mean(axis=0)
    row = col if symmetric else Ka.mean(axis=1)
    Kc = Ka - col[None, :]
    Kc -= row[:, None]
    Kc += float(col.mean())
    return Kc


def rkhs_distances(K, diag_test=None, diag_train=None) -> np.ndarray:
    """Feature-space distances ``||Phi(x) - Phi(x')|| = sqrt(k(x,x) + k(x',x') - 2 k(x,x'))`` (HSS1 §1.3.1.3).

    With one square Gram matrix ``K`` the (m, m) matrix of pairwise distances. For a
    rectangular ``K`` (n, m) = ``k(z_a, x_j)`` pass the diagonals ``k(z_a, z_a)``
    (``diag_test``, length n) and ``k(x_j, x_j)`` (``diag_train``, length m).
    Tiny negative squares from rounding are clipped at 0.
    """
    Ka = as_matrix(K, "K")
    if diag_test is None and diag_train is None:
        Ka = check_square(Ka, "K")
        dx = dy = np.diag(Ka)
    else:
        if diag_test is None or diag_train is None:
            raise ValueError("pass both diag_test and diag_train for a rectangular K")
        dx = as_vector(diag_test, "diag_test", length=Ka.shape[0], of="one per row of K")
        dy = as_vector(diag_train, "diag_train", length=Ka.shape[1], of="one per column of K")
    D2 = dx[:, None] + dy[None, :] - 2.0 * Ka
    return np.sqrt(np.maximum(D2, 0.0))


def rkhs_inner(a, b, K) -> float:
    """``<f, g>`` for ``f = sum_i a_i k(., x_i)``, ``g = sum_j b_j k(., z_j)``: ``a^T K b`` (HSS1 (1.14)).

    ``K[i, j] = k(x_i, z_j)`` (square when both expansions use the same points).
    """
    Ka = as_matrix(K, "K")
    av = as_vector(a, "a", length=Ka.shape[0], of="one per row of K")
    bv = as_vector(b, "b", length=Ka.shape[1], of="one per column of K")
    out = float(av @ Ka @ bv)
    check_finite_output("a, b or K", out)
    return out


def rkhs_norm(a, K) -> float:
    """``||f||`` for ``f = sum_i a_i k(., x_i)``: ``sqrt(a^T K a)`` (HSS1 (1.15))."""
    Ka = check_square(K, "K")
    av = as_vector(a, "a", length=Ka.shape[0], of="one per row of K")
    out = float(np.sqrt(max(av @ Ka @ av, 0.0)))
    check_finite_output("a or K", out)
    return out


def _proj_coef(a, g, K):
    Ka = check_square(K, "K")
    av = as_vector(a, "a", length=Ka.shape[0], of="one per row of K")
    gv = as_vector(g, "g", length=Ka.shape[0], of="one per row of K")
    gg = float(gv @ Ka @ gv)
    if gg <= 1e-14 * max(1.0, float(np.max(np.abs(Ka)))):
        raise ValueError("g must be a non-zero element of the RKHS (g^T K g > 0), got norm 0")
    s = float(gv @ Ka @ av) / gg
    check_finite_output("a, g or K", s, s * gv, av - s * gv)
    return av, gv, s


def project(a, g, K) -> np.ndarray:
    """Coefficients of the projection of ``Psi = sum a_i Phi(x_i)`` onto ``span{Gamma}``,
    ``Gamma = sum g_i Phi(x_i)``: ``(<Gamma, Psi> / ||Gamma||^2) g`` (HSS1 (1.30))."""
    _, gv, s = _proj_coef(a, g, K)
    return s * gv


def deflate(a, g, K) -> np.ndarray:
    """Coefficients of ``Psi - (<Gamma, Psi>/||Gamma||^2) Gamma``, orthogonal to Gamma (HSS1 (1.31))."""
    av, gv, s = _proj_coef(a, g, K)
    return av - s * gv


def gram_schmidt(K, A=None, tol: float = 1e-6) -> np.ndarray:
    """Gram–Schmidt orthonormalisation of kernel expansions in the RKHS (HSS1 §1.3.1.4).

    Parameters
    ----------
    K : (m, m) Gram matrix of the expansion points.
    A : (m, r) coefficient matrix, default=identity (the vectors ``Phi(x_1), ..., Phi(x_m)``).
        Column j is the expansion ``sum_i A[i, j] Phi(x_i)``.
    tol : float, default=1e-6
        A vector whose remaining norm is below ``tol * sqrt(max diag K)`` after deflation is
        dependent on the previous ones and dropped. The remaining norm is the square root
        of a quadratic form ``v^T K v`` that cancels to ~1e-16 relative for a dependent
        vector, so its square root sits near 1e-8: a threshold much below ~1e-7 would keep
        dependent vectors (and Q^T K Q would then be far from I).

    Returns
    -------
    Q : (m, q) coefficients with ``Q^T K Q = I`` (q <= r), spanning the same subspace.
    Each column is deflated against the previous ones with (1.31) (twice, for
    numerical stability) and normalised through the kernel.
    """
    Ka = check_square(K, "K")
    m = Ka.shape[0]
    Aa = np.eye(m) if A is None else as_matrix(A, "A")
    if Aa.shape[0] != m:
        raise ValueError(f"A must have {m} rows (one per expansion point), got shape {Aa.shape}")
    tol = check_positive(tol, "tol")
    scale = math.sqrt(max(float(np.max(np.diag(Ka))), 1e-300))
    Q: list[np.ndarray] = []
    for j in range(Aa.shape[1]):
        v = Aa[:, j].copy()
        for _ in range(2):
            for q in Q:
                v = v - float(q @ Ka @ v) * q  # q has unit norm: (1.31) with ||q|| = 1
        nrm = math.sqrt(max(float(v @ Ka @ v), 0.0))
        if nrm > tol * scale:
            Q.append(v / nrm)
    return np.column_stack(Q) if Q else np.zeros((m, 0))
