"""Exercises of chapter 09: references pass and agree with independent implementations
written from the formulas, wrong answers fail with a message, stubs say "not implemented",
written solutions are correct; the recap quiz counts right answers."""

from __future__ import annotations

import math

import numpy as np
from exercise_contract import exercise_contract


def _norma_step(coef, k_row, y_t, lam, eta):
    f = sum(c * k for c, k in zip(coef, k_row))
    grad = -y_t if y_t * f < 1 else 0.0
    return np.array([(1 - eta * lam) * c for c in coef] + [-eta * grad])


def _nu_property(alpha, yf, rho, tol=1e-6):
    n = len(alpha)
    return (sum(1 for v in yf if v < rho - tol) / n, sum(1 for a in alpha if a > tol) / n)


def _oneclass_value(alpha, X, rho, sigma, Z):
    return np.array(
        [
            sum(
                a * math.exp(-sum((xi - zi) ** 2 for xi, zi in zip(x, z)) / (2 * sigma))
                for a, x in zip(alpha, X)
            )
            - rho
            for z in Z
        ]
    )


def _rademacher(X, sigmas):
    n = len(X)
    norms = [
        math.sqrt(sum(sum(s * x[j] for s, x in zip(row, X)) ** 2 for j in range(X.shape[1])))
        for row in sigmas
    ]
    return sum(norms) / len(norms) / n, math.sqrt(sum(v * v for x in X for v in x)) / n


def _nu_dual(alpha, K, y, nu, tol=1e-8):
    n = len(alpha)
    if any(a < -tol or a > 1 + tol for a in alpha):
        return math.inf
    if abs(sum(alpha) - n * nu) > tol or abs(sum(a * t for a, t in zip(alpha, y))) > tol:
        return math.inf
    return 0.5 * sum(alpha[i] * alpha[j] * y[i] * y[j] * K[i, j] for i in range(n) for j in range(n))


INDEPENDENT = {
    "09.norma_step": _norma_step,
    "09.nu_property": _nu_property,
    "09.oneclass_value": _oneclass_value,
    "09.rademacher": _rademacher,
    "09.nu_dual": _nu_dual,
}


def _dual_without_sum_constraint(alpha, K, y, nu, tol=1e-8):
    if np.any(alpha < -tol) or np.any(alpha > 1 + tol) or abs(alpha @ y) > tol:
        return np.inf
    v = alpha * y
    return 0.5 * v @ K @ v


WRONG = {
    # forgets the shrinking (1 − ηλ) of the old coefficients
    "09.norma_step": lambda coef, k, y, lam, eta: _norma_step(coef, k, y, 0.0, eta),
    # the two fractions swapped
    "09.nu_property": lambda a, yf, rho, tol=1e-6: _nu_property(a, yf, rho, tol)[::-1],
    # σ read as a standard deviation: exp(−d²/(2σ²))
    "09.oneclass_value": lambda a, X, rho, s, Z: _oneclass_value(a, X, rho, s**2, Z),
    # the estimate without the 1/n
    "09.rademacher": lambda X, S: (_rademacher(X, S)[0] * len(X), _rademacher(X, S)[1]),
    "09.nu_dual": _dual_without_sum_constraint,
}

(
    test_every_exercise_has_its_test_functions,
    test_reference_and_independent_solution_pass,
    test_wrong_answer_fails_with_message,
    test_stub_reports_not_implemented,
    test_written_solutions_pass,
) = exercise_contract(["09"], INDEPENDENT, WRONG)
