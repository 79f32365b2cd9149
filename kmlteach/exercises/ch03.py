"""Exercises of chapter 03 (kernels in the RKHS and for structured data)."""

from __future__ import annotations

import numpy as np

from ..kernel_methods import kernel_pca
from ..kernels import center, gram
from ..structured_kernels import adjacency_matrix, diffusion_kernel, fisher_kernel, ngram_kernel
from .core import Case, Exercise, allclose, exact, register
from .quiz import Question, register_question


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
    hint=(
        'Centring in feature space subtracts the mean feature vector from every ψ(x_i); expand <ψ_i - mean, ψ_j - mean>.',
        'That is K − 1K − K1 + 1K1 with 1 the m×m matrix of entries 1/m: subtract row means and column means, add back the grand mean.',
        'K - K.mean(0)[None, :] - K.mean(1)[:, None] + K.mean().',
    ),
    minutes=10,
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
    hint=(
        'The n-gram kernel is the dot product of two count vectors indexed by all strings of length n.',
        'Count the n-grams of each string (x[i:i+n] for every start i, e.g. collections.Counter) and sum the products of shared counts.',
        'cx = Counter(x[i:i+n] for i in range(len(x) - n + 1)); same for cy; return sum(c * cy[g] for g, c in cx.items()).',
    ),
    minutes=15,
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
    hint=(
        'The diffusion kernel is a matrix exponential exp(βL) of the graph Laplacian-type matrix L = A − D (heat sign).',
        'L is symmetric: diagonalise it with np.linalg.eigh, L = V diag(λ) Vᵀ, then exp(βL) = V diag(exp(βλ)) Vᵀ.',
        'lam, V = np.linalg.eigh(A - np.diag(A.sum(1))); return (V * np.exp(beta * lam)) @ V.T.',
    ),
    minutes=10,
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
    hint=(
        'Kernel PCA is PCA of the centred feature vectors; everything you need is in the centred Gram matrix.',
        'Take the p largest eigenpairs (λ_j, u_j) of the centred K (np.linalg.eigh returns ascending order); the embedding columns are sqrt(λ_j) u_j. Signs do not matter: the checker compares Z Zᵀ.',
        'Kc = centred K; lam, U = np.linalg.eigh(Kc); lam, U = lam[::-1][:p], U[:, ::-1][:, :p]; return U * np.sqrt(np.maximum(lam, 0)).',
    ),
    minutes=20,
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
    hint=(
        'The Fisher kernel compares the gradients of log p(x|θ) in θ (the Fisher scores) of two points.',
        'For p(x|θ) = exp(<x, θ> − g(θ)) with g(θ) = Σ log(1 + e^θ), ∂g(θ) = sigmoid(θ), and the score is ∂g(θ) − x (up to sign).',
        'U = 1 / (1 + np.exp(-theta)) - X  (one score per row); return U @ U.T.',
    ),
    minutes=15,
    solution=("def fisher_bernoulli(X, theta):\n    U = 1 / (1 + np.exp(-theta)) - X\n"
              "    return U @ U.T\n"),
))


# 03.mean_distance — derivation: the distance of two class means in the RKHS ------------

def mean_distance(K, mask):
    """‖μ_A − μ_B‖² in the RKHS, μ_A = mean of ψ(x_i) over mask, μ_B over ~mask, from K only."""
    K, a = np.asarray(K, dtype=float), np.asarray(mask, dtype=bool)
    b = ~a
    return float(K[np.ix_(a, a)].mean() + K[np.ix_(b, b)].mean() - 2 * K[np.ix_(a, b)].mean())


def _mean_distance_cases():
    r = _rng(36)
    cases = [Case((np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([True, False])),
                  label="two orthonormal images: distance² 2")]
    for m, sigma in ((6, 1.0), (9, 0.5), (12, 2.0)):
        X = r.normal(size=(m, 2))
        mask = np.arange(m) < m // 3
        cases.append(Case((gram("gaussian", X, sigma=sigma), mask),
                          label=f"Gaussian Gram of {m} points, first {m // 3} in A"))
    return cases


