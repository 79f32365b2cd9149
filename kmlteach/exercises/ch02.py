"""Exercises of chapter 02 (kernels): feature map, Gram matrix, kernel perceptron,
kernel ridge, class-mean classifier."""

from __future__ import annotations

import numpy as np

from ..kernel_methods import class_mean_classifier, kernel_perceptron, kernel_ridge
from ..kernels import gram, polynomial_features
from .core import Case, Exercise, allclose, register
from .quiz import Question, register_question


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
    hint=(
        "Expand (1 + <x, x'>)² and write every term as a product f(x)·f(x') of the same function on both sides.",
        "(1 + Σ_j x_j x'_j)² = 1 + 2 Σ_j x_j x'_j + Σ_j x_j² x'_j² + 2 Σ_{j<k} x_j x_k x'_j x'_k: features 1, √2·x_j, x_j², √2·x_j x_k (j < k).",
        'cols = [ones] + [sqrt(2) * X[:, j]] + [X[:, j] ** 2] + [sqrt(2) * X[:, j] * X[:, k] for j < k]; np.column_stack(cols).',
    ),
    minutes=15,
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
    hint=(
        'Every entry needs ‖x_i - y_j‖²; avoid a double Python loop by expanding the square.',
        "‖x - x'‖² = ‖x‖² + ‖x'‖² - 2<x, x'>; remember that UML's σ is not squared: exp(-D / (2σ)).",
        'D = (X**2).sum(1)[:, None] + (Y**2).sum(1)[None, :] - 2 * X @ Y.T; return np.exp(-D / (2 * sigma)).',
    ),
    minutes=10,
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
    hint=(
        'Never form ψ(x): keep w = Σ_j α_j ψ(x_j) and update the coefficients α instead (UML §16.2).',
        'Then <w, ψ(x_i)> = Σ_j α_j K[j, i] = (K @ alpha)[i]; a perceptron update on point i adds y_i to alpha[i].',
        'alpha = 0; loop: bad = np.flatnonzero(y * (K @ alpha) <= 0); if none: return alpha; alpha[bad[0]] += y[bad[0]].',
    ),
    minutes=20,
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
    hint=(
        'Substitute w = Σ_j α_j ψ(x_j) (representer theorem) into (λ/2)‖w‖² + (1/(2m))Σ(<w, ψ(x_i)> - y_i)².',
        'The objective becomes (λ/2) αᵀKα + (1/(2m)) ‖Kα - y‖²; set its gradient K(λα + (Kα - y)/m) to zero.',
        'return np.linalg.solve(K + lam * m * np.eye(m), y).',
    ),
    minutes=15,
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
    hint=(
        'The rule compares distances to the two class means c_+ and c_- in feature space; expand the squares.',
        '<ψ(x), c_±> is the mean of k(x, x_i) over the class; ‖c_±‖² is the mean of K over pairs of that class. Score = <ψ(x), c_+> - <ψ(x), c_-> + (‖c_-‖² - ‖c_+‖²)/2.',
        'p, n = y == 1, y == -1; b = 0.5 * (K[np.ix_(n, n)].mean() - K[np.ix_(p, p)].mean()); return K_test[:, p].mean(1) - K_test[:, n].mean(1) + b.',
    ),
    minutes=15,
    solution=("def class_mean_scores(K_test, K, y):\n    p, n = y > 0, y < 0\n"
              "    b = 0.5 * (K[np.ix_(n, n)].mean() - K[np.ix_(p, p)].mean())\n"
              "    return K_test[:, p].mean(1) - K_test[:, n].mean(1) + b\n"),
))


# 02.kernel_sgd — derivation: Lemma 16.3, SGD on θ rewritten on coefficients (UML §16.3) --

def kernel_sgd_alpha(K, y, lam, idx):
    """ᾱ of kernel SGD for soft-SVM with the given index sequence ``idx`` (t = 1..T uses
    idx[t-1]): β = 0; α(t) = β/(λt); if y_i (K α(t))_i < 1 then β_i += y_i; ᾱ = mean_t α(t)."""
    K, y = np.asarray(K, dtype=float), np.asarray(y, dtype=float)
    beta = np.zeros(len(y))
    total = np.zeros(len(y))
    for t, i in enumerate(idx, 1):
        alpha = beta / (lam * t)
        total += alpha
        if y[i] * (K[i] @ alpha) < 1:
            beta[i] += y[i]
    return total / len(idx)


