"""Exercises of chapter 02 (kernels): feature map, Gram matrix, kernel perceptron,
kernel ridge, class-mean classifier.

Only the code of each exercise's record in ``records/ch02.toml`` (see :mod:`.record`): the
reference implementation, the visible cases and any catalogued mistake's wrong implementation.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from ..kernel_methods import class_mean_classifier, kernel_perceptron, kernel_ridge
from ..kernels import gram, polynomial_features
from .model import Case


def _rng(seed):
    return np.random.default_rng(seed)


# 02.poly_features — an explicit map for (1 + <x, x'>)^2 (UML Example 16.1) -----------------


def poly2_features(X):
    """Explicit features psi(x) (one row per point) with <psi(x), psi(x')> = (1 + <x, x'>)^2."""
    return polynomial_features(np.asarray(X, dtype=float), 2)


def _poly_cases():
    r = _rng(21)
    cases = [
        Case((np.array([[1.0, 2.0]]),), label="one point x = (1, 2)"),
        Case((np.array([[0.0, 0.0], [1.0, -1.0]]),), label="the origin and (1, -1)"),
    ]
    for d in (1, 2, 3, 4):
        cases.append(
            Case((r.normal(size=(5, d)),), label=f"5 random points in {d} dimension{'s' if d > 1 else ''}")
        )
    return cases


# 02.gram — the Gaussian Gram matrix in UML's convention (Example 16.2) ----------------------


def gaussian_gram(X, Y, sigma):
    """K[i, j] = exp(-||X[i] - Y[j]||^2 / (2 sigma))."""
    return gram("gaussian", np.asarray(X, dtype=float), np.asarray(Y, dtype=float), sigma=sigma)


def _gram_cases():
    r = _rng(22)
    cases = [
        Case((np.array([[0.0]]), np.array([[2.0]]), 1.0), label="x = 0, x' = 2, σ = 1 (e⁻²)"),
        Case(
            (np.array([[1.0, 1.0], [0.0, 0.0]]), np.array([[1.0, 1.0]]), 0.5),
            label="a point with itself gives 1",
        ),
    ]
    for _ in range(4):
        d = int(r.integers(1, 5))
        cases.append(
            Case(
                (
                    r.normal(size=(int(r.integers(2, 6)), d)),
                    r.normal(size=(int(r.integers(2, 6)), d)),
                    float(r.uniform(0.2, 3.0)),
                ),
                label=f"random X and Y in {d} dimension{'s' if d > 1 else ''}, random σ",
            )
        )
    return cases


# 02.kernel_perceptron — UML ex. 16.2 ---------------------------------------------------------


def kernel_perceptron_alpha(K, y):
    """alpha of the batch perceptron in kernel form (first mistake first, test <= 0)."""
    return kernel_perceptron(K, y).alpha


def _separable_kernel_case(r, m, kind):
    X = r.normal(size=(m, 2))
    if kind == "circle":
        y = np.where(np.sum(X**2, 1) > 1.0, 1.0, -1.0)
        keep = np.abs(np.sum(X**2, 1) - 1.0) > 0.25
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


# 02.kernel_ridge — UML ex. 16.3 --------------------------------------------------------------


def kernel_ridge_alpha(K, y, lam):
    """alpha = (K + lam m I)^{-1} y, minimiser of (lam/2)||w||^2 + (1/(2m)) sum (<w,psi(x_i)> - y_i)^2."""
    return kernel_ridge(K, y, lam).alpha


def _ridge_cases():
    r = _rng(24)
    cases = [Case((np.eye(2), np.array([1.0, 2.0]), 0.5), label="K = I, m = 2, λ = 0.5")]
    for m in (4, 7, 12):
        X = r.normal(size=(m, 2))
        cases.append(
            Case(
                (gram("gaussian", X, sigma=1.0), r.normal(size=m), float(r.uniform(0.01, 1.0))),
                label=f"Gaussian Gram matrix of {m} random points, random y and λ",
            )
        )
    X = r.normal(size=(6, 3))
    cases.append(Case((gram("polynomial", X, degree=2), r.normal(size=6), 0.1), label="polynomial kernel"))
    return cases


# 02.class_mean — HSS1 (1.6), UML ex. 16.6 ----------------------------------------------------


def class_mean_scores(K_test, K, y):
    """(1/m+) sum_{y_i=+1} k(x, x_i) - (1/m-) sum_{y_i=-1} k(x, x_i) + b, b from kernel values."""
    return class_mean_classifier(K, y).decision_function(K_test)


def _class_mean_cases():
    r = _rng(25)
    cases = [
        Case(
            (np.array([[1.0, 0.0]]), np.eye(2), np.array([1.0, -1.0])),
            label="K = I: test point equal to the positive example",
        )
    ]
    for m, kind in ((6, "linear"), (10, "gaussian"), (15, "polynomial")):
        X, Z = r.normal(size=(m, 2)), r.normal(size=(5, 2))
        y = np.where(np.arange(m) % 3 == 0, 1.0, -1.0)
        params = {"gaussian": {"sigma": 0.7}, "polynomial": {"degree": 2}}.get(kind, {})
        cases.append(Case((gram(kind, Z, X, **params), gram(kind, X, **params), y), label=f"{kind}, m = {m}"))
    return cases


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
    cases = [
        Case(
            (np.eye(2), np.array([1.0, -1.0]), 1.0, np.array([0, 1, 0])),
            label="K = I, two points, idx = (0, 1, 0)",
        ),
        Case(
            (np.array([[4.0]]), np.array([1.0]), 2.0, np.array([0, 0, 0])),
            label="y (Kα)_i = 1 exactly at t = 2: no update",
        ),
    ]
    for m, T, lam in ((5, 12, 0.5), (8, 40, 0.1), (10, 60, 0.05)):
        X = r.normal(size=(m, 2))
        cases.append(
            Case(
                (
                    gram("gaussian", X, sigma=1.0),
                    r.choice([-1.0, 1.0], size=m),
                    lam,
                    r.integers(0, m, size=T),
                ),
                label=f"Gaussian Gram of {m} points, λ = {lam}, T = {T}",
            )
        )
    return cases


# Catalogued mistakes (wrong implementations the records' ``mistakes`` name) -------------


def _monomials(X, scale):
    """[1, s1·x_i, s2·x_i x_j (i < j), x_i²]: the map of (1 + <x, x'>)² when s1 = s2 = √2."""
    X = np.asarray(X, dtype=float)
    d = X.shape[1]
    cross = [scale * X[:, i] * X[:, j] for i in range(d) for j in range(i + 1, d)]
    return np.column_stack([np.ones(len(X)), *(scale * X).T, *cross, *(X**2).T])


def _poly_no_sqrt2(X):
    return _monomials(X, 1.0)


def _poly_homogeneous(X):
    X = np.asarray(X, dtype=float)
    return (X[:, :, None] * X[:, None, :]).reshape(len(X), -1)


def _poly_not_squared(X):
    X = np.asarray(X, dtype=float)
    return np.column_stack([np.ones(len(X)), X])


def _sqdist(X, Y):
    X, Y = np.asarray(X, dtype=float), np.asarray(Y, dtype=float)
    return np.sum((X[:, None, :] - Y[None, :, :]) ** 2, axis=2)


def _gram_two_sigma_squared(X, Y, sigma):
    return np.exp(-_sqdist(X, Y) / (2 * sigma**2))


def _gram_sigma_as_gamma(X, Y, sigma):
    return np.exp(-sigma * _sqdist(X, Y))


def _gram_not_squared(X, Y, sigma):
    return np.exp(-np.sqrt(_sqdist(X, Y)) / (2 * sigma))


def _gram_over_sigma(X, Y, sigma):
    return np.exp(-_sqdist(X, Y) / sigma)


def _until_clean_pass(m, visits, update, *, restart=False):
    """The perceptron's scan, shared by the wrong implementations of 02.kernel_perceptron and
    04.multiclass_perceptron: visit i = 0, 1, ..., m − 1, 0, 1, ... calling ``update(i)``
    (true when it changed the weights) until m visits in a row change nothing, or for
    ``visits`` visits at most; with ``restart``, the scan starts again at 0 after an update."""
    i, clean = 0, 0
    for _ in range(visits):
        if update(i):
            clean = 0
            i = 0 if restart else (i + 1) % m
            continue
        clean += 1
        if clean >= m:
            return
        i = (i + 1) % m


def _kperceptron(K, y, *, by_one=False, cyclic=False, strict=False, cap=2000):
    K, y = np.asarray(K, dtype=float), np.asarray(y, dtype=float)
    alpha = np.zeros(len(y))

    def update(i):
        s = y[i] * (K[i] @ alpha)
        if (s < 0) if strict else (s <= 0):
            alpha[i] += 1.0 if by_one else y[i]
            return True
        return False

    _until_clean_pass(len(y), cap * len(y), update, restart=not cyclic)
    return alpha


_kperceptron_x_not_y = partial(_kperceptron, by_one=True)
_kperceptron_wrong_index = partial(_kperceptron, cyclic=True)
_kperceptron_strict = partial(_kperceptron, strict=True)


def _ridge_no_m(K, y, lam):
    K = np.asarray(K, dtype=float)
    return np.linalg.solve(K + lam * np.eye(len(K)), np.asarray(y, dtype=float))


def _ridge_two_lam_m(K, y, lam):
    return kernel_ridge_alpha(K, y, 2 * lam)


def _ridge_no_regulariser(K, y, lam):
    return np.linalg.solve(np.asarray(K, dtype=float), np.asarray(y, dtype=float))


def _class_mean(K_test, K, y, offset=1.0, sums=False):
    K_test, K, y = np.asarray(K_test, dtype=float), np.asarray(K, dtype=float), np.asarray(y, dtype=float)
    pos, neg = y > 0, y < 0
    agg = np.sum if sums else np.mean
    b = 0.5 * (K[np.ix_(neg, neg)].mean() - K[np.ix_(pos, pos)].mean())
    return agg(K_test[:, pos], axis=1) - agg(K_test[:, neg], axis=1) + offset * b


_class_mean_no_b = partial(_class_mean, offset=0.0)
_class_mean_minus_b = partial(_class_mean, offset=-1.0)
_class_mean_sums = partial(_class_mean, sums=True)


def _ksgd(K, y, lam, idx, *, t_scale=True, last=False, label_in_test=True, after=None):
    """``after``: None (the average of the α(t) taken before step t's update), "same t" (β
    after the update, still divided by λt) or "next t" (the iterates α(2), ..., α(T + 1))."""
    K, y = np.asarray(K, dtype=float), np.asarray(y, dtype=float)
    beta, total, alpha = np.zeros(len(y)), np.zeros(len(y)), np.zeros(len(y))
    for t, i in enumerate(idx, 1):
        alpha = beta / (lam * t if t_scale else lam)
        if after is None:
            total += alpha
        if (y[i] if label_in_test else 1.0) * (K[i] @ alpha) < 1:
            beta[i] += y[i]
        if after is not None:
            total += beta / (lam * (t if after == "same t" else t + 1))
    return alpha if last else total / len(idx)


_ksgd_lambda = partial(_ksgd, t_scale=False)
_ksgd_last = partial(_ksgd, last=True)
_ksgd_no_label = partial(_ksgd, label_in_test=False)
_ksgd_after_update = partial(_ksgd, after="same t")
_ksgd_next_iterates = partial(_ksgd, after="next t")
