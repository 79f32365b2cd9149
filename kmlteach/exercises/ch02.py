"""Exercises of chapter 02 (kernels): feature map, Gram matrix, kernel perceptron,
kernel ridge, class-mean classifier."""

from __future__ import annotations

import numpy as np

from ..kernel_methods import class_mean_classifier, kernel_perceptron, kernel_ridge
from ..kernels import gram, polynomial_features
from .core import Case, Exercise, allclose, register


def _rng(seed):
    return np.random.default_rng(seed)


# 02.poly_features — an explicit map for (1 + <x, x'>)^2 (UML Example 16.1) -----------------

def poly2_features(X):
    """Explicit features psi(x) (one row per point) with <psi(x), psi(x')> = (1 + <x, x'>)^2."""
    return polynomial_features(np.asarray(X, dtype=float), 2)


def _same_inner_products(expected, got) -> bool:
    """Any ordering, scaling by ±1 or extra zero columns is fine: compare Psi Psi^T."""
    try:
        g = np.asarray(got, dtype=float)
    except (TypeError, ValueError):
        return False
    e = np.asarray(expected, dtype=float)
    if g.ndim != 2 or g.shape[0] != e.shape[0]:
        return False
    return bool(np.allclose(g @ g.T, e @ e.T, rtol=1e-9, atol=1e-9))


def _poly_cases():
    r = _rng(21)
    cases = [Case((np.array([[1.0, 2.0]]),), label="one point x = (1, 2)"),
             Case((np.array([[0.0, 0.0], [1.0, -1.0]]),), label="the origin and (1, -1)")]
    for d in (1, 2, 3, 4):
        cases.append(Case((r.normal(size=(5, d)),)))
    return cases


register(Exercise(
    id="02.poly_features", title="explicit feature map of the degree-2 polynomial kernel",
    reference=poly2_features, cases=_poly_cases, compare=_same_inner_products,
    hint="Expand (1 + Σ_j x_j x'_j)² = 1 + 2 Σ_j x_j x'_j + Σ_j x_j² x'_j² + 2 Σ_{j<k} x_j x_k x'_j x'_k. "
         "Each term is a product f(x)·f(x'): the features are 1, √2·x_j, x_j² and √2·x_j x_k (j < k).",
    solution=("def poly_features(X):\n    m, d = X.shape\n    cols = [np.ones(m)]\n"
              "    cols += [np.sqrt(2) * X[:, j] for j in range(d)]\n"
              "    cols += [X[:, j] ** 2 for j in range(d)]\n"
              "    cols += [np.sqrt(2) * X[:, j] * X[:, k] for j in range(d) for k in range(j + 1, d)]\n"
              "    return np.column_stack(cols)\n"),
))


# 02.gram — the Gaussian Gram matrix in UML's convention (Example 16.2) ----------------------

def gaussian_gram(X, Y, sigma):
    """K[i, j] = exp(-||X[i] - Y[j]||^2 / (2 sigma))."""
    return gram("gaussian", np.asarray(X, dtype=float), np.asarray(Y, dtype=float), sigma=sigma)


def _gram_cases():
    r = _rng(22)
    cases = [Case((np.array([[0.0]]), np.array([[2.0]]), 1.0), label="x = 0, x' = 2, σ = 1 (e^-2)"),
             Case((np.array([[1.0, 1.0], [0.0, 0.0]]), np.array([[1.0, 1.0]]), 0.5),
                  label="a point with itself gives 1")]
    for _ in range(4):
        d = int(r.integers(1, 5))
        cases.append(Case((r.normal(size=(int(r.integers(2, 6)), d)), r.normal(size=(int(r.integers(2, 6)), d)),
                           float(r.uniform(0.2, 3.0)))))
    return cases


register(Exercise(
    id="02.gram", title="Gaussian Gram matrix (UML convention)",
    reference=gaussian_gram, cases=_gram_cases, compare=allclose(rtol=1e-9, atol=1e-12),
    hint="||x - x'||² = ||x||² + ||x'||² - 2<x, x'>: with broadcasting, "
         "D = (X**2).sum(1)[:, None] + (Y**2).sum(1)[None, :] - 2 * X @ Y.T; then exp(-D / (2σ)). "
         "UML's σ is not squared.",
    solution=("def gaussian_gram(X, Y, sigma):\n"
              "    D = (X ** 2).sum(1)[:, None] + (Y ** 2).sum(1)[None, :] - 2 * X @ Y.T\n"
              "    return np.exp(-np.maximum(D, 0) / (2 * sigma))\n"),
))


# 02.kernel_perceptron — UML ex. 16.2 ---------------------------------------------------------

def kernel_perceptron_alpha(K, y):
    """alpha of the batch perceptron in kernel form (first mistake first, test <= 0)."""
    return kernel_perceptron(K, y).alpha


def _separable_kernel_case(r, m, kind):
    X = r.normal(size=(m, 2))
    if kind == "circle":
        y = np.where(np.sum(X ** 2, 1) > 1.0, 1.0, -1.0)
        keep = np.abs(np.sum(X ** 2, 1) - 1.0) > 0.25
        X, y = X[keep], y[keep]
        return gram("polynomial", X, degree=2), y
    y = np.where(X @ np.array([1.0, -0.5]) > 0.1, 1.0, -1.0)
    return gram("linear", X), y