register(Exercise(
    id="03.mean_distance", title="distance of class means in the RKHS (HSS1 §1.3.1)",
    reference=mean_distance, cases=_mean_distance_cases,
    hint=(
        "Expand ‖μ_A − μ_B‖² = <μ_A, μ_A> + <μ_B, μ_B> − 2<μ_A, μ_B> and write each mean as an average of ψ(x_i).",
        "<μ_A, μ_B> = (1/(|A||B|)) Σ_{i∈A} Σ_{j∈B} k(x_i, x_j): the mean of the block K[A, B].",
        "a, b = mask, ~mask; return K[np.ix_(a, a)].mean() + K[np.ix_(b, b)].mean() - 2 * K[np.ix_(a, b)].mean().",
    ),
    minutes=15,
    solution=("def mean_distance(K, mask):\n    a, b = mask, ~mask\n"
              "    return K[np.ix_(a, a)].mean() + K[np.ix_(b, b)].mean() - 2 * K[np.ix_(a, b)].mean()\n"),
))


# questions -----------------------------------------------------------------------------

_Q = [
    Question(id="03.c_ngram", kind="concept",
             prompt="The 2-gram kernel (products of counts of shared 2-grams) of 'banana' and 'bandana'?",
             choices=(), answer=7.0, tol=1e-9,
             explanation="banana: ba 1, an 2, na 2; bandana: ba 1, an 2, nd 1, da 1, na 1; "
                         "1·1 + 2·2 + 2·1 = 7."),
    Question(id="03.c_heat", kind="concept",
             prompt="On a connected graph with n nodes, as β → ∞ every entry of the heat kernel e^{β(A−D)} "
                    "tends to ...",
             choices=("0", "1/n", "1", "infinity"), answer=1,
             explanation="A − D has eigenvalue 0 on the constant vector and negative ones otherwise, so "
                         "e^{β(A−D)} → 11ᵀ/n: the heat spreads evenly."),
    Question(id="03.q1", prompt="Squared RKHS distance ‖Φ(x) − Φ(x')‖² with k(x,x) = k(x',x') = 1 and "
                                "k(x, x') = 0.25?",
             choices=(), answer=1.5, tol=1e-9,
             explanation="k(x,x) + k(x',x') − 2k(x,x') = 1 + 1 − 0.5 = 1.5 (HSS1 §1.3.1)."),
    Question(id="03.q2", prompt="After centring K in feature space, every row of the centred matrix sums to ...",
             choices=(), answer=0.0, tol=1e-9,
             explanation="Σ_j <ψ_i − μ, ψ_j − μ> = <ψ_i − μ, Σ_j (ψ_j − μ)> = 0."),
    Question(id="03.q3", prompt="Kernel PCA with the linear kernel k(x, x') = <x, x'> gives ...",
             choices=("ordinary PCA scores (up to sign)", "random projections", "the eigenvectors of K "
                      "without scaling", "nothing: kernel PCA needs a non-linear kernel"), answer=0,
             explanation="With ψ(x) = x the centred Gram matrix is XcXcᵀ, whose scaled eigenvectors are the PCA scores."),
    Question(id="03.q4", prompt="Which sign gives the heat (diffusion) kernel, with rows summing to 1 and "
                                "positive entries on a connected graph?",
             choices=("e^{β(A − D)}", "e^{−β(A − D)}", "both", "neither"), answer=0,
             explanation="A − D is minus the graph Laplacian; e^{β(A−D)} is the heat kernel, "
                         "the other sign alternates along a path."),
    Question(id="03.q5", prompt="The Fisher kernel compares two points through ...",
             choices=("their raw feature vectors", "the gradients of log p(x | θ) in θ (Fisher scores)",
                      "their likelihoods p(x | θ)", "their n-gram counts"), answer=1,
             explanation="k(x, x') = U_xᵀ I⁻¹ U_x' with U_x = ∂_θ log p(x | θ) (HSS1 §1.4.6)."),
]
for _q in _Q:
    register_question(_q)
