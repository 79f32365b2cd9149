"""Exercises of chapter 09 (HSS2 §2.2.2-2.5): one NORMA step, the ν-property counted from
a solution, a one-class decision value, a Monte-Carlo Rademacher average with its bound,
and the feasible set and objective of the ν-SVM dual (2.6) derived from the primal (2.5).
Also the chapter's five-question recap quiz (:func:`recap_quiz`).

The hints are tiered: each exercise stores a list of hints in order of increasing
help; ``hint(id)`` prints them numbered.
"""

from __future__ import annotations

import numpy as np

from .core import Case, Exercise, allclose, register
from .quiz import Question, register_question

__all__ = ["norma_step", "nu_property", "oneclass_value", "rademacher", "nu_dual", "recap_quiz",
           "RECAP"]


def _gauss(A, B, sigma):
    d2 = np.sum(A ** 2, 1)[:, None] + np.sum(B ** 2, 1)[None, :] - 2 * A @ B.T
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
    cases = [Case((np.zeros(0), np.zeros(0), 1.0, 0.1, 0.5), label="first step: f_1 = 0, so y f = 0 < 1"),
             Case((np.array([0.5, -0.2]), np.array([1.0, 0.5]), -1.0, 0.2, 0.5),
                  label="y f = −0.4 < 1: an update"),
             Case((np.array([2.0, 1.0]), np.array([0.6, 0.5]), 1.0, 0.1, 0.5),
                  label="y f = 1.7 ≥ 1: only the shrinking"),
             Case((np.array([1.0]), np.array([1.0]), 1.0, 0.0, 1.0), label="y f = 1 exactly: no update")]
    for t in (3, 8, 20):
        cases.append(Case((np.round(r.normal(size=t), 3), np.round(r.random(t), 3),
                           float(r.choice([-1.0, 1.0])), 0.05, 0.3)))
    return cases


register(Exercise(
    id="09.norma_step", minutes=10, title="one NORMA step in kernel-expansion form (HSS2 Algorithm 2.1)",
    reference=norma_step, cases=_norma_cases, compare=allclose(),
    hint=[
        "First evaluate the current function at the new point: f_t(x_t) = Σ_s coef[s] · k_row[s].",
        "The hinge loss max(0, 1 − y f) has derivative l' = −y when y f < 1 and 0 otherwise "
        "(take 0 at y f = 1).",
        "Every old coefficient is multiplied by (1 − η λ) and one coefficient −η l' is appended: "
        "return np.r_[(1 - eta * lam) * coef, -eta * der].",
    ],
    solution=("def norma_step(coef, k_row, y_t, lam, eta):\n    f = coef @ k_row\n"
              "    der = -y_t if y_t * f < 1 else 0.0\n"
              "    return np.r_[(1 - eta * lam) * coef, -eta * der]\n"),
))


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
    cases = [Case((np.array([0.0, 0.5, 1.0, 1.0]), np.array([2.0, 1.0, 0.3, -0.5]), 1.0),
                  label="one free SV on the margin, two margin errors"),
             Case((np.array([0.0, 0.0, 1.0, 1.0]), np.array([1.5, 1.2, 1.0 - 1e-9, 0.2]), 1.0),
                  label="y f = ρ up to round-off is not a margin error")]
    for n, nu in ((20, 0.2), (30, 0.5), (40, 0.35)):
        y = np.r_[np.ones(n // 2), -np.ones(n - n // 2)]
        X = r.normal(size=(n, 2)) + 0.9 * y[:, None]
        s = nu_svm(X, y, nu, kernel="gaussian", sigma=1.0)
        yf = y * (gram("gaussian", X, sigma=1.0) @ (s.alpha * y) + s.b)
        cases.append(Case((s.alpha, yf, s.rho), label=f"a ν-SVM solution, n = {n}, ν = {nu}"))
    return cases


register(Exercise(
    id="09.nu_property", minutes=10, title="the ν-property counted from a solution (HSS2 §2.3.1)",
    reference=nu_property, cases=_nu_cases, compare=allclose(),
    hint=[
        "A margin error is a point whose slack ξ_i is positive: y_i f(x_i) < ρ. A support vector "
        "is a point with α_i > 0.",
        "Solvers stop at a tolerance, so compare with it: margin error iff yf < rho - tol, support "
        "vector iff alpha > tol.",
        "return np.mean(yf < rho - tol), np.mean(alpha > tol) — and check the first ≤ ν ≤ the second.",
    ],
    solution=("def nu_property(alpha, yf, rho, tol=1e-6):\n"
              "    return float(np.mean(yf < rho - tol)), float(np.mean(alpha > tol))\n"),
))


# 09.oneclass_value — the one-class decision function -------------------------------------------

def oneclass_value(alpha, X, rho, sigma, Z):
    """f(z) = Σ_i α_i exp(−||x_i − z||²/(2σ)) − ρ for every row z of Z (HSS2 §2.3.2)."""
    return _gauss(np.asarray(Z, float), np.asarray(X, float), sigma) @ np.asarray(alpha, float) - rho


def _oc_cases():
    r = np.random.default_rng(93)
    cases = [Case((np.array([1.0]), np.zeros((1, 2)), 0.5, 1.0, np.array([[0.0, 0.0], [1.0, 1.0]])),
                  label="one kernel at the origin: f(0) = 1 − ρ, f((1, 1)) = e^{−1} − ρ"),
             Case((np.ones(3), np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]), 1.2, 0.5,
                   np.array([[0.5, 0.5]])), label="ν = 1: all α_i = 1, a Parzen sum minus ρ")]
    for n, m in ((5, 3), (12, 6), (25, 10)):
        alpha = np.round(r.random(n), 3)
        cases.append(Case((alpha, np.round(r.normal(size=(n, 2)), 2), float(np.round(r.random(), 3)),
                           float(r.choice([0.1, 0.5, 2.0])), np.round(r.normal(size=(m, 2)), 2))))
    return cases


