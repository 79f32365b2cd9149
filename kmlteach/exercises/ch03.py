"""Exercises of chapter 03 (kernels in the RKHS and for structured data)."""

from __future__ import annotations

import numpy as np

from ..kernel_methods import kernel_pca
from ..kernels import center, gram
from ..structured_kernels import adjacency_matrix, diffusion_kernel, fisher_kernel, ngram_kernel
from .core import Case, Exercise, allclose, exact, register


def _rng(seed):
    return np.random.default_rng(seed)


# 03.center — HSS1 §1.3.1.2 --------------------------------------------------------------

def center_gram(K):
    """The centred Gram matrix K − 1K − K1 + 1K1 (1 = the m×m matrix of entries 1/m)."""
    return center(K)


def _center_cases():
    r = _rng(31)
    cases = [Case((np.array([[1.0, 0.0], [0.0, 1.0]]),), label="K = I (2×2)"),
             Case((np.ones((3, 3)),), label="all-ones K (one point three times)")]
    for kernel, params in (("linear", {}), ("gaussian", {"sigma": 0.5}), ("polynomial", {"degree": 2})):
        X = r.normal(size=(int(r.integers(3, 7)), 2))
        cases.append(Case((gram(kernel, X, **params),), label=f"{kernel} Gram matrix of {len(X)} points"))
    return cases


register(Exercise(
    id="03.center", title="centre a Gram matrix in feature space (HSS1 §1.3.1.2)",
    reference=center_gram, cases=_center_cases,
    hint="Subtract the column means and the row means of K, then add back the mean of all "
         "entries: that is K − 1K − K1 + 1K1 written with means.",
    solution=("def center_gram(K):\n    return K - K.mean(axis=0, keepdims=True) - K.mean(axis=1, keepdims=True)"
              " + K.mean()\n"),
))


# 03.ngram — HSS1 Eq. (1.34) ---------------------------------------------------------------

def ngram(x, y, n):
    """Σ_s #(s in x)·#(s in y) over all strings s of length n (overlapping occurrences count)."""
    return ngram_kernel(x, y, n)


_NGRAM_CASES = [Case(("banana", "ananas", 2)), Case(("abc", "abc", 1)), Case(("aaaa", "aa", 2)),
                Case(("kernel", "colonel", 2)), Case(("short", "a much longer string", 3)),
                Case(("", "abc", 1), label="an empty string"), Case(("ab", "ab", 3), label="n > length"),
                Case(("mississippi", "missouri", 1)), Case(("abababab", "babab", 3))]

register(Exercise(
    id="03.ngram", title="the n-gram kernel (HSS1 (1.34))",
    reference=ngram, cases=_NGRAM_CASES, compare=exact(),
    hint="Count the n-grams of each string (x[i:i+n] for every start i, e.g. with "
         "collections.Counter) and sum the products of the counts of the n-grams they share.",
    solution=("def ngram(x, y, n):\n    from collections import Counter\n\n"
              "    cx = Counter(x[i:i + n] for i in range(len(x) - n + 1))\n"
              "    cy = Counter(y[i:i + n] for i in range(len(y) - n + 1))\n"
              "    return sum(c * cy[s] for s, c in cx.items())\n"),
))


# 03.diffusion — HSS1 §1.4.4 -------------------------------------------------------------

def heat_kernel(A, beta):
    """expm(β (A − D)) for a symmetric 0/1 adjacency matrix A, D = diag(degrees)."""
    return diffusion_kernel(A, beta)


def _diffusion_cases():
    r = _rng(33)
    cases = [Case((adjacency_matrix([(i, i + 1) for i in range(4)], 5), 0.5), label="5-node path, β = 0.5"),
             Case((adjacency_matrix([(0, 1), (1, 2), (2, 0)], 3), 1.0), label="triangle, β = 1"),
             Case((np.zeros((3, 3)), 0.7), label="no edges")]
    for n in (4, 6):
        A = np.triu((r.random((n, n)) < 0.5).astype(float), 1)
        cases.append(Case((A + A.T, float(r.uniform(0.1, 2.0)))))
    return cases


