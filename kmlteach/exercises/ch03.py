"""Exercises of chapter 03 (kernels in the RKHS and for structured data).

Only the code of each exercise's record in ``records/ch03.toml`` (see :mod:`.record`): the
reference implementation, the visible cases and any catalogued mistake's wrong implementation.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from ..kernel_methods import kernel_pca
from ..kernels import center, gram
from ..structured_kernels import adjacency_matrix, diffusion_kernel, fisher_kernel, ngram_kernel
from .model import Case


def _rng(seed):
    return np.random.default_rng(seed)


# 03.center — HSS1 §1.3.1.2 --------------------------------------------------------------


def center_gram(K):
    """The centred Gram matrix K − 1K − K1 + 1K1 (1 = the m×m matrix of entries 1/m)."""
    return center(K)


def _center_cases():
    r = _rng(31)
    cases = [
        Case((np.array([[1.0, 0.0], [0.0, 1.0]]),), label="K = I (2×2)"),
        Case((np.ones((3, 3)),), label="all-ones K (one point three times)"),
    ]
    for kernel, params in (("linear", {}), ("gaussian", {"sigma": 0.5}), ("polynomial", {"degree": 2})):
        X = r.normal(size=(int(r.integers(3, 7)), 2))
        cases.append(Case((gram(kernel, X, **params),), label=f"{kernel} Gram matrix of {len(X)} points"))
    return cases


# 03.ngram — HSS1 Eq. (1.34) ---------------------------------------------------------------


def ngram(x, y, n):
    """Σ_s #(s in x)·#(s in y) over all strings s of length n (overlapping occurrences count)."""
    return ngram_kernel(x, y, n)


_NGRAM_CASES = [
    Case(("banana", "ananas", 2)),
    Case(("abc", "abc", 1)),
    Case(("aaaa", "aa", 2)),
    Case(("kernel", "colonel", 2)),
    Case(("short", "a much longer string", 3)),
    Case(("", "abc", 1), label="an empty string"),
    Case(("ab", "ab", 3), label="n > length"),
    Case(("mississippi", "missouri", 1)),
    Case(("abababab", "babab", 3)),
]


# 03.diffusion — HSS1 §1.4.4 -------------------------------------------------------------


def heat_kernel(A, beta):
    """expm(β (A − D)) for a symmetric 0/1 adjacency matrix A, D = diag(degrees)."""
    return diffusion_kernel(A, beta)


def _diffusion_cases():
    r = _rng(33)
    cases = [
        Case((adjacency_matrix([(i, i + 1) for i in range(4)], 5), 0.5), label="5-node path, β = 0.5"),
        Case((adjacency_matrix([(0, 1), (1, 2), (2, 0)], 3), 1.0), label="triangle, β = 1"),
        Case((np.zeros((3, 3)), 0.7), label="no edges"),
    ]
    for n in (4, 6):
        A = np.triu((r.random((n, n)) < 0.5).astype(float), 1)
        cases.append(
            Case((A + A.T, float(r.uniform(0.1, 2.0))), label=f"a random graph on {n} nodes, random β")
        )
    return cases


# 03.kpca — HSS1 §1.3.2 ------------------------------------------------------------------


def kpca_embedding(K, p):
    """Projections (m, p) of the training points on the first p unit-norm kernel PCA axes."""
    return kernel_pca(K, p).embedding


def _kpca_cases():
    r = _rng(34)
    cases = []
    for m, p, sigma in ((8, 1, 1.0), (10, 2, 0.5), (12, 3, 2.0)):
        X = r.normal(size=(m, 2))
        cases.append(
            Case((gram("gaussian", X, sigma=sigma), p), label=f"Gaussian Gram matrix of {m} points, p = {p}")
        )
    X = r.normal(size=(6, 3))
    cases.append(Case((gram("linear", X), 3), label="linear kernel: ordinary PCA scores"))
    return cases


# 03.fisher — HSS1 Eqs. (1.40)–(1.43) ------------------------------------------------------


def fisher_bernoulli(X, theta):
    """Unnormalised Fisher kernel matrix of independent Bernoulli coins with log-odds θ."""
    return fisher_kernel(X, theta=theta, family="bernoulli")


def _fisher_cases():
    r = _rng(35)
    cases = [Case((np.array([[0.0], [1.0]]), np.array([0.0])), label="one fair coin")]
    for n, d in ((4, 2), (5, 3), (3, 4)):
        X = (r.random((n, d)) < 0.5).astype(float)
        cases.append(Case((X, r.normal(size=d)), label=f"{n} random samples of {d} coins, random θ"))
    return cases