register(Exercise(
    id="09.oneclass_value", minutes=10, title="a one-class SVM decision value (HSS2 (2.8))",
    reference=oneclass_value, cases=_oc_cases, compare=allclose(),
    hint=[
        "The decision function of the one-class SVM is an expansion over the sample: "
        "f(z) = Σ_i α_i k(x_i, z) − ρ, with the Gaussian kernel k(x, z) = exp(−||x − z||²/(2σ)).",
        "Squared distances between every z and every x_i: "
        "D2 = ((Z[:, None, :] - X[None, :, :]) ** 2).sum(-1), shape (m, n).",
        "return np.exp(-D2 / (2 * sigma)) @ alpha - rho",
    ],
    solution=("def oneclass_value(alpha, X, rho, sigma, Z):\n"
              "    D2 = ((Z[:, None, :] - X[None, :, :]) ** 2).sum(-1)\n"
              "    return np.exp(-D2 / (2 * sigma)) @ alpha - rho\n"),
))


# 09.rademacher — Monte-Carlo estimate and the bound (2.26) -------------------------------------

def rademacher(X, sigmas):
    """(mean over the rows σ of ``sigmas`` of ||(1/n) Σ_i σ_i x_i||, √(Σ_i ||x_i||²)/n)."""
    X = np.asarray(X, dtype=float)
    n = X.shape[0]
    est = float(np.mean(np.linalg.norm(np.asarray(sigmas, float) @ X, axis=1)) / n)
    return est, float(np.sqrt(np.sum(X ** 2)) / n)


def _rad_cases():
    r = np.random.default_rng(94)
    cases = [Case((np.eye(3), np.array([[1.0, 1.0, 1.0], [1.0, -1.0, 1.0]])),
                  label="orthonormal rows: every ||Σσ_i x_i|| = √n")]
    for n, d, draws in ((4, 2, 5), (10, 3, 20), (30, 5, 50)):
        cases.append(Case((np.round(r.normal(size=(n, d)), 2),
                           np.where(r.random((draws, n)) < 0.5, -1.0, 1.0))))
    return cases


register(Exercise(
    id="09.rademacher", minutes=15, title="a Rademacher average and its bound (HSS2 (2.26))",
    reference=rademacher, cases=_rad_cases, compare=allclose(),
    hint=[
        "For the unit ball of linear functions, sup_w (1/n) Σ σ_i ⟨w, x_i⟩ = ||(1/n) Σ σ_i x_i|| "
        "(take w along the sum). Average this over the rows of `sigmas`.",
        "All draws at once: S = sigmas @ X has one row Σ_i σ_i x_i per draw; the estimate is "
        "np.linalg.norm(S, axis=1).mean() / n.",
        "The bound of (2.26) divided by n: np.sqrt((X ** 2).sum()) / n. Return (estimate, bound).",
    ],
    solution=("def rademacher(X, sigmas):\n    n = X.shape[0]\n"
              "    estimate = np.linalg.norm(sigmas @ X, axis=1).mean() / n\n"
              "    return estimate, np.sqrt((X ** 2).sum()) / n\n"),
))


# 09.nu_dual — the dual (2.6) derived from the primal (2.5) -------------------------------------

def nu_dual(alpha, K, y, nu, tol=1e-8):
    """½ αᵀQα (Q_ij = y_i y_j K_ij) if α is feasible for (2.6) — 0 ≤ α_i ≤ 1, Σα = nν,
    αᵀy = 0, each up to ``tol`` — and +inf otherwise."""
    alpha = np.asarray(alpha, dtype=float)
    y = np.asarray(y, dtype=float)
    n = len(alpha)
    ok = (np.all(alpha >= -tol) and np.all(alpha <= 1 + tol) and abs(alpha.sum() - n * nu) <= tol
          and abs(alpha @ y) <= tol)
    if not ok:
        return np.inf
    v = alpha * y
    return float(0.5 * v @ np.asarray(K, dtype=float) @ v)