def _kernel_sgd_cases():
    r = _rng(25)
    cases = [Case((np.eye(2), np.array([1.0, -1.0]), 1.0, np.array([0, 1, 0])),
                  label="K = I, two points, idx = (0, 1, 0)")]
    for m, T, lam in ((5, 12, 0.5), (8, 40, 0.1), (10, 60, 0.05)):
        X = r.normal(size=(m, 2))
        cases.append(Case((gram("gaussian", X, sigma=1.0), r.choice([-1.0, 1.0], size=m), lam,
                           r.integers(0, m, size=T)),
                          label=f"Gaussian Gram of {m} points, λ = {lam}, T = {T}"))
    return cases


register(Exercise(
    id="02.kernel_sgd", title="kernel SGD from SGD on θ (Lemma 16.3)",
    reference=kernel_sgd_alpha, cases=_kernel_sgd_cases,
    hint=(
        "In chapter 01's SGD, θ is a sum of vectors y_i ψ(x_i); write θ(t) = Σ_j β_j ψ(x_j) and track β only.",
        "Then w(t) = θ(t)/(λt) = Σ_j α_j ψ(x_j) with α = β/(λt), and <w(t), ψ(x_i)> = (K @ α)[i]. "
        "Average α(t) over t = 1..T, taking α(t) BEFORE the update of step t.",
        "for t, i in enumerate(idx, 1): a = beta/(lam*t); total += a; if y[i]*(K[i] @ a) < 1: beta[i] += y[i]; "
        "return total/len(idx).",
    ),
    minutes=20,
    solution=("def kernel_sgd_alpha(K, y, lam, idx):\n    beta, total = np.zeros(len(y)), np.zeros(len(y))\n"
              "    for t, i in enumerate(idx, 1):\n        alpha = beta / (lam * t)\n        total += alpha\n"
              "        if y[i] * (K[i] @ alpha) < 1:\n            beta[i] += y[i]\n"
              "    return total / len(idx)\n"),
))


# questions -----------------------------------------------------------------------------

_Q = [
    Question(id="02.c_expneg", kind="concept",
             prompt="Is k(x, x') = exp(γ x x') with γ = −1 a kernel on the real line?",
             choices=("yes: the exponential of a kernel is a kernel",
                      "no: some Gram matrix of it has a negative eigenvalue"),
             answer=1,
             explanation="γ x x' is a kernel only for γ ≥ 0; on {1, −1} the 2×2 Gram matrix has "
                         "determinant e^−2 − e^2 < 0."),
    Question(id="02.c_sigma", kind="concept",
             prompt="Kernel SGD with the Gaussian kernel: compared with σ = 0.1, the test accuracy with a "
                    "tiny σ = 0.005 is ...",
             choices=("higher: more flexible is better",
                      "lower: the boundary bends around individual training points",
                      "exactly the same"),
             answer=1,
             explanation="With a tiny σ, k(x, x_j) is almost 0 except next to x_j, so the boundary "
                         "follows single training points and the test accuracy drops (a too large σ "
                         "hurts too: the boundary becomes almost linear)."),
    Question(id="02.q1", prompt="Dimension of the feature map of the kernel (1 + <x, x'>)² on R^3?",
             choices=(), answer=10.0, tol=1e-9,
             explanation="1 + 3 (√2 x_j) + 3 (x_j²) + 3 (√2 x_j x_k, j < k) = 10 = C(3 + 2, 2)."),
    Question(id="02.q2", prompt="Which property must EVERY Gram matrix of a kernel have?",
             choices=("all entries positive", "positive semi-definite", "diagonal entries equal to 1",
                      "invertible"),
             answer=1,
             explanation="Σ c_i c_j K_ij = ‖Σ c_i ψ(x_i)‖² ≥ 0 (HSS1 (1.9)); the converse makes it a kernel."),
    Question(id="02.q3", prompt="The representer theorem says a minimiser of (λ/2)‖w‖² + (1/m)Σ loss can be "
                                "written as ...",
             choices=("w = Σ_i α_i ψ(x_i)", "w = ψ(x_1)", "w = K^-1 y", "w = 0"), answer=0,
             explanation="The part of w orthogonal to span{ψ(x_i)} only increases ‖w‖ (UML Theorem 16.1)."),
    Question(id="02.q4", prompt="Kernel ridge regression with Gram matrix K, m examples and our λ solves ...",
             choices=("K α = y", "(K + λ I) α = y", "(K + λ m I) α = y", "(K + I/λ) α = y"), answer=2,
             explanation="The gradient K(λα + (Kα − y)/m) vanishes when (K + λmI)α = y."),
    Question(id="02.q5", prompt="Gaussian kernel exp(−‖x − x'‖²/(2σ)) in UML's convention, σ = 0.5, "
                                "‖x − x'‖ = 1: the value (4 decimals)?",
             choices=(), answer=float(np.exp(-1.0)), tol=1e-4,
             explanation="exp(−1/(2·0.5)) = e^−1 ≈ 0.3679; UML's σ is not squared."),
]
for _q in _Q:
    register_question(_q)