register(Exercise(
    id="03.diffusion", title="the heat (diffusion) kernel of a graph (HSS1 §1.4.4)",
    reference=heat_kernel, cases=_diffusion_cases, compare=allclose(rtol=1e-7, atol=1e-10),
    hint="Form L = A − D, diagonalise the symmetric matrix with np.linalg.eigh (L = V diag(λ) Vᵀ) "
         "and return V diag(exp(βλ)) Vᵀ. Mind the sign: the heat kernel uses +β(A − D).",
    solution=("def heat_kernel(A, beta):\n    L = A - np.diag(A.sum(axis=1))\n"
              "    lam, V = np.linalg.eigh(L)\n    return (V * np.exp(beta * lam)) @ V.T\n"),
))


# 03.kpca — HSS1 §1.3.2 ------------------------------------------------------------------

def kpca_embedding(K, p):
    """Projections (m, p) of the training points on the first p unit-norm kernel PCA axes."""
    return kernel_pca(K, p).embedding


def _same_embedding(expected, got) -> bool:
    """Equal up to the sign of each axis: compare Z Zᵀ (and the shape)."""
    try:
        e = np.asarray(expected, dtype=float)
        g = np.asarray(got, dtype=float)
    except (TypeError, ValueError):
        return False
    return e.shape == g.shape and bool(np.allclose(e @ e.T, g @ g.T, rtol=1e-6, atol=1e-8))


def _kpca_cases():
    r = _rng(34)
    cases = []
    for m, p, sigma in ((8, 1, 1.0), (10, 2, 0.5), (12, 3, 2.0)):
        X = r.normal(size=(m, 2))
        cases.append(Case((gram("gaussian", X, sigma=sigma), p),
                          label=f"Gaussian Gram matrix of {m} points, p = {p}"))
    X = r.normal(size=(6, 3))
    cases.append(Case((gram("linear", X), 3), label="linear kernel: ordinary PCA scores"))
    return cases


register(Exercise(
    id="03.kpca", title="kernel PCA embedding (HSS1 §1.3.2)",
    reference=kpca_embedding, cases=_kpca_cases, compare=_same_embedding,
    hint="Centre K, take the p largest eigenpairs (λ_j, u_j) of the centred matrix (np.linalg.eigh "
         "returns them in ascending order) and return the columns sqrt(λ_j) u_j. Signs do not "
         "matter: the checker compares Z Zᵀ.",
    solution=("def kpca_embedding(K, p):\n    Kc = K - K.mean(0) - K.mean(1)[:, None] + K.mean()\n"
              "    lam, U = np.linalg.eigh(Kc)\n    lam, U = lam[::-1][:p], U[:, ::-1][:, :p]\n"
              "    return U * np.sqrt(np.maximum(lam, 0))\n"),
))


# 03.fisher — HSS1 Eqs. (1.40)–(1.43) ------------------------------------------------------

def fisher_bernoulli(X, theta):
    """Unnormalised Fisher kernel matrix of independent Bernoulli coins with log-odds θ."""
    return fisher_kernel(X, theta=theta, family="bernoulli")


def _fisher_cases():
    r = _rng(35)
    cases = [Case((np.array([[0.0], [1.0]]), np.array([0.0])), label="one fair coin")]
    for n, d in ((4, 2), (5, 3), (3, 4)):
        X = (r.random((n, d)) < 0.5).astype(float)
        cases.append(Case((X, r.normal(size=d))))
    return cases


register(Exercise(
    id="03.fisher", title="Fisher kernel of a Bernoulli model (HSS1 (1.43))",
    reference=fisher_bernoulli, cases=_fisher_cases,
    hint="For p(x|θ) = exp(<x, θ> − g(θ)) with g(θ) = Σ log(1 + e^θ), ∂g(θ) = sigmoid(θ). The Fisher "
         "score is ∂g(θ) − x; the kernel matrix is U Uᵀ with one score per row of U.",
    solution=("def fisher_bernoulli(X, theta):\n    U = 1 / (1 + np.exp(-theta)) - X\n"
              "    return U @ U.T\n"),
))