# 03.mean_distance — derivation: the distance of two class means in the RKHS ------------


def mean_distance(K, mask):
    """‖μ_A − μ_B‖² in the RKHS, μ_A = mean of ψ(x_i) over mask, μ_B over ~mask, from K only."""
    K, a = np.asarray(K, dtype=float), np.asarray(mask, dtype=bool)
    b = ~a
    return float(K[np.ix_(a, a)].mean() + K[np.ix_(b, b)].mean() - 2 * K[np.ix_(a, b)].mean())


def _mean_distance_cases():
    r = _rng(36)
    cases = [
        Case(
            (np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([True, False])),
            label="two orthonormal images: distance² 2",
        )
    ]
    for m, sigma in ((6, 1.0), (9, 0.5), (12, 2.0)):
        X = r.normal(size=(m, 2))
        mask = np.arange(m) < m // 3
        cases.append(
            Case(
                (gram("gaussian", X, sigma=sigma), mask),
                label=f"Gaussian Gram of {m} points, first {m // 3} in A",
            )
        )
    return cases


# Catalogued mistakes (wrong implementations the records' ``mistakes`` name) -------------


def _center_rows_only(K):
    K = np.asarray(K, dtype=float)
    return K - K.mean(axis=0, keepdims=True)


def _center_columns_only(K):
    K = np.asarray(K, dtype=float)
    return K - K.mean(axis=1, keepdims=True)


def _center_no_grand_mean(K):
    K = np.asarray(K, dtype=float)
    return K - K.mean(axis=0, keepdims=True) - K.mean(axis=1, keepdims=True)


def _counts(s, n, overlapping=True, last=True):
    out = {}
    stop = len(s) - n + (1 if last else 0)
    for i in range(max(stop, 0)):
        out[s[i : i + n]] = out.get(s[i : i + n], 0) + 1
    if not overlapping:
        out = {g: s.count(g) for g in out}
    return out


def _ngram_non_overlapping(x, y, n):
    cx, cy = _counts(x, n, overlapping=False), _counts(y, n, overlapping=False)
    return sum(c * cy.get(g, 0) for g, c in cx.items())


def _ngram_missing_last(x, y, n):
    cx, cy = _counts(x, n, last=False), _counts(y, n, last=False)
    return sum(c * cy.get(g, 0) for g, c in cx.items())


def _ngram_distinct(x, y, n):
    return len(set(_counts(x, n)) & set(_counts(y, n)))


def _sym_expm(M):
    lam, V = np.linalg.eigh(M)
    return (V * np.exp(lam)) @ V.T


def _heat_no_degree(A, beta):
    return _sym_expm(beta * np.asarray(A, dtype=float))


def _heat_sign(A, beta):
    A = np.asarray(A, dtype=float)
    return _sym_expm(beta * (np.diag(A.sum(axis=1)) - A))


def _heat_elementwise(A, beta):
    A = np.asarray(A, dtype=float)
    return np.exp(beta * (A - np.diag(A.sum(axis=1))))


def _kpca(K, p, centre=True, scale=True, smallest=False):
    K = np.asarray(K, dtype=float)
    Kc = center(K) if centre else K
    lam, U = np.linalg.eigh(Kc)
    sel = np.arange(p) if smallest else np.arange(len(K) - 1, len(K) - 1 - p, -1)
    return U[:, sel] * (np.sqrt(np.maximum(lam[sel], 0.0)) if scale else 1.0)


_kpca_uncentred = partial(_kpca, centre=False)
_kpca_unit_vectors = partial(_kpca, scale=False)
_kpca_smallest = partial(_kpca, smallest=True)


def _fisher_theta_as_probability(X, theta):
    U = np.asarray(theta, dtype=float)[None, :] - np.asarray(X, dtype=float)
    return U @ U.T


def _fisher_raw_data(X, theta):
    X = np.asarray(X, dtype=float)
    return X @ X.T


def _fisher_normalised(X, theta):
    return fisher_kernel(X, theta=theta, family="bernoulli", normalized=True)


def _mean_distance_parts(K, mask, cross=2.0, agg=np.mean, root=False):
    K, a = np.asarray(K, dtype=float), np.asarray(mask, dtype=bool)
    b = ~a
    v = float(agg(K[np.ix_(a, a)]) + agg(K[np.ix_(b, b)]) - cross * agg(K[np.ix_(a, b)]))
    return float(np.sqrt(max(v, 0.0))) if root else v


_mean_distance_one_cross = partial(_mean_distance_parts, cross=1.0)
_mean_distance_sums = partial(_mean_distance_parts, agg=np.sum)
_mean_distance_root = partial(_mean_distance_parts, root=True)
