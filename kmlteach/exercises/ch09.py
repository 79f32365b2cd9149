"""Exercises of chapter 09 (HSS2 §2.2.2-2.5): one NORMA step, the ν-property counted from
a solution, a one-class decision value, a Monte-Carlo Rademacher average with its bound,
and the feasible set and objective of the ν-SVM dual (2.6) derived from the primal (2.5).

Only the code of each exercise's record in ``records/ch09.toml`` (see :mod:`.record`): the
reference implementation, the visible cases and any catalogued mistake's wrong implementation.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from .model import Case

__all__ = ["norma_step", "nu_property", "oneclass_value", "rademacher", "nu_dual"]


def _gauss(A, B, sigma):
    d2 = np.sum(A**2, 1)[:, None] + np.sum(B**2, 1)[None, :] - 2 * A @ B.T
    return np.exp(-np.maximum(d2, 0.0) / (2 * sigma))


# 09.norma_step — one step of Algorithm 2.1 in expansion form --------------------------------


def norma_step(coef, k_row, y_t, lam, eta):
    """Coefficients of f_{t+1} = (1 − ηλ) f_t − η l'_t k(x_t, ·) for the hinge loss
    max(0, 1 − y f), given those of f_t and k_row[s] = k(x_s, x_t)."""
    coef = np.asarray(coef, dtype=float)
    f = float(coef @ np.asarray(k_row, dtype=float))
    der = -y_t if y_t * f < 1 else 0.0
    return np.r_[(1 - eta * lam) * coef, -eta * der]


def _norma_cases():
    r = np.random.default_rng(91)
    cases = [
        Case((np.zeros(0), np.zeros(0), 1.0, 0.1, 0.5), label="first step: f_1 = 0, so y f = 0 < 1"),
        Case(
            (np.array([0.5, -0.2]), np.array([1.0, 0.5]), -1.0, 0.2, 0.5), label="y f = −0.4 < 1: an update"
        ),
        Case(
            (np.array([2.0, 1.0]), np.array([0.6, 0.5]), 1.0, 0.1, 0.5),
            label="y f = 1.7 ≥ 1: only the shrinking",
        ),
        Case((np.array([1.0]), np.array([1.0]), 1.0, 0.0, 1.0), label="y f = 1 exactly: no update"),
        Case(
            (np.array([-1.5]), np.array([1.0]), -1.0, 0.1, 0.5),
            label="y = −1, f = −1.5: y f = 1.5 ≥ 1, only the shrinking",
        ),
    ]
    for t in (3, 8, 20):
        cases.append(
            Case(
                (
                    np.round(r.normal(size=t), 3),
                    np.round(r.random(t), 3),
                    float(r.choice([-1.0, 1.0])),
                    0.05,
                    0.3,
                ),
                label=f"{t} earlier points: random coefficients and kernel values",
            )
        )
    return cases


# 09.nu_property — fractions of margin errors and support vectors -----------------------------


def nu_property(alpha, yf, rho, tol=1e-6):
    """(fraction of margin errors y_i f(x_i) < ρ − tol, fraction of support vectors α_i > tol)."""
    alpha = np.asarray(alpha, dtype=float)
    yf = np.asarray(yf, dtype=float)
    return float(np.mean(yf < rho - tol)), float(np.mean(alpha > tol))


def _nu_cases():
    from ..kernels import gram
    from ..svm import nu_svm

    r = np.random.default_rng(92)
    cases = [
        Case(
            (np.array([0.0, 0.5, 1.0, 1.0]), np.array([2.0, 1.0, 0.3, -0.5]), 1.0),
            label="one free SV on the margin, two margin errors",
        ),
        Case(
            (np.array([0.0, 0.0, 1.0, 1.0]), np.array([1.5, 1.2, 1.0 - 1e-9, 0.2]), 1.0),
            label="y f = ρ up to round-off is not a margin error",
        ),
        Case(
            (np.array([1e-9, 0.4, 1.0, 1.0]), np.array([1.3, 1.0, 0.5, -0.2]), 1.0),
            label="α_i = 1e-9 (round-off) is not a support vector",
        ),
    ]
    for n, nu in ((20, 0.2), (30, 0.5), (40, 0.35)):
        y = np.r_[np.ones(n // 2), -np.ones(n - n // 2)]
        X = r.normal(size=(n, 2)) + 0.9 * y[:, None]
        s = nu_svm(X, y, nu, kernel="gaussian", sigma=1.0)
        yf = y * (gram("gaussian", X, sigma=1.0) @ (s.alpha * y) + s.b)
        cases.append(Case((s.alpha, yf, s.rho), label=f"a ν-SVM solution, n = {n}, ν = {nu}"))
    return cases


# 09.oneclass_value — the one-class decision function -------------------------------------------


def oneclass_value(alpha, X, rho, sigma, Z):
    """f(z) = Σ_i α_i exp(−||x_i − z||²/(2σ)) − ρ for every row z of Z (HSS2 §2.3.2)."""
    return _gauss(np.asarray(Z, float), np.asarray(X, float), sigma) @ np.asarray(alpha, float) - rho


def _oc_cases():
    r = np.random.default_rng(93)
    cases = [
        Case(
            (np.array([1.0]), np.zeros((1, 2)), 0.5, 1.0, np.array([[0.0, 0.0], [1.0, 1.0]])),
            label="one kernel at the origin: f(0) = 1 − ρ, f((1, 1)) = e⁻¹ − ρ",
        ),
        Case(
            (np.ones(3), np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]), 1.2, 0.5, np.array([[0.5, 0.5]])),
            label="ν = 1: all α_i = 1, a Parzen sum minus ρ",
        ),
    ]
    for n, m in ((5, 3), (12, 6), (25, 10)):
        alpha = np.round(r.random(n), 3)
        cases.append(
            Case(
                (
                    alpha,
                    np.round(r.normal(size=(n, 2)), 2),
                    float(np.round(r.random(), 3)),
                    float(r.choice([0.1, 0.5, 2.0])),
                    np.round(r.normal(size=(m, 2)), 2),
                ),
                label=f"{n} random α_i and x_i in the plane, {m} random z",
            )
        )
    return cases


# 09.rademacher — Monte-Carlo estimate and the bound (2.26) -------------------------------------


def rademacher(X, sigmas):
    """(mean over the rows σ of ``sigmas`` of ||(1/n) Σ_i σ_i x_i||, √(Σ_i ||x_i||²)/n)."""
    X = np.asarray(X, dtype=float)
    n = X.shape[0]
    est = float(np.mean(np.linalg.norm(np.asarray(sigmas, float) @ X, axis=1)) / n)
    return est, float(np.sqrt(np.sum(X**2)) / n)


def _rad_cases():
    r = np.random.default_rng(94)
    cases = [
        Case(
            (np.eye(3), np.array([[1.0, 1.0, 1.0], [1.0, -1.0, 1.0]])),
            label="orthonormal rows: every ||Σσ_i x_i|| = √n",
        )
    ]
    for n, d, draws in ((4, 2, 5), (10, 3, 20), (30, 5, 50)):
        cases.append(
            Case(
                (np.round(r.normal(size=(n, d)), 2), np.where(r.random((draws, n)) < 0.5, -1.0, 1.0)),
                label=f"{n} random points in {d} dimensions, {draws} draws of the signs",
            )
        )
    return cases


# 09.nu_dual — the dual (2.6) derived from the primal (2.5) -------------------------------------


def nu_dual(alpha, K, y, nu, tol=1e-8):
    """½ αᵀQα (Q_ij = y_i y_j K_ij) if α is feasible for (2.6) — 0 ≤ α_i ≤ 1, Σα = nν,
    αᵀy = 0, each up to ``tol`` — and +inf otherwise."""
    alpha = np.asarray(alpha, dtype=float)
    y = np.asarray(y, dtype=float)
    n = len(alpha)
    ok = (
        np.all(alpha >= -tol)
        and np.all(alpha <= 1 + tol)
        and abs(alpha.sum() - n * nu) <= tol
        and abs(alpha @ y) <= tol
    )
    if not ok:
        return np.inf
    v = alpha * y
    return float(0.5 * v @ np.asarray(K, dtype=float) @ v)


def _dual_cases():
    r = np.random.default_rng(95)
    K2 = np.array([[1.0, 0.5], [0.5, 1.0]])
    y2 = np.array([1.0, -1.0])
    cases = [
        Case((np.array([0.5, 0.5]), K2, y2, 0.5), label="feasible: ½ αᵀQα = 0.125"),
        Case((np.array([0.6, 0.4]), K2, y2, 0.5), label="αᵀy ≠ 0 (the constraint from ∂b)"),
        Case((np.array([0.5, 0.5]), K2, y2, 0.4), label="Σα ≠ nν (the constraint from ∂ρ)"),
        Case((np.array([1.5, 1.5]), K2, y2, 1.5), label="α_i > 1 (the box from ∂ξ and η_i ≥ 0)"),
    ]
    for n in (6, 10, 16):
        X = r.normal(size=(n, 2))
        y = np.r_[np.ones(n // 2), -np.ones(n - n // 2)]
        a = r.random(n)
        a[y > 0] *= 1 / a[y > 0].sum()
        a[y < 0] *= 1 / a[y < 0].sum()  # αᵀy = 0, Σα = 2
        cases.append(Case((a, _gauss(X, X, 1.0), y, 2.0 / n), label=f"a feasible α, n = {n}"))
        bad = a.copy()
        bad[0] += 0.1
        cases.append(Case((bad, _gauss(X, X, 1.0), y, 2.0 / n), label="an infeasible α"))
    return cases


# Catalogued mistakes (wrong implementations the records' ``mistakes`` name) -------------


def _norma(coef, k_row, y_t, lam, eta, *, shrink=True, at_one=False, sign=-1.0):
    coef = np.asarray(coef, dtype=float)
    f = float(coef @ np.asarray(k_row, dtype=float))
    der = -y_t if (y_t * f <= 1 if at_one else y_t * f < 1) else 0.0
    return np.r_[(1 - eta * lam) * coef if shrink else coef, sign * eta * der]


_norma_no_shrink = partial(_norma, shrink=False)
_norma_sign = partial(_norma, sign=1.0)
_norma_at_one = partial(_norma, at_one=True)


def _nu_counts(alpha, yf, rho, tol=1e-6):
    me, sv = nu_property(alpha, yf, rho, tol)
    return me * len(yf), sv * len(yf)


def _nu_no_tol(alpha, yf, rho, tol=1e-6):
    return float(np.mean(np.asarray(yf, dtype=float) < rho)), nu_property(alpha, yf, rho, tol)[1]


def _nu_on_margin(alpha, yf, rho, tol=1e-6):
    return float(np.mean(np.asarray(yf, dtype=float) <= rho + tol)), nu_property(alpha, yf, rho, tol)[1]


def _nu_swapped(alpha, yf, rho, tol=1e-6):
    return nu_property(alpha, yf, rho, tol)[::-1]


def _oc_plus_rho(alpha, X, rho, sigma, Z):
    return oneclass_value(alpha, X, -rho, sigma, Z)


def _oc_two_sigma_squared(alpha, X, rho, sigma, Z):
    return oneclass_value(alpha, X, rho, sigma**2, Z)


def _oc_no_alpha(alpha, X, rho, sigma, Z):
    return oneclass_value(np.ones(len(alpha)), X, rho, sigma, Z)


def _rad_one_draw(X, sigmas):
    return rademacher(X, np.asarray(sigmas, dtype=float)[:1])


def _rad_norm_of_mean(X, sigmas):
    X = np.asarray(X, dtype=float)
    v = np.mean(np.asarray(sigmas, dtype=float) @ X, axis=0) / X.shape[0]
    return float(np.linalg.norm(v)), rademacher(X, sigmas)[1]


def _rad_bound_no_root(X, sigmas):
    X = np.asarray(X, dtype=float)
    return rademacher(X, sigmas)[0], float(np.sum(X**2) / X.shape[0])


def _nu_dual_check(alpha, K, y, nu, tol=1e-8, *, balance=True, count=True, box=True, half=0.5):
    alpha, y = np.asarray(alpha, dtype=float), np.asarray(y, dtype=float)
    n = len(alpha)
    ok = (
        np.all(alpha >= -tol)
        and (not box or np.all(alpha <= 1 + tol))
        and abs(alpha.sum() - (n * nu if count else nu)) <= tol
        and (not balance or abs(alpha @ y) <= tol)
    )
    if not ok:
        return np.inf
    v = alpha * y
    return float(half * v @ np.asarray(K, dtype=float) @ v)


_nu_dual_no_balance = partial(_nu_dual_check, balance=False)
_nu_dual_sum_nu = partial(_nu_dual_check, count=False)
_nu_dual_no_box = partial(_nu_dual_check, box=False)
_nu_dual_no_half = partial(_nu_dual_check, half=1.0)