def _dual_cases():
    r = np.random.default_rng(95)
    K2 = np.array([[1.0, 0.5], [0.5, 1.0]])
    y2 = np.array([1.0, -1.0])
    cases = [Case((np.array([0.5, 0.5]), K2, y2, 0.5), label="feasible: ½ αᵀQα = 0.125"),
             Case((np.array([0.6, 0.4]), K2, y2, 0.5), label="αᵀy ≠ 0 (the constraint from ∂b)"),
             Case((np.array([0.5, 0.5]), K2, y2, 0.4), label="Σα ≠ nν (the constraint from ∂ρ)"),
             Case((np.array([1.5, 1.5]), K2, y2, 1.5), label="α_i > 1 (the box from ∂ξ and η_i ≥ 0)")]
    for n in (6, 10, 16):
        X = r.normal(size=(n, 2))
        y = np.r_[np.ones(n // 2), -np.ones(n - n // 2)]
        a = r.random(n)
        a[y > 0] *= 1 / a[y > 0].sum()
        a[y < 0] *= 1 / a[y < 0].sum()               # αᵀy = 0, Σα = 2
        cases.append(Case((a, _gauss(X, X, 1.0), y, 2.0 / n)))
        bad = a.copy()
        bad[0] += 0.1
        cases.append(Case((bad, _gauss(X, X, 1.0), y, 2.0 / n), label="an infeasible α"))
    return cases


register(Exercise(
    id="09.nu_dual", minutes=20, title="the ν-SVM dual (2.6) from the primal (2.5)",
    reference=nu_dual, cases=_dual_cases, compare=allclose(),
    hint=[
        "Write the Lagrangian of (2.5) with multipliers α_i ≥ 0 for y_i(⟨w, x_i⟩ + b) ≥ ρ − ξ_i and "
        "η_i ≥ 0 for ξ_i ≥ 0, and set its derivatives in w, b, ξ_i and ρ to zero.",
        "∂w gives w = Σ α_i y_i x_i; ∂b gives Σ α_i y_i = 0; ∂ξ_i gives 1 − α_i − η_i = 0, so "
        "0 ≤ α_i ≤ 1; ∂ρ gives Σ α_i = nν. What is left of the Lagrangian is −½ αᵀQα.",
        "Check the three constraints with tolerance tol (return np.inf if one fails), then "
        "return 0.5 * (alpha * y) @ K @ (alpha * y).",
    ],
    solution=("def nu_dual(alpha, K, y, nu, tol=1e-8):\n    n = len(alpha)\n"
              "    if (alpha.min() < -tol or alpha.max() > 1 + tol\n"
              "            or abs(alpha.sum() - n * nu) > tol or abs(alpha @ y) > tol):\n"
              "        return np.inf\n    v = alpha * y\n    return 0.5 * v @ K @ v\n"),
))


# the recap quiz (HSS2 §2.2.2-2.5) ------------------------------------------------------------

_RECAP = [
    ("NORMA with λ > 0 and a constant step η takes one more step. What happens to the "
     "coefficient of an old term?",
     ("nothing", "it is multiplied by 1 − ηλ", "it is set to 0", "it is multiplied by η"), 1,
     "With λ > 0 each NORMA step multiplies every old coefficient by (1 − ηλ) < 1."),
    ("A ν-SVM solution has ρ > 0. Which is always true?",
     ("fraction of SVs ≤ ν ≤ fraction of margin errors", "ν equals the fraction of SVs",
      "fraction of margin errors ≤ ν ≤ fraction of SVs", "ν ≤ fraction of margin errors"), 2,
     "ν bounds the fraction of margin errors from above and of support vectors from below."),
    ("What does ν = 1 give in (2.6) for balanced classes?",
     ("every α_i = 1: the Parzen-window classifier", "the hard-margin SVM", "α = 0",
      "an infeasible problem"), 0,
     "ν = 1 forces every α_i = 1: the Parzen-window classifier (and density for one class)."),
    ("The bound (2.26) on E_σ‖Σ_i σ_i x_i‖ depends on",
     ("the dimension", "the number of support vectors", "only √(Σ_i ‖x_i‖²)", "the labels"), 2,
     "(2.26): E‖Σσ_i x_i‖ ≤ √(Σ‖x_i‖²), with no dimension in it."),
    ("The constants of (2.27) for the soft-margin loss are",
     ("c = √8, s = ½", "c = 4, s = 1", "c = 1, s = 2", "c = 4, s = ½"), 1,
     "(2.27) gives c = 4, s = 1 for the soft margin and c = √8, s = ½ for the logistic loss."),
]
for _i, (_prompt, _choices, _answer, _why) in enumerate(_RECAP, 1):
    register_question(Question(id=f"09.q{_i}", prompt=_prompt, choices=_choices,
                               answer=_answer, explanation=_why))