def _perceptron_cases():
    r = _rng(23)
    cases = [Case((np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([1.0, -1.0])), label="K = I, y = (+1, -1)")]
    for m, kind in ((8, "linear"), (12, "linear"), (20, "circle"), (30, "circle")):
        K, y = _separable_kernel_case(r, m, kind)
        if np.unique(y).size == 2:
            cases.append(Case((K, y), label=f"{kind}, m = {len(y)}"))
    return cases


register(Exercise(
    id="02.kernel_perceptron", title="the perceptron with kernels (UML ex. 16.2)",
    reference=kernel_perceptron_alpha, cases=_perceptron_cases, compare=allclose(rtol=0, atol=1e-9),
    hint="Keep w = Σ_j α_j ψ(x_j): then <w, ψ(x_i)> = Σ_j α_j K[j, i] = (K @ alpha)[i]. Start with "
         "alpha = 0; while some i has y_i (K @ alpha)[i] <= 0, take the first such i and add y_i to alpha[i].",
    solution=("def kernel_perceptron(K, y):\n    alpha = np.zeros(len(y))\n    while True:\n"
              "        bad = np.flatnonzero(y * (K @ alpha) <= 0)\n        if bad.size == 0:\n"
              "            return alpha\n        alpha[bad[0]] += y[bad[0]]\n"),
))


# 02.kernel_ridge — UML ex. 16.3 --------------------------------------------------------------

def kernel_ridge_alpha(K, y, lam):
    """alpha = (K + lam m I)^{-1} y, minimiser of (lam/2)||w||^2 + (1/(2m)) sum (<w,psi(x_i)> - y_i)^2."""
    return kernel_ridge(K, y, lam).alpha


def _ridge_cases():
    r = _rng(24)
    cases = [Case((np.eye(2), np.array([1.0, 2.0]), 0.5), label="K = I, m = 2, λ = 0.5")]
    for m in (4, 7, 12):
        X = r.normal(size=(m, 2))
        cases.append(Case((gram("gaussian", X, sigma=1.0), r.normal(size=m), float(r.uniform(0.01, 1.0)))))
    X = r.normal(size=(6, 3))
    cases.append(Case((gram("polynomial", X, degree=2), r.normal(size=6), 0.1), label="polynomial kernel"))
    return cases


register(Exercise(
    id="02.kernel_ridge", title="kernel ridge regression in closed form (UML ex. 16.3)",
    reference=kernel_ridge_alpha, cases=_ridge_cases, compare=allclose(rtol=1e-8, atol=1e-10),
    hint="With w = Σ_j α_j ψ(x_j) the objective is (λ/2) αᵀKα + (1/(2m)) ||Kα - y||². Its gradient "
         "K(λα + (Kα - y)/m) vanishes when (K + λ m I) α = y: use np.linalg.solve.",
    solution=("def kernel_ridge(K, y, lam):\n    m = len(y)\n"
              "    return np.linalg.solve(K + lam * m * np.eye(m), y)\n"),
))


# 02.class_mean — HSS1 (1.6), UML ex. 16.6 ----------------------------------------------------

def class_mean_scores(K_test, K, y):
    """(1/m+) sum_{y_i=+1} k(x, x_i) - (1/m-) sum_{y_i=-1} k(x, x_i) + b, b from kernel values."""
    return class_mean_classifier(K, y).decision_function(K_test)


def _class_mean_cases():
    r = _rng(25)
    cases = [Case((np.array([[1.0, 0.0]]), np.eye(2), np.array([1.0, -1.0])),
                  label="K = I: test point equal to the positive example")]
    for m, kind in ((6, "linear"), (10, "gaussian"), (15, "polynomial")):
        X, Z = r.normal(size=(m, 2)), r.normal(size=(5, 2))
        y = np.where(np.arange(m) % 3 == 0, 1.0, -1.0)
        params = {"gaussian": {"sigma": 0.7}, "polynomial": {"degree": 2}}.get(kind, {})
        cases.append(Case((gram(kind, Z, X, **params), gram(kind, X, **params), y), label=f"{kind}, m = {m}"))
    return cases


register(Exercise(
    id="02.class_mean", title="class-mean classifier from kernel values only (HSS1 (1.6))",
    reference=class_mean_scores, cases=_class_mean_cases, compare=allclose(rtol=1e-9, atol=1e-12),
    hint="<ψ(x), c_±> is the mean of k(x, x_i) over the class; ||c_±||² is the mean of K over pairs "
         "of that class. Score = <ψ(x), c_+> - <ψ(x), c_-> + (||c_-||² - ||c_+||²)/2.",
    solution=("def class_mean_scores(K_test, K, y):\n    p, n = y > 0, y < 0\n"
              "    b = 0.5 * (K[np.ix_(n, n)].mean() - K[np.ix_(p, p)].mean())\n"
              "    return K_test[:, p].mean(1) - K_test[:, n].mean(1) + b\n"),
))
